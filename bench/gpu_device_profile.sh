#!/usr/bin/env bash
# One device call that profiles the GPU grid kernels (issue 4), sized for a
# 240 s limit:  bash bench/gpu_device_profile.sh OUTDIR
# 1. builds gpu-grid-bench with -lineinfo in a fresh build-prof (sm_90);
# 2. Nsight Compute, full set with source, on one relabel cycle of the
#    8.3 MP 8-connected flower graph: the relabel prep kernel, the
#    persistent relabel kernel and the 8 push launches that follow (the
#    third cycle of the first solve); report (gzipped), details page and
#    source pages;
# 3. times the solver twice (to see the spread) on the 1, 4 and 8.3 MP
#    8-connected graphs (flow = BK and gcut_grid_verify() checked every time).
# (The call of 2026-11-21 also timed a push kernel built for 4 blocks per
# multiprocessor, a knob since removed: bench/results/gpu_grid_profile_*.md.)
# At most 8 files land in OUTDIR (the device tool's limit).
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
} >"$out/env.txt" 2>&1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${ncu:-none} $($ncu --version 2>/dev/null | tail -1)" | tee -a "$out/env.txt"
t0=$(date +%s)
rm -rf build-prof
cmake -S . -B build-prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGCUT_TESTS=OFF -DCMAKE_CUDA_FLAGS=-lineinfo >"$out/build.log" 2>&1 &&
  cmake --build build-prof -j16 --target gpu-grid-bench >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $(($(date +%s) - t0)) s, warnings: $(grep -c 'warning' "$out/build.log")" | tee -a "$out/env.txt"
bench=build-prof/bench/gpu-grid-bench
cuobjdump --dump-resource-usage "$bench" 2>/dev/null | grep -B1 -E 'REG' |
  grep -A1 -E 'tiled_kernel|relabel' >>"$out/env.txt"
status=0

t=$(date +%s)
if [ -n "$ncu" ]; then
  timeout 110 "$ncu" --clock-control none --set full --import-source yes \
    -k 'regex:tiled_kernel|relabel' --launch-skip 20 --launch-count 10 \
    -o "$out/profile" -f "$bench" .devdata/grabcut /dev/null --only flower --min-mp 8 --conn 8 \
    --reps 1 --lockfree-max-mp 0 >"$out/ncu.log" 2>&1 || status=1
  tail -5 "$out/ncu.log"
  rep=$out/profile.ncu-rep
  if [ -f "$rep" ]; then
    "$ncu" -i "$rep" --page details --print-details all >"$out/details.txt" 2>&1
    mkdir -p /tmp/src
    for view in cuda sass; do
      "$ncu" -i "$rep" --page source --csv --print-source "$view" >"/tmp/src/source_$view.csv" 2>&1
    done
    tar -C /tmp/src -czf "$out/source.tar.gz" .
    gzip -f "$rep" # a full report is over the 16 MiB a returned file may have
    ls -l "$out"
  fi
fi
echo "[ncu: $(($(date +%s) - t)) s]"

t=$(date +%s)
for run in 1 2; do
  echo "== timing run $run" >>"$out/timing.log"
  timeout 45 "$bench" .devdata/grabcut /tmp/t.md --only flower --min-mp 0.9 --conn 8 --reps 7 \
    --lockfree-max-mp 0 >>"$out/timing.log" 2>&1 || status=1
  cat /tmp/t.md >>"$out/timing.md"
done
cat "$out/timing.log"
echo "[timing: $(($(date +%s) - t)) s]"
exit $status
