#!/usr/bin/env bash
# The colour models' refits beside the graph, on the device machine, in one
# call (this tree copied under the lead's checkout as .devwt/NAME, main's
# tree beside it as .devwt/base):
#   bash bench/segment_refit_device.sh OUTDIR [SECONDS]
# 1. builds this tree (gcut-check, segment-session-bench, segment-refit-bench)
#    and, beside it, the baseline tree (BASE, default ../base: the same two
#    benches), both for sm_90;
# 2. the checks: segment.gpu (GPU masks against CPU masks), segment.session_gpu
#    (GPU sessions against one-shot segmentations on both devices) and color
#    (prices and refits on the device against the host's, bit for bit);
# 3. segment-session-bench --devices gpu --additions 3 at 4 MP, this tree then
#    the baseline (every session mask equal to a one-shot's, else exit 1);
# 4. compute-sanitizer memcheck on segment.session_gpu;
# 5. segment-refit-bench --device gpu --session 3 (the one-shot
#    gcut_segment_image() of each first state, in process, and the updates'
#    split), this tree then the baseline.
# Each step gets what is left of SECONDS (default 225); SUMMARY.md in OUTDIR
# grows as steps end, so a cut-off call still says what ran. OUTDIR also gets
# build.log, build_base.log, checks.log, errors.log, session.md,
# session_base.md, refit.md, refit_base.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$1
budget=${2:-225}
deadline=$((SECONDS + budget))
data=${DATA:-../../.devshared/data/grabcut}
base_src=${BASE:-../base}
build=${BUILD:-/tmp/build-refit}
base=${BASE_BUILD:-/tmp/build-refit-base}
mkdir -p "$out"
sum=$out/SUMMARY.md
status=0
left() { echo $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)); }
say() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$sum"; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
say "device: $device; $(nproc) CPUs; tree $(basename "$PWD"), baseline $base_src"

cfg=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90)
jobs=$(nproc)
{ cmake -S . -B "$build" "${cfg[@]}" &&
  cmake --build "$build" -j"$jobs" --target gcut-check segment-session-bench \
    segment-refit-bench; } >"$out/build.log" 2>&1 &
mine=$!
{ cmake -S "$base_src" -B "$base" "${cfg[@]}" &&
  cmake --build "$base" -j"$jobs" --target segment-session-bench segment-refit-bench; } \
  >"$out/build_base.log" 2>&1 &
theirs=$!
wait $mine || { say "build FAILED"; tail -30 "$out/build.log" | tee -a "$sum"; exit 1; }
say "built, warnings: $(grep -c 'warning' "$out/build.log")"
base_ok=1
wait "$theirs" || { base_ok=0; say "baseline build failed (see build_base.log)"; }

check=$build/tests/gcut-check
for c in segment.gpu segment.session_gpu color; do
  timeout "$(left)" "$check" -o "$c" >"$out/check.tmp" 2>&1 || status=1
  cat "$out/check.tmp" >>"$out/checks.log"
  grep -E '^(ok|FAIL|skip) ' "$out/check.tmp" | tee -a "$sum"
  grep -A3 '^FAIL' "$out/check.tmp" | head -20 | tee -a "$sum"
  rm -f "$out/check.tmp"
done
say "checks done"

bench() { # NAME BUILD_DIR BENCH ARGS...: a bench into OUT/NAME.md, its tail into the summary
  local name=$1 dir=$2 exe=$3
  shift 3
  local rc=0
  timeout "$(left)" "$dir/bench/$exe" "$@" >"$out/$name.md" 2>>"$out/errors.log" || rc=$?
  if [ "$rc" != 0 ]; then
    status=1
    say "$name: exit $rc"
    tail -5 "$out/errors.log" | tee -a "$sum"
  fi
}
bench session "$build" segment-session-bench "$data" --devices gpu --additions 3
tail -12 "$out/session.md" | tee -a "$sum"
say "session bench done"
if [ "$base_ok" = 1 ]; then
  bench session_base "$base" segment-session-bench "$data" --devices gpu --additions 3
  tail -8 "$out/session_base.md" | tee -a "$sum"
  say "baseline session bench done"
fi

timeout "$(left)" compute-sanitizer --tool memcheck --error-exitcode 3 "$check" \
  -o segment.session_gpu -n 12 >"$out/check.tmp" 2>&1 || status=1
cat "$out/check.tmp" >>"$out/checks.log"
grep -E 'ERROR SUMMARY|^(ok|FAIL|skip) ' "$out/check.tmp" | tail -2 | tee -a "$sum"
rm -f "$out/check.tmp"
say "memcheck done"

bench refit "$build" segment-refit-bench "$data" --device gpu --repeats 1 --session 3
grep -E "^One-shot|^Session" "$out/refit.md" | tee -a "$sum"
if [ "$base_ok" = 1 ]; then
  bench refit_base "$base" segment-refit-bench "$data" --device gpu --repeats 1 --session 3
  grep -E "^One-shot|^Session" "$out/refit_base.md" | tee -a "$sum"
fi
say "done, status $status"
exit $status
