#!/usr/bin/env bash
# On the GPU machine (python 3.12 with numpy, torch and CuPy; no internet):
# build and install the Python package with CUDA, run its pytest suite (GPU
# cases included) and the GPU cases under compute-sanitizer, build
# samples/embed against the installed C library both ways, and run the
# Python benchmark. Wheels it needs (bench/prepare_wheels.sh's PyMaxflow,
# scikit-build-core, pytest and their needs) come in WHEELS (default .whl at
# the repo root); results and logs go to OUT.
#   bash bench/python_embed_device.sh DATA_DIR OUT_DIR [WHEELS]
set -uo pipefail
cd "$(dirname "$0")/.."
data=$1 out=$2 wheels=${3:-.whl}
mkdir -p "$out"
step() { echo "== $*"; }
step "wheels"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site "$wheels"/*.whl || exit 1
export PYTHONPATH=/tmp/site
nvidia-smi -L; cmake --version | head -1
step "C build (the gcut command the tests compare with) and install"
cmake -S . -B build-dev -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=OFF >/dev/null || exit 1
cmake --build build-dev -j"$(nproc)" >/dev/null || exit 1
cmake --install build-dev --prefix /tmp/gcut-prefix >/dev/null || exit 1
step "samples/embed against the installed package"
cmake -S samples/embed -B /tmp/embed-cmake -DCMAKE_PREFIX_PATH=/tmp/gcut-prefix >/dev/null &&
  cmake --build /tmp/embed-cmake >/dev/null && /tmp/embed-cmake/embed-shared | head -1 &&
  /tmp/embed-cmake/embed-static | head -1 && ! ldd /tmp/embed-cmake/embed-static | grep -E 'gcut|cudart'
if command -v pkg-config >/dev/null; then
  mkdir -p /tmp/embed-pc && PKG_CONFIG_PATH=/tmp/gcut-prefix/lib/pkgconfig \
    make -s -C samples/embed O=/tmp/embed-pc && /tmp/embed-pc/embed-static | head -1
else
  echo "no pkg-config here: the pkg-config build is CI's"
fi
step "pip install . (CUDA, sm_90)"
python3 -m pip install -q --no-build-isolation --no-deps --no-cache-dir --target /tmp/gsite . \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90 -Cbuild-dir=build-pip >"$out/pip.log" 2>&1 ||
  { tail -30 "$out/pip.log"; exit 1; }
export PYTHONPATH=/tmp/gsite:/tmp/site
python3 -c "import gcut; print('gcut', gcut.__version__, 'cuda', gcut.cuda_built(), gcut.devices())"
step "pytest"
GCUT_CLI=$PWD/build-dev/gcut GCUT_DATA=$data python3 -m pytest -q -p no:cacheprovider \
  tests/python 2>&1 | tail -15
step "compute-sanitizer memcheck on the GPU cases"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 python3 -m pytest -q \
  -p no:cacheprovider tests/python/test_gpu.py -k "int64 or resolves or errors or cupy" 2>&1 |
  grep -E "ERROR SUMMARY|passed|failed|error" | tail -5
step "bench"
python3 bench/python_embed_bench.py --data "$data" --repeat 5 \
  --out "$out/python_embed_$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' _).md"
