#!/usr/bin/python3
"""Segmentation quality of `gcut segment` against OpenCV's GrabCut on the 18
images of the GrabCut benchmark, with the same scribbles as seeds.

Run with Debian's python (it has python3-opencv):

    /usr/bin/python3 bench/segment_quality.py --gcut build/gcut --machine "$(hostname)"

For each scribble set (scribbles1: Gulshan et al.; scribbles2: Andrade &
Carrera) and image: `gcut segment --seeds S IMAGE` with its default settings
(extra arguments after `--` go to every gcut run), and cv2.grabCut with
GC_INIT_WITH_MASK and 5 iterations, seeds as GC_FGD / GC_BGD. OpenCV needs
the unseeded pixels to start as "probably foreground" or "probably
background", and which one is a choice the benchmark should not make for it,
so both are run and reported. Scores: error rate = mislabelled pixels /
pixels whose ground truth is not 128 (the unknown band), and foreground IoU
over the same pixels. Writes a markdown table to
bench/results/segment_quality_<machine>.md.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

NAMES = ["106024", "124084", "153077", "153093", "181079", "banana1", "banana2", "book", "bush",
         "cross", "flower", "fullmoon", "grave", "llama", "memorial", "sheep", "stone2", "teddy"]


def read_palette_indices(path):
    """The palette indices of a palette PNG (cv2 would expand the colours)."""
    # cv2 has no palette access; decode with zlib ourselves via PIL if there,
    # else from the colours: index 1 is (255,255,207), index 2 is (219,0,0).
    img = cv2.imread(path, cv2.IMREAD_COLOR)[:, :, ::-1]
    idx = np.zeros(img.shape[:2], np.uint8)
    idx[np.all(img == (255, 255, 207), axis=2)] = 1
    idx[np.all(img == (219, 0, 0), axis=2)] = 2
    return idx


def score(pred_fg, gt):
    valid = gt != 128
    truth = gt > 128
    err = float(np.count_nonzero((pred_fg != truth) & valid)) / float(np.count_nonzero(valid))
    inter = np.count_nonzero(pred_fg & truth & valid)
    union = np.count_nonzero((pred_fg | truth) & valid)
    return err, (inter / union if union else 1.0)


def run_gcut(gcut, image, seeds, extra, tmp):
    out = os.path.join(tmp, "mask.png")
    cmd = [gcut, "segment", "-q", "--json", "--seeds", seeds, "-o", out] + extra + [image]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        sys.exit("gcut failed on %s: %s" % (image, res.stderr.strip()))
    info = json.loads(res.stdout)
    mask = cv2.imread(out, cv2.IMREAD_GRAYSCALE)
    return mask > 127, info, wall


def run_opencv(image, idx, unknown):
    img = cv2.imread(image, cv2.IMREAD_COLOR)
    mask = np.full(idx.shape, unknown, np.uint8)
    mask[idx == 1] = cv2.GC_FGD
    mask[idx == 2] = cv2.GC_BGD
    bgd = np.zeros((1, 65), np.float64)
    fgd = np.zeros((1, 65), np.float64)
    t0 = time.perf_counter()
    cv2.grabCut(img, mask, None, bgd, fgd, 5, cv2.GC_INIT_WITH_MASK)
    wall = time.perf_counter() - t0
    return (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gcut", default="build/gcut")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "shared", "data", "grabcut"))
    ap.add_argument("--machine", default=platform.node())
    ap.add_argument("--out", help="the markdown file (default bench/results/"
                    "segment_quality_<machine>.md); '-' for stdout only")
    ap.add_argument("--sets", default="scribbles1,scribbles2")
    ap.add_argument("--no-opencv", action="store_true", help="gcut only (for quick tuning)")
    ap.add_argument("extra", nargs="*", help="extra gcut arguments (after --)")
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    if not os.path.isdir(os.path.join(data, "images")):
        sys.exit("no GrabCut data at %s" % data)

    lines = []
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        for sset in a.sets.split(","):
            rows = []
            for name in NAMES:
                image = os.path.join(data, "images", name + ".jpg")
                seeds = os.path.join(data, sset, name + "-anno.png")
                gt = cv2.imread(os.path.join(data, "gt", name + ".png"), cv2.IMREAD_GRAYSCALE)
                pred, info, wall = run_gcut(os.path.abspath(a.gcut), image, seeds, a.extra, tmp)
                row = [name, *score(pred, gt), wall, info["iterations"]]
                if not a.no_opencv:
                    idx = read_palette_indices(seeds)
                    for unknown in (cv2.GC_PR_BGD, cv2.GC_PR_FGD):
                        p, w = run_opencv(image, idx, unknown)
                        row += [*score(p, gt), w]
                rows.append(row)
                print("%s %-9s gcut err %.4f" % (sset, name, row[1]) +
                      ("" if a.no_opencv else "  opencv err %.4f / %.4f" % (row[5], row[8])),
                      file=sys.stderr)
            mean = [float(np.mean([r[i] for r in rows])) for i in range(1, len(rows[0]))]
            summary.append((sset, mean))
            lines.append("\n## %s\n" % sset)
            head = "| image | gcut error | gcut IoU | gcut s | cuts |"
            sep = "| --- | ---: | ---: | ---: | ---: |"
            if not a.no_opencv:
                head += (" GrabCut(PR_BGD) error | IoU | s | GrabCut(PR_FGD) error | IoU | s |")
                sep += " ---: | ---: | ---: | ---: | ---: | ---: |"
            lines += [head, sep]
            for r in rows + [["**mean**"] + mean]:
                cells = [r[0], "%.2f%%" % (100 * r[1]), "%.4f" % r[2], "%.3f" % r[3],
                         "%.1f" % r[4] if isinstance(r[4], float) else str(r[4])]
                if not a.no_opencv:
                    cells += ["%.2f%%" % (100 * r[5]), "%.4f" % r[6], "%.3f" % r[7],
                              "%.2f%%" % (100 * r[8]), "%.4f" % r[9], "%.3f" % r[10]]
                lines.append("| " + " | ".join(cells) + " |")

    top = ["# gcut segment vs OpenCV GrabCut: quality", "",
           "Machine: %s (%s, %s). Command: `/usr/bin/python3 bench/segment_quality.py %s`. "
           "OpenCV %s. Date: %s." % (a.machine, platform.processor() or platform.machine(),
                                     platform.platform(), " ".join(sys.argv[1:]),
                                     cv2.__version__, time.strftime("%Y-%m-%d %H:%M UTC",
                                                                    time.gmtime())),
           "",
           "gcut: `gcut segment --seeds S IMAGE %s` (defaults). GrabCut: `cv2.grabCut` with "
           "GC_INIT_WITH_MASK, 5 iterations, seeds as GC_FGD/GC_BGD and the unseeded pixels as "
           "GC_PR_BGD or GC_PR_FGD (both shown). Error = mislabelled / pixels whose ground "
           "truth is not 128; IoU of the foreground over the same pixels. Times are wall "
           "seconds per image (gcut: the whole command, image loading and mask writing "
           "included)." % " ".join(a.extra), "", "| scribbles | gcut mean error | "
           + ("GrabCut(PR_BGD) | GrabCut(PR_FGD) | gcut better than both? |" if not a.no_opencv
              else "") , "| --- | ---: |" + (" ---: | ---: | --- |" if not a.no_opencv else "")]
    for sset, m in summary:
        cells = [sset, "%.2f%% (IoU %.4f)" % (100 * m[0], m[1])]
        if not a.no_opencv:
            cells += ["%.2f%% (IoU %.4f)" % (100 * m[4], m[5]),
                      "%.2f%% (IoU %.4f)" % (100 * m[7], m[8]),
                      "yes" if m[0] < min(m[4], m[7]) else "no"]
        top.append("| " + " | ".join(cells) + " |")
    text = "\n".join(top + lines) + "\n"
    print("\n".join(top))
    if a.out != "-":
        out = a.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                    "segment_quality_%s.md" % a.machine)
        with open(out, "w") as f:
            f.write(text)
        print("wrote %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
