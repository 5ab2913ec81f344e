#!/usr/bin/env python3
"""Time `gcut grid` against PyMaxflow (BK v3) on the same grid graphs.

For each graph made by make_grid_graphs.py (NAME.max for gcut, NAME.npz for
PyMaxflow, the same graph), alternately:
- run `GCUT_BINARY grid NAME.max --device cpu --json` and take its time_ms
  (the solve; reading the file is not counted, but the process's wall time is
  recorded too);
- build a PyMaxflow Graph[int] from the .npz (not timed: nodes, terminal
  weights, and one add_edges() call per pair of opposite directions, so each
  neighbour pair is one BK edge with its two capacities) and time g.maxflow().
Each side runs --repeat times; the table gives the medians. Every run's flow
must be the same on both sides: a mismatch is marked in the table, reported
on stderr, and makes the exit status 1.

Usage: grid_bench.py GCUT_BINARY OUT.md [--graphs DIR] [--sizes 0.25 1 4]
       [--conn 4 8] [--images ...] [--repeat N] [--skip-gcut]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import maxflow
except ImportError:
    sys.exit("grid_bench.py: PyMaxflow is missing (pip install PyMaxflow)")

HERE = os.path.dirname(os.path.abspath(__file__))
DIRS = [("E", 1, 0), ("W", -1, 0), ("S", 0, 1), ("N", 0, -1),
        ("NE", 1, -1), ("SW", -1, 1), ("SE", 1, 1), ("NW", -1, -1)]


def pair_slices(h, w, dx, dy):
    def axis(n, d):
        return slice(max(0, -d), n - max(0, d)), slice(max(0, d), n - max(0, -d))
    py, qy = axis(h, dy)
    px, qx = axis(w, dx)
    return (py, px), (qy, qx)


class PyMaxflowGraph:
    """The .npz graph as arrays ready for PyMaxflow, so each build is fast."""

    def __init__(self, npz):
        z = np.load(npz)
        self.w, self.h, self.conn = int(z["width"]), int(z["height"]), int(z["conn"])
        self.source, self.sink = z["source"], z["sink"]
        ids = np.arange(self.w * self.h, dtype=np.int64).reshape(self.h, self.w)
        self.pairs = []
        for d in range(0, self.conn, 2):  # d and d ^ 1 are opposite directions
            name, dx, dy = DIRS[d]
            p, q = pair_slices(self.h, self.w, dx, dy)
            cap = z["cap_" + name][p].ravel()
            rev = z["cap_" + DIRS[d + 1][0]][q].ravel()
            keep = (cap > 0) | (rev > 0)
            self.pairs.append((ids[p].ravel()[keep], ids[q].ravel()[keep], cap[keep], rev[keep]))
        self.n_edges = sum(p[0].size for p in self.pairs)

    def build(self):
        g = maxflow.Graph[int](self.w * self.h, self.n_edges)
        ids = g.add_grid_nodes((self.h, self.w))
        g.add_grid_tedges(ids, self.source, self.sink)
        for i, j, cap, rev in self.pairs:
            g.add_edges(i, j, cap, rev)
        return g


def solve_pymaxflow(graph):
    g = graph.build()
    t0 = time.perf_counter()
    flow = g.maxflow()
    ms = (time.perf_counter() - t0) * 1e3
    return int(flow), ms


def solve_gcut(binary, path):
    cmd = [binary, "grid", path, "--device", "cpu", "--json"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    try:
        out = json.loads(r.stdout)
    except ValueError:
        raise RuntimeError("%s printed no JSON object: %r" % (" ".join(cmd), r.stdout[:200]))
    return out, wall


def dimacs_arcs(path):
    """The arc count from the `p max N M` line."""
    with open(path, "rb") as f:
        for _ in range(100):
            line = f.readline()
            if line.startswith(b"p max"):
                return int(line.split()[3])
    raise RuntimeError("%s: no 'p max' line" % path)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def gcut_version(binary):
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
        return " ".join(r.stdout.split()) or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def find_graphs(folder, sizes, conns, images):
    graphs = []
    for name in os.listdir(folder):
        if not name.endswith(".npz"):
            continue
        base = os.path.join(folder, name[:-4])
        with np.load(base + ".npz") as z:
            meta = dict(image=str(z["image"]), mp=float(z["megapixels"]), conn=int(z["conn"]),
                        w=int(z["width"]), h=int(z["height"]))
        if sizes and not any(abs(meta["mp"] - s) < 1e-9 for s in sizes):
            continue
        if conns and meta["conn"] not in conns:
            continue
        if images and meta["image"] not in images:
            continue
        if not os.path.exists(base + ".max"):
            raise RuntimeError("%s.npz has no %s.max beside it" % (base, base))
        meta["name"], meta["base"] = name[:-4], base
        graphs.append(meta)
    graphs.sort(key=lambda m: (m["mp"], m["conn"], m["image"]))
    return graphs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gcut", help="the gcut binary")
    ap.add_argument("out", help="the markdown table to write")
    ap.add_argument("--graphs", default=os.path.join(HERE, "work", "graphs"),
                    help="folder of NAME.max + NAME.npz pairs (make_grid_graphs.py)")
    ap.add_argument("--sizes", type=float, nargs="+", help="megapixels to keep (default: all)")
    ap.add_argument("--conn", type=int, nargs="+", choices=[4, 8])
    ap.add_argument("--images", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-gcut", action="store_true", help="time PyMaxflow alone")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if not args.skip_gcut and not os.access(args.gcut, os.X_OK):
        ap.error("%s is not an executable" % args.gcut)

    if not os.path.isdir(args.graphs):
        ap.error("%s is not a folder (run make_grid_graphs.py first)" % args.graphs)
    graphs = find_graphs(args.graphs, args.sizes, args.conn, args.images)
    if not graphs:
        sys.exit("grid_bench.py: no graphs in %s match (run make_grid_graphs.py)" % args.graphs)

    args.load_before = os.getloadavg()
    rows, failures = [], []
    for meta in graphs:
        pm = PyMaxflowGraph(meta["base"] + ".npz")
        pm_ms, gc_ms, gc_wall = [], [], []
        gc_flows, pm_flows = set(), set()
        algo = "-"
        for _ in range(args.repeat):
            if not args.skip_gcut:
                out, wall = solve_gcut(args.gcut, meta["base"] + ".max")
                if (out.get("width"), out.get("height"), out.get("connectivity")) != \
                        (meta["w"], meta["h"], meta["conn"]):
                    raise RuntimeError("%s: gcut read %sx%s/%s, the graph is %dx%d/%d" % (
                        meta["name"], out.get("width"), out.get("height"),
                        out.get("connectivity"), meta["w"], meta["h"], meta["conn"]))
                gc_flows.add(int(out["flow"]))
                gc_ms.append(float(out["time_ms"]))
                gc_wall.append(wall)
                algo = "%s/%s" % (out.get("algo", "?"), out.get("device", "?"))
            flow, ms = solve_pymaxflow(pm)
            pm_flows.add(flow)
            pm_ms.append(ms)
        flows = gc_flows | pm_flows
        ok = len(flows) == 1
        if not ok:
            failures.append("%s: flows differ: gcut %s, PyMaxflow %s" % (
                meta["name"], sorted(gc_flows), sorted(pm_flows)))
            print("MISMATCH " + failures[-1], file=sys.stderr, flush=True)
        row = dict(meta, arcs=dimacs_arcs(meta["base"] + ".max"),
                   flow=("%d" % next(iter(flows))) if ok else "**MISMATCH** " + failures[-1],
                   pm=statistics.median(pm_ms), pm_best=min(pm_ms), algo=algo,
                   gc_best=min(gc_ms) if gc_ms else None,
                   gc=statistics.median(gc_ms) if gc_ms else None,
                   wall=statistics.median(gc_wall) if gc_wall else None)
        rows.append(row)
        print("%-22s pymaxflow %9.1f ms  gcut %s  %s" % (
            meta["name"], row["pm"], "-" if row["gc"] is None else "%9.1f ms" % row["gc"],
            "" if row["gc"] is None else "ratio %.2f" % (row["pm"] / max(row["gc"], 1e-6))),
            flush=True)
        # Rewritten after every graph, so a run cut short still leaves its rows.
        try:
            write_table(args, rows, failures, len(graphs), quiet=True)
        except OSError as e:
            print("grid_bench.py: could not update %s: %s" % (args.out, e), file=sys.stderr)

    write_table(args, rows, failures, len(graphs))
    if failures:
        print("grid_bench.py: %d graph(s) with different flows" % len(failures), file=sys.stderr)
        return 1
    return 0


def write_table(args, rows, failures, n_graphs, quiet=False):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# gcut grid (CPU) vs PyMaxflow on segmentation grid graphs",
        "",
        "- machine: `%s`, %s, %d CPUs (as os.cpu_count() sees them)" % (
            platform.node(), cpu_model(), os.cpu_count() or 0),
        "- date: %s; load average (1 min) %.2f at the start, %.2f now" % (
            now, args.load_before[0], os.getloadavg()[0]),
        "- python %s, PyMaxflow %s, numpy %s" % (
            platform.python_version(), getattr(maxflow, "__version__", "?"), np.__version__),
        "- gcut: %s" % ("not run" if args.skip_gcut else "`%s` (%s), solver %s" % (
            args.gcut, gcut_version(args.gcut), ", ".join(sorted({r["algo"] for r in rows})))),
        "- command: `%s`" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
        "- times: median of %d runs each, alternating. gcut: `time_ms` of `gcut grid FILE --device cpu "
        "--json` (the solve: copying capacities to residuals, initialising the trees, BK, the "
        "labels; excluded: reading the file, the overflow check, and allocating and first "
        "touching the solver's memory, which gcut does before the timer as PyMaxflow does while "
        "the graph is built). PyMaxflow: `g.maxflow()` alone (graph built "
        "beforehand, one edge per neighbour pair). ratio = PyMaxflow time / gcut time (> 1: gcut "
        "faster); best ratio = the same for the fastest run of each side (less sensitive to a busy "
        "machine). gcut wall: the whole process, reading the DIMACS file included." % args.repeat,
        "- graphs: bench/make_grid_graphs.py (GrabCut images resized, colour-histogram data term "
        "from scribbles1, hard seeds, contrast-sensitive n-links); flows are checked equal.",
        "",
        "| graph | size | conn | arcs | flow | gcut ms | PyMaxflow ms | ratio | best ratio | gcut wall s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    ratios, best_ratios = [], []
    for r in rows:
        ratio = None if r["gc"] is None else r["pm"] / max(r["gc"], 1e-6)
        best = None if r["gc"] is None else r["pm_best"] / max(r["gc_best"], 1e-6)
        if ratio is not None:
            ratios.append((ratio, r["name"]))
            best_ratios.append((best, r["name"]))
        lines.append("| %s | %dx%d (%g MP) | %d | %d | %s | %s | %.1f | %s | %s | %s |" % (
            r["name"], r["w"], r["h"], r["mp"], r["conn"], r["arcs"], r["flow"],
            "-" if r["gc"] is None else "%.1f" % r["gc"], r["pm"],
            "-" if ratio is None else "%.2f" % ratio,
            "-" if best is None else "%.2f" % best,
            "-" if r["wall"] is None else "%.2f" % r["wall"]))
    lines.append("")
    if len(rows) < n_graphs:
        lines.append("**Partial: %d of %d graphs so far.**" % (len(rows), n_graphs))
        lines.append("")
    if ratios:
        geo = float(np.exp(np.mean(np.log([x for x, _ in ratios]))))
        worst = min(ratios)
        lines.append("Speed ratio: geometric mean %.2f, lowest %.2f (%s). gcut at least as fast on "
                     "every graph: %s; at least 1.5x on every graph: %s." % (
                         geo, worst[0], worst[1], "yes" if worst[0] >= 1 else "**no**",
                         "yes" if worst[0] >= 1.5 else "**no**"))
        lines.append("")
        lines.append("Best-run ratio: geometric mean %.2f, lowest %.2f (%s)." % (
            float(np.exp(np.mean(np.log([x for x, _ in best_ratios])))), *min(best_ratios)))
    if failures:
        lines.append("")
        lines.append("**Flow mismatches:** " + "; ".join(failures))
    text = "\n".join(lines) + "\n"
    tmp = args.out + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    except OSError:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    if not quiet:
        print(text)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        sys.exit("grid_bench.py: %s" % e)
