"""GPU arrays (PyTorch CUDA tensors, CuPy arrays) solved on their GPU, labels
returned there, against the CPU on the same instances. Skipped without a
usable GPU or without PyTorch/CuPy."""
import numpy as np
import pytest

import gcut
from conftest import random_grid

pytestmark = pytest.mark.skipif(not gcut.devices(), reason="no usable GPU in this build/machine")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    return torch


@pytest.mark.parametrize("conn", [4, 8])
def test_torch_arrays_match_the_cpu(rng, conn):
    torch = _torch()
    for h, w in [(1, 1), (3, 70), (64, 64), (97, 130), (300, 257)]:
        for hi in (2, 1000, 10**6):
            source, sink, edges = random_grid(rng, h, w, conn, hi=hi)
            want_flow, want_labels = gcut.grid_maxflow(source, sink, edges, device="cpu")
            s, t, e = (torch.from_numpy(a).cuda() for a in (source, sink, edges))
            flow, labels = gcut.grid_maxflow(s, t, e)
            assert labels.is_cuda and labels.dtype == torch.bool and labels.shape == (h, w)
            assert flow == want_flow
            assert np.array_equal(labels.cpu().numpy(), want_labels)


def test_torch_int64_and_lockfree(rng):
    torch = _torch()
    source, sink, edges = random_grid(rng, 50, 40, 8)
    want = gcut.grid_maxflow(source, sink, edges, device="cpu")
    s, t, e = (torch.from_numpy(a.astype(np.int64)).cuda() for a in (source, sink, edges))
    for algo in ("tiled", "lockfree"):
        flow, labels = gcut.grid_maxflow(s, t, e, algo=algo)
        assert flow == want[0] and np.array_equal(labels.cpu().numpy(), want[1])
    with pytest.raises(gcut.CapacityOverflowError):
        gcut.grid_maxflow(s + 2**31, t, e)


def test_torch_grid_resolves_and_side_stream(rng):
    torch = _torch()
    h, w = 80, 90
    source, sink, edges = random_grid(rng, h, w, 8)
    g = gcut.Grid((h, w), 8)
    g.set_edges(torch.from_numpy(edges).cuda())
    stream = torch.cuda.Stream()
    for k in range(3):
        with torch.cuda.stream(stream):  # inputs written on a side stream
            s = torch.from_numpy(source).cuda(non_blocking=True) * (k + 1)
            t = torch.from_numpy(sink).cuda(non_blocking=True)
            g.set_terminals(s, t)
            flow, labels = g.solve()
        want = gcut.grid_maxflow(source * (k + 1), sink, edges, device="cpu")
        assert flow == want[0] and np.array_equal(labels.cpu().numpy(), want[1])
        assert g.info["device"] != "cpu" and g.info["algo"] == "tiled"


def test_device_errors_match_the_cpu_messages(rng):
    torch = _torch()
    source, sink, edges = random_grid(rng, 5, 6, 4)
    sink[3, 4] = -2
    with pytest.raises(gcut.InvalidArgumentError, match=r"negative sink capacity at pixel \(4, 3\)"):
        gcut.grid_maxflow(*(torch.from_numpy(a).cuda() for a in (source, sink, edges)))
    sink[3, 4] = 0
    edges[0, 2, 5] = 9  # east of the last column
    with pytest.raises(gcut.InvalidArgumentError, match=r"capacity 9 on the E arc of pixel \(5, 2\)"):
        gcut.grid_maxflow(*(torch.from_numpy(a).cuda() for a in (source, sink, edges)))
    edges[0, 2, 5] = 0
    source[0, 0] = 2**31 - 1
    edges[0, 0, 0] = 1
    with pytest.raises(gcut.CapacityOverflowError, match=r"pixel \(0, 0\) add up to"):
        gcut.grid_maxflow(*(torch.from_numpy(a).cuda() for a in (source, sink, edges)))
    z = torch.zeros((5, 6), dtype=torch.int32, device="cuda")
    with pytest.raises(gcut.InvalidArgumentError, match="GPU arrays given to a Grid made with device='cpu'"):
        gcut.grid_maxflow(z, z, torch.zeros((4, 5, 6), dtype=torch.int32, device="cuda"),
                          device="cpu")
    with pytest.raises(gcut.InvalidArgumentError, match="all be GPU arrays"):
        gcut.grid_maxflow(z, np.zeros((5, 6), np.int32), torch.zeros((4, 5, 6), dtype=torch.int32,
                                                                      device="cuda"))


def test_cupy_arrays(rng):
    cupy = pytest.importorskip("cupy")
    source, sink, edges = random_grid(rng, 33, 47, 8)
    want = gcut.grid_maxflow(source, sink, edges, device="cpu")
    flow, labels = gcut.grid_maxflow(cupy.asarray(source), cupy.asarray(sink),
                                     cupy.asarray(edges.astype(np.uint16)))
    assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.bool_
    assert flow == want[0] and np.array_equal(cupy.asnumpy(labels), want[1])


def test_numpy_on_the_gpu_matches_the_cpu(rng):
    source, sink, edges = random_grid(rng, 120, 130, 8)
    want = gcut.grid_maxflow(source, sink, edges, device="cpu")
    flow, labels = gcut.grid_maxflow(source, sink, edges, device="gpu")
    assert flow == want[0] and np.array_equal(labels, want[1])


def test_segment_on_the_gpu_matches_the_cpu():
    from test_segment import TEDDY, TEDDY_SEEDS

    image = gcut.read_image(str(TEDDY))
    seeds = gcut.read_image(str(TEDDY_SEEDS), indices=True)
    cpu = gcut.segment(image, seeds=seeds, device="cpu")
    gpu, info = gcut.segment(image, seeds=seeds, device="gpu", return_info=True)
    assert info["device"] != "cpu" and np.array_equal(cpu, gpu)
