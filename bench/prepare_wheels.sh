#!/usr/bin/env bash
# Fetch the Python wheels the grid benchmark needs on the device machine
# (python 3.12, x86-64, no internet there) into .whl/ at the repo root.
# Run here, where pip works. The device image already has numpy 2.x and,
# most likely, pillow; pillow is fetched anyway and installed there only
# when `import PIL` fails (bench/grid_bench_device.sh).
#   PyMaxflow  the baseline (BK v3); needs numpy, which is there
#   pillow     resizing the GrabCut images (make_grid_graphs.py)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
# pip matches manylinux_2_N exactly, so name the usual N.
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 \
         manylinux2014_x86_64 manylinux1_x86_64 manylinux_2_24_x86_64 manylinux_2_31_x86_64 \
         manylinux_2_34_x86_64 manylinux_2_35_x86_64; do
  platforms+=(--platform "$p")
done
for pkg in PyMaxflow==1.3.2 pillow==11.3.0; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${platforms[@]}" -d .whl "$pkg"
done
ls -l .whl
