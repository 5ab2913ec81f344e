#!/usr/bin/env python3
"""GPU grid cut end to end, from host arrays to labels, and `gcut segment
--device gpu` wall time, on the 18 GrabCut images upscaled.

    python3 bench/grid_e2e.py --build build-dev --data .devshared/data/grabcut \\
        --work /tmp/e2e --out bench/results/grid_e2e_DEVICE.md

Inputs: each image of DATA/images upscaled as bench/segment_time.py does
(PIL bicubic, Gaussian noise of 2.5 levels from seed 12345, JPEG quality 92;
its scribbles1 strokes nearest) to 1152x864, 2304x1728 and 3840x2160
(portrait images turned), made once in --work.

1. `grid-e2e-bench --link`: CUDA's start-up alone (cudaFree(0) in a fresh
   process) and the host<->device bandwidth, pageable and pinned.
2. Per image and size, `grid-e2e-bench --reps R IMAGE SEEDS` (8-connected):
   gcut_grid_solve() on the GPU from the host arrays (median and worst of
   R), the kernel's time (CUDA events), the bytes moved; the floor is
   bytes up / pinned H2D rate + bytes down / pinned D2H rate, the goal
   e2e <= kernel + 1.3 x floor. At 1 MP also BK (in the bench) and
   PyMaxflow (gpu_grid_pymaxflow.py, --pymaxflow) on the same graph.
3. Per image at 4 MP: `gcut segment -q --json --seeds S -o mask.png IMAGE`
   with -d gpu and -d cpu (BK on all cores, "pbk"), the process's wall
   time, the stages gcut reports, and the two masks compared byte for byte.
Needs numpy and PIL (the device has both).
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

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"1mp": (1152, 864), "4mp": (2304, 1728), "8mp": (3840, 2160)}


def make_input(args):
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


def run_json(cmd):
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print("FAILED (%d): %s\n%s" % (res.returncode, " ".join(cmd), res.stderr.strip()),
              file=sys.stderr)
    lines = [l for l in res.stdout.splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def segment(gcut, device, image, seeds, mask):
    cmd = [gcut, "segment", "-q", "--json", "-d", device, "--seeds", seeds, "-o", mask, image]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000.0
    if res.returncode != 0:
        print("gcut segment failed on %s (%s): %s" % (image, device, res.stderr.strip()),
              file=sys.stderr)
        return None
    info = json.loads(res.stdout)
    info["wall"] = wall
    return info


def med_worst(values):
    return "%.1f (%.1f)" % (statistics.median(values), max(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "grabcut"))
    ap.add_argument("--work", default=os.path.join(HERE, "work", "grid_e2e"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", default="1mp,4mp,8mp")
    ap.add_argument("--images", help="comma-separated names (default: all)")
    ap.add_argument("--pymaxflow", action="store_true")
    ap.add_argument("--no-segment", action="store_true")
    ap.add_argument("--device-name", default="gpu")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    bench = os.path.join(a.build, "bench", "grid-e2e-bench")
    gcut = os.path.abspath(os.path.join(a.build, "gcut"))
    os.makedirs(a.work, exist_ok=True)
    names = sorted(f[:-4] for f in os.listdir(os.path.join(a.data, "images")) if f.endswith(".jpg"))
    if a.images:
        names = [n for n in names if n in a.images.split(",")]
    tags = a.sizes.split(",")
    need = [(a.data, n, t, a.work) for n in names for t in tags + (["4mp"] if "4mp" not in tags else [])]
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        inputs = {(n, t): (i, s) for n, t, i, s in pool.map(make_input, need)}

    out = []
    t0 = time.perf_counter()
    link = run_json([bench, "--link"])
    link_wall = (time.perf_counter() - t0) * 1000.0
    if not link:
        sys.exit("no device")
    floor_rate_up, floor_rate_down = link["h2d_pinned_gbs"] * 1e6, link["d2h_pinned_gbs"] * 1e6
    out.append("# GPU grid cut end to end, and `gcut segment --device gpu`, on %s\n" % link["device"])
    out.append("Command: `python3 bench/grid_e2e.py %s` (this file). Inputs: the 18 GrabCut "
               "images upscaled as bench/segment_time.py does (PIL bicubic, noise 2.5, JPEG 92; "
               "scribbles1 nearest).\n" % " ".join(sys.argv[1:]))
    out.append("## The link and CUDA's start-up\n")
    out.append("| CUDA start (cudaFree(0), fresh process) | process start + exit with CUDA up "
               "| H2D pageable | H2D pinned | D2H pageable | D2H pinned |\n|---|---|---|---|---|---|\n"
               "| %.1f ms | %.1f ms | %.1f GB/s | %.1f GB/s | %.1f GB/s | %.1f GB/s |\n" % (
                   link["cuda_start_ms"], link_wall - link["main_ms"], link["h2d_pageable_gbs"],
                   link["h2d_pinned_gbs"], link["d2h_pageable_gbs"], link["d2h_pinned_gbs"]))
    print("\n".join(out), flush=True)

    out.append("## gcut_grid_solve() on the GPU from host arrays (8-connected)\n")
    out.append("e2e: the call's wall time, median of %d solves after a first one (first: that "
               "one, with the device buffers and pinned halves made); kernel: the run's CUDA-event "
               "time; over: e2e - kernel; floor: bytes up / pinned H2D + bytes down / pinned D2H; "
               "goal: e2e <= kernel + 1.3 x floor; ok: every flow equal, gcut_grid_verify() passed "
               "(and BK's flow equal at 1 MP).\n" % a.reps)
    out.append("| image | size | first ms | e2e ms | worst e2e | kernel ms | over ms | MB up | MB "
               "down | floor ms | over/floor | goal met | BK ms | PyMaxflow ms | ok |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for tag in tags:
        for n in names:
            image, seeds = inputs[(n, tag)]
            cmd = [bench, "--reps", str(a.reps), "--conn", "8"]
            dump = os.path.join(a.work, "graph.bin")
            if tag == "1mp":
                cmd += ["--bk"] + (["--dump", dump] if a.pymaxflow else [])
            r = run_json(cmd + [image, seeds])
            if not r:
                out.append("| %s | %s | failed |" % (n, tag))
                continue
            floor = r["bytes_up"] / floor_rate_up + r["bytes_down"] / floor_rate_down
            pm = "-"
            if tag == "1mp" and a.pymaxflow:
                res = subprocess.run([sys.executable, os.path.join(HERE, "gpu_grid_pymaxflow.py"),
                                      dump], capture_output=True, text=True)
                try:
                    pflow, pms = res.stdout.split()
                    pm = "%.1f" % float(pms) if int(pflow) == r["flow"] else "WRONG"
                except ValueError:
                    pm = "failed"
                os.remove(dump)
            met = r["e2e_ms"] <= r["kernel_ms"] + 1.3 * floor
            summary.setdefault(tag, []).append((r, floor, met))
            row = "| %s | %dx%d | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %.2f | %s | %s | %s | %s |" % (
                n, r["width"], r["height"], r["first_ms"], r["e2e_ms"], r["e2e_worst_ms"],
                r["kernel_ms"], r["over_ms"], r["bytes_up"] / 1e6, r["bytes_down"] / 1e6, floor,
                r["over_ms"] / floor, "yes" if met else "NO",
                "%.1f" % r["bk_ms"] if r["bk_ms"] >= 0 else "-", pm, "yes" if r["ok"] else "NO")
            out.append(row)
            print(row, flush=True)
    out.append("\nMedian (worst) over the images:\n")
    out.append("| size | e2e ms | kernel ms | over ms | floor ms | over/floor | goal met |")
    out.append("|---|---|---|---|---|---|---|")
    for tag, rows in summary.items():
        out.append("| %s | %s | %s | %s | %s | %s | %d of %d |" % (
            tag, med_worst([r["e2e_ms"] for r, _, _ in rows]),
            med_worst([r["kernel_ms"] for r, _, _ in rows]),
            med_worst([r["over_ms"] for r, _, _ in rows]), med_worst([f for _, f, _ in rows]),
            "%.2f (%.2f)" % (statistics.median([r["over_ms"] / f for r, f, _ in rows]),
                             max(r["over_ms"] / f for r, f, _ in rows)),
            sum(m for _, _, m in rows), len(rows)))
    print("\n".join(out[-len(summary) - 3:]), flush=True)

    if not a.no_segment:
        out.append("\n## `gcut segment` at 4 MP: wall time, process start included\n")
        out.append("Each row: `gcut segment -q --json -d DEV --seeds S -o mask.png IMAGE`, the "
                   "defaults (GMM k=5, lambda 75, 8-connected, up to 5 cuts), one run per device; "
                   "stage times in ms as gcut reports them; wall: the whole process; wall - total: "
                   "its start, option parsing and exit (CUDA's teardown). cpu: BK on all cores "
                   "(pbk). mask equal: the two mask files byte-equal.\n")
        out.append("| image | cuts | gpu load | gpu model | gpu graph | gpu cut | gpu write | gpu "
                   "total | gpu wall | wall - total | cpu total | cpu wall | cpu/gpu wall | mask "
                   "equal |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        walls, cwalls, equal = [], [], 0
        mg, mc = os.path.join(a.work, "gpu.png"), os.path.join(a.work, "cpu.png")
        for n in names:
            image, seeds = inputs[(n, "4mp")]
            g = segment(gcut, "gpu", image, seeds, mg)
            c = segment(gcut, "cpu", image, seeds, mc)
            if not g or not c:
                out.append("| %s | failed |" % n)
                continue
            same = filecmp.cmp(mg, mc, shallow=False) and g["flow"] == c["flow"]
            equal += same
            walls.append(g["wall"])
            cwalls.append(c["wall"])
            t, u = g["time_ms"], c["time_ms"]
            row = "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f | %.1f | %.0f | %.1fx | %s |" % (
                n, g["iterations"], t["load"], t["model"], t["graph"], t["cut"], t["write"],
                t["total"], g["wall"], g["wall"] - t["total"], u["total"], c["wall"],
                c["wall"] / g["wall"], "yes" if same else "NO")
            out.append(row)
            print(row, flush=True)
        if walls:
            out.append("\ngpu wall median %.0f ms (worst %.0f); cpu wall median %.0f ms (worst "
                       "%.0f); masks equal on %d of %d.\n" % (
                           statistics.median(walls), max(walls), statistics.median(cwalls),
                           max(cwalls), equal, len(walls)))
            print(out[-1], flush=True)
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
