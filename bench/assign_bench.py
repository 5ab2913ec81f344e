#!/usr/bin/env python3
"""gcut assignment (cost scaling) against scipy on the identical instance.

Dense n x n integer costs in [0, 1000] against scipy.optimize.linear_sum_assignment,
and sparse instances (1e6-1e7 arcs) and the windowed flow assignment of two
frames (every pixel of frame 0 to the pixels of frame 1 within (2R+1)^2, cost a
3x3 SAD plus a motion penalty) against
scipy.sparse.csgraph.min_weight_full_bipartite_matching. Every instance is made
once with numpy (seeded) and handed to both sides as the same arrays: gcut through
its C API (ctypes on libgcut.so, gcut_assign_csr_info; time_ms covers the
solve, the problem's set-up and the proof check), scipy by its own call in a
child process (wall time around the call; the child is stopped after
--scipy-timeout seconds and the table says "> T"). Both optimal costs are
compared; a difference is marked in the table, printed on stderr and makes the
exit status 1.

Usage: assign_bench.py LIBGCUT OUT.md [--algos csa,gpu-csa] [--dense 1000,2000]
                       [--sparse 100000x10,...] [--window 3,5 --frames DIR]
                       [--repeat 3] [--scipy-timeout S] [--cpu-max-arcs M] [--verbose]
                       [--base LIB] [--threads T] [--dense-costs uniform,line,...]

--base LIB runs the CPU algorithms of a second libgcut (another build, say
main's) on the same arrays in the same process, its runs alternating with
LIB's so that both see the same machine; its rows say "ALGO@base". gpu-csa
builds are compared each in its own process (two CUDA runtimes are not
loaded into one): bench/assign_device.sh with COMPARE_TREES.
--threads T gives the contexts T threads (0: one per core, the default).
--dense-costs picks the dense cost families (DENSE_COSTS below; uniform: the
[0, 1000] instances of the issue, the default).
"""
import argparse
import ctypes
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np


class Options(ctypes.Structure):
    _fields_ = [("device", ctypes.c_int), ("gpu_index", ctypes.c_int),
                ("verbosity", ctypes.c_int), ("log", ctypes.c_void_p),
                ("log_user", ctypes.c_void_p), ("progress", ctypes.c_void_p),
                ("progress_user", ctypes.c_void_p), ("threads", ctypes.c_int),
                ("max_memory", ctypes.c_int64)]  # gcut.h's gcut_options, field for field


class Info(ctypes.Structure):
    _fields_ = [("cost", ctypes.c_int64), ("assigned", ctypes.c_int32),
                ("scale", ctypes.c_int64), ("time_ms", ctypes.c_double),
                ("device", ctypes.c_char_p), ("algo", ctypes.c_char_p),
                ("refines", ctypes.c_int64), ("pushes", ctypes.c_int64),
                ("price_updates", ctypes.c_int64), ("arcs_fixed", ctypes.c_int64)]


def ptr(a, t):
    return a.ctypes.data_as(ctypes.POINTER(t))


LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


@LOG_FN
def print_log(user, level, message):
    print(f"    [gcut] {message.decode()}", file=sys.stderr)


class Gcut:
    def __init__(self, path, verbose=False, threads=0):
        self.lib = ctypes.CDLL(path)
        self.lib.gcut_assign_csr_info.restype = ctypes.c_int
        self.lib.gcut_last_error.restype = ctypes.c_char_p
        self.lib.gcut_status_str.restype = ctypes.c_char_p
        self.lib.gcut_image_load.restype = ctypes.c_int
        self.lib.gcut_image_pixels.restype = ctypes.POINTER(ctypes.c_uint8)
        self.ctx = {}
        for name, device in (("cpu", 1), ("gpu", 2)):
            opt = Options()
            self.lib.gcut_options_init(ctypes.byref(opt))
            opt.device = device
            opt.threads = threads
            if verbose:
                opt.verbosity = 3
                opt.log = ctypes.cast(print_log, ctypes.c_void_p)
            ctx = ctypes.c_void_p()
            if self.lib.gcut_context_create(ctypes.byref(opt), ctypes.byref(ctx)) == 0:
                self.ctx[name] = ctx
        # CUDA's start and the first kernels' loads belong to no instance:
        # pay them on a 2x2 problem before anything is timed.
        if "gpu" in self.ctx:
            try:
                self.assign("gpu-csa", 2, 2, np.array([0, 2, 4], dtype=np.int64),
                            np.array([0, 1, 0, 1], dtype=np.int32),
                            np.array([1, 2, 2, 1], dtype=np.int32))
            except RuntimeError:
                pass  # no usable GPU: its rows will say so

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

    def grey(self, path):
        """An image file as a 2-D uint8 array (RGB to luma)."""
        img = ctypes.c_void_p()
        ctx = self.ctx["cpu"]
        if self.lib.gcut_image_load(ctx, path.encode(), ctypes.byref(img)) != 0:
            raise RuntimeError(self.lib.gcut_last_error(ctx).decode())
        w, h = self.lib.gcut_image_width(img), self.lib.gcut_image_height(img)
        ch = self.lib.gcut_image_channels(img)
        px = np.ctypeslib.as_array(self.lib.gcut_image_pixels(img), shape=(h, w, ch)).copy()
        self.lib.gcut_image_destroy(img)
        if ch >= 3:
            # every channel widened first: a uint8 channel times 150 wraps
            rgb = px[:, :, :3].astype(np.int32)
            return ((77 * rgb[:, :, 0] + 150 * rgb[:, :, 1] + 29 * rgb[:, :, 2]) >> 8).astype(np.uint8)
        return px[:, :, 0]


DENSE_COSTS = {
    # name in the table, then the n x n int32 matrix from (rng, n)
    "uniform": ("[0,1000]", lambda rng, n: rng.integers(0, 1001, size=(n, n), dtype=np.int32)),
    "wide": ("[0,1e6]", lambda rng, n: rng.integers(0, 1_000_001, size=(n, n), dtype=np.int32)),
    # (i j) mod 1001: structured, many repeated values
    "product": ("(i j) mod 1001", lambda rng, n: (np.outer(np.arange(n, dtype=np.int64),
                                                            np.arange(n)) % 1001)
                .astype(np.int32)),
    # |x_i - y_j| for random points on a line: long chains of near ties
    "line": ("|x_i - y_j|", lambda rng, n: np.abs(
        rng.integers(0, 100_000, size=(n, 1)) - rng.integers(0, 100_000, size=(1, n)))
             .astype(np.int32)),
    # a_i b_j, a and b in [0, 1000): rank one
    "lowrank": ("a_i b_j", lambda rng, n: np.outer(rng.integers(0, 1000, size=n),
                                                   rng.integers(0, 1000, size=n))
                .astype(np.int32)),
}


def dense_instance(n, seed, family="uniform"):
    rng = np.random.default_rng(seed)
    return DENSE_COSTS[family][1](rng, n)


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


def window_instance(f0, f1, radius):
    """Square instance of the flow assignment between two grey frames: pixel p
    of f0 to pixel p + (dx, dy) of f1 for |dx|, |dy| <= radius inside the
    frame, cost 1 + the sum of absolute differences over 3x3 patches (edges
    clamped) + 4 (dx^2 + dy^2). The zero motion is always there, so a perfect
    assignment exists."""
    h, w = f0.shape
    a = np.pad(f0.astype(np.int32), 1, mode="edge")
    b = np.pad(f1.astype(np.int32), 1 + radius, mode="edge")
    offsets = [(dx, dy) for dy in range(-radius, radius + 1) for dx in range(-radius, radius + 1)]
    ys, xs = np.mgrid[0:h, 0:w]
    cols, costs, valid = [], [], []
    for dx, dy in offsets:
        sad = np.zeros((h, w), dtype=np.int32)
        for py in range(3):
            for px in range(3):
                sad += np.abs(a[py:py + h, px:px + w] -
                              b[radius + dy + py:radius + dy + py + h,
                                radius + dx + px:radius + dx + px + w])
        tx, ty = xs + dx, ys + dy
        valid.append((tx >= 0) & (tx < w) & (ty >= 0) & (ty < h))
        cols.append((ty * w + tx).astype(np.int32))
        costs.append(1 + sad + 4 * (dx * dx + dy * dy))
    valid = np.stack(valid, axis=-1).reshape(h * w, -1)
    col = np.stack(cols, axis=-1).reshape(h * w, -1)[valid]
    cost = np.stack(costs, axis=-1).reshape(h * w, -1)[valid].astype(np.int32)
    row_ptr = np.zeros(h * w + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=row_ptr[1:])
    return row_ptr, col.astype(np.int32), cost


SCIPY_CHILD = r"""
import json, sys, time
import numpy as np
d = np.load(sys.argv[1])
if "mat" in d:
    from scipy.optimize import linear_sum_assignment
    mat = d["mat"]
    t = time.perf_counter()
    r, c = linear_sum_assignment(mat)
    ms = (time.perf_counter() - t) * 1e3
    cost = int(mat[r, c].astype(np.int64).sum())
else:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching
    n = int(d["n"])
    m = csr_matrix((d["cost"], d["col"], d["row_ptr"]), shape=(n, n))
    t = time.perf_counter()
    r, c = min_weight_full_bipartite_matching(m)
    ms = (time.perf_counter() - t) * 1e3
    cost = int(np.asarray(m[r, c]).astype(np.int64).sum())
print(json.dumps({"ms": ms, "cost": cost}))
"""


def scipy_solve(arrays, timeout):
    """scipy on the instance in a child process: (ms, cost), or (None, None)
    when it ran past `timeout` seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "instance.npz")
        np.savez(path, **arrays)
        try:
            out = subprocess.run([sys.executable, "-c", SCIPY_CHILD, path], check=True,
                                 capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, None
    import json
    res = json.loads(out.stdout)
    return res["ms"], res["cost"]


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("out")
    ap.add_argument("--algos", default="csa")
    ap.add_argument("--dense", default="1000,2000")
    ap.add_argument("--dense-costs", default="uniform",
                    help="cost families of the dense instances: " + ",".join(DENSE_COSTS))
    ap.add_argument("--sparse", default="100000x10")
    ap.add_argument("--window", default="", help="radii of the windowed flow instance")
    ap.add_argument("--frames", default="", help="directory with frame10.png and frame11.png")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scipy-repeat", type=int, default=2,
                    help="scipy runs on instances of at most 4e6 arcs (else 1)")
    ap.add_argument("--scipy-timeout", type=float, default=120.0)
    ap.add_argument("--cpu-max-arcs", type=int, default=0,
                    help="skip the CPU solver above this many arcs (0: never)")
    ap.add_argument("--device-name", default=None)
    ap.add_argument("--verbose", action="store_true", help="print gcut's debug log (phases)")
    ap.add_argument("--base", default="",
                    help="a second libgcut whose CPU algorithms run beside LIB's (rows ALGO@base)")
    ap.add_argument("--threads", type=int, default=0,
                    help="the contexts' threads (0: one per core)")
    args = ap.parse_args()

    g = Gcut(args.lib, args.verbose, args.threads)
    base = Gcut(args.base, args.verbose, args.threads) if args.base else None
    algos = [a for a in args.algos.split(",") if a]
    rows_out = []
    bad = 0
    instances = []
    for family in [x for x in args.dense_costs.split(",") if x]:
        if family not in DENSE_COSTS:
            ap.error(f"--dense-costs: no family '{family}' (have: {', '.join(DENSE_COSTS)})")
        for n in [int(x) for x in args.dense.split(",") if x]:
            instances.append(("dense", n, family))
    for spec in [x for x in args.sparse.split(",") if x]:
        n, d = spec.split("x")
        instances.append(("sparse", int(n), int(d)))
    frames = None
    for r in [int(x) for x in args.window.split(",") if x]:
        if frames is None:
            frames = [g.grey(os.path.join(args.frames, f)) for f in ("frame10.png", "frame11.png")]
        instances.append(("window", r, None))

    device = args.device_name or platform.node()
    for kind, n, d in instances:
        seed = 1000 + n + (d if kind == "sparse" else 0)
        t = time.perf_counter()
        if kind == "dense":
            mat = dense_instance(n, seed, d)
            row_ptr = np.arange(0, n * n + 1, n, dtype=np.int64)
            col = np.tile(np.arange(n, dtype=np.int32), n)
            cost = mat.reshape(-1)
            name = f"dense {n}x{n} {DENSE_COSTS[d][0]}"
            arrays = {"mat": mat}
        elif kind == "sparse":
            row_ptr, col, cost = sparse_instance(n, d, seed)
            name = f"sparse n={n} deg {d}"
        else:
            row_ptr, col, cost = window_instance(frames[0], frames[1], n)
            name = (f"window R={n} {os.path.basename(os.path.normpath(args.frames))} "
                    f"{frames[0].shape[1]}x{frames[0].shape[0]}")
            n = frames[0].size
        if kind != "dense":
            arrays = {"n": np.int64(n), "row_ptr": row_ptr, "col": col, "cost": cost}
        arcs = int(row_ptr[-1])
        print(f"{name}: {arcs} arcs, made in {time.perf_counter() - t:.1f} s", file=sys.stderr)

        # scipy in a child process, stopped after the timeout
        sp_times = []
        sp_cost = None
        for _ in range(args.scipy_repeat if arcs <= 4_000_000 else 1):
            ms, c = scipy_solve(arrays, args.scipy_timeout)
            if ms is None:
                sp_times = []
                break
            sp_times.append(ms)
            sp_cost = c
        sp_ms = median(sp_times) if sp_times else None
        if sp_ms is None:
            print(f"  scipy: past {args.scipy_timeout:.0f} s, stopped", file=sys.stderr)
        else:
            print(f"  scipy {sp_ms:.1f} ms cost {sp_cost}", file=sys.stderr)

        for algo in algos:
            if args.cpu_max_arcs and not algo.startswith("gpu") and arcs > args.cpu_max_arcs:
                print(f"  {algo}: skipped (more than {args.cpu_max_arcs} arcs)", file=sys.stderr)
                continue
            # (label, library): LIB's, then the base's on the CPU, run by turns
            sides = [(algo, g)]
            if base is not None and not algo.startswith("gpu"):
                sides.append((algo + "@base", base))
            runs = {label: [] for label, _ in sides}
            errors = {}
            for _ in range(args.repeat):
                for label, lib in sides:
                    if label in errors:
                        continue
                    try:
                        runs[label].append(lib.assign(algo, n, n, row_ptr, col, cost))
                    except RuntimeError as e:
                        errors[label] = str(e)
            for label, _ in sides:
                if label in errors:
                    print(f"  {label}: {errors[label]}", file=sys.stderr)
                    rows_out.append((name, arcs, label, "error", sp_ms, None, None, errors[label]))
                    bad = 1
                    continue
                bad |= report_runs(name, arcs, label, runs[label], sp_ms, sp_cost, args, rows_out)
        write_table(args.out, device, rows_out, args)
    return bad


def report_runs(name, arcs, algo, runs, sp_ms, sp_cost, args, rows_out):
    """One table row from an algorithm's runs [(cost, info)]; 1 when its cost
    differs from scipy's."""
    bad = 0
    times = [info.time_ms for _, info in runs]
    cost_g, info = runs[-1]
    ms = median(times)
    same = None if sp_cost is None else cost_g == sp_cost
    if same is False:
        bad = 1
        print(f"  MISMATCH {algo}: gcut {cost_g}, scipy {sp_cost}", file=sys.stderr)
    ratio = f"{sp_ms / ms:.1f}x" if sp_ms else f"> {args.scipy_timeout * 1e3 / ms:.1f}x"
    print(f"  {algo} on {info.device.decode()}: {ms:.1f} ms cost {cost_g} "
          f"({ratio} scipy; refines {info.refines}, pushes {info.pushes}, "
          f"updates {info.price_updates}, fixed {info.arcs_fixed}; runs "
          f"{', '.join(f'{x:.1f}' for x in times)})", file=sys.stderr)
    rows_out.append((name, arcs, algo, info.device.decode(), sp_ms, ms, same,
                     f"{info.refines} phases, {info.pushes} "
                     f"{'bids' if algo.startswith('gpu') else 'pushes'}, "
                     f"{info.price_updates} price updates, {info.arcs_fixed} arcs fixed"))
    return bad


def write_table(path, device, rows, args):
    with open(path + ".tmp", "w") as f:
        f.write(f"# Assignment: gcut cost scaling against scipy ({device})\n\n")
        f.write("Written by `bench/assign_bench.py` (see bench/README.md). Times in ms: gcut's "
                "`time_ms` (set-up, solve and proof check), scipy's wall time around its call "
                f"(in a child process, stopped after {args.scipy_timeout:.0f} s: \"> T\"); "
                f"medians of {args.repeat} gcut runs (scipy: {args.scipy_repeat} up to 4e6 arcs, "
                "else 1). speed-up = scipy / gcut. same = the two optimal costs are equal.\n\n")
        f.write("Command: `python3 bench/assign_bench.py " + shlex.join(sys.argv[1:]) + "`\n\n")
        f.write("| instance | arcs | gcut algo | device | scipy ms | gcut ms | speed-up | same | "
                "work |\n| --- | ---: | --- | --- | ---: | ---: | ---: | --- | --- |\n")
        for name, arcs, algo, dev, sp, ms, same, work in rows:
            sps = f"{sp:.1f}" if sp is not None else f"> {args.scipy_timeout * 1e3:.0f}"
            if ms is None:
                f.write(f"| {name} | {arcs} | {algo} | {dev} | {sps} | error | | | {work} |\n")
                continue
            ratio = (f"{sp / ms:.1f}x" if sp is not None
                     else f"> {args.scipy_timeout * 1e3 / ms:.1f}x")
            same_s = "n/a" if same is None else "yes" if same else "**NO**"
            f.write(f"| {name} | {arcs} | {algo} | {dev} | {sps} | {ms:.1f} | {ratio} | "
                    f"{same_s} | {work} |\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
