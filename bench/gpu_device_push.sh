#!/usr/bin/env bash
# One device call for a push-kernel change, sized for a 150 s limit: a
# fresh sm_90 Release build, the whole gcut-check (CPU and GPU) with seed
# SEED, compute-sanitizer memcheck and racecheck on the GPU grid checks, then
# gpu-grid-bench once per ARGS set (each a comma-separated option list, e.g.
# --min-mp,1,--shared-res,2; a --tune set prints its lines). Carry .devdata.
# Logs go to OUTDIR; the exit status is non-zero when a step failed. BUILD
# names the (fresh) build directory, build-push by default.
#   [BUILD=build-g1] bash bench/gpu_device_push.sh OUTDIR SEED ARGS...
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
seed=$2
shift 2
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
b=${BUILD:-build-push}
rm -rf "$b"
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=ON \
  >"$out/build.log" 2>&1 &&
  cmake --build "$b" -j16 --target gcut-check gpu-grid-bench >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $(($(date +%s) - t0)) s, warnings: $(grep -c 'warning' "$out/build.log")"
status=0
t=$(date +%s)
timeout 50 ./$b/tests/gcut-check -s "$seed" >"$out/check.log" 2>&1 || status=1
cat "$out/check.log"
echo "[check: $(($(date +%s) - t)) s]"
for tool in memcheck racecheck; do
  t=$(date +%s)
  timeout 30 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    ./$b/tests/gcut-check -o grid.gpu -n 2 >"$out/sanitizer_$tool.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "compute-sanitizer $tool: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_$tool.log" | tail -1)) [$(($(date +%s) - t)) s]"
done
k=0
for set in "$@"; do
  k=$((k + 1))
  t=$(date +%s)
  IFS=, read -r -a extra <<<"$set"
  echo "== bench $k: ${extra[*]}"
  timeout "${BENCH_TIMEOUT:-40}" ./$b/bench/gpu-grid-bench .devdata/grabcut "$out/bench_$k.md" \
    "${extra[@]}" >"$out/bench_$k.log" 2>&1 || status=1
  grep -E '^\|' "$out/bench_$k.md" 2>/dev/null | cut -d'|' -f2-8,12-14,16-17 ||
    grep -E '^tune' "$out/bench_$k.log" || tail -5 "$out/bench_$k.log"
  echo "[bench $k: $(($(date +%s) - t)) s]"
done
exit $status
