#!/usr/bin/env python3
"""Maximum bipartite matching: gcut's pr, hk (CPU) and gpr (GPU) against
scipy.sparse.csgraph.maximum_bipartite_matching (Hopcroft-Karp) on the same
graphs in the same run: the same size, and the times.

Graphs: random bipartite graphs of 1e5, 1e6 and 1e7 entries (uniform rows and
columns, or power-law rows), 2-D and 3-D Laplacian patterns (5- and 7-point)
with a tenth of the entries removed so the matching is deficient, and the
shared SuiteSparse matrices. gcut is called through ctypes on libgcut.so, on a
graph built once (gcut_bipartite_create_from_edges, not timed); the times are
the solver's own (gcut_match_info.time_ms: greedy start included; for gpr the
device's run by CUDA events, with total_ms adding allocation and transfers)
and scipy's call on a CSR matrix built beforehand. Each time is the median of
`--reps` runs (one run for graphs of 1e7 entries).

Usage: match_bench.py LIBGCUT.so [--matrices DIR] [--sizes 1e5,1e6,1e7]
                      [--reps N] [--out results.md] [--quick]
"""
import argparse
import ctypes as C
import os
import statistics
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching


class MatchInfo(C.Structure):
    _fields_ = [("size", C.c_int32), ("initial_size", C.c_int32), ("time_ms", C.c_double),
                ("total_ms", C.c_double), ("cover_ms", C.c_double), ("device", C.c_char_p),
                ("algo", C.c_char_p), ("iterations", C.c_int64), ("relabels", C.c_int64)]


class Gcut:
    def __init__(self, path):
        self.lib = lib = C.CDLL(path)
        lib.gcut_context_create.argtypes = [C.c_void_p, C.POINTER(C.c_void_p)]
        lib.gcut_last_error.restype = C.c_char_p
        lib.gcut_last_error.argtypes = [C.c_void_p]
        lib.gcut_bipartite_create_from_edges.argtypes = [
            C.c_void_p, C.c_int32, C.c_int32, C.c_int64, C.c_void_p, C.c_void_p, C.c_void_p,
            C.POINTER(C.c_void_p)]
        lib.gcut_bipartite_read.argtypes = [C.c_void_p, C.c_char_p, C.c_uint,
                                            C.POINTER(C.c_void_p)]
        lib.gcut_bipartite_destroy.argtypes = [C.c_void_p]
        for f in ("rows", "cols", "edges"):
            getattr(lib, "gcut_bipartite_" + f).argtypes = [C.c_void_p]
            getattr(lib, "gcut_bipartite_" + f).restype = C.c_int32
        lib.gcut_bipartite_edge.argtypes = [C.c_void_p, C.c_int32, C.POINTER(C.c_int32),
                                            C.POINTER(C.c_int32), C.POINTER(C.c_int32)]
        lib.gcut_match.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p, C.c_void_p, C.c_void_p,
                                   C.c_void_p, C.POINTER(MatchInfo)]
        lib.gcut_match_algorithms.restype = C.c_char_p
        lib.gcut_device_count.argtypes = [C.c_void_p, C.POINTER(C.c_int)]
        lib.gcut_device_name.argtypes = [C.c_void_p, C.c_int, C.c_char_p, C.c_size_t]
        self.ctx = C.c_void_p()
        if lib.gcut_context_create(None, C.byref(self.ctx)):
            raise RuntimeError("gcut_context_create failed")
        self.algos = lib.gcut_match_algorithms().decode().split(",")

    def error(self):
        return self.lib.gcut_last_error(self.ctx).decode()

    def gpu_name(self):
        count = C.c_int(0)
        self.lib.gcut_device_count(self.ctx, C.byref(count))
        if count.value == 0:
            return None
        buf = C.create_string_buffer(256)
        self.lib.gcut_device_name(self.ctx, 0, buf, 256)
        return buf.value.decode()

    def build(self, rows, cols, r, c):
        r = np.ascontiguousarray(r, dtype=np.int32)
        c = np.ascontiguousarray(c, dtype=np.int32)
        b = C.c_void_p()
        if self.lib.gcut_bipartite_create_from_edges(self.ctx, rows, cols, len(r),
                                                     r.ctypes.data, c.ctypes.data, None,
                                                     C.byref(b)):
            raise RuntimeError(self.error())
        return b

    def read(self, path):
        b = C.c_void_p()
        if self.lib.gcut_bipartite_read(self.ctx, path.encode(), 4, C.byref(b)):  # NO_COSTS
            raise RuntimeError(self.error())
        return b

    def edges_of(self, b):
        m = self.lib.gcut_bipartite_edges(b)
        r = np.empty(m, np.int32)
        c = np.empty(m, np.int32)
        rr, cc = C.c_int32(), C.c_int32()
        for e in range(m):
            self.lib.gcut_bipartite_edge(b, e, C.byref(rr), C.byref(cc), None)
            r[e], c[e] = rr.value, cc.value
        return r, c

    def match(self, b, algo):
        info = MatchInfo()
        if self.lib.gcut_match(b, algo.encode(), None, None, None, None, C.byref(info)):
            raise RuntimeError(self.error())
        return info


# ---- graphs -------------------------------------------------------------------

def uniform(nnz, rng):
    n = max(1, nnz // 5)
    return n, n, rng.integers(0, n, nnz), rng.integers(0, n, nnz)


def power_law(nnz, rng):
    # Rows drawn as n * u^3: row degrees fall off like a power law (a few
    # rows of degree in the thousands, many of 0); columns uniform.
    n = max(1, nnz // 5)
    u = rng.random(nnz)
    return n, n, np.minimum((u ** 3 * n).astype(np.int64), n - 1), rng.integers(0, n, nnz)


def laplacian(side, dims, rng, removed=0.1):
    n = side ** dims
    v = np.arange(n, dtype=np.int64)
    rows, cols = [v], [v]
    stride = 1
    for axis in range(dims):
        coord = (v // stride) % side
        for step in (-1, 1):
            ok = (coord + step >= 0) & (coord + step < side)
            rows.append(v[ok])
            cols.append(v[ok] + step * stride)
        stride *= side
    r = np.concatenate(rows)
    c = np.concatenate(cols)
    keep = rng.random(len(r)) >= removed
    return n, n, r[keep], c[keep]


# ---- timing -------------------------------------------------------------------

def median_ms(fn, reps):
    times, out = [], None
    for _ in range(reps):
        out, ms = fn()
        times.append(ms)
    return out, statistics.median(times)


def scipy_timed(csr, reps, limit_s):
    """scipy's matching in a child process, killed after limit_s seconds (its
    Hopcroft-Karp can take exponential time: scipy issue 26147). Returns
    (size, median ms) or (None, None) on a timeout."""
    import multiprocessing as mp

    def child(conn):
        times, size = [], 0
        for _ in range(reps):
            t0 = time.perf_counter()
            perm = maximum_bipartite_matching(csr, perm_type="column")
            times.append((time.perf_counter() - t0) * 1e3)
            size = int((perm >= 0).sum())
        conn.send((size, statistics.median(times)))

    ctx = mp.get_context("fork")
    parent, kid = ctx.Pipe(duplex=False)
    p = ctx.Process(target=child, args=(kid,))
    p.start()
    kid.close()
    got = parent.poll(limit_s * reps)
    result = parent.recv() if got else (None, None)
    if p.is_alive():
        p.kill()
    p.join()
    return result


def scipy_text(row):
    if row["scipy_ms"] is not None:
        return "%9.2f ms" % row["scipy_ms"]
    if row["scipy_skipped"]:
        return "not run (timed out on a smaller graph)"
    return "> %g s (stopped)" % row["scipy_limit_s"]


def speedup(row, algo):
    if row["scipy_ms"] is not None:
        return "x%.1f" % (row["scipy_ms"] / max(row[algo + "_ms"], 1e-6))
    if row["scipy_skipped"]:
        return "-"
    return "> x%.0f" % (row["scipy_limit_s"] * 1e3 / max(row[algo + "_ms"], 1e-6))


timed_out = set()
scipy_limit_s = 10.0


def run_graph(g, name, rows, cols, r, c, reps, results, gpu):
    b = g.build(rows, cols, r, c)
    try:
        m = g.lib.gcut_bipartite_edges(b)
        csr = sp.csr_matrix((np.ones(len(r), np.int8), (np.asarray(r), np.asarray(c))),
                            shape=(rows, cols))
        csr.sum_duplicates()

        if m >= 5_000_000:
            reps = 1
        family = name.split()[0]
        skipped = family in timed_out
        if skipped:
            scipy_size, scipy_ms = None, None  # timed out on a smaller graph of this family
        else:
            scipy_size, scipy_ms = scipy_timed(csr, reps, scipy_limit_s)
            if scipy_size is None:
                timed_out.add(family)
        row = {"graph": name, "rows": rows, "cols": cols, "edges": m, "size": scipy_size,
               "scipy_ms": scipy_ms, "scipy_limit_s": scipy_limit_s,
               "scipy_skipped": skipped}
        for algo in ("pr", "hk") + (("gpr",) if gpu else ()):
            def ours():
                info = g.match(b, algo)
                return (info.size, info.total_ms, info.initial_size), info.time_ms
            (size, total_ms, initial), ms = median_ms(ours, reps)
            if row["size"] is None:
                row["size"] = size  # scipy gave none: the solvers must agree among themselves
            if size != row["size"]:
                raise RuntimeError("%s: %s found %d pairs, expected %d" % (name, algo, size,
                                                                            row["size"]))
            row[algo + "_ms"] = ms
            row[algo + "_total_ms"] = total_ms
            row["initial"] = initial
        results.append(row)
        line = "%-28s %9d edges  size %9d  scipy %s" % (name, m, row["size"], scipy_text(row))
        for algo in ("pr", "hk", "gpr"):
            if algo + "_ms" in row:
                line += "  %s %8.2f ms (%s)" % (algo, row[algo + "_ms"], speedup(row, algo))
        print(line, flush=True)
    finally:
        g.lib.gcut_bipartite_destroy(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--matrices", default=None)
    ap.add_argument("--sizes", default="1e5,1e6,1e7")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true", help="1e5 only, 1 rep")
    ap.add_argument("--scipy-limit", type=float, default=10.0,
                    help="seconds a scipy run may take before it is stopped (default 10)")
    args = ap.parse_args()
    global scipy_limit_s
    scipy_limit_s = args.scipy_limit
    g = Gcut(args.lib)
    gpu = g.gpu_name() if "gpr" in g.algos else None
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    if args.quick:
        sizes, args.reps = [100000], 1
    rng = np.random.default_rng(20240518)
    results = []
    for nnz in sizes:
        tag = "1e%d" % round(np.log10(nnz))
        run_graph(g, "uniform " + tag, *uniform(nnz, rng), args.reps, results, gpu)
        run_graph(g, "power-law " + tag, *power_law(nnz, rng), args.reps, results, gpu)
        side2 = int(round((nnz / 5) ** 0.5))
        run_graph(g, "laplace2d %d^2 -10%%" % side2, *laplacian(side2, 2, rng), args.reps,
                  results, gpu)
        side3 = int(round((nnz / 7) ** (1 / 3)))
        run_graph(g, "laplace3d %d^3 -10%%" % side3, *laplacian(side3, 3, rng), args.reps,
                  results, gpu)
    if args.matrices and os.path.isdir(args.matrices):
        for f in sorted(os.listdir(args.matrices)):
            if not f.endswith(".mtx"):
                continue
            b = g.read(os.path.join(args.matrices, f))
            rows, cols = g.lib.gcut_bipartite_rows(b), g.lib.gcut_bipartite_cols(b)
            r, c = g.edges_of(b)
            g.lib.gcut_bipartite_destroy(b)
            run_graph(g, f[:-4], rows, cols, r, c, max(args.reps, 5), results, gpu)
    if args.out:
        write_markdown(args.out, results, gpu, args)


def write_markdown(path, results, gpu, args):
    import platform
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    with open(path, "w") as f:
        f.write("# Maximum bipartite matching: gcut against scipy\n\n")
        f.write("Machine: %s; GPU: %s; scipy %s, numpy %s. `bench/match_bench.py %s`.\n\n" %
                (cpu, gpu or "none", scipy.__version__, np.__version__,
                 " ".join(sys.argv[1:])))
        f.write("Times in ms, median of %d runs (1 run at 1e7 entries, at least 5 for the "
                "matrices). scipy: `maximum_bipartite_matching` (Hopcroft-Karp) on a CSR "
                "matrix; pr, hk: gcut on one CPU core, Karp-Sipser start included; gpr: the "
                "GPU run (CUDA events, greedy start included), gpr total adds device "
                "allocation, upload and download. Every solver found the same size as "
                "scipy on every graph (the script stops otherwise); where scipy was stopped "
                "after the limit (its Hopcroft-Karp takes exponential time on some graphs, "
                "scipy issue 26147), the solvers agree among themselves and each answer "
                "carries its König cover. xN = scipy / gcut; > xN where scipy was stopped. "
                "'not run': scipy was stopped on a smaller graph of the same family.\n\n"
                % args.reps)
        f.write("| graph | rows | cols | edges | matching | scipy | pr | hk | gpr | "
                "gpr total | pr xN | hk xN | gpr xN |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in results:
            def t(k):
                return "%.2f" % r[k] if r.get(k) is not None else "-"

            def x(algo):
                return speedup(r, algo) if algo + "_ms" in r else "-"
            scipy_cell = t("scipy_ms") if r["scipy_ms"] is not None else (
                "not run" if r["scipy_skipped"] else "> %g s" % r["scipy_limit_s"])
            f.write("| %s | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                r["graph"], r["rows"], r["cols"], r["edges"], r["size"], scipy_cell,
                t("pr_ms"), t("hk_ms"), t("gpr_ms"), t("gpr_total_ms"), x("pr"), x("hk"),
                x("gpr")))


if __name__ == "__main__":
    main()
