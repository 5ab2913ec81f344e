#!/usr/bin/env bash
# What the device machine runs for the GPU general-graph work, from the
# repository root: build (sm_90, no Criterion there), the GPU graph checks
# of gcut-check, the same under compute-sanitizer (memcheck, racecheck) on
# a few small instances, then the benchmark.
#   bash bench/gpu_maxflow_device.sh OUTDIR [COUNT|full|0] [SAN_COUNT|0] [BENCH_ARGS...|none]
# COUNT instances per check (0 skips the checks), SAN_COUNT for the
# sanitizer runs (0 skips them), BENCH_ARGS for gpu-maxflow-bench ("none"
# skips it). Logs go to OUTDIR, the build log to the build directory (the
# device returns few files). CHECK_TIMEOUT, SAN_TIMEOUT (each tool) and
# BENCH_TIMEOUT bound the steps (seconds); BUILD_DIR (default build-dev) is
# where it builds: a fresh one when the sources may be older than the objects.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
count=${2:-full}
san=${3:-8}
bdir=${BUILD_DIR:-build-dev}
shift $(( $# > 3 ? 3 : $# ))
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s); mkdir -p "$bdir"
cmake -S . -B $bdir -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=ON \
  >"$bdir/build.log" 2>&1 &&
  cmake --build $bdir -j"$(nproc)" --target gcut gcut-check \
    $( [ -f bench/gpu_maxflow_bench.c ] && echo gpu-maxflow-bench ) \
    >>"$bdir/build.log" 2>&1 || { tail -30 "$bdir/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s, warnings: $(grep -c 'warning' "$bdir/build.log")"
status=0
if [ "$count" != 0 ]; then
  if [ "$count" = full ]; then n=(); else n=(-n "$count"); fi
  timeout "${CHECK_TIMEOUT:-280}" ./$bdir/tests/gcut-check -o graph. "${n[@]}" 2>&1 | tee "$out/check.log" | tail -8 \
    || status=1
  grep -q FAIL "$out/check.log" && status=1
fi
if [ "$san" != 0 ]; then
  # racecheck (shared-memory hazards; these kernels use no shared memory
  # of their own) is slow: fewer instances, one check (RACE_ONLY).
  for tool in memcheck racecheck; do
    n_san=$san only=graph.gpu
    [ $tool = racecheck ] && n_san=$(( san > 3 ? 3 : san )) only=${RACE_ONLY:-graph.gpu_worklist}
    timeout "${SAN_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
      ./$bdir/tests/gcut-check -o "$only" -n "$n_san" >"$out/sanitizer_$tool.log" 2>&1
    rc=$?
    echo "compute-sanitizer $tool: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_$tool.log" | tail -1))"
    [ $rc = 0 ] || status=1
  done
fi
# SAN_BENCH="ARGS": also the benchmark program under memcheck and racecheck
# (SAN_BENCH_TOOLS), on small graphs and knobs that reach the split push's
# block path, whose shared memory racecheck inspects.
if [ -n "${SAN_BENCH:-}" ]; then
  for tool in ${SAN_BENCH_TOOLS:-memcheck racecheck}; do
    timeout "${SAN_TIMEOUT:-150}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
      ./$bdir/bench/gpu-maxflow-bench -o "$bdir/san_bench_$tool.md" $SAN_BENCH >"$out/san_bench_$tool.log" 2>&1
    rc=$?
    echo "compute-sanitizer $tool (bench $SAN_BENCH): exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_bench_$tool.log" | tail -1))"
    [ $rc = 0 ] || status=1
  done
fi
# SMOKE=1: a quick look at two mid-size graphs through the command line.
if [ "${SMOKE:-0}" = 1 ]; then
  mkdir -p $bdir/smoke
  for spec in "genrmf a=64 b=64" "rlg rows=1024 cols=1024"; do
    f=$bdir/smoke/$(echo "$spec" | tr ' =' '__').max
    ./$bdir/gcut gen $spec -o "$f" >/dev/null
    for algo in prf worklist async color; do
      dev=gpu; [ $algo = prf ] && dev=cpu
      echo "$spec $algo: $(timeout 60 ./$bdir/gcut maxflow -d $dev -a $algo --json "$f" 2>&1 | tr -d '\n' | cut -c1-300)"
    done
  done 2>&1 | tee "$out/smoke.log"
fi
if [ "${1:-none}" != none ]; then
  dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
  timeout "${BENCH_TIMEOUT:-200}" ./$bdir/bench/gpu-maxflow-bench -o "$out/gpu_maxflow_${dev}.md" "$@" 2>&1 | tee "$out/bench.log" \
    || status=1
fi
exit $status
