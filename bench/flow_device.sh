#!/usr/bin/env bash
# The GPU flow on the device machine: build, the flow checks (GPU against
# CPU), the two paths on RubberWhale, the benchmark, and compute-sanitizer's
# memcheck of the GPU flow checks. Each step has its own time limit so that
# one stuck step leaves the others' logs.
#
# Usage: bench/flow_device.sh OUT [BUILD] ; DATA=.../middlebury PAIR="F0 F1"
set -u
out=${1:?usage: flow_device.sh OUT [BUILD]}
build=${2:-build}
data=${DATA:-../../.devshared/data/middlebury}
mkdir -p "$out"
step() { # NAME LIMIT CMD...
    local name=$1 limit=$2
    shift 2
    echo "== $name" | tee -a "$out/steps.log"
    local t0=$(date +%s.%N)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "   rc $rc, $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" | tee -a "$out/steps.log"
    tail -n 12 "$out/$name.log"
}
step configure 60 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90
step build 200 cmake --build "$build" -j16 --target gcut gcut-check
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$out/gpu.txt" 2>&1
python3 -c "import cv2; print('cv2', cv2.__version__)" >"$out/cv2.txt" 2>&1
rw=$data/RubberWhale
step flow_gpu 60 "$build/gcut" flow -d gpu -a gpu-auction --json -n 6 -g "$rw/flow10.flo" -o "$out/rw_gpu.flo" \
    "$rw/frame10.png" "$rw/frame11.png"
step flow_cpu 60 "$build/gcut" flow -d cpu --json -g "$rw/flow10.flo" -o "$out/rw_cpu.flo" \
    "$rw/frame10.png" "$rw/frame11.png"
step check_gpu 120 "$build/tests/gcut-check" -o flow.gpu
step check_flow 60 "$build/tests/gcut-check" -o flow.
step bench 120 python3 bench/flow_bench.py "$build/gcut" --data "$data" --device cpu,gpu \
    --repeat 10 ${PAIR:+--pair640 $PAIR} --machine "$(nvidia-smi --query-gpu=name \
    --format=csv,noheader | head -1)" --out "$out/flow_bench.md"
step memcheck 150 compute-sanitizer --tool memcheck --error-exitcode 3 \
    "$build/tests/gcut-check" -q -o flow.gpu
