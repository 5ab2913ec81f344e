/* gcut._gcut.segment: seeds from arrays (scribble indices, trimap levels,
 * GrabCut's box, combined in the order `gcut segment` combines them) and
 * gcut_segment_image, the GIL released while it runs. */
#include <stdlib.h>
#include <string.h>

#include "ext.h"

/* segment(pixels, width, height, channels, mask, seeds=None, trimap=None,
 *         box=None, model="gmm", iterations=5, connectivity=8, lam=None,
 *         components=5, device="auto", gpu=0, threads=0, algo=None,
 *         verify=False) -> info dict
 * pixels: width*height*channels bytes; seeds, trimap: width*height bytes;
 * box: (x1, y1, x2, y2); mask: a writable buffer of width*height bytes. */
PyObject *gcutpy_segment(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"pixels",     "width",      "height",  "channels", "mask",
                             "seeds",      "trimap",     "box",     "model",    "iterations",
                             "connectivity", "lam",      "components", "device", "gpu",
                             "threads",    "algo",       "verify",  NULL};
    int width, height, channels, iterations = 5, conn = 8, components = 5, gpu = 0,
                                 threads = 0, verify = 0;
    PyObject *pixels_obj, *mask_obj, *seeds_obj = Py_None, *trimap_obj = Py_None,
                                     *box_obj = Py_None, *lam_obj = Py_None;
    const char *model = "gmm", *device = "auto", *algo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiiiO|OOOsiiOisiizp", kwlist, &pixels_obj,
                                     &width, &height, &channels, &mask_obj, &seeds_obj,
                                     &trimap_obj, &box_obj, &model, &iterations, &conn, &lam_obj,
                                     &components, &device, &gpu, &threads, &algo, &verify))
        return NULL;
    gcut_segment_options o;
    gcut_segment_options_init(&o);
    if (!strcmp(model, "gmm"))
        o.model = GCUT_MODEL_GMM;
    else if (!strcmp(model, "hist"))
        o.model = GCUT_MODEL_HIST;
    else
        return gcutpy_invalid("segment: model must be 'gmm' or 'hist', not '%s'", model);
    int box[4] = {0}, have_box = box_obj != Py_None;
    if (have_box && !PyArg_ParseTuple(box_obj, "iiii;box must be (x1, y1, x2, y2)", &box[0],
                                      &box[1], &box[2], &box[3]))
        return NULL;
    o.iterations = iterations;
    o.connectivity = conn;
    o.components = components;
    o.threads = threads;
    o.algo = algo;
    o.verify = verify;
    if (lam_obj != Py_None && (o.lambda = PyFloat_AsDouble(lam_obj)) == -1.0 && PyErr_Occurred())
        return NULL;
    if (width < 1 || height < 1 || channels < 1 || channels > 4)
        return gcutpy_invalid("segment: image size %dx%d with %d channels", width, height,
                              channels);
    const Py_ssize_t n = (Py_ssize_t)width * height;
    Py_buffer pixels = {0}, mask = {0}, seeds = {0}, trimap = {0};
    int have_seeds = seeds_obj != Py_None, have_trimap = trimap_obj != Py_None;
    PyObject *result = NULL;
    gcut_context *ctx = NULL;
    uint8_t *marks = NULL;
    if (gcutpy_buffer(pixels_obj, &pixels, n * channels, 1, 0, "image") < 0)
        return NULL;
    if (gcutpy_buffer(mask_obj, &mask, n, 1, 1, "mask") < 0)
        goto done_pixels;
    if (have_seeds && gcutpy_buffer(seeds_obj, &seeds, n, 1, 0, "seeds") < 0)
        goto done_mask;
    if (have_trimap && gcutpy_buffer(trimap_obj, &trimap, n, 1, 0, "trimap") < 0)
        goto done_seeds;
    if (!(ctx = gcutpy_context(device, gpu, threads)))
        goto done_trimap;
    if (!(marks = calloc((size_t)n, 1))) {
        PyErr_NoMemory();
        goto done_ctx;
    }
    gcut_segment_info info;
    gcut_status st = GCUT_OK;
    Py_BEGIN_ALLOW_THREADS
    if (have_seeds)
        st = gcut_seeds_add_indices(ctx, marks, width, height, seeds.buf);
    if (!st && have_trimap)
        st = gcut_seeds_add_levels(ctx, marks, width, height, trimap.buf);
    if (!st && have_box)
        st = gcut_seeds_add_box(ctx, marks, width, height, box[0], box[1], box[2], box[3]);
    if (!st)
        st = gcut_segment_image(ctx, pixels.buf, width, height, channels,
                                (size_t)width * (size_t)channels, marks, &o, mask.buf, &info);
    Py_END_ALLOW_THREADS
    if (st) {
        gcutpy_raise(ctx, st);
    } else {
        result = Py_BuildValue(
            "{s:L,s:d,s:L,s:i,s:d,s:i,s:d,s:d,s:d,s:s,s:s,s:d}", "flow", (long long)info.flow,
            "energy", info.energy, "foreground", (long long)info.foreground, "iterations",
            info.iterations, "beta", info.beta, "hard_cap", (int)info.hard_cap, "time_model_ms",
            info.time_model_ms, "time_graph_ms", info.time_graph_ms, "time_cut_ms",
            info.time_cut_ms, "device", info.device ? info.device : "", "algo",
            info.algo ? info.algo : "", "lambda", o.lambda);
    }
    free(marks);
done_ctx:
    gcut_context_destroy(ctx);
done_trimap:
    if (have_trimap)
        PyBuffer_Release(&trimap);
done_seeds:
    if (have_seeds)
        PyBuffer_Release(&seeds);
done_mask:
    PyBuffer_Release(&mask);
done_pixels:
    PyBuffer_Release(&pixels);
    return result;
}
