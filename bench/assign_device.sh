#!/usr/bin/env bash
# One device session for gpu-csa within about four minutes: build, the
# assignment checks (GPU against the Hungarian reference and the CPU; the
# row-major dense squares take the dense device path), compute-sanitizer
# memcheck and racecheck on small instances, the benchmark against scipy
# (bench/assign_bench.py: dense 1000-5000 and sparse 10^6 arcs with the
# CPU's CSA, then dense 10000 and sparse 10^7 arcs once each), and the knobs
# (bench/gpu_assign_knobs_bench.c: the dense device path against the
# host-built problem, alpha and the first eps). Every step has its own time
# limit, and every result file is written as its rows finish, so that a
# cut-off run still returns figures. At most 8 files go to $OUT (the device
# tool's limit). Run from the repository root.
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
timeout 20 "$CHECK" -o assign.gpu_vs_hungarian 2>&1 | tail -3 | tee -a "$log"
timeout 20 "$CHECK" -o assign.gpu_knobs 2>&1 | tail -3 | tee -a "$log"
timeout 25 "$CHECK" -o assign.gpu_vs_cpu -n "${CPU_N:-20}" 2>&1 | tail -3 | tee -a "$log"

step scipy bench
PYTHONUNBUFFERED=1 timeout "${BENCH_LIMIT:-60}" python3 bench/assign_bench.py "$LIB" \
    "$OUT/assign_$name.md" --algos gpu-csa,csa --dense "${DENSE:-1000,2000,5000}" \
    --sparse "${SPARSE:-100000x10}" --repeat 3 --scipy-repeat 2 --scipy-timeout 20 \
    --cpu-max-arcs 5000000 --device-name "$name" --verbose >"$OUT/bench.log" 2>&1
echo "exit $?" | tee -a "$log"
grep -v '^    \[gcut\]' "$OUT/bench.log" | tee -a "$log"

step sanitizers
timeout 25 compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" \
    -o assign.gpu_vs_hungarian -n 14 >"$OUT/sanitizer.log" 2>&1
echo "memcheck (vs hungarian) exit $?" | tee -a "$OUT/sanitizer.log" "$log"
timeout 25 compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" \
    -o assign.gpu_vs_cpu -n 1 >>"$OUT/sanitizer.log" 2>&1
echo "memcheck (dense vs cpu) exit $?" | tee -a "$OUT/sanitizer.log" "$log"
timeout 30 compute-sanitizer --tool racecheck --error-exitcode 9 "$CHECK" -o assign.gpu_knobs \
    -n 14 >>"$OUT/sanitizer.log" 2>&1
echo "racecheck exit $?" | tee -a "$OUT/sanitizer.log" "$log"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$OUT/sanitizer.log" | tee -a "$log"

step knobs
# A/G/U/H/S: alpha, threads a row, updates every U n bids, H 1 = the
# host-built problem and CPU proof, S = the first eps's extra divisor
timeout "${KNOBS_LIMIT:-40}" "$KNOBS" -o "$OUT/knobs_$name.md" --no-cpu --reps 2 \
    -d 1000 -d 2000 -d 5000 -s 100000x10 \
    --variants "${VARIANTS:-0/0/0,0/0/0/1,4/0/0,30/0/0,0/0/0/0/30,0/0/2}" 2>&1 | tee -a "$log"

step large
PYTHONUNBUFFERED=1 timeout "${LARGE_LIMIT:-70}" python3 bench/assign_bench.py "$LIB" \
    "$OUT/assign_large_$name.md" --algos gpu-csa --dense "${LARGE_DENSE:-10000}" \
    --sparse "${LARGE_SPARSE:-1000000x10}" --repeat 1 --scipy-repeat 1 \
    --scipy-timeout "${LARGE_SCIPY:-25}" --device-name "$name" --verbose \
    >"$OUT/bench_large.log" 2>&1
echo "exit $?" | tee -a "$log"
grep -v '^    \[gcut\]' "$OUT/bench_large.log" | tee -a "$log"
step done
