#!/usr/bin/env python3
"""General-graph max-flow benchmark: gcut's CPU solvers against scipy.

Generates the benchmark families with `gcut gen`, solves each graph with
`gcut maxflow --algo prf` and `--algo bk` and with
scipy.sparse.csgraph.maximum_flow (Dinic) on the same graph in the same run,
checks that all flow values agree, and writes a markdown table.

Usage:
    python3 bench/maxflow_bench.py GCUT [OUTPUT.md] [--only NAME,...]
        [--repeat N] [--timeout S] [--scipy-timeout S] [--seed S] [--workdir DIR]

GCUT is the gcut binary; OUTPUT defaults to
bench/results/maxflow_cpu_<uname -n>.md. Needs numpy and scipy. Times are
each solver's own: gcut's "time_ms" (the solve, reading excluded; read time
reported apart), scipy's wall time around maximum_flow() alone (its CSR
matrix is built before the clock starts, but the call includes scipy's own
conversion to its residual form). With --repeat N every solver runs N times
and the table gives the median (scipy only once where one run takes over
--scipy-repeat-below seconds): on a shared machine single runs carry noise.
Exit status 1 if any flow values differ.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# name, `gcut gen` arguments
INSTANCES = [
    ("genrmf-long a=32 b=256", ["genrmf", "a=32", "b=256"]),
    ("genrmf-wide a=64 b=64", ["genrmf", "a=64", "b=64"]),
    ("washington-rlg 512x1024", ["rlg", "rows=512", "cols=1024"]),
    ("washington-rlg 1024x1024", ["rlg", "rows=1024", "cols=1024"]),
    ("acyclic-dense n=2000", ["acyclic-dense", "n=2000"]),
    ("vision 1024x1024 4-conn density 1", ["vision", "width=1024", "height=1024",
                                           "connectivity=4", "density=1"]),
    ("vision 512x512 8-conn density 0.1", ["vision", "width=512", "height=512",
                                           "connectivity=8", "density=0.1"]),
]

# Run in a child process so that a timeout can stop it: loads a DIMACS file,
# times scipy's maximum_flow alone, prints JSON.
SCIPY_CHILD = r"""
import json, sys, time
import numpy as np
import scipy
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow
path = sys.argv[1]
with open(path, "rb") as f:
    data = f.read()
n = s = t = None
arc_lines = []
for line in data.split(b"\n"):
    if line.startswith(b"a "):
        arc_lines.append(line[2:])
    elif line.startswith(b"p "):
        n = int(line.split()[2])
    elif line.startswith(b"n "):
        parts = line.split()
        if parts[2] == b"s":
            s = int(parts[1]) - 1
        else:
            t = int(parts[1]) - 1
arcs = np.array(b" ".join(arc_lines).split(), dtype=np.int64).reshape(-1, 3)
m = csr_matrix((arcs[:, 2].astype(np.int32), (arcs[:, 0] - 1, arcs[:, 1] - 1)), shape=(n, n))
m.sum_duplicates()
t0 = time.perf_counter()
r = maximum_flow(m, s, t, method="dinic")
t1 = time.perf_counter()
print(json.dumps({"flow": int(r.flow_value), "time_ms": (t1 - t0) * 1e3,
                  "version": scipy.__version__}))
"""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run_json(cmd, timeout):
    """(dict, None) on success, (None, reason) on failure or timeout."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout (>%d s)" % timeout
    if p.returncode != 0:
        return None, "failed: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        return None, "bad output: " + p.stdout[:200]


def run_repeated(cmd, timeout, repeat):
    """run_json `repeat` times; the last result with time_ms the median."""
    times, result = [], None
    for _ in range(repeat):
        r, err = run_json(cmd, timeout)
        if not r:
            return None, err
        if result and r["flow"] != result["flow"]:
            return None, "flow changed between runs: %d, %d" % (result["flow"], r["flow"])
        times.append(r["time_ms"])
        result = r
        if repeat > 1 and r["time_ms"] > 1e3 * timeout / (repeat + 1):
            break  # too slow to repeat within the time allowed
    result = dict(result)
    result["runs"] = times
    result["time_ms"] = statistics.median(times)
    return result, None


def fmt_ms(result, err):
    return "%.1f" % result["time_ms"] if result else err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gcut", help="the gcut binary")
    ap.add_argument("output", nargs="?", help="the markdown file to write")
    ap.add_argument("--only", help="comma-separated substrings of instance names to run")
    ap.add_argument("--timeout", type=int, default=300, help="per gcut solve, seconds")
    ap.add_argument("--bk-timeout", type=int, default=120, help="per gcut bk solve, seconds")
    ap.add_argument("--scipy-timeout", type=int, default=900, help="per scipy solve, seconds")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per solver and graph; the median is reported")
    ap.add_argument("--scipy-repeat-below", type=float, default=10.0,
                    help="repeat scipy only where its first run took less, seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", help="where the graphs go (default: a temporary folder)")
    args = ap.parse_args()

    gcut = os.path.abspath(args.gcut)
    machine = platform.node() or os.uname().nodename
    out_path = args.output or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                           "maxflow_cpu_%s.md" % machine)
    workdir = args.workdir or tempfile.mkdtemp(prefix="gcut-maxflow-bench-")
    os.makedirs(workdir, exist_ok=True)
    version = subprocess.run([gcut, "--version"], capture_output=True, text=True).stdout.strip()

    rows, mismatches = [], 0
    scipy_version = "?"
    try:
        for name, gen_args in INSTANCES:
            if args.only and not any(x in name for x in args.only.split(",")):
                continue
            path = os.path.join(workdir, name.replace(" ", "_").replace("=", "") + ".max")
            g, err = run_json([gcut, "gen"] + gen_args + ["--seed", str(args.seed), "-o", path,
                                                          "--json"], 600)
            if not g:
                print("%s: gen %s" % (name, err), file=sys.stderr)
                sys.exit(1)
            print("%s: %d nodes, %d arcs" % (name, g["nodes"], g["arcs"]), file=sys.stderr)
            prf, prf_err = run_repeated([gcut, "maxflow", "--algo", "prf", "--json", "-q", path],
                                        args.timeout, args.repeat)
            print("  prf   %s %s" % (fmt_ms(prf, prf_err), prf and prf["runs"]), file=sys.stderr)
            bk, bk_err = run_repeated([gcut, "maxflow", "--algo", "bk", "--json", "-q", path],
                                      args.bk_timeout, args.repeat)
            print("  bk    %s %s" % (fmt_ms(bk, bk_err), bk and bk["runs"]), file=sys.stderr)
            scipy_cmd = [sys.executable, "-c", SCIPY_CHILD, path]
            sp, sp_err = run_repeated(scipy_cmd, args.scipy_timeout, 1)
            if sp and args.repeat > 1 and sp["time_ms"] < 1e3 * args.scipy_repeat_below:
                sp, sp_err = run_repeated(scipy_cmd, args.scipy_timeout, args.repeat)
            print("  scipy %s %s" % (fmt_ms(sp, sp_err), sp and sp["runs"]), file=sys.stderr)
            if sp:
                scipy_version = sp["version"]
            flows = {k: r["flow"] for k, r in (("prf", prf), ("bk", bk), ("scipy", sp)) if r}
            equal = len(set(flows.values())) <= 1 and len(flows) > 0
            if not equal:
                mismatches += 1
                print("  FLOW MISMATCH: %s" % flows, file=sys.stderr)
            speedup = ("%.1fx" % (sp["time_ms"] / prf["time_ms"])) if sp and prf else \
                ("> %.0fx" % (args.scipy_timeout * 1e3 / prf["time_ms"]) if prf else "-")
            rows.append((name, g["nodes"], g["arcs"], prf, prf_err, bk, bk_err, sp, sp_err,
                         speedup, flows, equal))
            os.remove(path)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)

    lines = [
        "# gcut maxflow (CPU) against scipy",
        "",
        "- machine: `%s`, CPU: %s (%d logical CPUs)" % (machine, cpu_model(), os.cpu_count()),
        "- date: %s" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "- gcut: `%s` (%s)" % (gcut, version.splitlines()[0] if version else "?"),
        "- scipy %s (`scipy.sparse.csgraph.maximum_flow`, method dinic), Python %s" %
        (scipy_version, platform.python_version()),
        "- command: `%s`" % " ".join([os.path.basename(sys.executable)] + sys.argv),
        "- generator seed %d; times in ms, each solver's own (gcut: the solve, file reading "
        "excluded and shown apart; scipy: the maximum_flow call on a prepared CSR matrix)" %
        args.seed,
        "- each time the median of %d runs (scipy: one run where it took over %g s; a solver "
        "stops repeating once a run takes over its timeout / (runs + 1)); every run below the table" %
        (args.repeat, args.scipy_repeat_below),
        "",
        "| graph | nodes | arcs | prf ms | bk ms | scipy ms | scipy / prf | gcut read ms "
        "| flow | flows equal |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for (name, n, m, prf, prf_err, bk, bk_err, sp, sp_err, speedup, flows, equal) in rows:
        flow = next(iter(flows.values())) if flows else "-"
        lines.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            name, n, m, fmt_ms(prf, prf_err), fmt_ms(bk, bk_err), fmt_ms(sp, sp_err), speedup,
            "%.0f" % prf["read_ms"] if prf else "-", flow,
            "yes (%s)" % ", ".join(sorted(flows)) if equal else "**NO** %s" % flows))
    lines += ["", "Every run, ms:", ""]
    for (name, n, m, prf, prf_err, bk, bk_err, sp, sp_err, speedup, flows, equal) in rows:
        runs = ", ".join("%s %s" % (k, " ".join("%.1f" % t for t in r["runs"]))
                         for k, r in (("prf", prf), ("bk", bk), ("scipy", sp)) if r)
        lines.append("- %s: %s" % (name, runs or "-"))
    lines.append("")
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    print("wrote %s" % out_path, file=sys.stderr)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
