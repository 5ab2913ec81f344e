#!/usr/bin/env python3
"""gcut assignment (cost scaling) against scipy on the identical instance.

Dense n x n integer costs in [0, 1000] against scipy.optimize.linear_sum_assignment,
and sparse instances (1e6-1e7 arcs) against
scipy.sparse.csgraph.min_weight_full_bipartite_matching. Every instance is made
once with numpy (seeded) and handed to both sides as the same arrays: gcut through
its C API (ctypes on libgcut.so, gcut_assign_csr_info; time_ms covers the
solve, the problem's set-up and the proof check), scipy by its own call (wall
time around the call). Both optimal costs are compared; a difference is marked
in the table, printed on stderr and makes the exit status 1.

Usage: assign_bench.py LIBGCUT OUT.md [--algos csa,gpu-csa] [--dense 1000,2000]
                       [--sparse 100000x10,...] [--repeat 3] [--no-scipy-above N]
"""
import argparse
import ctypes
import os
import platform
import sys
import time

import numpy as np


class Options(ctypes.Structure):
    _fields_ = [("device", ctypes.c_int), ("gpu_index", ctypes.c_int),
                ("verbosity", ctypes.c_int), ("log", ctypes.c_void_p),
                ("log_user", ctypes.c_void_p), ("progress", ctypes.c_void_p),
                ("progress_user", ctypes.c_void_p), ("threads", ctypes.c_int)]


class Info(ctypes.Structure):
    _fields_ = [("cost", ctypes.c_int64), ("assigned", ctypes.c_int32),
                ("scale", ctypes.c_int64), ("time_ms", ctypes.c_double),
                ("device", ctypes.c_char_p), ("algo", ctypes.c_char_p),
                ("refines", ctypes.c_int64), ("pushes", ctypes.c_int64),
                ("price_updates", ctypes.c_int64), ("arcs_fixed", ctypes.c_int64)]


def ptr(a, t):
    return a.ctypes.data_as(ctypes.POINTER(t))


class Gcut:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.gcut_assign_csr_info.restype = ctypes.c_int
        self.lib.gcut_last_error.restype = ctypes.c_char_p
        self.lib.gcut_status_str.restype = ctypes.c_char_p
        self.ctx = {}
        for name, device in (("cpu", 1), ("gpu", 2)):
            opt = Options()
            self.lib.gcut_options_init(ctypes.byref(opt))
            opt.device = device
            ctx = ctypes.c_void_p()
            if self.lib.gcut_context_create(ctypes.byref(opt), ctypes.byref(ctx)) == 0:
                self.ctx[name] = ctx

    def assign(self, algo, rows, cols, row_ptr, col, cost):
        ctx = self.ctx["gpu" if algo.startswith("gpu") else "cpu"]
        out = np.empty(rows, dtype=np.int32)
        total = ctypes.c_int64()
        info = Info()
        st = self.lib.gcut_assign_csr_info(
            ctx, rows, cols, ptr(row_ptr, ctypes.c_int64), ptr(col, ctypes.c_int32),
            ptr(cost, ctypes.c_int32), 0, algo.encode(), ptr(out, ctypes.c_int32),
            ctypes.byref(total), None, ctypes.byref(info))
        if st != 0:
            raise RuntimeError(self.lib.gcut_last_error(ctx).decode())
        return total.value, info


def dense_instance(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1001, size=(n, n), dtype=np.int32)


def sparse_instance(n, degree, seed):
    """n x n, `degree` arcs a row: a random permutation (so that a perfect
    assignment exists) and degree - 1 random columns, costs in [1, 1000]
    (scipy's sparse matching reads explicit zeros as missing arcs)."""
    rng = np.random.default_rng(seed)
    col = rng.integers(0, n, size=(n, degree), dtype=np.int64)
    col[:, 0] = rng.permutation(n)
    col.sort(axis=1)
    # repeated columns in a row: keep one (scipy's CSR would sum them)
    keep = np.ones_like(col, dtype=bool)
    keep[:, 1:] = col[:, 1:] != col[:, :-1]
    counts = keep.sum(axis=1)
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=row_ptr[1:])
    colv = col[keep].astype(np.int32)
    cost = rng.integers(1, 1001, size=colv.size, dtype=np.int32)
    return row_ptr, colv, cost


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("out")
    ap.add_argument("--algos", default="csa")
    ap.add_argument("--dense", default="1000,2000")
    ap.add_argument("--sparse", default="100000x10")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device-name", default=None)
    args = ap.parse_args()

    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    g = Gcut(args.lib)
    algos = [a for a in args.algos.split(",") if a]
    rows_out = []
    bad = 0
    instances = []
    for n in [int(x) for x in args.dense.split(",") if x]:
        instances.append(("dense", n, None))
    for spec in [x for x in args.sparse.split(",") if x]:
        n, d = spec.split("x")
        instances.append(("sparse", int(n), int(d)))

    device = args.device_name or platform.node()
    for kind, n, d in instances:
        seed = 1000 + n + (d or 0)
        t = time.perf_counter()
        if kind == "dense":
            mat = dense_instance(n, seed)
            row_ptr = np.arange(0, n * n + 1, n, dtype=np.int64)
            col = np.tile(np.arange(n, dtype=np.int32), n)
            cost = mat.reshape(-1)
            name = f"dense {n}x{n} [0,1000]"
        else:
            row_ptr, col, cost = sparse_instance(n, d, seed)
            name = f"sparse n={n} deg {d}"
        arcs = int(row_ptr[-1])
        print(f"{name}: {arcs} arcs, made in {time.perf_counter() - t:.1f} s", file=sys.stderr)

        # scipy, once per instance unless quick (it is the slow side)
        sp_times = []
        sp_cost = None
        for _ in range(args.repeat if n <= 2000 else 1):
            if kind == "dense":
                t = time.perf_counter()
                r, c = linear_sum_assignment(mat)
                sp_times.append((time.perf_counter() - t) * 1e3)
                sp_cost = int(mat[r, c].sum())
            else:
                m = csr_matrix((cost, col, row_ptr), shape=(n, n))
                t = time.perf_counter()
                r, c = min_weight_full_bipartite_matching(m)
                sp_times.append((time.perf_counter() - t) * 1e3)
                sp_cost = int(np.asarray(m[r, c]).sum())
        sp_ms = median(sp_times)
        print(f"  scipy {sp_ms:.1f} ms cost {sp_cost}", file=sys.stderr)

        for algo in algos:
            times = []
            cost_g = None
            info = None
            try:
                for _ in range(args.repeat):
                    cost_g, info = g.assign(algo, n, n, row_ptr, col, cost)
                    times.append(info.time_ms)
            except RuntimeError as e:
                print(f"  {algo}: {e}", file=sys.stderr)
                rows_out.append((name, arcs, algo, "error", sp_ms, None, None, str(e)))
                bad = 1
                continue
            ms = median(times)
            same = cost_g == sp_cost
            if not same:
                bad = 1
                print(f"  MISMATCH {algo}: gcut {cost_g}, scipy {sp_cost}", file=sys.stderr)
            print(f"  {algo} on {info.device.decode()}: {ms:.1f} ms cost {cost_g} "
                  f"({sp_ms / ms:.1f}x scipy; refines {info.refines}, pushes {info.pushes}, "
                  f"updates {info.price_updates}, fixed {info.arcs_fixed})", file=sys.stderr)
            rows_out.append((name, arcs, algo, info.device.decode(), sp_ms, ms, same,
                             f"{info.refines} phases, {info.pushes} pushes, "
                             f"{info.price_updates} price updates, {info.arcs_fixed} arcs fixed"))
        write_table(args.out, device, rows_out, args.repeat)
    return bad


def write_table(path, device, rows, repeat):
    with open(path + ".tmp", "w") as f:
        f.write(f"# Assignment: gcut cost scaling against scipy ({device})\n\n")
        f.write("Written by `bench/assign_bench.py` (see bench/README.md). Times in ms: gcut's "
                "`time_ms` (set-up, solve and proof check), scipy's wall time around its call; "
                f"medians of {repeat} gcut runs (scipy: {repeat} up to n = 2000, else 1). "
                "speed-up = scipy / gcut. same = the two optimal costs are equal.\n\n")
        f.write("| instance | arcs | gcut algo | device | scipy ms | gcut ms | speed-up | same | "
                "work |\n| --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- |\n")
        for name, arcs, algo, dev, sp, ms, same, work in rows:
            if ms is None:
                f.write(f"| {name} | {arcs} | {algo} | {dev} | {sp:.1f} | error | | | {work} |\n")
            else:
                f.write(f"| {name} | {arcs} | {algo} | {dev} | {sp:.1f} | {ms:.1f} | "
                        f"{sp / ms:.1f}x | {'yes' if same else '**NO**'} | {work} |\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
