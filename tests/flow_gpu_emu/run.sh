#!/usr/bin/env bash
# The GPU flow's CUDA code run on the CPU, one thread after another: the
# kernels of grid_kernels/flow_*.cu and the host side src/gpu/flow_gpu.cu,
# with each launch rewritten into a loop over the threads and the CUDA
# runtime, CUB's scan and the context's GPU state replaced by the stand-ins
# beside this script; a warp's lanes become one (FLOW_LANES=1: each lane's
# share of a scan is then the whole of it, the merges of the lanes' shares
# are the same code). A sequential run is one of the interleavings the
# asynchronous auctions allow; with EMU_THREADS=T the GPU threads of each
# launch are spread over T CPU threads with real atomics, so their races
# happen too (under x86's memory order, stronger than the GPU's). Where
# there is no GPU it checks the algorithm and the kernels' logic:
# harness.c compares each level's assignment with the CPU solver and passes
# its prices to gcut_assign_verify, then runs RubberWhale both ways.
#
# Usage: [EMU_THREADS=T] [EMU_TRACE=1] [EMU_FLAGS=...] tests/flow_gpu_emu/run.sh CPU_BUILD [INSTANCES [SEQUENCE_DIR]]
#   CPU_BUILD: a build with -DGCUT_CUDA=OFF (its objects are linked in);
#   EMU_FLAGS: added to every compile and the link (scripts/test.sh passes the
#   sanitizers of its AddressSanitizer build, whose objects it links);
#   EMU_LANES=32: warps of 32 lanes run in lockstep (fibers switched at each
#   warp intrinsic; threads one warp after another), so the kernels' warp
#   code paths (reductions, ballots, a lane's share of a scan) run as on a
#   GPU; slower, for the checks' instances more than for RubberWhale;
#   EMU_TRACE=1: each auction phase's bids, reverse steps and longest chain
#   on stderr (counts of a sequential run);
#   SEQUENCE_DIR: a Middlebury sequence (frame10.png, frame11.png, flow10.flo).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh CPU_BUILD [INSTANCES [SEQUENCE_DIR]]}" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '#include <cuda_runtime.h>\nthread_local dim3 blockIdx, threadIdx;\ndim3 blockDim, gridDim;\n' >"$out/globals.cpp"
extra=(${EMU_FLAGS:-})
[ "${EMU_TRACE:-}" = 1 ] && extra+=(-DFLOW_ASSIGN_TRACE)
lanes=(-DFLOW_LANES=1)
[ "${EMU_LANES:-1}" = 32 ] && lanes=(-DFLOW_LANES=32 -DEMU_LOCKSTEP)
flags=(-O2 -std=c++17 -w "${lanes[@]}" "${extra[@]}" -include "$here/cuda_runtime.h" -I"$here" -I"$src/grid_kernels"
       -I"$src/src" -I"$src/include" -I"$build/include")
for f in grid_kernels/flow_image.cu grid_kernels/flow_refine.cu grid_kernels/flow_assign.cu \
         src/gpu/flow_gpu.cu; do
  b=$(basename "$f" .cu)
  perl -0pe 's/(\w+)<<<([^,]+?),\s*([^,]+?),\s*0,\s*stream>>>\(/EMU_LAUNCH($1, $2, $3, /g' \
    "$src/$f" >"$out/$b.cpp"
  g++ "${flags[@]}" -c "$out/$b.cpp" -o "$out/$b.o"
done
g++ -O2 "${extra[@]}" -I"$here" -c "$out/globals.cpp" -o "$out/globals.o"
objs=$(find "$build/CMakeFiles/gcut_objects.dir" -name '*.o' ! -name 'flow_gpu_nogpu.c.o')
g++ -O2 "${extra[@]}" -I"$src/include" -I"$build/include" -I"$src/src" -x c "$here/harness.c" -x none \
  "$out"/*.o $objs -lpng -lz -ljpeg -lm -lpthread -lstdc++ -o "$out/harness"
"$out/harness" "${2:-200}" ${3:+"$3"}
