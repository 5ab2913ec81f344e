"""Arrays in and out: numpy conversions, and GPU arrays (PyTorch CUDA tensors,
CuPy arrays, anything with ``__cuda_array_interface__``) handed to the library
as device pointers, never copied through host memory."""

import numpy as np

from . import _gcut

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def _where(shape, flat_index):
    """'at pixel (x, y)' (or 'at index i') for a flat index into an array of `shape`."""
    pos = np.unravel_index(int(flat_index), shape)
    if len(pos) >= 2:
        return "at pixel (x=%d, y=%d)%s" % (
            pos[-1], pos[-2], "" if len(pos) == 2 else " of plane %d" % pos[0])
    return "at index %d" % pos[0]


def host_int32(a, name, shape=None):
    """`a` as a C-contiguous int32 numpy array of `shape` (when given).

    Other integer (and bool) dtypes are converted, refusing a value that does
    not fit in int32 (gcut.CapacityOverflowError naming where it is); floats
    are refused (round them first: capacities are exact integers).
    """
    a = np.asarray(a)
    if shape is not None and a.shape != tuple(shape):
        raise _gcut.InvalidArgumentError(
            "%s: expected shape %s, got %s" % (name, tuple(shape), a.shape))
    if a.dtype == np.int32:
        return np.ascontiguousarray(a)
    if a.size == 0:  # np.asarray([]) is float64
        return np.zeros(a.shape, np.int32)
    if a.dtype.kind not in "iub":
        raise _gcut.InvalidArgumentError(
            "%s: capacities must be integers, not %s (round them first)" % (name, a.dtype))
    if a.size and a.dtype.kind in "iu" and a.dtype.itemsize >= 4:
        hi = int(a.max())
        lo = int(a.min()) if a.dtype.kind == "i" else 0
        if hi > INT32_MAX or lo < INT32_MIN:
            bad = int(np.argmax(a)) if hi > INT32_MAX else int(np.argmin(a))
            raise _gcut.CapacityOverflowError(
                "%s: value %d %s does not fit in int32" % (
                    name, a.flat[bad], _where(a.shape, bad)))
    return np.ascontiguousarray(a, dtype=np.int32)


def host_uint8(a, name, shape=None):
    """`a` as a C-contiguous uint8 numpy array (values 0..255 only)."""
    a = np.asarray(a)
    if shape is not None and a.shape != tuple(shape):
        raise _gcut.InvalidArgumentError(
            "%s: expected shape %s, got %s" % (name, tuple(shape), a.shape))
    if a.dtype == np.uint8:
        return np.ascontiguousarray(a)
    if a.dtype.kind not in "iub":
        raise _gcut.InvalidArgumentError("%s: expected uint8 values, not %s" % (name, a.dtype))
    if a.size and (int(a.min()) < 0 or int(a.max()) > 255):
        raise _gcut.InvalidArgumentError("%s: values must be in 0..255" % name)
    return np.ascontiguousarray(a, dtype=np.uint8)


def _framework(x):
    mod = type(x).__module__ or ""
    return mod.split(".")[0]


def is_gpu_array(x):
    """True for a PyTorch CUDA tensor, a CuPy array, or any object with
    ``__cuda_array_interface__``."""
    if x is None or isinstance(x, np.ndarray):
        return False
    if _framework(x) == "torch":
        return bool(getattr(x, "is_cuda", False))
    return hasattr(x, "__cuda_array_interface__")


class DeviceArray:
    """A contiguous int32 array in GPU memory: the object that owns it (kept
    alive while the library reads it), its address, GPU and stream."""

    def __init__(self, owner, ptr, gpu, stream):
        self.owner = owner
        self.ptr = ptr
        self.gpu = gpu
        self.stream = stream


def _check_range(lo, hi, name):
    if hi > INT32_MAX or lo < INT32_MIN:
        raise _gcut.CapacityOverflowError(
            "%s: value %d does not fit in int32" % (name, hi if hi > INT32_MAX else lo))


def device_int32(x, name, shape):
    """A GPU array as a contiguous int32 DeviceArray of `shape`, converted on
    its own GPU (other integer dtypes with the range checked there)."""
    fw = _framework(x)
    if fw == "torch":
        import torch

        t = x.detach()
        if tuple(t.shape) != tuple(shape):
            raise _gcut.InvalidArgumentError(
                "%s: expected shape %s, got %s" % (name, tuple(shape), tuple(t.shape)))
        if t.dtype != torch.int32:
            if t.dtype.is_floating_point or t.dtype.is_complex:
                raise _gcut.InvalidArgumentError(
                    "%s: capacities must be integers, not %s" % (name, t.dtype))
            if t.numel() and t.dtype != torch.bool:
                _check_range(int(t.min()), int(t.max()), name)
            t = t.to(torch.int32)
        t = t.contiguous()
        stream = torch.cuda.current_stream(t.device).cuda_stream
        return DeviceArray(t, t.data_ptr(), t.device.index, stream)
    if fw == "cupy":
        import cupy

        if tuple(x.shape) != tuple(shape):
            raise _gcut.InvalidArgumentError(
                "%s: expected shape %s, got %s" % (name, tuple(shape), tuple(x.shape)))
        with cupy.cuda.Device(x.device.id):
            if x.dtype != cupy.int32:
                if x.dtype.kind not in "iub":
                    raise _gcut.InvalidArgumentError(
                        "%s: capacities must be integers, not %s" % (name, x.dtype))
                if x.size and x.dtype.kind != "b":
                    _check_range(int(x.min()), int(x.max()), name)
                x = x.astype(cupy.int32)
            x = cupy.ascontiguousarray(x)
            stream = cupy.cuda.get_current_stream().ptr
        return DeviceArray(x, x.data.ptr, x.device.id, stream)
    cai = x.__cuda_array_interface__
    if tuple(cai["shape"]) != tuple(shape):
        raise _gcut.InvalidArgumentError(
            "%s: expected shape %s, got %s" % (name, tuple(shape), tuple(cai["shape"])))
    if np.dtype(cai["typestr"]) != np.dtype(np.int32):
        raise _gcut.InvalidArgumentError(
            "%s: a __cuda_array_interface__ array must be int32, not %s"
            % (name, cai["typestr"]))
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != tuple(
            4 * int(np.prod(shape[k + 1:], dtype=np.int64)) for k in range(len(shape))):
        raise _gcut.InvalidArgumentError("%s: the GPU array must be C-contiguous" % name)
    return DeviceArray(x, cai["data"][0], None, cai.get("stream") or 0)


def device_labels(like, shape, gpu):
    """An empty bool array of `shape` on GPU `gpu`, of the same kind as
    `like` (PyTorch or CuPy; for other kinds CuPy, else PyTorch), and its
    address."""
    fw = _framework(like)
    for kind in ((fw,) if fw in ("torch", "cupy") else ("cupy", "torch")):
        try:
            if kind == "torch":
                import torch

                out = torch.empty(tuple(shape), dtype=torch.bool, device="cuda:%d" % gpu)
                return out, out.data_ptr()
            import cupy

            with cupy.cuda.Device(gpu):
                out = cupy.empty(tuple(shape), dtype=cupy.bool_)
            return out, out.data.ptr
        except ImportError:
            continue
    raise _gcut.InvalidArgumentError(
        "labels on the GPU need PyTorch or CuPy to hold them; neither is installed")
