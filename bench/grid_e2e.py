#!/usr/bin/env python3
"""GPU grid cut end to end, from host arrays to labels, and `gcut segment
--device gpu` wall time, on the 18 GrabCut images upscaled: one compact
summary, in about two minutes on the device.

    python3 bench/grid_e2e.py --build build-dev --data .devshared/data/grabcut \\
        --work /tmp/e2e --out grid_e2e.md

Inputs: each image of DATA/images upscaled as bench/segment_time.py does
(PIL bicubic, Gaussian noise of 2.5 levels from seed 12345, JPEG quality 92;
its scribbles1 strokes nearest) to 1152x864 (1mp), 2304x1728 (4mp) and
3840x2160 (8mp), portrait images turned, made once in --work.

1. The link: `grid-e2e-bench --link` in fresh processes: CUDA's start-up
   alone (cudaFree(0)) with the lazy module loading (CUDA's default) and
   with CUDA_MODULE_LOADING=EAGER; the host<->device bandwidth, pageable and
   pinned; what the process's end costs holding 256 MB on the device as a
   4 MP segmentation does, with CUDA's teardown and with _exit() (as the
   gcut command ends after a GPU run): the wall time less main()'s.
2. gcut_grid_solve() from host arrays, per image and size (--sizes,
   8-connected, `grid-e2e-bench --reps R`): each timed solve is of a grid
   made afresh from the arrays; e2e = the call's wall time, kernel = the
   same solve's CUDA-event time, both medians of R; the floor = bytes up /
   pinned H2D + bytes down / pinned D2H; goal e2e <= kernel + 1.3 x floor.
   Each row carries the trace of its median solve (`--trace`): the stages'
   medians are tabled per size.
3. `gcut segment -q --json -d gpu --seeds S -o mask.png IMAGE` at 4 MP per
   image: the process's wall time and gcut's stages; with --eager also the
   same under CUDA_MODULE_LOADING=EAGER; with --cpu the CPU's run too (up to
   25 s an image) and the masks compared byte for byte.

The summary is rewritten after every row (a timeout still leaves numbers);
--budget S skips what would start after S seconds. Without a usable GPU the
GPU parts are skipped with a line saying why. Exit status: 0, or 1 when a
run failed or was wrong. Needs numpy and PIL (the device has both).
"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"1mp": (1152, 864), "4mp": (2304, 1728), "8mp": (3840, 2160)}
HOLD_MB = 256  # a 4 MP segmentation's device memory, about


def make_input(args):
    import numpy as np
    from PIL import Image
    data, name, tag, work = args
    w, h = SIZES[tag]
    img_path = os.path.join(work, "%s-%s.jpg" % (name, tag))
    seed_path = os.path.join(work, "%s-%s-anno.png" % (name, tag))
    if os.path.exists(img_path) and os.path.exists(seed_path):
        return name, tag, img_path, seed_path
    src = Image.open(os.path.join(data, "images", name + ".jpg")).convert("RGB")
    size = (w, h) if src.width >= src.height else (h, w)
    big = np.asarray(src.resize(size, Image.BICUBIC), dtype=np.float64)
    big = big + np.random.default_rng(12345).normal(0.0, 2.5, big.shape)
    Image.fromarray(np.clip(np.rint(big), 0, 255).astype(np.uint8)).save(img_path, quality=92)
    anno = Image.open(os.path.join(data, "scribbles1", name + "-anno.png"))
    anno.resize(size, Image.NEAREST).save(seed_path)
    return name, tag, img_path, seed_path


def run_json(cmd, env=None):
    """(the last JSON line of stdout or None, wall ms, stderr)."""
    t0 = time.perf_counter()
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    except OSError as e:
        return None, 0.0, str(e)
    wall = (time.perf_counter() - t0) * 1000.0
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    if res.returncode != 0 or not lines:
        return None, wall, (res.stderr.strip() or "exit status %d" % res.returncode)
    return json.loads(lines[-1]), wall, res.stderr.strip()


def env_with(**kw):
    env = dict(os.environ)
    env.update(kw)
    return env


def med(values):
    return statistics.median(values) if values else float("nan")


def mw(values, fmt="%.1f"):
    """median (worst) of values."""
    if not values:
        return "-"
    return (fmt + " (" + fmt + ")") % (statistics.median(values), max(values))


class Summary:
    """The markdown file, rewritten whole after every addition."""

    def __init__(self, path):
        self.path, self.lines = path, []

    def add(self, *lines, echo=True):
        self.lines.extend(lines)
        with open(self.path, "w") as f:
            f.write("\n".join(self.lines) + "\n")
        if echo:
            print("\n".join(lines), flush=True)


def link_section(a, bench, out, raw):
    """Step 1; returns the link's JSON (pinned rates) or None without a GPU."""
    runs = {}
    for key, extra, env in (("lazy", ["--hold", str(HOLD_MB)], None),
                            ("exit_now", ["--hold", str(HOLD_MB), "--exit-now"], None),
                            ("eager", [], env_with(CUDA_MODULE_LOADING="EAGER"))):
        r, wall, err = run_json([bench, "--link"] + extra, env)
        if not r:
            if key == "lazy":
                out.add("## The link\n", "No usable GPU, the GPU parts skipped: %s\n" % err)
                return None
            out.add("(--link %s failed: %s)" % (key, err))
            continue
        r["wall_ms"] = wall
        runs[key] = r
    raw["link"] = runs
    l = runs["lazy"]
    ex = runs.get("exit_now")
    eg = runs.get("eager")
    out.add("## The link and CUDA's start and end (`grid-e2e-bench --link`), %s\n" % l["device"],
            "| CUDA start, lazy modules | CUDA start, EAGER | H2D pageable | H2D pinned | "
            "D2H pageable | D2H pinned | process start + end, teardown (%d MB held) | "
            "the same, _exit() |" % HOLD_MB,
            "|---|---|---|---|---|---|---|---|",
            "| %.1f ms | %s | %.2f GB/s | %.2f GB/s | %.2f GB/s | %.2f GB/s | %.1f ms | %s |\n" % (
                l["cuda_start_ms"], "%.1f ms" % eg["cuda_start_ms"] if eg else "-",
                l["h2d_pageable_gbs"], l["h2d_pinned_gbs"], l["d2h_pageable_gbs"],
                l["d2h_pinned_gbs"], l["wall_ms"] - l["main_ms"],
                "%.1f ms" % (ex["wall_ms"] - ex["main_ms"]) if ex else "-"))
    return l


def grid_section(a, bench, names, inputs, link, out, raw, t_start):
    """Step 2; returns the number of failed or wrong runs."""
    rate_up, rate_down = link["h2d_pinned_gbs"] * 1e6, link["d2h_pinned_gbs"] * 1e6  # B/ms
    failed = 0
    out.add("## gcut_grid_solve() from host arrays, 8-connected\n",
            "Per image: e2e / kernel ms (medians of %d solves, each of a fresh grid; kernel from "
            "the same solves), the floor (MB up and down at the pinned rates), e2e / (kernel + "
            "1.3 floor): the goal is <= 1; first: the first solve of the process (device "
            "buffers and pinned staging made). ok: every flow equal, the proof verified.\n"
            % a.reps,
            "| size | image | first ms | e2e ms | kernel ms | floor ms | e2e/(kernel+1.3 floor) "
            "| ok |", "|---|---|---|---|---|---|---|---|")
    rows = raw.setdefault("grid", {})
    for tag, n in ((t, n) for t in a.sizes.split(",") for n in names):
        if time.perf_counter() - t_start > a.budget:
            out.add("| %s | %s | skipped (--budget %d s) |" % (tag, n, a.budget))
            continue
        image, seeds = inputs[(n, tag)]
        cmd = [bench, "--reps", str(a.reps), "--conn", "8", "--trace"]
        dump = os.path.join(a.work, "graph.bin")
        if tag == "1mp" and a.bk:
            cmd += ["--bk"] + (["--dump", dump] if a.pymaxflow else [])
        r, _, err = run_json(cmd + [image, seeds])
        if not r:
            failed += 1
            out.add("| %s | %s | failed: %s |" % (tag, n, err.splitlines()[-1][:120] if err else "?"))
            continue
        r["floor_ms"] = r["bytes_up"] / rate_up + r["bytes_down"] / rate_down
        r["ratio"] = r["e2e_ms"] / (r["kernel_ms"] + 1.3 * r["floor_ms"])
        if tag == "1mp" and a.bk and a.pymaxflow:
            res = subprocess.run([sys.executable, os.path.join(HERE, "gpu_grid_pymaxflow.py"),
                                  dump], capture_output=True, text=True)
            try:
                pflow, pms = res.stdout.split()
                r["pymaxflow_ms"] = float(pms) if int(pflow) == r["flow"] else "WRONG"
            except ValueError:
                r["pymaxflow_ms"] = "failed"
            os.remove(dump)
        failed += not r["ok"]
        rows.setdefault(tag, []).append(r)
        out.add("| %s | %s | %.1f | %.2f | %.2f | %.2f | %.2f | %s |" % (
            tag, n, r["first_ms"], r["e2e_ms"], r["kernel_ms"], r["floor_ms"], r["ratio"],
            "yes" if r["ok"] else "NO"), echo=False)
        print("grid %s %s: e2e %.2f kernel %.2f floor %.2f ratio %.2f %s" % (
            tag, n, r["e2e_ms"], r["kernel_ms"], r["floor_ms"], r["ratio"],
            "ok" if r["ok"] else "WRONG"), flush=True)
    out.add("\nMedian (worst) over the images:\n",
            "| size | images | e2e ms | kernel ms | e2e - kernel ms | floor ms | "
            "e2e/(kernel+1.3 floor) | goal met | first ms |" + (" BK ms |" if a.bk else ""),
            "|---|---|---|---|---|---|---|---|---|" + ("---|" if a.bk else ""))
    for tag, rs in rows.items():
        out.add("| %s | %d | %s | %s | %s | %s | %s | %d of %d | %s |%s" % (
            tag, len(rs), mw([r["e2e_ms"] for r in rs], "%.2f"),
            mw([r["kernel_ms"] for r in rs], "%.2f"),
            mw([r["e2e_ms"] - r["kernel_ms"] for r in rs], "%.2f"),
            mw([r["floor_ms"] for r in rs], "%.2f"), mw([r["ratio"] for r in rs], "%.2f"),
            sum(r["ratio"] <= 1 for r in rs), len(rs), mw([r["first_ms"] for r in rs]),
            (" %s |" % mw([r["bk_ms"] for r in rs if r["bk_ms"] >= 0])) if a.bk else ""))
    stage_table(rows, out)
    return failed


STAGES = (("before upload", None, "upload_in"), ("reserve", "upload_in", "reserved"),
          ("stage + queue", "reserved", "queued"), ("copies' tail + check", "queued", "checked"),
          ("run", "checked", "finish_in"), ("labels", "finish_in", "finish_out"),
          ("after", "finish_out", "returned"))


def stage_table(rows, out):
    """The median solve's stages (host clock, ms), medians (worst) over the images."""
    lines = ["\nWhere the median solve's time went (host clock stamps in the library, ms; "
             "median (worst) over the images): before upload = the grid's solution arrays and "
             "warm state made; stage + queue = the host copies into pinned memory and the "
             "copies queued; copies' tail + check = the last copies and the overflow check; "
             "run = the solve loop (kernel: its CUDA-event time); h2d span = the stream from "
             "the first copy's start to the last one's end (CUDA events); copy / wait = the "
             "staging threads' memcpy and slot-wait time, summed.\n",
             "| size | " + " | ".join(s[0] for s in STAGES) + " | kernel | h2d span | copy | wait "
             "| chunks x threads |",
             "|---|" + "---|" * (len(STAGES) + 5)]
    for tag, rs in rows.items():
        ts = [r["trace"] for r in rs if "trace" in r]
        if not ts:
            continue
        cells = [mw([t[b] - (t[a] if a else 0.0) for t in ts], "%.2f") for _, a, b in STAGES]
        cells += [mw([t["kernel_ms"] for t in ts], "%.2f"), mw([t["h2d_span_ms"] for t in ts], "%.2f"),
                  mw([t["copy_ms"] for t in ts], "%.2f"), mw([t["wait_ms"] for t in ts], "%.2f"),
                  "%d x %d" % (ts[0]["chunks"], ts[0]["threads"])]
        lines.append("| %s | %s |" % (tag, " | ".join(cells)))
    out.add(*lines)


def segment(gcut, device, image, seeds, mask, env=None):
    cmd = [gcut, "segment", "-q", "--json", "-d", device, "--seeds", seeds, "-o", mask, image]
    r, wall, err = run_json(cmd, env)
    if r:
        r["wall"] = wall
    return r, err


def segment_section(a, gcut, names, inputs, have_gpu, out, raw, t_start):
    """Step 3; returns the number of failed runs and unequal masks."""
    failed = 0
    devices = (["gpu"] if have_gpu else []) + (["cpu"] if a.cpu else [])
    if not devices:
        return 0
    eager = a.eager and have_gpu
    out.add("\n## `gcut segment` at 4 MP, wall time with the process's start and end\n",
            "`gcut segment -q --json -d DEV --seeds S -o mask.png IMAGE`, the defaults (GMM k=5, "
            "lambda 75, 8-connected, up to 5 cuts); stages in ms as gcut reports them; wall: the "
            "whole process; outside: wall - gcut's total (start, options, end); start: CUDA's "
            "start-up on its thread beside the load, wait: how long the cuts waited for it (in "
            "graph)%s.\n" % ("; EAGER: the wall under CUDA_MODULE_LOADING=EAGER" if eager else ""),
            "| image | dev | cuts | load | model | graph | cut | write | total | start | wait | "
            "wall | outside |"
            + (" EAGER wall |" if eager else "") + (" mask = cpu |" if a.cpu and have_gpu else ""),
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if eager else "")
            + ("---|" if a.cpu and have_gpu else ""))
    walls = raw.setdefault("segment", {})
    for n in names:
        if time.perf_counter() - t_start > a.budget:
            out.add("| %s | skipped (--budget %d s) |" % (n, a.budget))
            continue
        image, seeds = inputs[(n, "4mp")]
        res = {}
        for dev in devices:
            mask = os.path.join(a.work, "mask-%s.png" % dev)
            r, err = segment(gcut, dev, image, seeds, mask)
            if not r:
                failed += 1
                out.add("| %s | %s | failed: %s |" % (n, dev, err.splitlines()[-1][:120] if err else "?"))
                continue
            if dev == "gpu" and eager:
                e, err = segment(gcut, dev, image, seeds, mask,
                                 env_with(CUDA_MODULE_LOADING="EAGER"))
                r["eager_wall"] = e["wall"] if e else None
                failed += not e
            res[dev] = r
        same = None
        if "gpu" in res and "cpu" in res:
            same = filecmp.cmp(os.path.join(a.work, "mask-gpu.png"),
                               os.path.join(a.work, "mask-cpu.png"), shallow=False) and \
                res["gpu"]["flow"] == res["cpu"]["flow"]
            failed += not same
        for dev, r in res.items():
            t = r["time_ms"]
            walls.setdefault(dev, []).append(dict(r, name=n))
            cells = [n, dev, str(r["iterations"])] + ["%.1f" % t.get(k, float("nan")) for k in (
                "load", "model", "graph", "cut", "write", "total", "device_start",
                "device_wait")] + [
                "%.0f" % r["wall"], "%.0f" % (r["wall"] - t["total"])]
            if eager:
                cells.append("%.0f" % r["eager_wall"] if r.get("eager_wall") else "-")
            if a.cpu and have_gpu:
                cells.append("-" if same is None else "yes" if same else "NO")
            out.add("| " + " | ".join(cells) + " |", echo=False)
            print("segment %s %s: wall %.0f ms (total %.1f)%s" % (
                n, dev, r["wall"], t["total"],
                ", EAGER %.0f" % r["eager_wall"] if r.get("eager_wall") else ""), flush=True)
    lines = ["\nMedian (worst) over the images:\n",
             "| dev | images | wall ms | outside ms | load | model | graph | cut | write | start "
             "| wait |" + (" EAGER wall ms |" if eager else ""),
             "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if eager else "")]
    for dev, rs in walls.items():
        ew = [r["eager_wall"] for r in rs if r.get("eager_wall")]
        lines.append("| %s | %d | %s | %s | %s |%s" % (
            dev, len(rs), mw([r["wall"] for r in rs], "%.0f"),
            mw([r["wall"] - r["time_ms"]["total"] for r in rs], "%.0f"),
            " | ".join(mw([r["time_ms"].get(k, float("nan")) for r in rs]) for k in (
                "load", "model", "graph", "cut", "write", "device_start", "device_wait")),
            (" %s |" % mw(ew, "%.0f")) if eager else ""))
    out.add(*lines)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "grabcut"))
    ap.add_argument("--work", default=os.path.join(HERE, "work", "grid_e2e"))
    ap.add_argument("--reps", type=int, default=3, help="timed solves an image (default 3)")
    ap.add_argument("--sizes", default="1mp,8mp", help="grid sizes (default 1mp,8mp)")
    ap.add_argument("--images", help="comma-separated names (default: all)")
    ap.add_argument("--bk", action="store_true", help="BK on each 1 MP graph too")
    ap.add_argument("--pymaxflow", action="store_true", help="and PyMaxflow (with --bk)")
    ap.add_argument("--no-grid", action="store_true", help="skip step 2")
    ap.add_argument("--no-segment", action="store_true", help="skip step 3")
    ap.add_argument("--eager", action="store_true",
                    help="segment again under CUDA_MODULE_LOADING=EAGER")
    ap.add_argument("--cpu", action="store_true", help="segment on the CPU too (slow)")
    ap.add_argument("--budget", type=float, default=1e9,
                    help="seconds after which no new run starts")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    t_start = time.perf_counter()
    bench = os.path.join(a.build, "bench", "grid-e2e-bench")
    gcut = os.path.abspath(os.path.join(a.build, "gcut"))
    os.makedirs(a.work, exist_ok=True)
    names = sorted(f[:-4] for f in os.listdir(os.path.join(a.data, "images")) if f.endswith(".jpg"))
    if a.images:
        names = [n for n in names if n in a.images.split(",")]
    tags = [] if a.no_grid else a.sizes.split(",")
    need = [(a.data, n, t, a.work) for n in names
            for t in sorted(set(tags + ([] if a.no_segment else ["4mp"])))]
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        inputs = {(n, t): (i, s) for n, t, i, s in pool.map(make_input, need)}

    out, raw = Summary(a.out), {}
    out.add("# GPU grid cut end to end and `gcut segment` at 4 MP\n",
            "`python3 bench/grid_e2e.py %s`; inputs made in %.1f s.\n" % (
                " ".join(sys.argv[1:]), time.perf_counter() - t_start))
    link = link_section(a, bench, out, raw)
    failed = 0
    if link and tags:
        failed += grid_section(a, bench, names, inputs, link, out, raw, t_start)
    if not a.no_segment:
        failed += segment_section(a, gcut, names, inputs, link is not None, out, raw, t_start)
    skipped = sum("skipped (--budget" in l for l in out.lines)
    out.add("\n%d failed or wrong, %d skipped (--budget); %.0f s in all." % (
        failed, skipped, time.perf_counter() - t_start))
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(raw, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
