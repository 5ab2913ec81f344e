"""Shared helpers of the Python tests: an independent max-flow (Edmonds-Karp
on an adjacency map, nothing shared with libgcut), random grid instances, and
where the command and the test data are."""
import os
import shutil
from collections import deque
from pathlib import Path

import numpy as np
import pytest

import gcut

ROOT = Path(__file__).resolve().parents[2]


def reference_maxflow(n, arcs, s, t):
    """Edmonds-Karp on arcs [(u, v, cap)]: (flow, source_side) where
    source_side is the nodes that cannot reach t in the final residual graph."""
    res = {}
    adj = [set() for _ in range(n)]
    for u, v, c in arcs:
        if u == v:
            continue
        res[(u, v)] = res.get((u, v), 0) + int(c)
        res.setdefault((v, u), 0)
        adj[u].add(v)
        adj[v].add(u)
    flow = 0
    while True:
        parent = {s: None}
        queue = deque([s])
        while queue and t not in parent:
            u = queue.popleft()
            for v in adj[u]:
                if v not in parent and res[(u, v)] > 0:
                    parent[v] = u
                    queue.append(v)
        if t not in parent:
            break
        path, v = [], t
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        push = min(res[e] for e in path)
        for u, v in path:
            res[(u, v)] -= push
            res[(v, u)] += push
        flow += push
    reach_t = {t}
    queue = deque([t])
    while queue:
        v = queue.popleft()
        for u in adj[v]:
            if u not in reach_t and res[(u, v)] > 0:
                reach_t.add(u)
                queue.append(u)
    return flow, np.array([v not in reach_t for v in range(n)])


def grid_arcs(source, sink, edges):
    """The grid as general arcs: pixels 0..h*w-1, source h*w, sink h*w+1."""
    h, w = source.shape
    s, t = h * w, h * w + 1
    arcs = []
    for y in range(h):
        for x in range(w):
            p = y * w + x
            arcs.append((s, p, source[y, x]))
            arcs.append((p, t, sink[y, x]))
            for d in range(edges.shape[0]):
                dx, dy = gcut.DIRECTIONS[d]
                if 0 <= x + dx < w and 0 <= y + dy < h:
                    arcs.append((p, (y + dy) * w + x + dx, edges[d, y, x]))
    return h * w + 2, arcs, s, t


def random_grid(rng, h, w, conn, hi=100, density=0.5):
    """Terminals on a `density` share of pixels, n-links in [0, hi), zero
    where the neighbour is outside."""
    source = rng.integers(0, hi, (h, w)) * (rng.random((h, w)) < density)
    sink = rng.integers(0, hi, (h, w)) * (rng.random((h, w)) < density)
    edges = rng.integers(0, hi, (conn, h, w))
    for d in range(conn):
        dx, dy = gcut.DIRECTIONS[d]
        if dx == 1:
            edges[d, :, -1] = 0
        if dx == -1:
            edges[d, :, 0] = 0
        if dy == 1:
            edges[d, -1, :] = 0
        if dy == -1:
            edges[d, 0, :] = 0
    return source.astype(np.int32), sink.astype(np.int32), edges.astype(np.int32)


def gcut_cli():
    """The gcut command to compare with: $GCUT_CLI, build/gcut, or on PATH."""
    for c in (os.environ.get("GCUT_CLI"), str(ROOT / "build" / "gcut"), shutil.which("gcut")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def grabcut_dir():
    """The shared GrabCut images: $GCUT_DATA/grabcut or ../shared/data/grabcut."""
    for base in (os.environ.get("GCUT_DATA"), str(ROOT.parent / "shared" / "data"),
                 str(ROOT / ".devshared" / "data"), str(ROOT.parents[1] / ".devshared" / "data")):
        if base and (Path(base) / "grabcut" / "images").is_dir():
            return Path(base) / "grabcut"
    return None


@pytest.fixture
def rng():
    return np.random.default_rng(20240521)
