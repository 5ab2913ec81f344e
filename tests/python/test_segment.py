"""gcut.segment: the same mask as `gcut segment` on the same inputs (the
bundled teddy sample always; the shared GrabCut images when present), seeds
of every kind, and errors."""
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

import gcut
from conftest import ROOT, gcut_cli, grabcut_dir

TEDDY = ROOT / "samples" / "teddy.jpg"
TEDDY_SEEDS = ROOT / "samples" / "teddy-scribbles.png"


def cli_mask(args):
    """The mask `gcut segment` writes for `args`, as 0/1."""
    cli = gcut_cli()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "mask.png"
        subprocess.run([cli, "segment", "--quiet", "--device", "cpu", *args, "-o", str(out),
                        "--mask-values", "1,0"], check=True, capture_output=True)
        return gcut.read_image(str(out))


needs_cli = pytest.mark.skipif(gcut_cli() is None, reason="no gcut command (set GCUT_CLI)")


@needs_cli
@pytest.mark.parametrize("opts", [
    {},
    {"model": "hist", "iterations": 1, "lam": 50},
    {"connectivity": 4, "iterations": 2},
])
def test_teddy_matches_the_command(opts):
    image = gcut.read_image(str(TEDDY))
    seeds = gcut.read_image(str(TEDDY_SEEDS), indices=True)
    mask = gcut.segment(image, seeds=seeds, device="cpu", **opts)
    args = ["--seeds", str(TEDDY_SEEDS), str(TEDDY)]
    for k, flag in (("model", "--model"), ("iterations", "--iterations"), ("lam", "--lambda"),
                    ("connectivity", "--connectivity")):
        if k in opts:
            args += [flag, str(opts[k])]
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
    assert np.array_equal(mask, cli_mask(args))


@needs_cli
def test_box_and_trimap_match_the_command():
    image = gcut.read_image(str(TEDDY))
    h, w = image.shape[:2]
    box = (20, 15, w - 30, h - 25)
    mask = gcut.segment(image, box=box, iterations=3, device="cpu")
    assert np.array_equal(mask, cli_mask(["--box", ",".join(map(str, box)), "--iterations", "3",
                                          str(TEDDY)]))
    trimap = np.full((h, w), 128, np.uint8)
    trimap[:10, :] = 0
    trimap[h // 2 - 5:h // 2 + 5, w // 2 - 5:w // 2 + 5] = 255
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "trimap.png")
        _save_grey_png(path, trimap)
        want = cli_mask(["--trimap", path, "--iterations", "2", str(TEDDY)])
    assert np.array_equal(gcut.segment(image, trimap=trimap, iterations=2, device="cpu"), want)


def _save_grey_png(path, arr):
    """Through the command itself: gcut grid writes PNG labels; simpler to use
    Pillow when present, else skip."""
    PIL = pytest.importorskip("PIL.Image")
    PIL.fromarray(arr, mode="L").save(path)


@needs_cli
def test_shared_grabcut_images_match_the_command():
    data = grabcut_dir()
    if data is None:
        pytest.skip("shared GrabCut data not found (set GCUT_DATA)")
    names = sorted(p.stem.replace("-anno", "") for p in (data / "scribbles1").glob("*-anno.png"))
    for name in names[:3]:
        image_path = data / "images" / (name + ".jpg")
        seeds_path = data / "scribbles1" / (name + "-anno.png")
        image = gcut.read_image(str(image_path))
        seeds = _palette(seeds_path)
        mask = gcut.segment(image, seeds=seeds, device="cpu")
        assert np.array_equal(mask, cli_mask(["--seeds", str(seeds_path), str(image_path)])), name


def _palette(path):
    """The scribble indices as the issue's users load them (Pillow), or by
    gcut when Pillow is absent; both must agree."""
    ours = gcut.read_image(str(path), indices=True)
    try:
        from PIL import Image
    except ImportError:
        return ours
    theirs = np.array(Image.open(path))
    assert np.array_equal(theirs, ours)
    return theirs


def test_grey_image_and_seed_conflicts():
    image = gcut.read_image(str(TEDDY))
    grey = image.mean(axis=2).astype(np.uint8)
    h, w = grey.shape
    seeds = np.zeros((h, w), np.uint8)
    seeds[:5, :] = 2
    seeds[h // 2, w // 2] = 1
    mask, info = gcut.segment(grey, seeds=seeds, iterations=1, return_info=True, verify=True)
    assert mask[h // 2, w // 2] == 1 and not mask[:5].any()
    assert info["foreground"] == int(mask.sum()) and info["iterations"] == 1
    trimap = np.full((h, w), 7, np.uint8)
    trimap[0, 3] = 255  # seeds say background there
    with pytest.raises(gcut.InvalidArgumentError,
                       match=r"trimap array marks pixel \(3, 0\) foreground, but it is already marked background"):
        gcut.segment(grey, seeds=seeds, trimap=trimap)


def test_segment_errors():
    image = np.zeros((6, 7, 3), np.uint8)
    with pytest.raises(gcut.InvalidArgumentError, match="no seeds"):
        gcut.segment(image)
    with pytest.raises(gcut.InvalidArgumentError, match="not inside"):
        gcut.segment(image, box=(0, 0, 7, 3))
    with pytest.raises(gcut.InvalidArgumentError, match="expected shape"):
        gcut.segment(image, seeds=np.zeros((7, 6), np.uint8))
    with pytest.raises(gcut.InvalidArgumentError, match="model"):
        gcut.segment(image, box=(1, 1, 3, 3), model="svm")
    with pytest.raises(gcut.InvalidArgumentError, match="expected shape"):
        gcut.segment(np.zeros((6, 7, 5), np.uint8), box=(1, 1, 3, 3))


def test_read_image_errors(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(gcut.FormatError, match="bad.png"):
        gcut.read_image(str(bad))
    with pytest.raises(gcut.FileError):
        gcut.read_image(str(tmp_path / "missing.png"))
    with pytest.raises(gcut.FormatError, match="not a palette"):
        gcut.read_image(str(TEDDY), indices=True)
