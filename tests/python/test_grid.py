"""gcut.grid_maxflow and gcut.Grid on numpy arrays: exact flows and cuts
against an independent solver, the proof, dtype conversions, errors, warm
re-solves."""
import threading

import numpy as np
import pytest

import gcut
from conftest import grid_arcs, random_grid, reference_maxflow


def test_directions_follow_gcut_dir():
    assert gcut.DIRECTIONS[:4] == ((1, 0), (-1, 0), (0, 1), (0, -1))
    assert len(gcut.DIRECTIONS) == 8
    for d in range(8):  # opposites differ in the lowest bit
        dx, dy = gcut.DIRECTIONS[d]
        assert gcut.DIRECTIONS[d ^ 1] == (-dx, -dy)


def test_small_example_flow_and_labels():
    source = np.array([[9, 0, 0], [9, 0, 0]], np.int32)
    sink = np.array([[0, 0, 9], [0, 0, 9]], np.int32)
    edges = np.zeros((4, 2, 3), np.int32)
    edges[0][:, :-1] = 2
    edges[1][:, 1:] = 2
    flow, labels = gcut.grid_maxflow(source, sink, edges, device="cpu")
    assert flow == 4
    assert labels.dtype == np.bool_ and labels.shape == (2, 3)
    assert labels.tolist() == [[True, True, False], [True, True, False]]


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("algo", ["bk", "pbk"])
def test_random_grids_match_reference(rng, conn, algo):
    shapes = [(1, 1), (1, 7), (6, 1), (3, 4), (5, 5), (7, 9)]
    for k, (h, w) in enumerate(shapes * 3):
        source, sink, edges = random_grid(rng, h, w, conn, hi=[2, 100, 10**6][k % 3])
        flow, labels = gcut.grid_maxflow(source, sink, edges, device="cpu", algo=algo)
        ref_flow, ref_side = reference_maxflow(*grid_arcs(source, sink, edges))
        assert flow == ref_flow
        assert labels.ravel().tolist() == ref_side[: h * w].tolist()


def test_grid_proof_and_cut_capacity(rng):
    source, sink, edges = random_grid(rng, 12, 10, 8)
    g = gcut.Grid((12, 10), 8, device="cpu")
    g.set_edges(edges)
    g.set_terminals(source, sink)
    flow, labels = g.solve()
    assert g.verify() == flow
    assert g.cut_capacity(labels) == flow
    assert g.cut_capacity(~labels) >= flow
    assert g.info["flow"] == flow and g.info["device"] == "cpu"


def test_all_zero_and_huge_capacities():
    z = np.zeros((3, 3), np.int32)
    flow, labels = gcut.grid_maxflow(z, z, np.zeros((8, 3, 3), np.int32), device="cpu")
    assert flow == 0 and labels.all()  # nothing reaches the sink
    big = np.full((1, 2), 2**30 - 1, np.int32)
    edges = np.zeros((4, 1, 2), np.int32)
    flow, _ = gcut.grid_maxflow(big, big, edges, device="cpu")
    assert flow == 2 * (2**30 - 1)


def test_other_integer_dtypes_are_converted(rng):
    source, sink, edges = random_grid(rng, 4, 5, 4)
    want = gcut.grid_maxflow(source, sink, edges, device="cpu")
    for dtype in (np.int64, np.uint16, np.uint32, np.int16):
        got = gcut.grid_maxflow(source.astype(dtype), sink.astype(dtype), edges.astype(dtype),
                                device="cpu")
        assert got[0] == want[0] and (got[1] == want[1]).all()
    # non-contiguous views are fine too
    got = gcut.grid_maxflow(np.asfortranarray(source), sink, edges[:, :, :], device="cpu")
    assert got[0] == want[0]


def test_values_past_int32_are_refused_naming_the_pixel():
    z = np.zeros((2, 3), np.int64)
    src = z.copy()
    src[1, 2] = 2**31
    with pytest.raises(gcut.CapacityOverflowError, match=r"source: value 2147483648 at pixel \(x=2, y=1\)"):
        gcut.grid_maxflow(src, z, np.zeros((4, 2, 3), np.int64))
    with pytest.raises(OverflowError):  # also the built-in
        gcut.grid_maxflow(z, z - 2**40, np.zeros((4, 2, 3), np.int64))


def test_floats_are_refused():
    z = np.zeros((2, 2))
    with pytest.raises(gcut.InvalidArgumentError, match="must be integers"):
        gcut.grid_maxflow(z, z, np.zeros((4, 2, 2)))


def test_library_errors_carry_its_message_and_status():
    z = np.zeros((2, 3), np.int32)
    src = z.copy()
    src[0, 1] = -5
    with pytest.raises(gcut.InvalidArgumentError,
                       match=r"grid: negative source capacity at pixel \(1, 0\)") as e:
        gcut.grid_maxflow(src, z, np.zeros((4, 2, 3), np.int32), device="cpu")
    assert e.value.status == 1 and isinstance(e.value, ValueError)
    edges = np.zeros((4, 2, 3), np.int32)
    edges[2, 1, 0] = 3  # south arc of the bottom row
    with pytest.raises(gcut.InvalidArgumentError, match=r"S arc of pixel \(0, 1\), whose neighbour"):
        gcut.grid_maxflow(z, z, edges, device="cpu")
    # capacities that add up past int32 at one pixel: refused by the solve
    big = np.full((1, 2), 2**31 - 1, np.int32)
    edges = np.zeros((4, 1, 2), np.int32)
    edges[0, 0, 0] = 1
    with pytest.raises(gcut.CapacityOverflowError, match=r"pixel \(0, 0\) add up to"):
        gcut.grid_maxflow(big, z[:1, :2], edges, device="cpu")


def test_bad_shapes_and_arguments():
    z = np.zeros((2, 3), np.int32)
    with pytest.raises(gcut.InvalidArgumentError, match="expected shape"):
        gcut.grid_maxflow(z, np.zeros((3, 2), np.int32), np.zeros((4, 2, 3), np.int32))
    with pytest.raises(gcut.InvalidArgumentError, match="4 or 8"):
        gcut.grid_maxflow(z, z, np.zeros((6, 2, 3), np.int32))
    with pytest.raises(gcut.InvalidArgumentError, match="device"):
        gcut.grid_maxflow(z, z, np.zeros((4, 2, 3), np.int32), device="tpu")
    with pytest.raises(gcut.InvalidArgumentError, match="connectivity 6"):
        gcut.Grid((2, 3), 6)
    with pytest.raises(gcut.InvalidArgumentError, match="size 0x2"):
        gcut.Grid((2, 0))
    g = gcut.Grid((2, 3), 4, device="cpu")
    with pytest.raises(gcut.StateError, match="before a solve"):
        g._c.labels(np.empty((2, 3), np.uint8))
    with pytest.raises(gcut.InvalidArgumentError, match=r"pixel \(5, 0\) is outside"):
        g.set_terminal((0, 5), 1, 1)
    with pytest.raises(gcut.CapacityOverflowError):
        g.set_terminal((0, 0), 2**31, 0)


def test_warm_resolve_equals_fresh_solve(rng):
    h, w = 9, 11
    source, sink, edges = random_grid(rng, h, w, 8)
    g = gcut.Grid((h, w), 8, device="cpu", algo="bk")
    g.set_edges(edges)
    g.set_terminals(source, sink)
    g.solve()
    for step in range(6):
        y, x = int(rng.integers(h)), int(rng.integers(w))
        s, t = int(rng.integers(0, 200)), int(rng.integers(0, 200))
        g.set_terminal((y, x), s, t)
        source[y, x], sink[y, x] = s, t
        if step % 2:
            d = int(rng.integers(8))
            dx, dy = gcut.DIRECTIONS[d]
            if 0 <= x + dx < w and 0 <= y + dy < h:
                g.set_edge((y, x), d, step * 7)
                edges[d, y, x] = step * 7
        flow, labels = g.solve()
        assert g.terminal((y, x)) == (s, t)
        fresh = gcut.grid_maxflow(source, sink, edges, device="cpu", algo="bk")
        assert flow == fresh[0] and (labels == fresh[1]).all()
        assert g.verify() == flow
    # whole arrays again, then one direction's plane
    source2 = source // 2
    g.set_terminals(source=source2)
    e0 = edges[0] // 3
    g.set_edges(e0, direction=0)
    edges2 = edges.copy()
    edges2[0] = e0
    flow, labels = g.solve()
    fresh = gcut.grid_maxflow(source2, sink, edges2, device="cpu")
    assert flow == fresh[0] and (labels == fresh[1]).all()


def test_solves_in_threads(rng):
    """The GIL is released during solves: grids solved in threads at once
    each give their own exact answer."""
    cases = [random_grid(rng, 40, 50, 8) for _ in range(4)]
    want = [gcut.grid_maxflow(*c, device="cpu")[0] for c in cases]
    got = [None] * len(cases)

    def run(k):
        got[k] = gcut.grid_maxflow(*cases[k], device="cpu", threads=1)[0]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want


def test_host_grid_refuses_mixing_with_gpu_calls():
    g = gcut.Grid((2, 2), 4, device="cpu")
    g.set_terminals(np.ones((2, 2), np.int32), None)
    assert g.terminal((1, 1)) == (1, 0)
    flow, labels = g.solve()
    assert flow == 0 and labels.all()
