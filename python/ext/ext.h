/* The gcut extension module (gcut._gcut): what its files share. Written
 * against the CPython C API and include/gcut.h only; the Python layer
 * (python/gcut/__init__.py) converts arrays and checks shapes, so these
 * functions take contiguous buffers of the exact type and size. */
#ifndef GCUT_PY_EXT_H
#define GCUT_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gcut.h"

/* Raise the gcut.Error subclass of `status` with the context's message
 * (or the status's name when the context has none); returns NULL. */
PyObject *gcutpy_raise(gcut_context *ctx, gcut_status status);

/* Raise the class of `status` with a formatted message (PyUnicode_FromFormat's
 * formats); returns NULL. gcutpy_invalid: GCUT_E_INVALID's. */
PyObject *gcutpy_fail(gcut_status status, const char *fmt, ...);
PyObject *gcutpy_invalid(const char *fmt, ...);

/* A context for `device` ("auto", "cpu", "gpu"), GPU `gpu_index` and CPU
 * `threads`; NULL with an exception set on failure. */
gcut_context *gcutpy_context(const char *device, int gpu_index, int threads);

/* A C-contiguous buffer of `count` items of `itemsize` bytes from `obj`
 * (writable when asked); 0 on success, -1 with an exception set. `what`
 * names the argument in the message. */
int gcutpy_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t count, Py_ssize_t itemsize,
                  int writable, const char *what);

/* A solve's report as a dict: flow, time_ms, device, algo, iterations. */
PyObject *gcutpy_info_dict(const gcut_solve_info *info);

/* The parts defined in grid.c, graph.c and segment.c. */
extern PyTypeObject gcutpy_GridType;
PyObject *gcutpy_graph_maxflow(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *gcutpy_segment(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
