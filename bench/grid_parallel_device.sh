#!/usr/bin/env bash
# The parallel CPU grid cut on the device machine's CPU (no GPU needed):
# builds without CUDA, runs the grid checks, makes the 4 MP segmentation
# graphs from the images in .devdata/seg4mp (bench/segment_time.py's
# inputs) with `gcut segment -i 1 --save-graph`, and times BK against pbk.
#   run: bash bench/grid_parallel_device.sh   (carry .devdata; logs in $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/pbk-out}
mkdir -p "$OUT" /tmp/seg4mp
{ nproc; lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|L3'; } | tee "$OUT/machine.txt"
cmake -S . -B build-dev -DGCUT_CUDA=OFF -DGCUT_TESTS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build build-dev -j16 --target gcut gcut-check grid-parallel-bench >"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
./build-dev/tests/gcut-check -o grid | tee "$OUT/check.txt"
for im in ${IMAGES:-flower banana1 bush}; do
  /usr/bin/time -f "$im segment+save %e s" ./build-dev/gcut segment -q -d cpu -i 1 \
    --seeds ".devdata/seg4mp/$im-scribbles1-n2.5-anno.png" -o /tmp/seg4mp/$im-mask.png \
    --save-graph /tmp/seg4mp/$im.max ".devdata/seg4mp/$im-scribbles1-n2.5.jpg" || exit 1
done 2>&1 | tee "$OUT/graphs.txt"
for im in ${IMAGES:-flower banana1 bush}; do
  # PER= (empty) leaves out the strips-per-thread rows.
  per=${PER-1,2,8}
  ./build-dev/bench/grid-parallel-bench -r "${REPEAT:-3}" -t "${THREADS:-1,2,4,8,16}" \
    ${per:+-k "$per"} /tmp/seg4mp/$im.max
done | tee "$OUT/bench.md"
# End to end: `gcut segment` with its default BK (warm re-solves between
# cuts) against --algo pbk (every cut a cold parallel one), default
# settings (up to 5 cuts) and one cut; SEG_ALGOS=pbk leaves out BK,
# SEG_RUNS=3 repeats each.
if [ -n "${SEGMENT:-}" ]; then
  for im in ${IMAGES:-flower banana1 bush}; do
    for iters in 5 1; do
      for algo in ${SEG_ALGOS:-bk pbk}; do
        for r in $(seq "${SEG_RUNS:-1}"); do
          printf '%s -i %s --algo %s run %s: ' "$im" "$iters" "$algo" "$r"
          ./build-dev/gcut segment -q --json -d cpu -i "$iters" --algo "$algo" \
            --seeds ".devdata/seg4mp/$im-scribbles1-n2.5-anno.png" -o /tmp/seg4mp/m.png \
            ".devdata/seg4mp/$im-scribbles1-n2.5.jpg"
        done
      done
    done
  done | tee "$OUT/segment.txt"
fi
