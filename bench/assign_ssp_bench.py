#!/usr/bin/env python3
"""csa against ssp (the CPU assignment solvers) on the identical instances.

Dense n x n costs in [0, 1000], sparse square n x n (`degree` arcs a row, a
permutation among them), and sparse rectangular n x 2n (each row `degree`
random columns among the first n plus its own column n + r at cost 1000, the
shape `gcut flow` gives: a window and an occlusion dummy). Both solvers get the
same arrays through gcut_assign_csr_info (time_ms: set-up, solve and proof
check); their optimal costs must agree (exit 1 if not).

Usage: assign_ssp_bench.py LIBGCUT [--dense 1000,2000] [--sparse 100000x10,...]
                           [--rect 100000x10,...] [--repeat 3]
"""
import argparse
import sys

import numpy as np

from assign_bench import Gcut, dense_instance, median, sparse_instance


def rect_instance(n, degree, seed):
    rng = np.random.default_rng(seed)
    col = rng.integers(0, n, size=(n, degree), dtype=np.int64)
    col.sort(axis=1)
    keep = np.ones((n, degree + 1), dtype=bool)
    keep[:, 1:degree] = col[:, 1:] != col[:, :-1]
    full = np.concatenate([col, (n + np.arange(n))[:, None]], axis=1)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=row_ptr[1:])
    colv = full[keep].astype(np.int32)
    cost = rng.integers(0, 1001, size=colv.size, dtype=np.int32)
    cost[row_ptr[1:] - 1] = 1000
    return row_ptr, colv, cost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("--dense", default="1000,2000")
    ap.add_argument("--sparse", default="100000x10")
    ap.add_argument("--rect", default="100000x10")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    g = Gcut(a.lib)
    cases = []
    for n in filter(None, a.dense.split(",")):
        n = int(n)
        m = dense_instance(n, 1)
        row_ptr = np.arange(0, n * n + 1, n, dtype=np.int64)
        col = np.tile(np.arange(n, dtype=np.int32), n)
        cases.append((f"dense {n}x{n} [0,1000]", n, n, row_ptr, col, m.ravel().copy()))
    for s in filter(None, a.sparse.split(",")):
        n, d = map(int, s.split("x"))
        cases.append((f"sparse {n}x{n}, {d} a row", n, n, *sparse_instance(n, d, 1)))
    for s in filter(None, a.rect.split(",")):
        n, d = map(int, s.split("x"))
        cases.append((f"rectangular {n}x{2 * n}, {d} + 1 a row", n, 2 * n,
                      *rect_instance(n, d, 1)))
    bad = 0
    print("| instance | arcs | csa ms | ssp ms | cost |")
    print("| --- | --- | --- | --- | --- |")
    for name, rows, cols, row_ptr, col, cost in cases:
        t, c = {}, {}
        for algo in ("csa", "ssp"):
            times = []
            for _ in range(a.repeat):
                total, info = g.assign(algo, rows, cols, row_ptr, col, cost)
                times.append(info.time_ms)
            t[algo], c[algo] = median(times), total
        same = c["csa"] == c["ssp"]
        bad += not same
        print(f"| {name} | {len(col)} | {t['csa']:.1f} | {t['ssp']:.1f} | "
              f"{c['csa']}{'' if same else ' DIFFERS: ' + str(c['ssp'])} |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
