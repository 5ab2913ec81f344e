#!/usr/bin/env bash
# GPU grid cut benchmark, run on the device machine from the repository root:
#   bash bench/gpu_grid_bench.sh [DATA] [OUT.md] [extra gpu-grid-bench options]
# DATA holds images/ and scribbles1/ of the GrabCut set (default .devdata/grabcut,
# a copy of /work/shared/data/grabcut carried to the device). Builds in
# build-gpu (sm_90), runs gpu-grid-bench, writes OUT.md (default
# bench/results/gpu_grid_<device>.md).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-.devdata/grabcut}
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
out=${2:-bench/results/gpu_grid_${dev}.md}
shift $(( $# > 2 ? 2 : $# )) || true
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build-gpu -j"$(nproc)" --target gpu-grid-bench >/dev/null
./build-gpu/bench/gpu-grid-bench "$data" "$out" "$@"
echo "results: $out"
