#!/usr/bin/env bash
# The colour models' work between two cuts, on the device machine, in one
# call (from this tree, copied under the lead's checkout as .devwt/NAME):
#   bash bench/segment_refit_device.sh OUTDIR [SECONDS]
# 1. builds this tree (gcut-check, segment-refit-bench, segment-session-bench)
#    and, beside it, the checkout's root tree (the baseline's
#    segment-session-bench), both for sm_90;
# 2. the checks: color.* (the device's prices against the host's, bit for
#    bit) and segment.* (GPU masks against CPU masks, sessions against
#    one-shot segmentations);
# 3. segment-refit-bench --device gpu: a refit's stages per image at 4 MP,
#    the device's pricing (bit-equal to the host's, else exit 1), and a
#    session's updates split into model / graph / cut / rest;
# 4. segment-session-bench --devices gpu --additions 5 --one-shot at 4 MP,
#    this tree, then the baseline's the same way (without --one-shot);
# 5. segment-session-bench --devices cpu+gpu at the images' own size: the
#    CPU's and the GPU's masks byte-equal on every state;
# compute-sanitizer memcheck runs on color.price_gpu_vs_cpu after the checks,
# and on segment.gpu_vs_cpu last.
# BASELINE=0 leaves the baseline out. Each step gets what is left of SECONDS (default 225); SUMMARY.md in OUTDIR
# grows as steps end, so a cut-off call still says what ran. OUTDIR gets 8
# files: SUMMARY.md, build.log, checks.log (checks and memcheck), errors.log
# (the baseline's build, the benches' stderr), refit.md, session.md,
# session_base.md, session_cpu_gpu.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$1
budget=${2:-225}
deadline=$((SECONDS + budget))
data=${DATA:-../../.devshared/data/grabcut}
build=${BUILD:-/tmp/build-gmm}
base=${BASE_BUILD:-/tmp/build-base}
root=$(cd ../.. && pwd)
mkdir -p "$out"
sum=$out/SUMMARY.md
status=0
left() { echo $((deadline - SECONDS > 1 ? deadline - SECONDS : 1)); }
say() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$sum"; }
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
say "device: $device; $(nproc) CPUs"

cfg=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90)
{ cmake -S . -B "$build" "${cfg[@]}" &&
  cmake --build "$build" -j"$(nproc)" --target gcut-check segment-refit-bench \
    segment-session-bench; } >"$out/build.log" 2>&1 &
mine=$!
if [ "${BASELINE:-1}" = 1 ]; then
  { cmake -S "$root" -B "$base" "${cfg[@]}" &&
    cmake --build "$base" -j"$(nproc)" --target segment-session-bench; } >"$out/errors.log" 2>&1 &
  theirs=$!
fi
wait $mine || { say "build FAILED"; tail -30 "$out/build.log"; exit 1; }
say "built, warnings: $(grep -c 'warning' "$out/build.log")"
base_ok=0
if [ "${BASELINE:-1}" = 1 ]; then
  base_ok=1
  wait "$theirs" || { base_ok=0; say "baseline build failed (see errors.log)"; }
fi

check=$build/tests/gcut-check
for c in color segment; do
  timeout "$(left)" "$check" -o "$c" >"$out/check.tmp" 2>&1 || status=1
  cat "$out/check.tmp" >>"$out/checks.log"
  grep -E '^(ok|FAIL|skip) ' "$out/check.tmp" | tee -a "$sum"
  grep -A3 '^FAIL' "$out/check.tmp" | head -20 | tee -a "$sum"
  rm -f "$out/check.tmp"
done
say "checks done"
timeout "$(left)" compute-sanitizer --tool memcheck --error-exitcode 3 "$check" \
  -o color.price_gpu_vs_cpu -n 20 >>"$out/checks.log" 2>&1 || status=1
grep -E 'ERROR SUMMARY' "$out/checks.log" | tail -1 | tee -a "$sum"
say "memcheck of the pricing done"

timeout "$(left)" "$build/bench/segment-refit-bench" "$data" --device gpu --repeats 3 \
  --session 5 >"$out/refit.md" 2>>"$out/errors.log" || { status=1; tail -5 "$out/errors.log" | tee -a "$sum"; }
tail -4 "$out/refit.md" | tee -a "$sum"
grep -E "median of" "$out/refit.md" | tee -a "$sum"
say "refit bench done"

timeout "$(left)" "$build/bench/segment-session-bench" "$data" --devices gpu --additions 5 \
  --one-shot >"$out/session.md" 2>>"$out/errors.log" || { status=1; tail -5 "$out/errors.log" | tee -a "$sum"; }
tail -3 "$out/session.md" | tee -a "$sum"
say "session bench done"

if [ "$base_ok" = 1 ]; then
  timeout "$(left)" "$base/bench/segment-session-bench" "$data" --devices gpu --additions 5 \
    >"$out/session_base.md" 2>>"$out/errors.log"
  tail -3 "$out/session_base.md" | tee -a "$sum"
  say "baseline session bench done"
fi

timeout "$(left)" "$build/bench/segment-session-bench" "$data" --devices cpu+gpu --megapixels 0.15 \
  --additions 3 >"$out/session_cpu_gpu.md" 2>>"$out/errors.log" || status=1
tail -4 "$out/session_cpu_gpu.md" | tee -a "$sum"
say "cpu+gpu session bench done"

san() {
  # shellcheck disable=SC2086
  timeout "$(left)" compute-sanitizer --tool memcheck --error-exitcode 3 "$check" -o $1 \
    >>"$out/checks.log" 2>&1 || status=1
  grep -E 'ERROR SUMMARY|^(ok|FAIL|skip) ' "$out/checks.log" | tail -2 | tee -a "$sum"
}
san "segment.gpu_vs_cpu -n 3"
say "done, status $status"
exit $status
