#!/usr/bin/env bash
# One device call that picks between two defaults of the relabel's parts
# and finishes with the one picked (issue 4), sized for a 400 s limit:
#   [SEED=13] [PARTS_B=0] bash bench/gpu_device_pick.sh OUTDIR
# 1. two fresh sm_90 Release builds of gcut-check and gpu-grid-bench: A with
#    the source's default parts, B with GCUT_GRID_RELABEL_PARTS=$PARTS_B
#    (GCUT_RELABEL_* bits, src/gpu/grid_gpu.cu; 0: the relabel as profiled);
# 2. gpu-grid-bench --tune 3 --reps 5 from A (its sets: A's default and
#    --relabel-worklist 2 + PARTS_B, which must be the value that --tune 3
#    alternates with the default: 2, the relabel as profiled);
# 3. picks B when its mean is lower than A's on the 1 and 8.3 MP
#    8-connected graphs and at most 2% higher on the 4-connected ones;
# 4. on the build picked: gcut-check -o grid.gpu -s SEED, compute-sanitizer
#    memcheck and racecheck on gcut-check -o grid.gpu -n 2 and on the bench's
#    teddy graphs, the results table (all 42 graphs, --reps 5);
# 5. Nsight Compute stall and source counters on one relabel launch of
#    PARTS_B (the third, 8.3 MP 8-connected).
# Carry .devdata. Logs in /tmp/gcut_pick; OUTDIR gets the table, the tune
# log and the profile. Exit status non-zero when a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
seed=${SEED:-13}
parts_b=${PARTS_B:-0}
log=/tmp/gcut_pick
rm -rf "$log"
mkdir -p "$out" "$log"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
t0=$(date +%s)
for v in a b; do
  flags=-lineinfo
  [ $v = b ] && flags="-lineinfo -DGCUT_GRID_RELABEL_PARTS=$parts_b"
  rm -rf build-pick-$v
  cmake -S . -B build-pick-$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGCUT_TESTS=ON "-DCMAKE_CUDA_FLAGS=$flags" >"$log/build_$v.log" 2>&1 &&
    cmake --build build-pick-$v -j16 --target gcut-check gpu-grid-bench >>"$log/build_$v.log" 2>&1 ||
    { tail -30 "$log/build_$v.log"; exit 1; }
  echo "build $v: $(($(date +%s) - t0)) s, warnings: $(grep -c 'warning' "$log/build_$v.log")"
done
status=0

t=$(date +%s)
timeout 120 ./build-pick-a/bench/gpu-grid-bench .devdata/grabcut /dev/null --tune 3 --reps 5 \
  >"$out/tune.log" 2>&1 || status=1
grep -E '^tune' "$out/tune.log" | sed -E 's/^tune //; s/ shared 1 push-wl 0 sweeps  16 pushes  8//'
echo "[tune: $(($(date +%s) - t)) s]"
pick=$(awk -v b=$((parts_b + 2)) '
  /^tune .* relabel-wl / {
    key = $2 " " $4; rw = $6; ms = $0; sub(/.*pushes +[0-9]+: +/, "", ms); ms += 0
    if (rw == 1) { sa[key] += ms; na[key]++ } else if (rw == b) { sb[key] += ms; nb[key]++ }
  }
  END {
    ok = 1; n = 0
    for (k in sa) {
      if (!nb[k]) { ok = 0; continue }
      ma = sa[k] / na[k]; mb = sb[k] / nb[k]; n++
      printf "%s: default %.3f, parts %d %.3f ms\n", k, ma, b - 2, mb > "/dev/stderr"
      if (k ~ / 8$/ && mb >= ma) ok = 0
      if (k ~ / 4$/ && mb > 1.02 * ma) ok = 0
    }
    print (ok && n == 4) ? "b" : "a"
  }' "$out/tune.log")
echo "picked: build $pick"
bin=./build-pick-$pick

t=$(date +%s)
timeout 60 $bin/tests/gcut-check -o grid.gpu -s "$seed" >"$log/check.log" 2>&1 || status=1
tail -3 "$log/check.log"
echo "[check -s $seed: $(($(date +%s) - t)) s]"
for tool in memcheck racecheck; do
  t=$(date +%s)
  timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    $bin/tests/gcut-check -o grid.gpu -n 2 >"$log/san_${tool}_check.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "compute-sanitizer $tool, gcut-check -o grid.gpu -n 2: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log/san_${tool}_check.log" | tail -1)) [$(($(date +%s) - t)) s]"
done

t=$(date +%s)
timeout 150 $bin/bench/gpu-grid-bench .devdata/grabcut "$out/table.md" --reps 5 \
  >"$log/table.log" 2>&1 || status=1
grep -E '^\|' "$out/table.md" | cut -d'|' -f2-8,12-14,16-17 | tail -6 || tail -5 "$log/table.log"
echo "flow ok: $(grep -cE '\| yes \|' "$out/table.md") rows"
echo "[table: $(($(date +%s) - t)) s]"

for tool in memcheck racecheck; do
  t=$(date +%s)
  rm -f /tmp/sanitize.md
  timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 \
    $bin/bench/gpu-grid-bench .devdata/grabcut /tmp/sanitize.md --only teddy --reps 1 \
    --lockfree-max-mp 0 >"$log/san_${tool}_bench.log" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "compute-sanitizer $tool, bench teddy (defaults of build $pick): exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log/san_${tool}_bench.log" | tail -1); flow ok: $(grep -cE '\| yes \|' /tmp/sanitize.md 2>/dev/null) of 2 rows) [$(($(date +%s) - t)) s]"
done

ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  t=$(date +%s)
  rep=$log/relabel_$((parts_b + 2))
  timeout 60 "$ncu" --clock-control none --section WarpStateStats --section SourceCounters \
    --section SpeedOfLight --import-source yes -k 'regex:^relabel_kernel' --launch-skip 2 \
    --launch-count 1 -o "$rep" -f ./build-pick-a/bench/gpu-grid-bench .devdata/grabcut /dev/null \
    --only flower --min-mp 8 --conn 8 --reps 1 --lockfree-max-mp 0 \
    --relabel-worklist $((parts_b + 2)) >"$rep.log" 2>&1 || status=1
  if [ -f "$rep.ncu-rep" ]; then
    "$ncu" -i "$rep.ncu-rep" --page details --print-details all >"$out/relabel_b.details.txt" 2>&1
    "$ncu" -i "$rep.ncu-rep" --page source --csv --print-source sass | gzip >"$out/relabel_b.sass.csv.gz"
    grep -E 'Duration|Warp Cycles Per Issued' "$out/relabel_b.details.txt" | head -3
  else
    tail -3 "$rep.log"
  fi
  echo "[ncu: $(($(date +%s) - t)) s]"
fi
exit $status
