#!/usr/bin/env python3
"""End-to-end `gcut segment` with the graph built on the GPU against the CPU.

    python3 bench/segment_gpu.py --gcut build-h/gcut --data .devdata/grabcut \\
        --big bench/work/segment_gpu --device-name "NVIDIA H100"

For each input (the GrabCut images with their scribbles1 strokes, and the
upscaled images under --big: NAME.jpg with NAME-anno.png), runs
`gcut segment -q --json -d DEV --seeds S -o mask.png IMAGE` with the
defaults for DEV = cpu and gpu (--repeat times each; the fastest run's
stages are shown), checks that the two mask files are byte-equal and that
flow, energy, beta, K and cuts agree, and writes the stage times that gcut
reports (model, graph, cut, total) and the process's wall time.
Needs only the standard library. Writes bench/results/segment_gpu_<device>.md.
"""
import argparse
import filecmp
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(gcut, device, image, seeds, mask):
    cmd = [gcut, "segment", "-q", "--json", "-d", device, "--seeds", seeds, "-o", mask, image]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000.0
    if res.returncode != 0:
        sys.exit("gcut failed on %s (%s): %s" % (image, device, res.stderr.strip()))
    info = json.loads(res.stdout)
    info["wall"] = wall
    return info


def best_of(gcut, device, image, seeds, mask, repeat):
    runs = [run(gcut, device, image, seeds, mask) for _ in range(repeat)]
    return min(runs, key=lambda r: r["time_ms"]["total"])


def inputs(data, big):
    items = []
    images = os.path.join(data, "images")
    for f in sorted(os.listdir(images)):
        name = f.rsplit(".", 1)[0]
        seeds = os.path.join(data, "scribbles1", name + "-anno.png")
        if os.path.exists(seeds):
            items.append((name, os.path.join(images, f), seeds))
    if big:
        for f in sorted(os.listdir(big)):
            if f.endswith(".jpg"):
                name = f[:-4]
                items.append((name, os.path.join(big, f), os.path.join(big, name + "-anno.png")))
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gcut", default="build/gcut")
    ap.add_argument("--data", default=".devdata/grabcut")
    ap.add_argument("--big", help="folder of upscaled NAME.jpg + NAME-anno.png")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--device-name", default="gpu")
    ap.add_argument("--out")
    a = ap.parse_args()
    gcut = os.path.abspath(a.gcut)
    rows, bad = [], []
    with tempfile.TemporaryDirectory() as tmp:
        mc, mg = os.path.join(tmp, "cpu.png"), os.path.join(tmp, "gpu.png")
        for name, image, seeds in inputs(a.data, a.big):
            c = best_of(gcut, "cpu", image, seeds, mc, a.repeat)
            g = best_of(gcut, "gpu", image, seeds, mg, a.repeat)
            same = filecmp.cmp(mc, mg, shallow=False)
            agree = all(c[k] == g[k] for k in ("flow", "energy", "beta", "hard_cap",
                                                 "iterations", "foreground"))
            if not (same and agree):
                bad.append(name)
            tc, tg = c["time_ms"], g["time_ms"]
            rows.append([name, "%dx%d" % (c["width"], c["height"]), str(c["iterations"]),
                         "%.1f" % tc["model"], "%.1f" % tc["graph"], "%.1f" % tc["cut"],
                         "%.1f" % tc["total"], "%.0f" % c["wall"],
                         "%.1f" % tg["model"], "%.1f" % tg["graph"], "%.1f" % tg["cut"],
                         "%.1f" % tg["total"], "%.0f" % g["wall"],
                         "%.1fx" % (tc["total"] / tg["total"]),
                         "yes" if same and agree else "NO"])
            print(" ".join(rows[-1]), file=sys.stderr)
    head = ["image", "size", "cuts", "cpu model", "cpu graph", "cpu cut", "cpu total",
            "cpu wall", "gpu model", "gpu graph", "gpu cut", "gpu total", "gpu wall",
            "total cpu/gpu", "mask equal"]
    dev = a.device_name.replace(" ", "_")
    out = a.out or os.path.join(HERE, "results", "segment_gpu_%s.md" % dev)
    lines = ["# gcut segment: graph built on the GPU (--device gpu) against the CPU", "",
             "Device: %s. Host: %s, %d CPUs. Date: %s. Command: `python3 bench/segment_gpu.py %s`."
             % (a.device_name, platform.platform(), os.cpu_count(),
                time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), " ".join(sys.argv[1:])), "",
             "Each row: `gcut segment -q --json -d cpu|gpu --seeds S -o mask.png IMAGE` with "
             "the defaults (GMM k=5, lambda 75, 8-connected, up to 5 cuts), the fastest of %d "
             "run(s) per device; stage times in ms as gcut reports them (model: colour models, "
             "on the host in both; graph: n-links, K, terminals; cut: the minimum cuts, for the "
             "GPU with the label download; total: load to write); wall: the whole process "
             "(for the GPU including CUDA's start-up). mask equal: the two mask files are "
             "byte-equal and flow, energy, beta, K, cuts and foreground agree." % a.repeat, "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "Masks differ on: %s." % (", ".join(bad) if bad else "none")]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
