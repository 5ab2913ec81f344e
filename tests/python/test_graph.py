"""gcut.maxflow on general graphs against an independent solver, and its errors."""
import numpy as np
import pytest

import gcut
from conftest import reference_maxflow


def test_example():
    flow, side = gcut.maxflow(4, [0, 0, 1, 2], [1, 2, 3, 3], [3, 2, 2, 3], 0, 3)
    assert flow == 4
    assert side.dtype == np.bool_ and side.tolist() == [True, True, False, False]


@pytest.mark.parametrize("algo", ["prf", "bk"])
def test_random_graphs_match_reference(rng, algo):
    for k in range(30):
        n = int(rng.integers(2, 30))
        m = int(rng.integers(0, 4 * n))
        tails = rng.integers(0, n, m)
        heads = rng.integers(0, n, m)  # self-loops and parallel arcs included
        caps = rng.integers(0, [3, 1000, 2**27][k % 3], m)  # parallel sums fit
        s, t = 0, n - 1
        flow, side = gcut.maxflow(n, tails, heads, caps, s, t, device="cpu", algo=algo)
        ref_flow, ref_side = reference_maxflow(n, list(zip(tails, heads, caps)), s, t)
        assert flow == ref_flow
        assert side.tolist() == ref_side.tolist()


def test_errors_name_the_arc():
    with pytest.raises(gcut.RangeError, match="arc 1") as e:
        gcut.maxflow(3, [0, 1], [1, 7], [1, 1], 0, 2, device="cpu")
    assert e.value.status == 5
    with pytest.raises(gcut.RangeError, match="arc 0"):
        gcut.maxflow(3, [0], [1], [-1], 0, 2, device="cpu")
    with pytest.raises(gcut.InvalidArgumentError, match="different lengths"):
        gcut.maxflow(3, [0, 1], [1], [1, 1], 0, 2)
    with pytest.raises(gcut.InvalidArgumentError, match="at least 2 nodes"):
        gcut.maxflow(1, [], [], [], 0, 0)
    with pytest.raises(gcut.InvalidArgumentError):
        gcut.maxflow(3, [0], [1], [1], 0, 2, device="cpu", algo="nope")
    with pytest.raises(gcut.CapacityOverflowError):
        gcut.maxflow(3, [0], [1], [2**31], 0, 2)
    with pytest.raises(gcut.CapacityOverflowError):  # parallel arcs summed past int32
        gcut.maxflow(3, [0, 0], [1, 1], [2**31 - 1, 1], 0, 2, device="cpu")
