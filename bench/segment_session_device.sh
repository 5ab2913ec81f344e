#!/usr/bin/env bash
# Warm re-solves on the device machine, from the repository root, one step
# after another as named:
#   bash bench/segment_session_device.sh OUTDIR STEP...
# Steps:
#   build         Release build for sm_90 in $BUILD (default build-dev): gcut-check and
#                 segment-session-bench
#   check[=N]     the warm re-solve checks (GPU grid sequences, the segmentation's
#                 reparametrised cuts, GPU sessions) at full
#                 counts, or N instances each, and the other GPU grid and segmentation
#                 checks at their quick counts
#   san[=N]       compute-sanitizer memcheck on the warm re-solve checks, N instances each
#                 (default 4; the large grids and the sessions: N / 4, at least 1)
#   bench[=ARGS]  segment-session-bench on $DATA (default .devdata/grabcut); ARGS
#                 comma-separated, e.g. bench=--devices,cpu+gpu,--additions,10; the table
#                 goes to OUTDIR/segment_session_<device>.md
# Logs go to OUTDIR. The exit status is non-zero when a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
build=${BUILD:-build-dev}
data=${DATA:-.devdata/grabcut}
mkdir -p "$out"
status=0
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
dev=$(echo "$device" | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
echo "device: $device"
say() { echo "[$(date +%T)] $*"; }
check=$build/tests/gcut-check

for step in "$@"; do
  arg=""
  [[ $step == *=* ]] && arg=${step#*=}
  case ${step%%=*} in
  build)
    { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
      cmake --build "$build" -j"$(nproc)" --target gcut-check segment-session-bench; } \
      >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
    say "built, warnings: $(grep -c 'warning' "$out/build.log")"
    ;;
  check)
    n=()
    [ -n "$arg" ] && n=(-n "$arg")
    for c in grid.gpu_tiled_resolve grid.gpu_seg_reparam segment.session; do
      "$check" -o "$c" "${n[@]}" >>"$out/check.log" 2>&1 || status=1
    done
    for c in grid.gpu_tiled_vs grid.gpu_lockfree grid.gpu_tiled_large segment.gpu; do
      "$check" -q -o "$c" >>"$out/check.log" 2>&1 || status=1
    done
    grep -E '^(ok|FAIL|skip) ' "$out/check.log"
    grep -A3 -E '^FAIL' "$out/check.log" | head -40
    say "checks done"
    ;;
  san)
    m=${arg:-4}
    q=$(( m / 4 > 0 ? m / 4 : 1 ))
    for c in "grid.gpu_tiled_resolve -n $m" "grid.gpu_tiled_resolve_large -n $q" \
      "grid.gpu_seg_reparam -n $m" "segment.session_gpu -n $q"; do
      # shellcheck disable=SC2086
      compute-sanitizer --tool memcheck --error-exitcode 3 "$check" -o $c \
        >>"$out/memcheck.log" 2>&1 || status=1
    done
    grep -E 'ERROR SUMMARY|^(ok|FAIL|skip) ' "$out/memcheck.log"
    say "memcheck done"
    ;;
  bench)
    IFS=, read -r -a a <<<"$arg"
    "$build/bench/segment-session-bench" "$data" "${a[@]}" >"$out/segment_session_$dev.md" \
      2>"$out/bench.log" || status=1
    cat "$out/segment_session_$dev.md"
    tail -5 "$out/bench.log"
    say "bench done"
    ;;
  *)
    echo "unknown step $step"
    exit 2
    ;;
  esac
done
exit $status
