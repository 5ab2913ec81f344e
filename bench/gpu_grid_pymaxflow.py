#!/usr/bin/env python3
"""PyMaxflow (BK v3) on a grid graph that gpu-grid-bench wrote, for its table.

The file: int32 width, height, connectivity, then int32 arrays of width x
height values, row-major: source capacities, sink capacities, and one
array per direction (E W S N NE SW SE NW, the first `connectivity`), the
capacity of the arc from each pixel to its neighbour that way. The graph is
built as grid_bench.py builds it (not timed: one BK edge per neighbour pair,
with its two capacities); g.maxflow() is timed.

Usage: gpu_grid_pymaxflow.py FILE   prints "FLOW MS"
"""
import sys
import time

import numpy as np
import maxflow

DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1), (1, 1), (-1, -1)]


def axis(n, d):
    return slice(max(0, -d), n - max(0, d)), slice(max(0, d), n - max(0, -d))


def main():
    raw = np.fromfile(sys.argv[1], dtype=np.int32)
    w, h, conn = (int(v) for v in raw[:3])
    n = w * h
    arrays = raw[3:].reshape(2 + conn, h, w)
    ids = np.arange(n, dtype=np.int64).reshape(h, w)
    pairs = []
    for d in range(0, conn, 2):  # d and d ^ 1 are opposite
        dx, dy = DIRS[d]
        (py, qy), (px, qx) = axis(h, dy), axis(w, dx)
        cap = arrays[2 + d][py, px].ravel()
        rev = arrays[3 + d][qy, qx].ravel()
        keep = (cap > 0) | (rev > 0)
        pairs.append((ids[py, px].ravel()[keep], ids[qy, qx].ravel()[keep], cap[keep], rev[keep]))
    g = maxflow.Graph[int](n, sum(p[0].size for p in pairs))
    nodes = g.add_grid_nodes((h, w))
    g.add_grid_tedges(nodes, arrays[0], arrays[1])
    for i, j, cap, rev in pairs:
        g.add_edges(i, j, cap, rev)
    t0 = time.perf_counter()
    flow = g.maxflow()
    print(int(flow), "%.3f" % ((time.perf_counter() - t0) * 1e3))


if __name__ == "__main__":
    main()
