#!/usr/bin/env bash
# One device call for a grid-kernel session (issue 4), sized for a 400 s
# limit, steps in order of need so that a cut leaves the important ones:
#   [BUILD=build-dev] [SEED=11] [TUNE=3] [PROFILE="2 1"] [SANITIZE="2"] [TABLE=1] \
#     bash bench/gpu_device_session.sh OUTDIR
# 1. a fresh sm_90 Release build (-lineinfo, which leaves the code as it is)
#    of gcut-check and gpu-grid-bench;
# 2. gpu-grid-bench --tune $TUNE (median of 5; flow = BK and verified on
#    every line), unless TUNE is empty;
# 3. Nsight Compute, stall and source counters, on one persistent relabel
#    launch (the third) of the 8.3 MP 8-connected flower graph, once per
#    --relabel-worklist value in PROFILE (1: the default kernel; 2: as
#    profiled in 2026-11);
# 4. the GPU grid checks, gcut-check -o grid.gpu -s $SEED;
# 5. compute-sanitizer memcheck and racecheck on gcut-check -o grid.gpu -n 2
#    (the defaults);
# 6. with TABLE=1, the results table: all 42 bench graphs on the defaults;
# 7. memcheck and racecheck on the bench's teddy graphs with each
#    --relabel-worklist value of SANITIZE (what the checks do not run).
# Logs go to /tmp/gcut_session; OUTDIR gets at most 8 files (the device
# tool's limit): the table, the tune log, the profiles' details and SASS
# pages. Carry .devdata. Exit status non-zero when a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
mkdir -p "$out"
log=/tmp/gcut_session
rm -rf "$log"
mkdir -p "$log"
b=${BUILD:-build-dev}
seed=${SEED:-11}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
} >"$log/env.txt" 2>&1
cat "$log/env.txt"
t0=$(date +%s)
rm -rf "$b"
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=ON \
  -DCMAKE_CUDA_FLAGS=-lineinfo >"$log/build.log" 2>&1 &&
  cmake --build "$b" -j16 --target gcut-check gpu-grid-bench >>"$log/build.log" 2>&1 ||
  { tail -30 "$log/build.log"; exit 1; }
echo "build: $(($(date +%s) - t0)) s, warnings: $(grep -c 'warning' "$log/build.log")"
bench=./$b/bench/gpu-grid-bench
status=0

if [ -n "${TUNE-3}" ]; then
  t=$(date +%s)
  timeout 140 "$bench" .devdata/grabcut /dev/null --tune "${TUNE:-3}" --reps 5 \
    >"$out/tune.log" 2>&1 || status=1
  grep -E '^tune' "$out/tune.log" | sed -E 's/^tune //; s/ push-wl 0 sweeps  16 pushes  8//' ||
    tail -5 "$out/tune.log"
  echo "[tune: $(($(date +%s) - t)) s]"
fi

ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in ${PROFILE-2 1}; do
  [ -n "$ncu" ] || { echo "no ncu"; break; }
  t=$(date +%s)
  rep=$log/relabel_$v
  timeout 80 "$ncu" --clock-control none --section WarpStateStats --section SourceCounters \
    --section SpeedOfLight --section LaunchStats --section Occupancy --import-source yes \
    -k 'regex:^relabel_kernel' --launch-skip 2 --launch-count 1 -o "$rep" -f \
    "$bench" .devdata/grabcut /dev/null --only flower --min-mp 8 --conn 8 --reps 1 \
    --lockfree-max-mp 0 --relabel-worklist "$v" >"$rep.log" 2>&1 || status=1
  if [ -f "$rep.ncu-rep" ]; then
    "$ncu" -i "$rep.ncu-rep" --page details --print-details all >"$rep.details.txt" 2>&1
    "$ncu" -i "$rep.ncu-rep" --page source --csv --print-source sass >"$rep.sass.csv" 2>&1
    gzip -f "$rep.sass.csv"
    cp "$rep.details.txt" "$rep.sass.csv.gz" "$out/"
    rm -f "$rep.ncu-rep"
    grep -E 'Duration|Warp Cycles Per Issued|Issue Slots Busy|Registers Per|Achieved Occ' \
      "$rep.details.txt" | head -8
  else
    tail -5 "$rep.log"
  fi
  echo "[ncu relabel-worklist $v: $(($(date +%s) - t)) s]"
done

t=$(date +%s)
timeout 60 ./$b/tests/gcut-check -o grid.gpu -s "$seed" >"$log/check.log" 2>&1 || status=1
tail -3 "$log/check.log"
echo "[check -s $seed: $(($(date +%s) - t)) s]"

for tool in memcheck racecheck; do
  t=$(date +%s)
  timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    ./$b/tests/gcut-check -o grid.gpu -n 2 >"$log/sanitizer_${tool}_check.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "compute-sanitizer $tool, gcut-check -o grid.gpu -n 2: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log/sanitizer_${tool}_check.log" | tail -1)) [$(($(date +%s) - t)) s]"
done

if [ "${TABLE:-0}" = 1 ]; then
  t=$(date +%s)
  timeout 150 "$bench" .devdata/grabcut "$out/table.md" --reps 5 >"$log/table.log" 2>&1 ||
    status=1
  grep -E '^\|' "$out/table.md" | cut -d'|' -f2-8,12-14,16-17 | tail -8 || tail -5 "$log/table.log"
  echo "flow ok: $(grep -cE '\| yes \|' "$out/table.md") rows of $(grep -cE '^\| [^-g]' "$out/table.md")"
  echo "[table: $(($(date +%s) - t)) s]"
fi

for rl in ${SANITIZE-2}; do
  for tool in memcheck racecheck; do
    t=$(date +%s)
    slog=$log/sanitizer_${tool}_bench_${rl}.log
    rm -f /tmp/sanitize.md
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      "$bench" .devdata/grabcut /tmp/sanitize.md --only teddy --reps 1 --lockfree-max-mp 0 \
      --relabel-worklist "$rl" >"$slog" 2>&1
    rc=$?
    [ $rc = 0 ] || status=1
    echo "compute-sanitizer $tool, bench teddy --relabel-worklist $rl: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$slog" | tail -1); flow ok: $(grep -cE '\| yes \|' /tmp/sanitize.md 2>/dev/null) of 2 rows) [$(($(date +%s) - t)) s]"
  done
done
exit $status
