#!/usr/bin/env bash
# What the device machine runs for the GPU grid work, from the repository
# root: build (sm_90, no Criterion there), gcut-check, the same under
# compute-sanitizer (memcheck, racecheck) on a small run, then the benchmark.
#   bash bench/gpu_device_check.sh OUTDIR [COUNT] [SAN_COUNT] [BENCH_ARGS...]
# COUNT instances per check (default: the full counts), SAN_COUNT for the
# sanitizer runs (default 12), BENCH_ARGS passed to gpu-grid-bench ("none"
# skips the benchmark). Logs go to OUTDIR.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
count=${2:-full}
san=${3:-12}
shift $(( $# > 3 ? 3 : $# ))
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=ON \
  >"$out/build.log" 2>&1 && cmake --build build-gpu -j"$(nproc)" >>"$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s, warnings: $(grep -c 'warning' "$out/build.log")"
status=0
if [ "$count" = full ]; then n=(); else n=(-n "$count"); fi
timeout 300 ./build-gpu/tests/gcut-check "${n[@]}" 2>&1 | tee "$out/check.log" | tail -6 || status=1
if [ "$san" != 0 ]; then
  for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      ./build-gpu/tests/gcut-check -n "$san" >"$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_$tool.log" | tail -1))"
  done
fi
if [ "${1:-}" != none ]; then
  dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
  timeout 400 ./build-gpu/bench/gpu-grid-bench .devdata/grabcut "$out/gpu_grid_${dev}.md" "$@" \
    2>&1 | tee "$out/bench.log" || status=1
fi
exit $status
