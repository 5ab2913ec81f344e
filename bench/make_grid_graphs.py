#!/usr/bin/env python3
"""Build grid-graph benchmark instances from the GrabCut images.

For each image and size (megapixels) the image and its scribbles are resized
with PIL, and an interactive-segmentation energy is built (Boykov-Jolly 2001,
with the GrabCut contrast term):

- data term: -ln P(colour | fg) and -ln P(colour | bg) from colour histograms
  (16 bins per channel, blurred by [1 2 1] along each axis, add-0.5) of the
  scribbled pixels. The source side is the foreground, so the source arc of a
  pixel carries its background cost and the sink arc its foreground cost;
- hard constraints: foreground seeds get source capacity K and sink 0,
  background seeds the reverse, K = 1 + the largest sum of n-links at a pixel;
- n-links: lambda * exp(-beta * |I_p - I_q|^2) / dist(p, q) on 4 or 8
  neighbours, beta = 1 / (2 * mean |dI|^2) over the 4-neighbour pairs.

Every cost is multiplied by SCALE and rounded to an integer. Each graph is
written twice, as the same graph:

- NAME.max: DIMACS max-flow with the grid hint gcut reads (see "Grid graph
  files" in include/gcut.h): pixels 1..W*H row-major, W*H+1 the source,
  W*H+2 the sink; zero-capacity arcs are left out;
- NAME.npz: width, height, conn, source and sink (H x W int32), and cap_<DIR>
  (H x W int32) for each direction, the capacity of the arc leaving each pixel
  (0 where the neighbour is outside), as gcut_grid_set_edges() takes them.

Usage: make_grid_graphs.py OUT_DIR [--data DIR] [--sizes 0.25 1 4]
       [--images banana1 flower ...] [--conn 4 8] [--jobs N] [--verify]
"""
import argparse
import math
import multiprocessing
import os
import sys
import time

import numpy as np
from PIL import Image

# gcut_dir order: opposite(d) == d ^ 1.
DIRS = [("E", 1, 0), ("W", -1, 0), ("S", 0, 1), ("N", 0, -1),
        ("NE", 1, -1), ("SW", -1, 1), ("SE", 1, 1), ("NW", -1, -1)]

DEFAULT_IMAGES = ["banana1", "flower", "sheep", "124084"]
LAMBDA = 50.0  # GrabCut's gamma
SCALE = 10.0   # costs in tenths of a nat
BINS = 16


def size_label(mp):
    return ("%g" % mp)


def graph_name(image, mp, conn):
    return "%s_%smp_c%d" % (image, size_label(mp), conn)


def pair_slices(h, w, dx, dy):
    """Slices of the pixels p whose neighbour q = p + (dx, dy) is inside, and of those q."""
    def axis(n, d):
        return slice(max(0, -d), n - max(0, d)), slice(max(0, d), n - max(0, -d))
    py, qy = axis(h, dy)
    px, qx = axis(w, dx)
    return (py, px), (qy, qx)


def colour_costs(rgb, mask):
    """-ln P(colour) per pixel under a blurred histogram of the pixels in mask."""
    idx = ((rgb[..., 0] // (256 // BINS)).astype(np.int64) * BINS * BINS
           + (rgb[..., 1] // (256 // BINS)).astype(np.int64) * BINS
           + (rgb[..., 2] // (256 // BINS)).astype(np.int64))
    hist = np.bincount(idx[mask], minlength=BINS ** 3).astype(np.float64).reshape(BINS, BINS, BINS)
    for axis in range(3):
        pad = np.pad(hist, [(1, 1) if a == axis else (0, 0) for a in range(3)])
        lo = [slice(None)] * 3
        mid = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], mid[axis], hi[axis] = slice(0, -2), slice(1, -1), slice(2, None)
        hist = pad[tuple(lo)] + 2 * pad[tuple(mid)] + pad[tuple(hi)]
    hist += 0.5
    prob = hist.ravel() / hist.sum()
    return -np.log(prob)[idx]


def build_energy(rgb, seeds, conn):
    """Terminal and per-direction capacities (int32) of the segmentation graph."""
    h, w, _ = rgb.shape
    img = rgb.astype(np.float64)
    fg, bg = seeds == 1, seeds == 2
    if not fg.any() or not bg.any():
        raise ValueError("the scribbles need both foreground and background pixels")

    sq = []
    for name, dx, dy in (("E", 1, 0), ("S", 0, 1)):
        p, q = pair_slices(h, w, dx, dy)
        sq.append(((img[q] - img[p]) ** 2).sum(axis=2).ravel())
    beta = 1.0 / (2.0 * np.concatenate(sq).mean())

    caps = {}
    for name, dx, dy in DIRS[:conn]:
        cap = np.zeros((h, w), np.int32)
        p, q = pair_slices(h, w, dx, dy)
        d2 = ((img[q] - img[p]) ** 2).sum(axis=2)
        dist = math.hypot(dx, dy)
        cap[p] = np.rint(SCALE * LAMBDA * np.exp(-beta * d2) / dist).astype(np.int32)
        caps[name] = cap
    k = 1 + int(sum(c.astype(np.int64) for c in caps.values()).max())

    source = np.rint(SCALE * colour_costs(rgb, bg)).astype(np.int32)
    sink = np.rint(SCALE * colour_costs(rgb, fg)).astype(np.int32)
    source[fg], sink[fg] = k, 0
    source[bg], sink[bg] = 0, k
    return source, sink, caps, beta, k


def format_lines(fields, prefix):
    """b'PREFIX f0 f1 f2\\n' for each row of the non-negative int64 columns in fields.

    Each number is written into a fixed-width digit block, and the leading
    zeros are dropped with one boolean mask, so no Python loop runs per line.
    """
    n = fields[0].size
    widths = [max(1, len(str(int(f.max())))) if n else 1 for f in fields]
    line_len = len(prefix) + sum(wd + 1 for wd in widths) + 1
    chars = np.empty((n, line_len), np.uint8)
    keep = np.ones((n, line_len), bool)
    chars[:, :len(prefix)] = np.frombuffer(prefix, np.uint8)
    col = len(prefix)
    for f, wd in zip(fields, widths):
        chars[:, col] = ord(" ")
        col += 1
        ndig = np.ones(n, np.int64)
        for k in range(1, wd):
            ndig += f >= 10 ** k
        rest = f.copy()
        for k in range(wd - 1, -1, -1):
            chars[:, col + k] = (rest % 10 + 48).astype(np.uint8)
            rest //= 10
            keep[:, col + k] = ndig >= wd - k
        col += wd
    chars[:, col] = ord("\n")
    return chars[keep].tobytes()


def arc_arrays(w, h, conn, source, sink, caps):
    """(u, v, cap) int64 arrays of every non-zero arc, in DIMACS numbering, in chunks."""
    npix = w * h
    ids = np.arange(1, npix + 1, dtype=np.int64).reshape(h, w)
    s_node, t_node = npix + 1, npix + 2
    nz = source.ravel() > 0
    yield np.full(int(nz.sum()), s_node, np.int64), ids.ravel()[nz], source.ravel()[nz].astype(np.int64)
    nz = sink.ravel() > 0
    yield ids.ravel()[nz], np.full(int(nz.sum()), t_node, np.int64), sink.ravel()[nz].astype(np.int64)
    for name, dx, dy in DIRS[:conn]:
        p, q = pair_slices(h, w, dx, dy)
        c = caps[name][p]
        nz = c > 0
        yield ids[p][nz], ids[q][nz], c[nz].astype(np.int64)


def write_dimacs(path, w, h, conn, source, sink, caps, note):
    chunks = list(arc_arrays(w, h, conn, source, sink, caps))
    m = sum(c[0].size for c in chunks)
    npix = w * h
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(("c %s\nc grid %d %d %d\np max %d %d\nn %d s\nn %d t\n"
                     % (note, w, h, conn, npix + 2, m, npix + 1, npix + 2)).encode())
            step = 1 << 20
            for u, v, cap in chunks:
                for i in range(0, u.size, step):
                    f.write(format_lines([u[i:i + step], v[i:i + step], cap[i:i + step]], b"a"))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return m


def read_dimacs(path):
    """Parse a file written by write_dimacs back into (w, h, conn, source, sink, caps)."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    w = h = conn = None
    first_arc = None
    for i, line in enumerate(lines):
        if line.startswith(b"c grid "):
            w, h, conn = (int(t) for t in line.split()[2:5])
        if line.startswith(b"a "):
            first_arc = i
            break
    arcs = b"\n".join(lines[first_arc:]).replace(b"a ", b"")
    uvc = np.array(arcs.split(), dtype=np.int64).reshape(-1, 3)
    npix = w * h
    u, v, c = uvc[:, 0], uvc[:, 1], uvc[:, 2]
    source = np.zeros(npix, np.int64)
    sink = np.zeros(npix, np.int64)
    sel = u == npix + 1
    np.add.at(source, v[sel] - 1, c[sel])
    sel = v == npix + 2
    np.add.at(sink, u[sel] - 1, c[sel])
    caps = {}
    inner = (u <= npix) & (v <= npix)
    du = (u - 1) % w
    dv = (v - 1) % w
    dx = dv - du
    dy = (v - 1) // w - (u - 1) // w
    for name, ddx, ddy in DIRS[:conn]:
        sel = inner & (dx == ddx) & (dy == ddy)
        cap = np.zeros(npix, np.int64)
        np.add.at(cap, u[sel] - 1, c[sel])
        caps[name] = cap.reshape(h, w)
    unknown = inner.sum() - sum(int((inner & (dx == a) & (dy == b)).sum()) for _, a, b in DIRS[:conn])
    if unknown:
        raise ValueError("%s: %d arcs are not grid edges" % (path, unknown))
    return w, h, conn, source.reshape(h, w), sink.reshape(h, w), caps


def load_image(data_dir, image, mp):
    rgb = Image.open(os.path.join(data_dir, "images", image + ".jpg")).convert("RGB")
    anno = Image.open(os.path.join(data_dir, "scribbles1", image + "-anno.png"))
    if anno.mode != "P":
        raise ValueError("%s: scribbles are not a palette image" % image)
    aspect = rgb.width / rgb.height
    w = int(round(math.sqrt(mp * 1e6 * aspect)))
    h = int(round(mp * 1e6 / w))
    rgb = np.asarray(rgb.resize((w, h), Image.BICUBIC))
    seeds = np.asarray(anno.resize((w, h), Image.NEAREST))
    return rgb, seeds


def make_one(job):
    data_dir, out_dir, image, mp, conn, verify = job
    t0 = time.perf_counter()
    rgb, seeds = load_image(data_dir, image, mp)
    h, w = seeds.shape
    source, sink, caps, beta, k = build_energy(rgb, seeds, conn)
    name = graph_name(image, mp, conn)
    note = ("gcut bench: %s %dx%d, %d-connected, lambda %g, beta %.6g, K %d, scale %g"
            % (image, w, h, conn, LAMBDA, beta, k, SCALE))
    npz = os.path.join(out_dir, name + ".npz")
    np.savez(npz + ".tmp.npz", width=w, height=h, conn=conn, source=source, sink=sink,
             image=image, megapixels=mp, **{"cap_" + d: caps[d] for d, _, _ in DIRS[:conn]})
    os.replace(npz + ".tmp.npz", npz)
    m = write_dimacs(os.path.join(out_dir, name + ".max"), w, h, conn, source, sink, caps, note)
    msg = "%s: %dx%d, %d arcs, %.1f s" % (name, w, h, m, time.perf_counter() - t0)
    if verify:
        rw, rh, rc, rs, rt, rcaps = read_dimacs(os.path.join(out_dir, name + ".max"))
        same = ((rw, rh, rc) == (w, h, conn) and np.array_equal(rs, source)
                and np.array_equal(rt, sink)
                and all(np.array_equal(rcaps[d], caps[d]) for d, _, _ in DIRS[:conn]))
        if not same:
            raise RuntimeError("%s: the DIMACS file and the .npz differ" % name)
        msg += ", DIMACS read back = npz"
    return msg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--data", default="/work/shared/data/grabcut",
                    help="GrabCut data folder with images/ and scribbles1/")
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.25, 1, 4], help="megapixels")
    ap.add_argument("--images", nargs="+", default=DEFAULT_IMAGES)
    ap.add_argument("--conn", type=int, nargs="+", default=[4, 8], choices=[4, 8])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--verify", action="store_true",
                    help="read every DIMACS file back and compare it with its .npz")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    jobs = [(args.data, args.out_dir, im, mp, c, args.verify)
            for mp in sorted(args.sizes, reverse=True) for im in args.images for c in args.conn]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            for msg in pool.imap_unordered(make_one, jobs):
                print(msg, flush=True)
    else:
        for job in jobs:
            print(make_one(job), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
