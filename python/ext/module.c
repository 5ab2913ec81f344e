/* gcut._gcut: the module, its exceptions (one class per gcut_status under
 * gcut.Error), contexts, buffers, and the small functions (version, GPUs,
 * image files). */
#include <stdarg.h>
#include <string.h>

#include "ext.h"

/* Each status's class, its Python name and the built-in it also derives
 * from, so that `except ValueError` catches a bad argument as it would
 * from numpy. */
typedef struct status_class {
    gcut_status status;
    const char *name;
    const char *doc;
    PyObject **base; /* the built-in exception (NULL: gcut.Error only) */
    PyObject *cls;
} status_class;

static PyObject *error_base; /* gcut.Error */

static status_class classes[] = {
    {GCUT_E_INVALID, "InvalidArgumentError", "An argument is out of range or inconsistent.",
     &PyExc_ValueError, NULL},
    {GCUT_E_NOMEM, "OutOfMemoryError", "Host memory could not be allocated.", &PyExc_MemoryError,
     NULL},
    {GCUT_E_IO, "FileError", "A file could not be opened, read or written.", &PyExc_OSError,
     NULL},
    {GCUT_E_FORMAT, "FormatError", "A file is malformed.", &PyExc_ValueError, NULL},
    {GCUT_E_RANGE, "RangeError", "A value is out of range (a node id, a negative capacity).",
     &PyExc_ValueError, NULL},
    {GCUT_E_OVERFLOW, "CapacityOverflowError",
     "A capacity, or a sum of capacities, does not fit the library's integers.",
     &PyExc_OverflowError, NULL},
    {GCUT_E_NOTGRID, "NotGridError", "A graph file is not a grid graph.", &PyExc_ValueError,
     NULL},
    {GCUT_E_TRUNCATED, "TruncatedError", "A file ends before all it announced was read.",
     &PyExc_ValueError, NULL},
    {GCUT_E_NODEVICE, "NoDeviceError",
     "No usable GPU (none, no driver, or gcut built without CUDA).", &PyExc_RuntimeError, NULL},
    {GCUT_E_DEVICE, "DeviceError", "A GPU call failed.", &PyExc_RuntimeError, NULL},
    {GCUT_E_DEVICE_NOMEM, "DeviceMemoryError", "The GPU has not enough free memory.",
     &PyExc_MemoryError, NULL},
    {GCUT_E_UNSUPPORTED, "UnsupportedError", "This build or solver lacks the feature asked for.",
     &PyExc_RuntimeError, NULL},
    {GCUT_E_STATE, "StateError", "The call is out of order (e.g. labels before a solve).",
     &PyExc_RuntimeError, NULL},
    {GCUT_E_VERIFY, "VerifyError", "A solution's proof did not check.", &PyExc_RuntimeError,
     NULL},
};
#define N_CLASSES ((int)(sizeof classes / sizeof classes[0]))

static PyObject *class_of(gcut_status status)
{
    for (int i = 0; i < N_CLASSES; i++)
        if (classes[i].status == status)
            return classes[i].cls;
    return error_base;
}

PyObject *gcutpy_raise(gcut_context *ctx, gcut_status status)
{
    const char *msg = ctx ? gcut_last_error(ctx) : "";
    PyErr_SetString(class_of(status), msg && *msg ? msg : gcut_status_str(status));
    return NULL;
}

static PyObject *fail_v(gcut_status status, const char *fmt, va_list ap)
{
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    if (msg) {
        PyErr_SetObject(class_of(status), msg);
        Py_DECREF(msg);
    }
    return NULL;
}

PyObject *gcutpy_fail(gcut_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(status, fmt, ap);
    va_end(ap);
    return NULL;
}

PyObject *gcutpy_invalid(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(GCUT_E_INVALID, fmt, ap);
    va_end(ap);
    return NULL;
}

gcut_context *gcutpy_context(const char *device, int gpu_index, int threads)
{
    gcut_options o;
    gcut_options_init(&o);
    if (!device || !strcmp(device, "auto"))
        o.device = GCUT_DEVICE_AUTO;
    else if (!strcmp(device, "cpu"))
        o.device = GCUT_DEVICE_CPU;
    else if (!strcmp(device, "gpu") || !strcmp(device, "cuda"))
        o.device = GCUT_DEVICE_GPU;
    else
        return gcutpy_invalid("device must be 'auto', 'cpu' or 'gpu', not '%s'", device), NULL;
    if (gpu_index < 0)
        return gcutpy_invalid("gpu index %d is negative", gpu_index), NULL;
    if (threads < 0 || threads > 64)
        return gcutpy_invalid("threads must be in 0..64, not %d", threads), NULL;
    o.gpu_index = gpu_index;
    o.threads = threads;
    gcut_context *ctx = NULL;
    gcut_status st = gcut_context_create(&o, &ctx);
    if (st)
        return gcutpy_raise(NULL, st), NULL;
    return ctx;
}

int gcutpy_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t count, Py_ssize_t itemsize,
                  int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0)
        return -1;
    if (view->itemsize != itemsize || view->len != count * itemsize) {
        gcutpy_invalid("%s: expected %zd items of %zd bytes, got %zd bytes in items of %zd",
                       what, count, itemsize, view->len, view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

PyObject *gcutpy_info_dict(const gcut_solve_info *info)
{
    return Py_BuildValue("{s:L,s:d,s:s,s:s,s:L}", "flow", (long long)info->flow, "time_ms",
                         info->time_ms, "device", info->device ? info->device : "",
                         "algo", info->algo ? info->algo : "", "iterations",
                         (long long)info->iterations);
}

static PyObject *py_version(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return PyUnicode_FromString(gcut_version());
}

static PyObject *py_cuda_built(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return PyBool_FromLong(gcut_cuda_built());
}

static PyObject *py_algorithms(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return Py_BuildValue("{s:s,s:s}", "grid", gcut_grid_algorithms(), "graph",
                         gcut_graph_algorithms());
}

/* [(index, name), ...] of the usable GPUs. */
static PyObject *py_devices(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    gcut_context *ctx = gcutpy_context("auto", 0, 0);
    if (!ctx)
        return NULL;
    int count = 0;
    gcut_status st = gcut_device_count(ctx, &count);
    PyObject *list = st ? NULL : PyList_New(0);
    for (int i = 0; list && i < count; i++) {
        char name[256];
        if ((st = gcut_device_name(ctx, i, name, sizeof name))) {
            Py_CLEAR(list);
            break;
        }
        PyObject *item = Py_BuildValue("(is)", i, name);
        if (!item || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    if (st)
        gcutpy_raise(ctx, st);
    gcut_context_destroy(ctx);
    return list;
}

/* read_image(path) -> (bytes, height, width, channels, indices or None) */
static PyObject *py_read_image(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path_obj = NULL;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
        return NULL;
    gcut_context *ctx = gcutpy_context("cpu", 0, 0);
    gcut_image *im = NULL;
    gcut_status st = GCUT_E_NOMEM;
    if (ctx) {
        const char *path = PyBytes_AS_STRING(path_obj);
        Py_BEGIN_ALLOW_THREADS
        st = gcut_image_load(ctx, path, &im);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(path_obj);
    PyObject *result = NULL;
    if (!ctx) {
        return NULL;
    } else if (st) {
        gcutpy_raise(ctx, st);
    } else {
        int w = gcut_image_width(im), h = gcut_image_height(im), c = gcut_image_channels(im);
        Py_ssize_t n = (Py_ssize_t)w * h;
        const uint8_t *idx = gcut_image_indices(im);
        PyObject *idx_obj = idx ? PyBytes_FromStringAndSize((const char *)idx, n) : Py_None;
        if (idx_obj == Py_None)
            Py_INCREF(Py_None);
        if (idx_obj)
            result = Py_BuildValue("(y#iiiN)", (const char *)gcut_image_pixels(im), n * c, h, w,
                                   c, idx_obj);
    }
    gcut_image_destroy(im);
    gcut_context_destroy(ctx);
    return result;
}

static PyMethodDef methods[] = {
    {"version", py_version, METH_NOARGS, "The library's version, 'MAJOR.MINOR.PATCH'."},
    {"cuda_built", py_cuda_built, METH_NOARGS, "True when the library was built with CUDA."},
    {"algorithms", py_algorithms, METH_NOARGS, "The grid and graph solvers of this build."},
    {"devices", py_devices, METH_NOARGS, "[(index, name)] of the usable GPUs."},
    {"read_image", py_read_image, METH_VARARGS,
     "read_image(path) -> (pixels, height, width, channels, indices or None)"},
    {"graph_maxflow", (PyCFunction)(void (*)(void))gcutpy_graph_maxflow,
     METH_VARARGS | METH_KEYWORDS, "The general-graph solve (see gcut.maxflow)."},
    {"segment", (PyCFunction)(void (*)(void))gcutpy_segment, METH_VARARGS | METH_KEYWORDS,
     "The segmentation (see gcut.segment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_gcut", "The C extension of gcut (use the gcut package).", -1,
    methods, NULL, NULL, NULL, NULL,
};

static int add_exceptions(PyObject *m)
{
    error_base = PyErr_NewExceptionWithDoc(
        "gcut.Error", "A gcut call failed; `status` is the library's gcut_status code.", NULL,
        NULL);
    if (!error_base || PyObject_SetAttrString(error_base, "status", Py_None) < 0 ||
        PyModule_AddObject(m, "Error", Py_NewRef(error_base)) < 0)
        return -1;
    for (int i = 0; i < N_CLASSES; i++) {
        status_class *c = &classes[i];
        char qualified[64];
        PyOS_snprintf(qualified, sizeof qualified, "gcut.%s", c->name);
        PyObject *bases = PyTuple_Pack(2, error_base, *c->base);
        if (!bases)
            return -1;
        c->cls = PyErr_NewExceptionWithDoc(qualified, c->doc, bases, NULL);
        Py_DECREF(bases);
        PyObject *code = PyLong_FromLong((long)c->status);
        int bad = !c->cls || !code || PyObject_SetAttrString(c->cls, "status", code) < 0;
        Py_XDECREF(code);
        if (bad || PyModule_AddObject(m, c->name, Py_NewRef(c->cls)) < 0)
            return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__gcut(void)
{
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (add_exceptions(m) < 0 || PyType_Ready(&gcutpy_GridType) < 0 ||
        PyModule_AddObject(m, "Grid", Py_NewRef((PyObject *)&gcutpy_GridType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
