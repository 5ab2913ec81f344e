#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test,
# then builds and runs it again under AddressSanitizer + UBSan, then fuzzes
# every parser for 10 s each (scripts/fuzz.sh; about a minute in all).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

# Sanitizers: a second build directory, CPU paths only.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGCUT_SANITIZE=ON -DGCUT_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs")

# Fuzzing: every parser for a bounded time (longer by hand: scripts/fuzz.sh 600).
bash scripts/fuzz.sh 10
