"""gcut: exact minimum cut / maximum flow for computer vision, on numpy arrays
and on GPU arrays (PyTorch CUDA tensors, CuPy arrays).

    flow, labels = gcut.grid_maxflow(source, sink, edges)        # numpy in, numpy out
    mask = gcut.segment(image, seeds=scribbles)                  # as `gcut segment`
    flow, side = gcut.maxflow(n, tails, heads, caps, s, t)       # any directed graph

Every result is exact: the maximum flow value and the minimum cut of the
graph given, the same whichever solver or device ran. The library's errors
are raised as gcut.Error subclasses (one per status, each also a matching
built-in: gcut.InvalidArgumentError is a ValueError, ...) carrying the
library's message. The GIL is released while the library works.
"""

import numpy as np

from . import _gcut
from ._arrays import device_int32, device_labels, host_int32, host_uint8, is_gpu_array
from ._gcut import (  # noqa: F401  (the exception family)
    CapacityOverflowError,
    DeviceError,
    DeviceMemoryError,
    Error,
    FileError,
    FormatError,
    InvalidArgumentError,
    NoDeviceError,
    NotGridError,
    OutOfMemoryError,
    RangeError,
    StateError,
    TruncatedError,
    UnsupportedError,
    VerifyError,
)

__version__ = _gcut.version()

#: The (dx, dy) offset of each direction d of ``edges[d]``, in the order of
#: the C enum gcut_dir: E, W, S, N, NE, SW, SE, NW. Opposite directions
#: differ in the lowest bit (``d ^ 1``); 4-connected grids use the first four.
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1), (1, 1), (-1, -1))

_DEVICES = ("auto", "cpu", "gpu")


def cuda_built():
    """True when the library in this package was built with CUDA."""
    return _gcut.cuda_built()


def devices():
    """The usable GPUs as [(index, name)]; [] without a GPU or without CUDA."""
    return _gcut.devices()


def algorithms():
    """The solvers of this build: {"grid": "bk,pbk,...", "graph": "prf,bk,..."}."""
    return _gcut.algorithms()


def _check_device(device):
    if device not in _DEVICES:
        raise InvalidArgumentError("device must be 'auto', 'cpu' or 'gpu', not %r" % (device,))


class Grid:
    """A grid graph kept for repeated solves, as PyMaxflow users re-solve.

    ``Grid((height, width), connectivity=8)`` starts with every capacity 0.
    Set capacities with numpy arrays (solved on the device the context picks:
    ``device="auto"`` the GPU when one is usable, else the CPU) or with GPU
    arrays (PyTorch CUDA tensors, CuPy arrays: solved on their GPU, labels
    returned there), not both. On the CPU a re-solve after changes starts
    from the last flow and search trees (dynamic cuts), exact like a fresh
    solve.

    Example::

        g = gcut.Grid((h, w), 8)
        g.set_edges(edges)                       # (8, h, w)
        g.set_terminals(source, sink)            # (h, w) each
        flow, labels = g.solve()
        g.set_terminal((y, x), 0, 1000)          # pin one pixel to the sink
        flow2, labels2 = g.solve()               # warm re-solve

    Arguments: ``device`` "auto", "cpu" or "gpu"; ``algo`` the solver
    (None: the device's default; CPU "bk" or "pbk", GPU "tiled" or
    "lockfree"); ``threads`` the CPU threads of "pbk" (0: one per CPU);
    ``gpu`` the GPU index (None: 0, or the GPU the arrays are on).
    """

    def __init__(self, shape, connectivity=8, *, device="auto", algo=None, threads=0, gpu=None):
        _check_device(device)
        if len(tuple(shape)) != 2:
            raise InvalidArgumentError("shape must be (height, width), not %r" % (shape,))
        self.shape = (int(shape[0]), int(shape[1]))
        self.connectivity = int(connectivity)
        self.device = device
        self.algo = algo
        self._threads = int(threads)
        self._gpu = gpu
        self._c = _gcut.Grid(self.shape[1], self.shape[0], self.connectivity, device,
                             0 if gpu is None else int(gpu), self._threads)
        self._mode = None  # "host" or "gpu", fixed by the first array given
        self._dev = {}  # GPU mode: "source", "sink", "edges" -> DeviceArrays
        self.info = None

    def _enter(self, mode, arrays=()):
        if self._mode not in (None, mode):
            raise InvalidArgumentError(
                "this Grid holds %s arrays; give it %s arrays only (or make another Grid)"
                % (self._mode, self._mode))
        if mode == "gpu":
            if self.device == "cpu":
                raise InvalidArgumentError(
                    "GPU arrays given to a Grid made with device='cpu'")
            gpus = {a.gpu for a in arrays if a.gpu is not None}
            if len(gpus) > 1:
                raise InvalidArgumentError("the arrays are on different GPUs: %s" % sorted(gpus))
            if gpus and self._mode is None:
                (gpu,) = gpus
                if self._gpu is not None and int(self._gpu) != gpu:
                    raise InvalidArgumentError(
                        "the arrays are on GPU %d, the Grid was made for GPU %d"
                        % (gpu, self._gpu))
                if self._gpu is None and gpu != 0:
                    self._c = _gcut.Grid(self.shape[1], self.shape[0], self.connectivity,
                                         self.device, gpu, self._threads)
                self._gpu = gpu
        self._mode = mode

    def set_terminals(self, source=None, sink=None):
        """Set every pixel's terminal capacities from (height, width) arrays:
        ``source`` (source -> pixel) and ``sink`` (pixel -> sink); None
        leaves that side as it is. Integers >= 0 that fit in int32."""
        if is_gpu_array(source) or is_gpu_array(sink):
            arrays = {k: device_int32(v, k, self.shape)
                      for k, v in (("source", source), ("sink", sink)) if v is not None}
            self._enter("gpu", arrays.values())
            self._dev.update(arrays)
            return
        self._enter("host")
        self._c.set_terminals(
            None if source is None else host_int32(source, "source", self.shape),
            None if sink is None else host_int32(sink, "sink", self.shape))

    def set_edges(self, edges, direction=None):
        """Set arc capacities: ``edges`` of shape (connectivity, height, width),
        ``edges[d][y, x]`` the capacity from pixel (x, y) to its neighbour at
        ``DIRECTIONS[d]``; or, with ``direction``, one (height, width) plane.
        An arc whose neighbour is outside the grid must have capacity 0."""
        conn = self.connectivity
        if direction is not None:
            if is_gpu_array(edges):
                raise InvalidArgumentError(
                    "GPU arrays: give all directions at once, set_edges(edges)")
            self._enter("host")
            self._c.set_edges(int(direction), host_int32(edges, "edges", self.shape))
            return
        shape = (conn,) + self.shape
        if is_gpu_array(edges):
            arr = device_int32(edges, "edges", shape)
            self._enter("gpu", [arr])
            self._dev["edges"] = arr
            return
        self._enter("host")
        edges = host_int32(edges, "edges", shape)
        for d in range(conn):
            self._c.set_edges(d, edges[d])

    def set_terminal(self, index, source, sink):
        """Set the terminal capacities of the pixel at ``index`` = (y, x)."""
        self._enter("host")
        y, x = index
        self._c.set_terminal(int(x), int(y), source, sink)

    def set_edge(self, index, direction, capacity):
        """Set the capacity of the arc from the pixel at ``index`` = (y, x) to its
        neighbour at ``DIRECTIONS[direction]``."""
        self._enter("host")
        y, x = index
        self._c.set_edge(int(x), int(y), int(direction), capacity)

    def terminal(self, index):
        """(source, sink) capacities of the pixel at (y, x), as set (host arrays)."""
        y, x = index
        return self._c.get_terminal(int(x), int(y))

    def edge(self, index, direction):
        """The capacity of an arc, as set (host arrays)."""
        y, x = index
        return self._c.get_edge(int(x), int(y), int(direction))

    def solve(self, *, algo=None):
        """Maximum flow and minimum cut: ``(flow, labels)``, ``labels`` bool of
        shape (height, width), True on the source side (the pixels that
        cannot reach the sink in the final residual graph). With GPU arrays
        the labels are a GPU array of the same kind, on the same GPU.
        ``self.info`` then holds the solve's report (flow, time_ms, device,
        algo, iterations)."""
        algo = algo if algo is not None else self.algo
        if self._mode == "gpu":
            return self._solve_gpu(algo)
        self.info = self._c.solve(algo)
        labels = np.empty(self.shape, dtype=np.bool_)
        self._c.labels(labels)
        return self.info["flow"], labels

    def _solve_gpu(self, algo):
        dev = self._dev
        any_arr = next(iter(dev.values()))
        labels, ptr = device_labels(any_arr.owner, self.shape, self._gpu or 0)
        edges = dev.get("edges")
        plane = 4 * self.shape[0] * self.shape[1]
        edge_ptrs = [None if edges is None else edges.ptr + d * plane
                     for d in range(self.connectivity)]
        src, snk = dev.get("source"), dev.get("sink")
        streams = {a.stream for a in dev.values()}
        stream = any_arr.stream if len(streams) == 1 else 0
        self.info = self._c.solve_device(
            None if src is None else src.ptr, None if snk is None else snk.ptr,
            edge_ptrs, ptr, algo, stream)
        return self.info["flow"], labels

    def verify(self):
        """Check the last (host) solve's proof: a feasible flow whose value
        equals the cut's capacity. Returns that capacity; raises
        gcut.VerifyError naming the first violation otherwise."""
        return self._c.verify()

    def cut_capacity(self, labels):
        """The capacity of the cut given by bool ``labels`` (True = source side)."""
        return self._c.cut_capacity(host_uint8(np.asarray(labels, dtype=np.uint8),
                                               "labels", self.shape))


def grid_maxflow(source, sink, edges, *, device="auto", algo=None, threads=0, gpu=None):
    """Maximum flow and minimum cut of a grid graph: ``(flow, labels)``.

    ``source``, ``sink``: (H, W) terminal capacities; ``edges``: (D, H, W),
    D = 4 or 8, ``edges[d][y, x]`` the capacity from pixel (x, y) to its
    neighbour at ``DIRECTIONS[d]`` (0 where that neighbour is outside).
    int32, or other integers converted with overflow checked. ``labels``:
    bool (H, W), True on the source side (pixels that cannot reach the sink).

    numpy arrays are solved on ``device`` ("auto": the GPU when usable, else
    the CPU, where the default ``algo`` is "pbk": BK on ``threads`` threads,
    0 for one per CPU, the same answer as "bk"); PyTorch CUDA tensors or CuPy arrays are solved on their GPU
    without a copy through host memory, and ``labels`` comes back there.

    Example::

        h, w = 2, 3
        source = np.array([[9, 0, 0], [9, 0, 0]], np.int32)
        sink = np.array([[0, 0, 9], [0, 0, 9]], np.int32)
        edges = np.zeros((4, h, w), np.int32)
        edges[0][:, :-1] = 2      # east
        edges[1][:, 1:] = 2       # west
        flow, labels = gcut.grid_maxflow(source, sink, edges)   # flow 4
    """
    gpu_in = [is_gpu_array(a) for a in (source, sink, edges)]
    shape = tuple(getattr(edges, "shape", np.shape(edges)))
    if len(shape) != 3 or shape[0] not in (4, 8):
        raise InvalidArgumentError(
            "edges: expected shape (4 or 8, height, width), got %s" % (shape,))
    if any(gpu_in) and not all(gpu_in):
        raise InvalidArgumentError(
            "source, sink and edges must all be GPU arrays or all host arrays")
    if algo is None and not any(gpu_in) and (device == "cpu" or (device == "auto" and not devices())):
        algo = "pbk"  # one solve, nothing to re-solve warm: BK on every core (same answer)
    g = Grid(shape[1:], shape[0], device=device, algo=algo, threads=threads, gpu=gpu)
    g.set_edges(edges)
    g.set_terminals(source, sink)
    return g.solve()


def maxflow(n, tails, heads, capacities, source, sink, *, device="auto", algo=None):
    """Maximum flow and minimum cut of a directed graph: ``(flow, source_side)``.

    Nodes 0..n-1; arc i goes from ``tails[i]`` to ``heads[i]`` with capacity
    ``capacities[i]`` >= 0 (1-D integer arrays of one length; parallel arcs
    are summed, self-loops dropped). ``source_side``: bool (n,), True for the
    nodes that cannot reach the sink in the residual graph. ``algo``: CPU
    "prf" (the default there) or "bk"; GPU "worklist" (the default there),
    "async" or "color".

    Example::

        flow, side = gcut.maxflow(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3], 0, 3)
        # flow 4, side [True, True, False, False]
    """
    _check_device(device)
    arrays = [host_int32(np.ravel(np.asarray(a)), name)
              for a, name in ((tails, "tails"), (heads, "heads"), (capacities, "capacities"))]
    if any(np.ndim(a) != 1 for a in (tails, heads, capacities)):
        raise InvalidArgumentError("tails, heads and capacities must be 1-D")
    if not arrays[0].size == arrays[1].size == arrays[2].size:
        raise InvalidArgumentError(
            "tails, heads and capacities have different lengths: %d, %d, %d"
            % tuple(a.size for a in arrays))
    side = np.empty(int(n), dtype=np.bool_)
    info = _gcut.graph_maxflow(int(n), arrays[0], arrays[1], arrays[2], int(source), int(sink),
                               side, device=device, algo=algo)
    return info["flow"], side


def segment(image, *, seeds=None, trimap=None, box=None, model="gmm", iterations=5,
            connectivity=8, lam=None, device="auto", components=5, threads=0, algo=None,
            verify=False, return_info=False):
    """Foreground mask of an image from seeds: the same result as
    ``gcut segment`` on the same inputs (Boykov-Jolly energy with GrabCut's
    iterated colour models, solved exactly by a minimum cut).

    ``image``: uint8 (H, W, 3) RGB, (H, W) grey (or 2/4 channels, alpha
    ignored). Seeds, in any combination: ``seeds`` uint8 (H, W) with 1 for
    foreground, 2 for background, other values unlabelled (the palette
    indices of a scribble PNG, as ``numpy.array(PIL.Image.open(path))``
    gives them); ``trimap`` uint8 (H, W), 0 background, 255 foreground,
    other values unknown; ``box`` (x1, y1, x2, y2), inclusive: everything
    outside is background. ``model`` "gmm" or "hist", ``iterations`` (at
    most that many cuts), ``connectivity`` 4 or 8, ``lam`` the boundary
    weight (None: the library's default, 75), ``components`` Gaussians per
    mixture, ``threads`` CPU threads (0: one per CPU; the result is the same
    for any number), ``verify`` check each cut's proof.

    Returns the mask, uint8 (H, W) with 1 for foreground, or with
    ``return_info`` ``(mask, info)`` where info has flow, energy,
    foreground, iterations and the time per stage.

    Example::

        image = np.asarray(PIL.Image.open("samples/teddy.jpg"))
        seeds = np.asarray(PIL.Image.open("samples/teddy-scribbles.png"))
        mask = gcut.segment(image, seeds=seeds)
    """
    _check_device(device)
    img = np.asarray(image)
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3 or not 1 <= img.shape[2] <= 4:
        raise InvalidArgumentError(
            "image: expected shape (H, W), (H, W, 3) or (H, W, 1..4), got %s"
            % (np.shape(image),))
    h, w, c = img.shape
    img = host_uint8(img, "image")
    seeds_arr = None if seeds is None else host_uint8(seeds, "seeds", (h, w))
    trimap_arr = None if trimap is None else host_uint8(trimap, "trimap", (h, w))
    if trimap_arr is None and seeds_arr is None and box is None:
        raise InvalidArgumentError("segment: no seeds given: use seeds, trimap or box")
    box_t = None if box is None else tuple(int(v) for v in box)
    mask = np.empty((h, w), dtype=np.uint8)
    info = _gcut.segment(img, w, h, c, mask, seeds=seeds_arr, trimap=trimap_arr, box=box_t,
                         model=model, iterations=int(iterations),
                         connectivity=int(connectivity), lam=lam, components=int(components),
                         device=device, threads=int(threads), algo=algo, verify=bool(verify))
    return (mask, info) if return_info else mask


def read_image(path, *, indices=False):
    """An image file (PNG, JPEG, PNM) as decoded by the library: uint8
    (H, W) for grey, (H, W, C) otherwise; with ``indices`` a palette PNG's
    index per pixel, (H, W) (gcut.FormatError if it has no palette)."""
    pixels, h, w, c, idx = _gcut.read_image(path)
    if indices:
        if idx is None:
            raise FormatError("%s: not a palette image" % (path,))
        return np.frombuffer(idx, dtype=np.uint8).reshape(h, w).copy()
    arr = np.frombuffer(pixels, dtype=np.uint8).reshape(h, w, c).copy()
    return arr[:, :, 0] if c == 1 else arr


__all__ = [
    "DIRECTIONS", "Grid", "grid_maxflow", "maxflow", "segment", "read_image", "cuda_built",
    "devices", "algorithms", "Error", "InvalidArgumentError", "OutOfMemoryError", "FileError",
    "FormatError", "RangeError", "CapacityOverflowError", "NotGridError", "TruncatedError",
    "NoDeviceError", "DeviceError", "DeviceMemoryError", "UnsupportedError", "StateError",
    "VerifyError",
]
