#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test,
# then builds and runs it again under AddressSanitizer + UBSan; last, it
# fuzzes every parser for 10 s each (scripts/fuzz.sh; about a minute in all).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

# Every Python file compiles (the bench scripts otherwise run only on the GPU machine).
find bench python scripts tests samples -name '*.py' -print0 | xargs -0 python3 -c \
  'import sys; [compile(open(f).read(), f, "exec") for f in sys.argv[1:]]'

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

# Sanitizers: a second build directory, CPU paths only.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGCUT_SANITIZE=ON -DGCUT_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")
# The GPU flow's CUDA code run on the CPU, linked with the sanitized objects
# (tests/flow_gpu_emu/run.sh): its assignments against the CPU solver with
# their proofs, and RubberWhale against the CPU flow where the data is.
rw=../shared/data/middlebury/RubberWhale
[ -d "$rw" ] || rw=
EMU_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  ASAN_OPTIONS=detect_leaks=1 bash tests/flow_gpu_emu/run.sh build-asan 100 ${rw:+"$rw"}
# The warm GPU grid updates' kernels the same way (tests/grid_update_emu/run.sh): the
# segmentation's reparametrised terminals and the general grid's pull sweeps, each state a
# preflow, each flow that of a fresh BK solve.
EMU_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  ASAN_OPTIONS=detect_leaks=1 bash tests/grid_update_emu/run.sh build-asan 300

# Embedding: install build/ into a temporary prefix, build samples/embed
# against it with CMake and with pkg-config, each linked to libgcut.so and
# to libgcut.a (which must not need libgcut.so), and run all four. Then the
# Python package: `pip install .` into a venv (CPU only here: CI has no GPU,
# and the CUDA kernels are built above) and its pytest suite, which compares
# gcut.segment with the gcut command built above.
embed=$(mktemp -d)
trap 'rm -rf "$embed"' EXIT
cmake --install build --prefix "$embed/prefix" >/dev/null
cmake -S samples/embed -B "$embed/cmake" -DCMAKE_PREFIX_PATH="$embed/prefix" >/dev/null
cmake --build "$embed/cmake" -j"$jobs" >/dev/null
pcdir=$(dirname "$(find "$embed/prefix" -name gcut.pc)")
mkdir "$embed/pc"
PKG_CONFIG_PATH="$pcdir" make -s -C samples/embed O="$embed/pc" >/dev/null
for exe in "$embed"/{cmake,pc}/embed-{shared,static}; do
  "$exe" >/dev/null || { echo "gcut: $exe failed" >&2; exit 1; }
done
for exe in "$embed"/{cmake,pc}/embed-static; do
  if readelf -d "$exe" | grep -q 'libgcut\.so'; then
    echo "gcut: $exe needs libgcut.so, not a static link" >&2; exit 1
  fi
done
echo "embed: samples/embed built with CMake and pkg-config, shared and static: ok"
python3 -m venv "$embed/venv"
"$embed/venv/bin/pip" install -q --disable-pip-version-check numpy pytest pillow
"$embed/venv/bin/pip" install -q --disable-pip-version-check . -Ccmake.define.GCUT_CUDA=OFF
GCUT_CLI="$PWD/build/gcut" "$embed/venv/bin/python" -m pytest -q -p no:cacheprovider tests/python

# Fuzzing: every parser for a bounded time (longer by hand: scripts/fuzz.sh 600).
bash scripts/fuzz.sh 10
