#!/usr/bin/env bash
# One device session for gpu-csa within about four minutes: build, the
# assignment checks (GPU against the Hungarian reference and the CPU),
# compute-sanitizer memcheck and racecheck on small instances (the block
# kernels and the price update's pauses included: assign.gpu_knobs), the
# benchmark against scipy (bench/assign_bench.py, defaults) and the knobs
# (bench/gpu_assign_knobs_bench.c). Every step has its own time limit, and
# every result file is written as its rows finish, so that a cut-off run
# still returns figures. At most 8 files go to $OUT (the device tool's
# limit). Run from the repository root.
set -u
OUT=${OUT:-/tmp/assign-out}
mkdir -p "$OUT"
log="$OUT/steps.log"
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')

step build
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build build -j"$(nproc)" --target gcut-check gcut_shared gpu-assign-knobs-bench; } \
    >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
CHECK=build/tests/gcut-check LIB=build/libgcut.so KNOBS=build/bench/gpu-assign-knobs-bench

step checks
timeout 20 "$CHECK" -o assign.gpu_vs_hungarian 2>&1 | tee -a "$log"
timeout 20 "$CHECK" -o assign.gpu_knobs 2>&1 | tee -a "$log"
timeout 25 "$CHECK" -o assign.gpu_vs_cpu -n 20 2>&1 | tee -a "$log"

step sanitizers
timeout 20 compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" -o assign.gpu -n 6 \
    >"$OUT/sanitizer.log" 2>&1
echo "memcheck exit $?" | tee -a "$OUT/sanitizer.log" "$log"
timeout 25 compute-sanitizer --tool racecheck --error-exitcode 9 "$CHECK" -o assign.gpu_knobs \
    -n 6 >>"$OUT/sanitizer.log" 2>&1
echo "racecheck exit $?" | tee -a "$OUT/sanitizer.log" "$log"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$OUT/sanitizer.log" | tee -a "$log"

step scipy bench
PYTHONUNBUFFERED=1 timeout "${BENCH_LIMIT:-45}" python3 bench/assign_bench.py "$LIB" \
    "$OUT/assign_$name.md" --algos gpu-csa --dense "${DENSE:-2000,5000}" \
    --sparse "${SPARSE:-100000x10}" --repeat 3 --scipy-repeat 1 --scipy-timeout 12 \
    --device-name "$name" --verbose >"$OUT/bench.log" 2>&1
echo "exit $?" | tee -a "$log"
grep -v '^    \[gcut\]' "$OUT/bench.log" | tee -a "$log"

step knobs
timeout "${KNOBS_LIMIT:-40}" "$KNOBS" -o "$OUT/knobs_$name.md" --no-cpu --reps 1 \
    -d 2000 -s 100000x10 -d 5000 \
    --variants "${VARIANTS:-10/32/-1,10/0/-1,10/0/1,10/0/4,4/0/-1,30/0/-1}" 2>&1 | tee -a "$log"

if [ -n "${LARGE:-}" ]; then
    step large
    PYTHONUNBUFFERED=1 timeout "${LARGE_LIMIT:-40}" python3 bench/assign_bench.py "$LIB" \
        "$OUT/assign_large_$name.md" --algos gpu-csa --dense 10000 --sparse 1000000x10 \
        --repeat 1 --scipy-repeat 1 --scipy-timeout 10 --device-name "$name" 2>&1 |
        tee -a "$log"
fi
step done
