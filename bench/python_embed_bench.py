#!/usr/bin/env python3
"""The Python package on a 4-megapixel 8-connected segmentation graph given
as numpy arrays: gcut against PyMaxflow, graph construction and solve timed
separately, the same flow required; and on the GPU, the time from PyTorch
CUDA arrays to labels on the device.

The graph is make_grid_graphs.py's energy (Boykov-Jolly data term from
colour histograms of the scribbles, GrabCut contrast n-links, seeds hard)
on a GrabCut image resized to the size asked for.

- PyMaxflow (BK v3): construction = Graph[int] + add_grid_nodes + add_edges
  (one BK edge per neighbour pair, both capacities: its cheapest form) +
  add_grid_tedges; solve = maxflow().
- gcut, CPU: construction = Grid + set_edges + set_terminals (dtype checks
  and copies included); solve = Grid.solve() (labels included), with the
  default CPU solver ("bk", one thread) and with "pbk" on every core.
- gcut, GPU (when a GPU and PyTorch are there): int32 CUDA tensors in,
  labels (a CUDA bool tensor) out; one-shot gcut.grid_maxflow (a new
  context and device buffers each call) and a warm Grid re-solve
  (set_edges + set_terminals + solve on a Grid kept across calls).

Each time is the median of --repeat runs. Writes a Markdown table (stdout,
and with --out into that file).

Usage: python_embed_bench.py [--data DIR] [--image flower] [--mp 4]
       [--conn 8] [--repeat 3] [--out FILE]
"""
import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_grid_graphs import DIRS, build_energy, load_image, pair_slices  # noqa: E402

import gcut  # noqa: E402


def find_data(arg):
    here = os.path.dirname(os.path.abspath(__file__))
    for base in (arg, os.environ.get("GCUT_DATA"), os.path.join(here, "..", "..", "shared", "data"),
                 os.path.join(here, "..", "..", "..", ".devshared", "data")):
        if base and os.path.isdir(os.path.join(base, "grabcut", "images")):
            return os.path.join(base, "grabcut")
    sys.exit("no GrabCut data: pass --data DIR (the folder holding grabcut/)")


def timed(fn, repeat):
    """(median ms, last result) of `repeat` calls."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), result


def pymaxflow_pairs(h, w, conn, edges):
    """One BK edge per neighbour pair (d even, its opposite d ^ 1): ids and both capacities."""
    ids = np.arange(h * w, dtype=np.int64).reshape(h, w)
    pairs = []
    for d in range(0, conn, 2):
        _, dx, dy = DIRS[d]
        p, q = pair_slices(h, w, dx, dy)
        pairs.append((ids[p].ravel(), ids[q].ravel(), edges[d][p].ravel(), edges[d + 1][q].ravel()))
    return pairs


def run_pymaxflow(source, sink, edges, conn, repeat):
    import maxflow

    h, w = source.shape

    def build():
        pairs = pymaxflow_pairs(h, w, conn, edges)
        g = maxflow.Graph[int](h * w, sum(p[0].size for p in pairs))
        nodes = g.add_grid_nodes((h, w))
        for i, j, cap, rev in pairs:
            g.add_edges(i, j, cap, rev)
        g.add_grid_tedges(nodes, source, sink)
        return g

    build_ms = []
    solve_ms = []
    flow = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        g = build()
        t1 = time.perf_counter()
        flow = int(g.maxflow())
        t2 = time.perf_counter()
        build_ms.append((t1 - t0) * 1e3)
        solve_ms.append((t2 - t1) * 1e3)
    return statistics.median(build_ms), statistics.median(solve_ms), flow


def run_gcut_cpu(source, sink, edges, conn, repeat, algo):
    h, w = source.shape
    build_ms, solve_ms = [], []
    flow = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        g = gcut.Grid((h, w), conn, device="cpu", algo=algo)
        g.set_edges(edges)
        g.set_terminals(source, sink)
        t1 = time.perf_counter()
        flow, labels = g.solve()
        t2 = time.perf_counter()
        build_ms.append((t1 - t0) * 1e3)
        solve_ms.append((t2 - t1) * 1e3)
    if g.cut_capacity(labels) != flow:
        sys.exit("gcut: the labels' cut capacity differs from the flow")
    return statistics.median(build_ms), statistics.median(solve_ms), flow, g.info["algo"]


def run_gcut_gpu(source, sink, edges, conn, repeat):
    import torch

    s, t, e = (torch.from_numpy(a).cuda() for a in (source, sink, edges))
    torch.cuda.synchronize()
    oneshot_ms, (flow, labels) = timed(lambda: gcut.grid_maxflow(s, t, e), repeat)
    g = gcut.Grid(source.shape, conn)

    def warm():
        g.set_edges(e)
        g.set_terminals(s, t)
        return g.solve()

    warm()
    warm_ms, (flow2, labels2) = timed(warm, repeat)
    if flow2 != flow or not bool((labels == labels2).all()) or not labels.is_cuda:
        sys.exit("gcut gpu: the warm and one-shot solves differ")
    return oneshot_ms, warm_ms, flow, g.info


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--image", default="flower")
    ap.add_argument("--mp", type=float, default=4.0)
    ap.add_argument("--conn", type=int, default=8, choices=(4, 8))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()

    rgb, seeds = load_image(find_data(args.data), args.image, args.mp)
    h, w = seeds.shape
    source, sink, caps, _, _ = build_energy(rgb, seeds, args.conn)
    edges = np.stack([caps[name] for name, _, _ in DIRS[:args.conn]])

    rows = []
    pm_build, pm_solve, pm_flow = run_pymaxflow(source, sink, edges, args.conn, args.repeat)
    rows.append(("PyMaxflow 1.3 (BK v3), CPU", pm_build, pm_solve, pm_flow))
    for algo in (None, "pbk"):
        b, s, f, ran = run_gcut_cpu(source, sink, edges, args.conn, args.repeat, algo)
        label = "gcut %s, CPU, %s" % (ran, "the default, one thread" if algo is None else
                                       "%d threads" % os.cpu_count())
        rows.append((label, b, s, f))
    gpu_line = None
    if gcut.devices():
        try:
            import torch  # noqa: F401

            oneshot, warm, f, info = run_gcut_gpu(source, sink, edges, args.conn, args.repeat)
            rows.append(("gcut %s, GPU: grid_maxflow(torch) one-shot" % info["algo"], None,
                         oneshot, f))
            rows.append(("gcut %s, GPU: Grid kept, set + solve" % info["algo"], None, warm, f))
            gpu_line = "GPU: %s (solver time in the warm solve %.1f ms)" % (
                info["device"], info["time_ms"])
        except ImportError:
            gpu_line = "GPU: no PyTorch, not measured"

    for r in rows:
        if r[3] != pm_flow:
            sys.exit("flow differs: %s gives %d, PyMaxflow %d" % (r[0], r[3], pm_flow))
    pm_total = pm_build + pm_solve
    lines = [
        "# Python package: %s %dx%d (%.1f MP), %d-connected, from numpy arrays"
        % (args.image, w, h, w * h / 1e6, args.conn),
        "",
        "Machine: %s, %d logical CPUs; gcut %s (CUDA %s); numpy %s; Python %s."
        % (cpu_name(), os.cpu_count(), gcut.__version__,
           "built in" if gcut.cuda_built() else "not built", np.__version__,
           platform.python_version()),
    ]
    if gpu_line:
        lines.append(gpu_line + ".")
    lines += [
        "Every row gives the same maximum flow, %d. Times are medians of %d runs, in ms; "
        "GPU rows start from int32 CUDA tensors and end with the labels on the device "
        "(construction there is the solve call's own)." % (pm_flow, args.repeat),
        "Command: `python3 bench/python_embed_bench.py --image %s --mp %g --conn %d --repeat %d`"
        % (args.image, args.mp, args.conn, args.repeat),
        "",
        "| solver | construction | solve | total | PyMaxflow total / this |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, b, s, _ in rows:
        total = (b or 0) + s
        lines.append("| %s | %s | %.1f | %.1f | %.1fx |" % (
            name, "-" if b is None else "%.1f" % b, s, total, pm_total / total))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            f.write(text)
        os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
