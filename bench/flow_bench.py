#!/usr/bin/env python3
"""Optical flow quality and time: gcut flow against OpenCV's Farneback and DIS.

On Middlebury's RubberWhale (ground truth): EPE, AAE and time of each
method on the same frames in the same run. On Dimetrodon and Venus (no
ground truth): the warping error, mean |I1(x + w(x)) - I0(x)| in grey levels
over the pixels whose target lies inside frame 1, as a sanity check of the
defaults. A 640x480 pair (RubberWhale resized) times each method at the size
the issue names. gcut runs with its defaults (no per-sequence tuning).

OpenCV comes from Debian (apt-get install python3-opencv) or pip
(opencv-python-headless); without it only gcut's rows are measured (gcut
scores itself with --gt) and the table says so.

gcut's time is the median of N runs in one process after a warm-up run
(`gcut flow --repeat N+1`: the library's time, frames decoded once); the
process wall of one plain `gcut flow` command (CUDA start-up, PNG decoding
and the .flo write included) is given beside it. --device takes a list
(cpu,gpu): one row each, on the same frames.

Usage: flow_bench.py GCUT [--data DIR] [--pair640 F0 F1] [--device auto|cpu|gpu[,...]]
                     [--repeat N] [--machine NAME] [--out FILE.md]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import cv2
    import numpy as np
except ImportError:  # the device machine: gcut's rows only
    cv2 = None
    np = None


def read_flo(path):
    with open(path, "rb") as f:
        tag = np.fromfile(f, np.float32, 1)
        w, h = np.fromfile(f, np.int32, 2)
        data = np.fromfile(f, np.float32, 2 * w * h)
    assert tag[0] == 202021.25 and data.size == 2 * w * h, path
    return data.reshape(h, w, 2)


def epe_aae(flow, gt):
    known = (np.abs(gt) <= 1e9).all(2) & np.isfinite(gt).all(2)
    f, g = flow[known].astype(np.float64), gt[known].astype(np.float64)
    epe = np.sqrt(((f - g) ** 2).sum(1)).mean()
    dot = (f * g).sum(1) + 1
    norm = np.sqrt(((f ** 2).sum(1) + 1) * ((g ** 2).sum(1) + 1))
    aae = np.degrees(np.arccos(np.clip(dot / norm, -1, 1))).mean()
    return epe, aae


def warp_error(i0, i1, flow):
    h, w = i0.shape
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    mx, my = xs + flow[..., 0], ys + flow[..., 1]
    inside = (mx >= 0) & (my >= 0) & (mx <= w - 1) & (my <= h - 1)
    warped = cv2.remap(i1.astype(np.float32), mx, my, cv2.INTER_LINEAR)
    return float(np.abs(warped - i0.astype(np.float32))[inside].mean())


GPU_ALGO = "gpu-auction"  # the whole flow on the GPU (set by --gpu-algo)


def run_gcut(gcut, f0, f1, device, repeat, gt=None):
    """The median time of `repeat` runs after a warm-up in one process
    (gcut's own time_ms: the flow, not the PNG decoding), the flow's report,
    its .flo, and the process wall (ms) of one plain command."""
    out = os.path.join(tempfile.mkdtemp(prefix="flow-bench-"), "f.flo")
    cmd = [gcut, "flow", "-q", "--json", "-d", device, "-o", out, f0, f1]
    if device == "gpu":
        cmd += ["-a", GPU_ALGO]
    if gt:
        cmd += ["-g", gt]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = 1000 * (time.perf_counter() - t0)
    reps = ["--repeat", str(repeat + 1)] if repeat > 1 else []
    info = json.loads(subprocess.run(cmd + reps, check=True, capture_output=True,
                                     text=True).stdout)
    return info["time_ms"], info, out, wall


def time_cv(fn, repeat):
    times, flow = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        flow = fn()
        times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times), flow


def cv_methods():
    return [
        ("OpenCV Farneback", lambda a, b: cv2.calcOpticalFlowFarneback(
            a, b, None, 0.5, 3, 15, 3, 5, 1.2, 0)),
        ("OpenCV DIS ultrafast", lambda a, b: cv2.DISOpticalFlow_create(0).calc(a, b, None)),
        ("OpenCV DIS fast", lambda a, b: cv2.DISOpticalFlow_create(1).calc(a, b, None)),
        ("OpenCV DIS medium", lambda a, b: cv2.DISOpticalFlow_create(2).calc(a, b, None)),
    ]


def main():
    global GPU_ALGO
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gcut")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data",
                                                   "middlebury"),
                    help="the Middlebury folder (default: ../shared/data/middlebury beside "
                         "the repository)")
    ap.add_argument("--device", default="auto", help="auto, cpu, gpu or a list: cpu,gpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--gpu-algo", default=GPU_ALGO,
                    help="gcut's --algo where the device is gpu (default gpu-auction: the whole "
                         "flow on the GPU; gpu-csa: the assignment alone)")
    ap.add_argument("--machine", default=platform.node())
    ap.add_argument("--pair640", nargs=2, metavar=("F0", "F1"),
                    help="a 640x480 pair to time (default: RubberWhale resized, needs OpenCV)")
    ap.add_argument("--out")
    a = ap.parse_args()
    GPU_ALGO = a.gpu_algo

    rw = os.path.join(a.data, "RubberWhale")
    f0, f1, gt_path = (os.path.join(rw, n) for n in ("frame10.png", "frame11.png", "flow10.flo"))
    lines = [f"# Optical flow: gcut flow against OpenCV ({a.machine})", "",
             f"`python3 bench/flow_bench.py {os.path.basename(a.gcut)} --device {a.device}"
             f" --repeat {a.repeat}`; median time of {a.repeat} runs (gcut: in one process "
             "after a warm-up run); gcut with its defaults. Process wall: one plain "
             "`gcut flow` command, start-up, decoding and writing included.",
             f"OpenCV {cv2.__version__ if cv2 else 'not installed: its rows are absent'}.",
             f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores.", ""]

    devices = a.device.split(",")
    lines += ["## RubberWhale (584x388), against the ground truth", "",
              "| method | EPE | AAE (deg) | time ms | process wall ms | device |",
              "| --- | --- | --- | --- | --- | --- |"]
    splits, flows = [], {}
    for dev in devices:
        ms, info, out, wall = run_gcut(a.gcut, f0, f1, dev, a.repeat, gt_path)
        lines.append(f"| gcut flow | {info['epe']:.4f} | {info['aae']:.3f} | {ms:.1f} | "
                     f"{wall:.0f} | {info['device']} ({info['algo']}) |")
        splits.append(info)
        flows[dev] = out
        if cv2 is not None:
            own = epe_aae(read_flo(out), read_flo(gt_path))
            assert abs(own[0] - info["epe"]) < 1e-4, (own, info["epe"])  # scores itself right
    if cv2 is not None:
        gt = read_flo(gt_path)
        a0, a1 = cv2.imread(f0, 0), cv2.imread(f1, 0)
        for name, fn in cv_methods():
            t, flow = time_cv(lambda: fn(a0, a1), a.repeat)
            e, g = epe_aae(flow, gt)
            lines.append(f"| {name} | {e:.4f} | {g:.3f} | {t:.1f} | | cpu |")
    lines.append("")
    for info in splits:
        split = info["time_split_ms"]
        lines.append(f"gcut on {info['device']} ({info['algo']}), split of the last run: match "
                     f"{split['match']:.1f} ms, assignment {split['assign']:.1f} ms "
                     f"({info['arcs']} arcs over {info['levels']} levels, cost "
                     f"{info['assign_cost']} at the finest), refinement and pyramid "
                     f"{split['refine']:.1f} ms; {info['occluded']} pixels occluded at the "
                     f"finest level; first run {info.get('first_ms', 0):.1f} ms.")
    if len(flows) == 2 and np is not None:
        fa, fb = (read_flo(p) for p in flows.values())
        diff = np.sqrt(((fa - fb) ** 2).sum(2))
        lines.append(f"The {' and '.join(flows)} fields differ by {diff.mean():.4f} px on "
                     f"average (largest {diff.max():.2f} px).")
    lines.append("")

    if cv2 is not None:
        lines += ["## Dimetrodon and Venus: warping error (grey levels; no ground truth)", "",
                  "| sequence | gcut flow | " + " | ".join(n for n, _ in cv_methods()) +
                  " | zero flow |", "| --- " * (len(cv_methods()) + 3) + "|"]
        for seq in ("RubberWhale", "Dimetrodon", "Venus"):
            s0, s1 = (os.path.join(a.data, seq, n) for n in ("frame10.png", "frame11.png"))
            i0, i1 = cv2.imread(s0, 0), cv2.imread(s1, 0)
            _, _, sout, _ = run_gcut(a.gcut, s0, s1, devices[-1], 1)
            row = [warp_error(i0, i1, read_flo(sout))]
            row += [warp_error(i0, i1, fn(i0, i1)) for _, fn in cv_methods()]
            row.append(warp_error(i0, i1, np.zeros(i0.shape + (2,), np.float32)))
            lines.append(f"| {seq} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
        lines.append("")

    pair = a.pair640
    if pair is None and cv2 is not None:
        tmp = tempfile.mkdtemp(prefix="flow-bench-640-")
        pair = [os.path.join(tmp, "f0.png"), os.path.join(tmp, "f1.png")]
        for src, dst in zip((f0, f1), pair):
            cv2.imwrite(dst, cv2.resize(cv2.imread(src), (640, 480),
                                        interpolation=cv2.INTER_LINEAR))
    if pair is not None:
        lines += ["## A 640x480 pair (RubberWhale resized): time", "",
                  "| method | time ms | process wall ms | device |", "| --- | --- | --- | --- |"]
        splits = []
        for dev in devices:
            ms, info, _, wall = run_gcut(a.gcut, pair[0], pair[1], dev, a.repeat)
            lines.append(f"| gcut flow | {ms:.1f} | {wall:.0f} | {info['device']} "
                         f"({info['algo']}) |")
            splits.append(info)
        if cv2 is not None:
            b0, b1 = cv2.imread(pair[0], 0), cv2.imread(pair[1], 0)
            for name, fn in cv_methods():
                t, _ = time_cv(lambda: fn(b0, b1), a.repeat)
                lines.append(f"| {name} | {t:.1f} | | cpu |")
        lines.append("")
        for info in splits:
            split = info["time_split_ms"]
            lines.append(f"gcut on {info['device']}: match {split['match']:.1f}, assignment "
                         f"{split['assign']:.1f} ({info['arcs']} arcs), refinement "
                         f"{split['refine']:.1f} ms.")
        lines.append("")

    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    sys.exit(main())
