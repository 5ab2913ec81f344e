#!/usr/bin/env bash
# The grid benchmark on the device machine (no internet there), run from the
# repository root, with .devdata (bench/prepare_devdata.sh) and .whl
# (bench/prepare_wheels.sh) carried along:
#   installs the wheels to /tmp/site, builds gcut without CUDA in build-dev,
#   makes the grid graphs (0.25, 1 and 4 MP, 4- and 8-connected) and times
#   `gcut grid --device cpu` against PyMaxflow on them. The table goes to
#   $OUT/grid_cpu_<machine>.md (bench/results/ when OUT is unset) and to stdout;
#   then warm BK re-solves against cold ones (grid_bench_resolve.py) to
#   $OUT/grid_cpu_resolve_<machine>.md.
# Environment: REPEAT (runs per graph and side, default 3), SIZES (default
# "0.25 1 4"), IMAGES (default: make_grid_graphs.py's four), MACHINE (the
# name in the file name, default `uname -n`), JOBS (default nproc), BUILD
# (default build-dev), GRAPHS (default bench/work/graphs).
# About 3-5 minutes on 16 cores.
set -euo pipefail
start=$(date +%s)
out=${OUT:-bench/results}
mkdir -p "$out"
jobs=${JOBS:-$(nproc)}
say() { echo "[$(($(date +%s) - start)) s] $*"; }

if ! python3 -c 'import maxflow' 2>/dev/null; then
  ls .whl/PyMaxflow-*.whl >/dev/null 2>&1 || {
    echo "grid_bench_device.sh: no PyMaxflow and no .whl/PyMaxflow-*.whl (bench/prepare_wheels.sh)" >&2
    exit 1
  }
  wheels=(.whl/PyMaxflow-*.whl)
  # Pillow only when the image lacks it: a second copy could shadow the one there.
  python3 -c 'import PIL' 2>/dev/null || wheels+=(.whl/pillow-*.whl)
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "${wheels[@]}"
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c 'import maxflow, numpy, PIL; print("PyMaxflow", maxflow.__version__, "numpy", numpy.__version__, "pillow", PIL.__version__)'

build=${BUILD:-build-dev}
graphs=${GRAPHS:-bench/work/graphs}
say "building gcut (CPU only) in $build"
cmake -S . -B "$build" -DGCUT_CUDA=OFF -DGCUT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null

say "making the graphs"
data=.devdata/grabcut
[ -d "$data/images" ] || { echo "grid_bench_device.sh: $data/images is missing (bench/prepare_devdata.sh)" >&2; exit 1; }
read -r -a sizes <<<"${SIZES:-0.25 1 4}"
image_args=()
if [ -n "${IMAGES:-}" ]; then
  read -r -a images <<<"$IMAGES"
  image_args=(--images "${images[@]}")
fi
python3 bench/make_grid_graphs.py "$graphs" --data "$data" --sizes "${sizes[@]}" \
  "${image_args[@]}" --jobs "$jobs"

say "timing"
machine=${MACHINE:-$(uname -n)}
status=0
PYTHONUNBUFFERED=1 python3 bench/grid_bench.py "$build/gcut" "$out/grid_cpu_$machine.md" \
  --graphs "$graphs" --sizes "${sizes[@]}" "${image_args[@]}" --repeat "${REPEAT:-3}" || status=$?
say "done (status $status): $out/grid_cpu_$machine.md"

# Warm re-solves against cold ones (grid_bench_resolve.py), on RESOLVE_SIZES
# (default 1 MP) with RESOLVE_REPEAT runs (default 1).
read -r -a rsizes <<<"${RESOLVE_SIZES:-1}"
say "warm re-solves"
PYTHONUNBUFFERED=1 python3 bench/grid_bench_resolve.py "$build/libgcut.so" \
  "$out/grid_cpu_resolve_$machine.md" --graphs "$graphs" --sizes "${rsizes[@]}" \
  "${image_args[@]}" --repeat "${RESOLVE_REPEAT:-1}" || status=$?
say "done (status $status): $out/grid_cpu_resolve_$machine.md"
exit "$status"
