/* gcut._gcut.graph_maxflow: a general graph's maximum flow and minimum cut
 * (gcut_graph_create_from_arcs, gcut_graph_solve, gcut_graph_cut_side), the
 * GIL released while the graph is built and solved. */
#include "ext.h"

/* graph_maxflow(n, tails, heads, caps, source, sink, side, device="auto",
 *               algo=None, gpu=0) -> info dict (with the graph's stats)
 * tails, heads, caps: int32 buffers of m arcs; side: a writable buffer of n
 * bytes that gets 1 for the source side. */
PyObject *gcutpy_graph_maxflow(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"n",    "tails",  "heads", "caps", "source", "sink",
                             "side", "device", "algo",  "gpu",  NULL};
    int n, source, sink, gpu = 0;
    PyObject *tails_obj, *heads_obj, *caps_obj, *side_obj;
    const char *device = "auto", *algo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iOOOiiO|szi", kwlist, &n, &tails_obj,
                                     &heads_obj, &caps_obj, &source, &sink, &side_obj, &device,
                                     &algo, &gpu))
        return NULL;
    if (n < 2)
        return gcutpy_invalid("maxflow: a graph needs at least 2 nodes, not %d", n);
    Py_ssize_t m = PyObject_Length(tails_obj);
    if (m < 0)
        return NULL;
    Py_buffer tails = {0}, heads = {0}, caps = {0}, side = {0};
    PyObject *result = NULL;
    gcut_context *ctx = NULL;
    if (gcutpy_buffer(tails_obj, &tails, m, 4, 0, "tails") < 0)
        return NULL;
    if (gcutpy_buffer(heads_obj, &heads, m, 4, 0, "heads") < 0)
        goto done_tails;
    if (gcutpy_buffer(caps_obj, &caps, m, 4, 0, "capacities") < 0)
        goto done_heads;
    if (gcutpy_buffer(side_obj, &side, n, 1, 1, "source_side") < 0)
        goto done_caps;
    if (!(ctx = gcutpy_context(device, gpu, 0)))
        goto done_side;
    gcut_graph *g = NULL;
    gcut_solve_info info;
    gcut_graph_stats stats;
    gcut_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_graph_create_from_arcs(ctx, n, (int64_t)m, tails.buf, heads.buf, caps.buf, source,
                                     sink, &g);
    if (!st)
        st = gcut_graph_solve(g, algo, 0, &info);
    if (!st)
        st = gcut_graph_cut_side(g, side.buf);
    if (!st)
        st = gcut_graph_get_stats(g, &stats);
    Py_END_ALLOW_THREADS
    if (st) {
        gcutpy_raise(ctx, st);
    } else if ((result = gcutpy_info_dict(&info))) {
        PyObject *extra = Py_BuildValue("{s:i,s:L,s:L}", "arcs", (int)stats.arcs,
                                        "parallel_merged", (long long)stats.parallel_merged,
                                        "self_loops", (long long)stats.self_loops);
        if (!extra || PyDict_Update(result, extra) < 0)
            Py_CLEAR(result);
        Py_XDECREF(extra);
    }
    gcut_graph_destroy(g);
    gcut_context_destroy(ctx);
done_side:
    PyBuffer_Release(&side);
done_caps:
    PyBuffer_Release(&caps);
done_heads:
    PyBuffer_Release(&heads);
done_tails:
    PyBuffer_Release(&tails);
    return result;
}
