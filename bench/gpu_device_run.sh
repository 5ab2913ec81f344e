#!/usr/bin/env bash
# One device call for the GPU grid work, sized to fit a 240 s limit:
#   bash bench/gpu_device_run.sh OUTDIR STEPS...
# STEPS, in order, any of: check[=N] (gcut-check's GPU grid checks, N
# instances each, default full), san[=N] (compute-sanitizer memcheck and
# racecheck on N instances, default 6; SAN_TIMEOUT seconds each, default
# 60), tune (gpu-grid-bench --tune 1), wheels (PyMaxflow from .whl into
# /tmp/site), bench[=ARGS] (the table, ARGS comma-separated gpu-grid-bench
# options, e.g. bench=--pymaxflow,bench/gpu_grid_pymaxflow.py,--segment,build-dev/gcut).
# Builds in build-dev (sm_90, Release) only what the steps need. Logs go to
# OUTDIR; the exit status is non-zero when a step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
t0=$(date +%s)
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGCUT_TESTS=ON \
  >"$out/build.log" 2>&1 &&
  cmake --build build-dev -j16 --target gcut-check gpu-grid-bench gcut >>"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $(($(date +%s) - t0)) s, warnings: $(grep -c 'warning' "$out/build.log")"
status=0
for step in "$@"; do
  name=${step%%=*}
  arg=${step#*=}
  [ "$arg" = "$step" ] && arg=
  t=$(date +%s)
  case $name in
  check)
    n=()
    [ -n "$arg" ] && n=(-n "$arg")
    timeout 80 ./build-dev/tests/gcut-check -o grid.gpu "${n[@]}" >"$out/check.log" 2>&1 || status=1
    tail -4 "$out/check.log"
    ;;
  san)
    for tool in memcheck racecheck; do
      timeout "${SAN_TIMEOUT:-60}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
        ./build-dev/tests/gcut-check -o grid.gpu -n "${arg:-6}" >"$out/sanitizer_$tool.log" 2>&1
      rc=$?
      [ $rc = 0 ] || status=1
      echo "compute-sanitizer $tool: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer_$tool.log" | tail -1))"
    done
    ;;
  wheels)
    # PyMaxflow (and pillow if missing) for python3 there, as grid_bench_device.sh does.
    wheels=(.whl/PyMaxflow-*.whl)
    python3 -c 'import PIL' 2>/dev/null || wheels+=(.whl/pillow-*.whl)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site "${wheels[@]}" >"$out/wheels.log" 2>&1 || status=1
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    python3 -c 'import maxflow, numpy; print("PyMaxflow", maxflow.__version__, "numpy", numpy.__version__)' || status=1
    ;;
  tune)
    timeout 150 ./build-dev/bench/gpu-grid-bench .devdata/grabcut /dev/null --tune 1 --reps 3 \
      >"$out/tune.log" 2>&1 || status=1
    cat "$out/tune.log"
    ;;
  bench)
    dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
    IFS=, read -r -a extra <<<"$arg"
    timeout "${BENCH_TIMEOUT:-200}" ./build-dev/bench/gpu-grid-bench .devdata/grabcut "$out/gpu_grid_${dev}.md" \
      "${extra[@]}" >"$out/bench.log" 2>&1 || status=1
    cat "$out/bench.log"
    ;;
  *) echo "unknown step $step"; status=2 ;;
  esac
  echo "[$name: $(($(date +%s) - t)) s]"
done
exit $status
