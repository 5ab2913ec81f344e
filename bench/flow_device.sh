#!/usr/bin/env bash
# The GPU flow on the device machine: build, the flow checks (GPU against
# CPU), the two paths on RubberWhale, the benchmark, and compute-sanitizer's
# memcheck of the GPU flow checks. Each step has its own time limit so that
# one stuck step leaves the others' logs.
#
# Usage: bench/flow_device.sh OUT [BUILD] ; DATA=.../middlebury PAIR="F0 F1"
#        bench/flow_device.sh OUT BUILD ab BASE_SRC
# The second form compares this tree with the one at BASE_SRC (built beside
# it in BASE_SRC/build-flow-base, `gcut` only) on the GPU flow: each
# Middlebury pair and RubberWhale resized to 640x480 by both trees in turn
# (`gcut flow -d gpu --repeat 6 --json`, one JSON line a run in ab.jsonl),
# first once, then the checks on this tree, then AB_ROUNDS more rounds;
# BASE_VARIANTS and AB_VARIANTS (TAG:ENV ...) name runs of either tree with
# its bench knobs (src/gpu/flow_gpu.cu) in each round; then both trees'
# per-phase auction statistics (GCUT_FLOW_AUCTION_STATS, auction_stats.txt),
# this tree's CPU flow on the 640x480 pair, and compute-sanitizer's memcheck
# of the synthetic flows and some windowed instances, and racecheck of the
# synthetic ones.
set -u
out=${1:?usage: flow_device.sh OUT [BUILD]}
build=${2:-build}
data=${DATA:-../../.devshared/data/middlebury}
mkdir -p "$out"
if [ "${3:-}" = ab ]; then
    base=${4:?usage: flow_device.sh OUT BUILD ab BASE_SRC}
    cfg=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90)
    (cmake -S "$base" -B "$base/build-flow-base" "${cfg[@]}" &&
        cmake --build "$base/build-flow-base" -j8 --target gcut) >"$out/build_base.log" 2>&1 &
    (cmake -S . -B "$build" "${cfg[@]}" &&
        cmake --build "$build" -j8 --target gcut gcut-check) >"$out/build.log" 2>&1
    echo "build rc $?" | tee -a "$out/summary.txt"
    wait $!
    echo "base build rc $?" | tee -a "$out/summary.txt"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/summary.txt"
    chk=$build/tests/gcut-check
    # The variants each tree runs besides its default (TAG:ENV, the bench knobs of
    # src/gpu/flow_gpu.cu in that tree).
    variants=${AB_VARIANTS:-}
    base_variants=${BASE_VARIANTS:-}
    check() { # ENV ARGS...
        local e=$1
        shift
        env $e timeout 90 "$chk" "$@" >"$out/check.log" 2>&1
        echo "gcut-check $* ${e:+($e)}: rc $? $(tail -n 1 "$out/check.log")" |
            tee -a "$out/summary.txt"
    }
    work=$(mktemp -d)
    python3 -c "import cv2, sys; cv2.imwrite(sys.argv[3], cv2.resize(cv2.imread(sys.argv[1]), (640, 480), interpolation=cv2.INTER_LINEAR)); cv2.imwrite(sys.argv[4], cv2.resize(cv2.imread(sys.argv[2]), (640, 480), interpolation=cv2.INTER_LINEAR))" \
        "$data/RubberWhale/frame10.png" "$data/RubberWhale/frame11.png" \
        "$work/rw640_0.png" "$work/rw640_1.png" 2>>"$out/summary.txt"
    one() { # GCUT TAG PAIR [ENV] [DEVICE]
        local dir=$data/$3 f0 f1 gt=()
        if [ "$3" = rw640 ]; then f0=$work/rw640_0.png f1=$work/rw640_1.png
        else f0=$dir/frame10.png f1=$dir/frame11.png; fi
        [ -f "$dir/flow10.flo" ] && gt=(-g "$dir/flow10.flo")
        local line
        line=$(env ${4:-} timeout 60 "$1" flow -d "${5:-gpu}" --repeat 6 --json \
               "${gt[@]}" -o "$work/out.flo" "$f0" "$f1" 2>>"$out/summary.txt")
        echo "{\"tree\": \"$2\", \"pair\": \"$3\", \"run\": $line}" | tee -a "$out/ab.jsonl"
    }
    ab_round() {
        for pair in RubberWhale Dimetrodon Venus rw640; do
            one "$base/build-flow-base/gcut" base $pair
            one "$build/gcut" this $pair
            for v in $base_variants; do
                one "$base/build-flow-base/gcut" "${v%%:*}" $pair "${v#*:}"
            done
            for v in $variants; do one "$build/gcut" "${v%%:*}" $pair "${v#*:}"; done
        done
    }
    ab_round
    check "" -q -o flow.gpu
    check "" -o flow.gpu_assignment
    for v in $variants; do check "${v#*:}" -n 100 -o flow.gpu_assignment; done
    for round in ${AB_ROUNDS:-2}; do ab_round; done
    # Each tree's per-phase auction statistics (each run's phases in turn).
    stats=$out/auction_stats.txt
    for pair in RubberWhale Dimetrodon Venus rw640; do
        echo "pair $pair base" >>"$stats"
        one "$base/build-flow-base/gcut" base-stats $pair "GCUT_FLOW_AUCTION_STATS=$stats"
        echo "pair $pair this" >>"$stats"
        one "$build/gcut" this-stats $pair "GCUT_FLOW_AUCTION_STATS=$stats"
    done
    # The CPU path on the 640x480 pair (its time is the issue's "state the CPU time").
    one "$build/gcut" this-cpu rw640 "" cpu
    # memcheck of the synthetic flows and of windowed instances (each level's
    # auction, settle and proof; the whole flow.gpu set takes minutes there).
    for c in "-n 2 -o flow.gpu_synthetic" "-n 20 -o flow.gpu_assignment"; do
        timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 "$chk" -q $c \
            >"$out/memcheck_${c##* }.log" 2>&1
        echo "memcheck $c: rc $? $(grep -h 'SUMMARY' "$out/memcheck_${c##* }.log" | tail -n 1)" |
            tee -a "$out/summary.txt"
    done
    timeout 40 compute-sanitizer --tool racecheck --error-exitcode 3 "$chk" -n 1 \
        -o flow.gpu_synthetic >"$out/racecheck.log" 2>&1
    echo "racecheck flow.gpu_synthetic: rc $? $(grep -h 'SUMMARY' "$out/racecheck.log" |
        tail -n 1)" | tee -a "$out/summary.txt"
    exit 0
fi
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
