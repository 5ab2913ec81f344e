#!/usr/bin/env python3
"""End-to-end time of `gcut segment` on 4-megapixel images, stage by stage.

    python3 bench/segment_time.py --gcut build/gcut --machine "$(hostname)"

The GrabCut benchmark's images are VGA-sized, so each test image is made from
one of them (bench/work/seg4mp/, made once, then reused):

- upscaled with PIL's bicubic filter to 2304x1728 (1728x2304 for portrait
  images), 3.98 megapixels;
- given back some fine texture: Gaussian noise of --noise levels (default 2.5)
  per channel, from a fixed seed, so that the image is not artificially
  smooth (an upscaled photograph has neighbour differences far below a
  camera's; the n-link weights and so the cut depend on them);
- saved as a JPEG of quality 92 (libjpeg through PIL, 4:2:0), as a camera
  would;
- its scribbles (scribbles1 unless --set says otherwise) and ground truth
  upscaled with the nearest-neighbour filter: the same strokes, thicker, and
  the palette kept.

Each image is segmented --repeat times with the default settings on the CPU
(`gcut segment -q --json -d cpu --seeds S -o mask.png IMAGE`); the table gives
the median of each stage that gcut reports (load: image and seeds; model:
fitting and evaluating the colour models; graph: n-links and terminals; cut:
the minimum cuts; write: the mask PNG), the process's wall time, the number
of cuts and the error rate of the mask against the upscaled ground truth.
Writes bench/results/segment_time_<machine>.md.
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

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
STAGES = ["load", "model", "graph", "cut", "write", "total"]


def make_inputs(data, name, sset, noise, work):
    """The 4 MP image, scribbles and ground truth for `name` (cached)."""
    tag = "%s-%s-n%g" % (name, sset, noise)
    img_path = os.path.join(work, tag + ".jpg")
    seed_path = os.path.join(work, tag + "-anno.png")
    gt_path = os.path.join(work, tag + "-gt.png")
    if all(os.path.exists(p) for p in (img_path, seed_path, gt_path)):
        return img_path, seed_path, gt_path
    src = Image.open(os.path.join(data, "images", name + ".jpg")).convert("RGB")
    size = (2304, 1728) if src.width >= src.height else (1728, 2304)
    big = np.asarray(src.resize(size, Image.BICUBIC), dtype=np.float64)
    rng = np.random.default_rng(12345)
    big = big + rng.normal(0.0, noise, big.shape)
    Image.fromarray(np.clip(np.rint(big), 0, 255).astype(np.uint8)).save(img_path, quality=92)
    anno = Image.open(os.path.join(data, sset, name + "-anno.png"))
    if anno.mode != "P":
        sys.exit("%s: scribbles are not a palette image" % name)
    anno.resize(size, Image.NEAREST).save(seed_path)
    Image.open(os.path.join(data, "gt", name + ".png")).convert("L").resize(
        size, Image.NEAREST).save(gt_path)
    return img_path, seed_path, gt_path


def error_rate(mask_path, gt_path):
    pred = np.asarray(Image.open(mask_path).convert("L")) > 127
    gt = np.asarray(Image.open(gt_path))
    valid = gt != 128
    return float(np.count_nonzero((pred != (gt > 128)) & valid)) / float(np.count_nonzero(valid))


def run_once(gcut, image, seeds, extra, mask):
    cmd = [gcut, "segment", "-q", "--json", "-d", "cpu", "--seeds", seeds, "-o", mask] + \
        extra + [image]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = (time.perf_counter() - t0) * 1000.0
    if res.returncode != 0:
        sys.exit("gcut failed on %s: %s" % (image, res.stderr.strip()))
    info = json.loads(res.stdout)
    return info, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gcut", default="build/gcut")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data", "grabcut"))
    ap.add_argument("--images", default="banana1,flower,bush")
    ap.add_argument("--set", default="scribbles1")
    ap.add_argument("--noise", type=float, default=2.5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(HERE, "work", "seg4mp"))
    ap.add_argument("--machine", default=platform.node())
    ap.add_argument("--out", help="markdown file (default bench/results/segment_time_<machine>.md)"
                    "; '-' for stdout only")
    ap.add_argument("extra", nargs="*", help="extra gcut arguments (after --)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    data = os.path.abspath(a.data)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        mask = os.path.join(tmp, "mask.png")
        for name in a.images.split(","):
            image, seeds, gt = make_inputs(data, name, a.set, a.noise, a.work)
            runs = []
            for _ in range(a.repeat):
                info, wall = run_once(os.path.abspath(a.gcut), image, seeds, a.extra, mask)
                runs.append((info, wall))
                print("%s: %s wall %.0f ms, %d cuts" % (name, json.dumps(info["time_ms"]), wall,
                                                       info["iterations"]), file=sys.stderr)
            med = {s: statistics.median(r[0]["time_ms"][s] for r in runs) for s in STAGES}
            wall = statistics.median(r[1] for r in runs)
            cuts = sorted({r[0]["iterations"] for r in runs})
            energies = {r[0]["energy"] for r in runs}
            if len(energies) != 1:
                sys.exit("%s: the energy differs between runs: %s" % (name, sorted(energies)))
            info = runs[0][0]
            rows.append([name, "%dx%d" % (info["width"], info["height"])] +
                        ["%.0f" % med[s] for s in STAGES] +
                        ["%.0f" % min(r[0]["time_ms"]["total"] for r in runs),
                         "%.0f" % wall, "/".join(map(str, cuts)),
                         "%.2f%%" % (100 * error_rate(mask, gt)), "%.6f" % info["energy"]])

    head = ["image", "size"] + ["%s ms" % s for s in STAGES] + \
        ["best total ms", "wall ms", "cuts", "error", "energy"]
    lines = ["# gcut segment at 4 megapixels: time per stage", "",
             "Machine: %s (%s, %s, %d CPUs). Command: `python3 bench/segment_time.py %s`. "
             "Date: %s." % (a.machine, platform.processor() or platform.machine(),
                            platform.platform(), os.cpu_count(), " ".join(sys.argv[1:]),
                            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), "",
             "Inputs: GrabCut images upscaled (bicubic) to 2304x1728 or 1728x2304, Gaussian "
             "noise sigma %g per channel, JPEG quality 92; %s scribbles and ground truth "
             "upscaled (nearest). Medians of %d runs of `gcut segment -q --json -d cpu --seeds S "
             "-o mask.png IMAGE %s` (defaults); stages as gcut reports them; best total = the "
             "fastest run's total (on a shared machine the least disturbed); wall = the whole "
             "process; error against the upscaled ground truth (pixels not 128)."
             % (a.noise, a.set, a.repeat, " ".join(a.extra)), "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * 2 + " ---: |" * (len(head) - 2)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out != "-":
        out = a.out or os.path.join(HERE, "results", "segment_time_%s.md" % a.machine)
        with open(out, "w") as f:
            f.write(text)
        print("wrote %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
