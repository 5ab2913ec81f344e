#!/usr/bin/env bash
# The warm GPU grid updates' CUDA code (grid_kernels/grid_update.cu) run on
# the CPU, one thread after another: each launch rewritten into a loop over
# its threads, the CUDA runtime from tests/flow_gpu_emu/ and the device
# helpers from grid_device.cuh beside this script (a block's sum by one
# atomic per thread). harness.cpp checks the states the kernels leave
# (preflows of the graph as used, no deficit after a reparametrised
# change) and the flows after a sequential push-relabel against CPU BK.
#
# Usage: [EMU_FLAGS=...] tests/grid_update_emu/run.sh CPU_BUILD [INSTANCES]
#   CPU_BUILD: a build with -DGCUT_CUDA=OFF (its objects are linked in);
#   EMU_FLAGS: added to every compile and the link (scripts/test.sh passes
#   the sanitizers of its AddressSanitizer build, whose objects it links).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh CPU_BUILD [INSTANCES]}" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '#include <cuda_runtime.h>\nthread_local dim3 blockIdx, threadIdx;\ndim3 blockDim, gridDim;\n' >"$out/globals.cpp"
extra=(${EMU_FLAGS:-})
# This folder first: its grid_device.cuh stands in for the kernels' own.
flags=(-O2 -std=c++17 -w "${extra[@]}" -include "$src/tests/flow_gpu_emu/cuda_runtime.h"
       -I"$here" -I"$src/tests/flow_gpu_emu" -I"$src/grid_kernels" -I"$src/include"
       -I"$build/include")
perl -0pe 's/(\w+)<<<([^,]+?),\s*([^,]+?),\s*0,\s*stream>>>\(/EMU_LAUNCH($1, $2, $3, /g' \
  "$src/grid_kernels/grid_update.cu" >"$out/grid_update.cpp"
# GCC's -fsanitize=null reports the thread-local blockIdx of a launch as a
# null pointer at -O2 (a false positive: -O0 runs clean); ASan still checks
# every access of the kernels.
g++ "${flags[@]}" -fno-sanitize=null -c "$out/grid_update.cpp" -o "$out/grid_update.o"
g++ "${flags[@]}" -c "$here/harness.cpp" -o "$out/harness.o"
g++ -O2 "${extra[@]}" -I"$src/tests/flow_gpu_emu" -c "$out/globals.cpp" -o "$out/globals.o"
objs=$(find "$build/CMakeFiles/gcut_objects.dir" -name '*.o')
g++ -O2 "${extra[@]}" "$out"/*.o $objs -lpng -lz -ljpeg -lm -lpthread -o "$out/harness"
"$out/harness" "${2:-200}"
