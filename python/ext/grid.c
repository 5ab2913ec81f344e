/* gcut._gcut.Grid: a gcut_grid and the context it belongs to, for repeated
 * solves (BK re-solves warm on the CPU), and the solve of capacities that
 * are in GPU memory (gcut_grid_solve_device). The GIL is released while the
 * library works; a grid is then marked busy, so that another thread's call
 * on it is refused instead of racing. */
#include <stdint.h>

#include "ext.h"

typedef struct {
    PyObject_HEAD
    gcut_context *ctx;
    gcut_grid *grid;
    int busy;
} GridObject;

/* 0 when the grid may be used now, else -1 with gcut.StateError set. */
static int check_idle(GridObject *self)
{
    if (!self->grid) {
        PyErr_SetString(PyExc_RuntimeError, "gcut.Grid: not initialised");
        return -1;
    }
    if (self->busy) {
        gcutpy_fail(GCUT_E_STATE,
                    "grid: in use by another thread (a Grid is not shared between threads)");
        return -1;
    }
    return 0;
}

static int grid_init(GridObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"width", "height", "connectivity", "device", "gpu", "threads", NULL};
    int width, height, conn = 8, gpu = 0, threads = 0;
    const char *device = "auto";
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ii|isii", kwlist, &width, &height, &conn,
                                     &device, &gpu, &threads))
        return -1;
    if (self->grid) {
        PyErr_SetString(PyExc_RuntimeError, "gcut.Grid: already initialised");
        return -1;
    }
    gcut_context *ctx = gcutpy_context(device, gpu, threads);
    if (!ctx)
        return -1;
    gcut_grid *grid = NULL;
    gcut_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_create(ctx, width, height, conn, &grid);
    Py_END_ALLOW_THREADS
    if (st) {
        gcutpy_raise(ctx, st);
        gcut_context_destroy(ctx);
        return -1;
    }
    self->ctx = ctx;
    self->grid = grid;
    return 0;
}

static void grid_dealloc(GridObject *self)
{
    gcut_grid_destroy(self->grid);
    gcut_context_destroy(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t pixels(const GridObject *self)
{
    return (Py_ssize_t)gcut_grid_width(self->grid) * gcut_grid_height(self->grid);
}

/* set_terminals(source, sink): int32 buffers of width*height, or None. */
static PyObject *grid_set_terminals(GridObject *self, PyObject *args)
{
    PyObject *src_obj, *snk_obj;
    if (!PyArg_ParseTuple(args, "OO", &src_obj, &snk_obj) || check_idle(self) < 0)
        return NULL;
    Py_buffer src = {0}, snk = {0};
    int have_src = src_obj != Py_None, have_snk = snk_obj != Py_None;
    if (have_src && gcutpy_buffer(src_obj, &src, pixels(self), 4, 0, "source") < 0)
        return NULL;
    if (have_snk && gcutpy_buffer(snk_obj, &snk, pixels(self), 4, 0, "sink") < 0) {
        if (have_src)
            PyBuffer_Release(&src);
        return NULL;
    }
    gcut_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_set_terminals(self->grid, have_src ? src.buf : NULL,
                                 have_snk ? snk.buf : NULL);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (have_src)
        PyBuffer_Release(&src);
    if (have_snk)
        PyBuffer_Release(&snk);
    if (st)
        return gcutpy_raise(self->ctx, st);
    Py_RETURN_NONE;
}

/* set_edges(direction, caps): one direction's int32 buffer of width*height. */
static PyObject *grid_set_edges(GridObject *self, PyObject *args)
{
    int dir;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "iO", &dir, &obj) || check_idle(self) < 0)
        return NULL;
    Py_buffer caps;
    if (gcutpy_buffer(obj, &caps, pixels(self), 4, 0, "edges") < 0)
        return NULL;
    gcut_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_set_edges(self->grid, (gcut_dir)dir, caps.buf);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    PyBuffer_Release(&caps);
    if (st)
        return gcutpy_raise(self->ctx, st);
    Py_RETURN_NONE;
}

/* An int32 capacity from a Python int, refusing what does not fit. */
static int to_cap(PyObject *obj, int32_t *out, const char *what)
{
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < INT32_MIN || v > INT32_MAX) {
        gcutpy_fail(GCUT_E_OVERFLOW, "%s capacity %R does not fit in int32", what, obj);
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static PyObject *grid_set_terminal(GridObject *self, PyObject *args)
{
    int x, y;
    PyObject *s_obj, *t_obj;
    int32_t s, t;
    if (!PyArg_ParseTuple(args, "iiOO", &x, &y, &s_obj, &t_obj) || check_idle(self) < 0 ||
        to_cap(s_obj, &s, "source") < 0 || to_cap(t_obj, &t, "sink") < 0)
        return NULL;
    gcut_status st = gcut_grid_set_terminal(self->grid, x, y, s, t);
    if (st)
        return gcutpy_raise(self->ctx, st);
    Py_RETURN_NONE;
}

static PyObject *grid_set_edge(GridObject *self, PyObject *args)
{
    int x, y, dir;
    PyObject *c_obj;
    int32_t c;
    if (!PyArg_ParseTuple(args, "iiiO", &x, &y, &dir, &c_obj) || check_idle(self) < 0 ||
        to_cap(c_obj, &c, "edge") < 0)
        return NULL;
    gcut_status st = gcut_grid_set_edge(self->grid, x, y, (gcut_dir)dir, c);
    if (st)
        return gcutpy_raise(self->ctx, st);
    Py_RETURN_NONE;
}

static PyObject *grid_get_terminal(GridObject *self, PyObject *args)
{
    int x, y;
    int32_t s = 0, t = 0;
    if (!PyArg_ParseTuple(args, "ii", &x, &y) || check_idle(self) < 0)
        return NULL;
    gcut_status st = gcut_grid_get_terminal(self->grid, x, y, &s, &t);
    if (st)
        return gcutpy_raise(self->ctx, st);
    return Py_BuildValue("(ii)", (int)s, (int)t);
}

static PyObject *grid_get_edge(GridObject *self, PyObject *args)
{
    int x, y, dir;
    int32_t c = 0;
    if (!PyArg_ParseTuple(args, "iii", &x, &y, &dir) || check_idle(self) < 0)
        return NULL;
    gcut_status st = gcut_grid_get_edge(self->grid, x, y, (gcut_dir)dir, &c);
    if (st)
        return gcutpy_raise(self->ctx, st);
    return PyLong_FromLong((long)c);
}

/* solve(algo=None) -> info dict */
static PyObject *grid_solve(GridObject *self, PyObject *args)
{
    const char *algo = NULL;
    if (!PyArg_ParseTuple(args, "|z", &algo) || check_idle(self) < 0)
        return NULL;
    gcut_solve_info info;
    gcut_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_solve(self->grid, algo, &info);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st)
        return gcutpy_raise(self->ctx, st);
    return gcutpy_info_dict(&info);
}

/* labels(out): the last solve's labels into a writable buffer of
 * width*height bytes (1 = source side). */
static PyObject *grid_labels(GridObject *self, PyObject *args)
{
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O", &obj) || check_idle(self) < 0)
        return NULL;
    Py_buffer out;
    if (gcutpy_buffer(obj, &out, pixels(self), 1, 1, "labels") < 0)
        return NULL;
    gcut_status st = gcut_grid_labels(self->grid, out.buf);
    PyBuffer_Release(&out);
    if (st)
        return gcutpy_raise(self->ctx, st);
    Py_RETURN_NONE;
}

static PyObject *grid_verify(GridObject *self, PyObject *noargs)
{
    (void)noargs;
    if (check_idle(self) < 0)
        return NULL;
    int64_t cut = 0;
    gcut_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_verify(self->grid, &cut);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st)
        return gcutpy_raise(self->ctx, st);
    return PyLong_FromLongLong((long long)cut);
}

static PyObject *grid_cut_capacity(GridObject *self, PyObject *args)
{
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O", &obj) || check_idle(self) < 0)
        return NULL;
    Py_buffer labels;
    if (gcutpy_buffer(obj, &labels, pixels(self), 1, 0, "labels") < 0)
        return NULL;
    int64_t cap = 0;
    gcut_status st = gcut_grid_cut_capacity(self->grid, labels.buf, &cap);
    PyBuffer_Release(&labels);
    if (st)
        return gcutpy_raise(self->ctx, st);
    return PyLong_FromLongLong((long long)cap);
}

/* A device pointer given as a Python int (0 or None: NULL). */
static int to_pointer(PyObject *obj, void **out)
{
    if (obj == Py_None) {
        *out = NULL;
        return 0;
    }
    void *p = PyLong_AsVoidPtr(obj);
    if (!p && PyErr_Occurred())
        return -1;
    *out = p;
    return 0;
}

/* solve_device(source, sink, edges, labels, algo, stream) -> info dict; the
 * arguments are device pointers as ints (edges: a sequence of them, one per
 * direction), the Python layer keeping the arrays alive. */
static PyObject *grid_solve_device(GridObject *self, PyObject *args)
{
    PyObject *src_obj, *snk_obj, *edges_obj, *labels_obj, *stream_obj;
    const char *algo = NULL;
    if (!PyArg_ParseTuple(args, "OOOOzO", &src_obj, &snk_obj, &edges_obj, &labels_obj, &algo,
                          &stream_obj) ||
        check_idle(self) < 0)
        return NULL;
    void *src, *snk, *labels, *stream, *edge[8] = {NULL};
    if (to_pointer(src_obj, &src) < 0 || to_pointer(snk_obj, &snk) < 0 ||
        to_pointer(labels_obj, &labels) < 0 || to_pointer(stream_obj, &stream) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(edges_obj, "edges: a sequence of device pointers");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != gcut_grid_connectivity(self->grid)) {
        Py_DECREF(seq);
        return gcutpy_invalid("edges: %zd pointers for a %d-connected grid", n,
                              gcut_grid_connectivity(self->grid));
    }
    for (Py_ssize_t d = 0; d < n; d++)
        if (to_pointer(PySequence_Fast_GET_ITEM(seq, d), &edge[d]) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    Py_DECREF(seq);
    const int32_t *edges[8];
    for (int d = 0; d < 8; d++)
        edges[d] = edge[d];
    gcut_solve_info info;
    gcut_status st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    st = gcut_grid_solve_device(self->grid, src, snk, edges, labels, algo, stream, &info);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (st)
        return gcutpy_raise(self->ctx, st);
    return gcutpy_info_dict(&info);
}

static PyObject *grid_get_width(GridObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(gcut_grid_width(self->grid));
}

static PyObject *grid_get_height(GridObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(gcut_grid_height(self->grid));
}

static PyObject *grid_get_connectivity(GridObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(gcut_grid_connectivity(self->grid));
}

static PyGetSetDef grid_getset[] = {
    {"width", (getter)grid_get_width, NULL, "Pixels per row.", NULL},
    {"height", (getter)grid_get_height, NULL, "Rows.", NULL},
    {"connectivity", (getter)grid_get_connectivity, NULL, "4 or 8.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef grid_methods[] = {
    {"set_terminals", (PyCFunction)grid_set_terminals, METH_VARARGS, NULL},
    {"set_edges", (PyCFunction)grid_set_edges, METH_VARARGS, NULL},
    {"set_terminal", (PyCFunction)grid_set_terminal, METH_VARARGS, NULL},
    {"set_edge", (PyCFunction)grid_set_edge, METH_VARARGS, NULL},
    {"get_terminal", (PyCFunction)grid_get_terminal, METH_VARARGS, NULL},
    {"get_edge", (PyCFunction)grid_get_edge, METH_VARARGS, NULL},
    {"solve", (PyCFunction)grid_solve, METH_VARARGS, NULL},
    {"labels", (PyCFunction)grid_labels, METH_VARARGS, NULL},
    {"verify", (PyCFunction)grid_verify, METH_NOARGS, NULL},
    {"cut_capacity", (PyCFunction)grid_cut_capacity, METH_VARARGS, NULL},
    {"solve_device", (PyCFunction)grid_solve_device, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject gcutpy_GridType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gcut._gcut.Grid",
    .tp_doc = "The C grid under gcut.Grid: a gcut_grid and its context (see gcut.Grid).",
    .tp_basicsize = sizeof(GridObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)grid_init,
    .tp_dealloc = (destructor)grid_dealloc,
    .tp_methods = grid_methods,
    .tp_getset = grid_getset,
};
