#!/usr/bin/env bash
# The end-to-end grid and segmentation work on the device machine, from the
# repository root:
#   bash bench/grid_e2e_device.sh OUTDIR STEP...
# Steps: build (gcut, gcut-check, grid-e2e-bench in $BUILD, default
# /tmp/build-e2e), check=NAME (gcut-check $CHECK_ARGS -o NAME), san=NAME
# (compute-sanitizer memcheck of gcut-check -q -o NAME), bench[=ARGS] (bench/grid_e2e.py with $DATA,
# default .devshared/data/grabcut of the repository root or, from a copy
# under .devwt/, ../../.devshared/data/grabcut; ARGS comma-separated). PyMaxflow comes
# from the wheels in $WHEELS (default ../../.whl) when they are there.
# Logs go to OUTDIR; the exit status is non-zero when a step failed.
# The whole measurement in one command of about 80 s (under 150 s), with the
# lead's build in build-dev:
#   BUILD=build-dev bash bench/grid_e2e_device.sh OUTDIR bench=--eager,--budget,130
# leaves OUTDIR/grid_e2e.md (the summary), grid_e2e.json and bench.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
build=${BUILD:-/tmp/build-e2e}
data=${DATA:-.devshared/data/grabcut}
[ -d "$data" ] || data=../../.devshared/data/grabcut
wheels=${WHEELS:-../../.whl}
mkdir -p "$out"
status=0
say() { echo "[$(date +%T)] $*"; }
for step in "$@"; do
  case $step in
  build)
    say build
    { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DGCUT_TESTS=ON && cmake --build "$build" -j"$(nproc)" --target gcut gcut-check \
        grid-e2e-bench; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
    echo "warnings: $(grep -c 'warning' "$out/build.log")" ;;
  check=*)
    say "$step"
    "$build/tests/gcut-check" ${CHECK_ARGS:-} -o "${step#check=}" >"$out/$step.log" 2>&1 || status=1
    tail -12 "$out/$step.log" ;;
  san=*)
    say "$step"
    timeout "${SAN_TIMEOUT:-120}" compute-sanitizer --tool memcheck --error-exitcode 3 \
      "$build/tests/gcut-check" -q \
      ${SAN_ARGS:-} -o "${step#san=}" >"$out/$step.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|passed" "$out/$step.log" | tail -12 ;;
  bench*)
    say "$step"
    if ls "$wheels"/PyMaxflow*.whl >/dev/null 2>&1 && [ ! -d /tmp/site/maxflow ]; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site "$wheels"/PyMaxflow*.whl >"$out/pip.log" 2>&1
    fi
    args=${step#bench}
    args=${args#=}
    PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 \
      timeout "${BENCH_TIMEOUT:-600}" python3 bench/grid_e2e.py \
      --build "$build" --data "$data" --work /tmp/grid-e2e-work --out "$out/grid_e2e.md" \
      ${args//,/ } 2>&1 | tee "$out/bench.log" || status=1 ;;
  *) echo "unknown step $step"; status=2 ;;
  esac
done
exit $status
