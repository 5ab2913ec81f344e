#!/usr/bin/env bash
# GPU work on the device machine, run from the repository root, one step
# after another as named:
#   bash bench/gpu_device.sh OUTDIR STEP...
# Steps:
#   build          Release build for sm_90 in $BUILD (default build-dev; an absolute path
#                  outlives a new copy of the tree): gcut, gcut-check and the GPU benchmarks
#                  (the device has no Criterion)
#   check[=NAME]   gcut-check, whole or the checks whose name starts with NAME
#   san[=N]        compute-sanitizer memcheck and racecheck ($SAN_TOOLS) on the GPU checks
#                  (gcut-check, N instances each, default 4; the large grids apart:)
#   san_large[=N]  the same on the large-grid check (2 MP; the tiled solver's size rules)
#   grid[=ARGS]    gpu-grid-bench on $DATA (default .devdata/grabcut, bench/prepare_devdata.sh);
#                  ARGS comma-separated, e.g. grid=--min-mp,1,--reps,5
#   graph[=ARGS]   gpu-maxflow-bench, ARGS comma-separated, e.g. graph=-g,rlg-wide:1536
#   set[=ARGS]     gpu-grid-bench on the whole set: every image of $DATA upscaled to 1, 4 and
#                  8.3 MP, 4- and 8-connected, per image and a summary (median, worst), with a
#                  per-relabel diagnosis of every graph (OUTDIR/gpu_grid_all_trace_DEVICE.md);
#                  ARGS comma-separated, e.g. set=--sizes,1152x864,--modes,d,c16
#   ab=TREE        A/B against another source tree (e.g. an older commit's `git archive`):
#                  builds it in $AB_BUILD (default TREE/build-dev) unless built, then $ROUNDS (default 3) rounds of both trees'
#                  benchmarks alternating (the grid graphs of $AB_IMAGES at 1, 4 and 8.3 MP, both
#                  connectivities, and the general graphs of $AB_GRAPHS), a table of every
#                  row's GPU ms per tree (median and range over the rounds) in OUTDIR/ab.md;
#                  and `gcut segment --device gpu` masks of $AB_MASKS compared byte for byte
# Logs and tables go to OUTDIR (files named after the step). The exit status is non-zero
# when a step failed (a check, a sanitizer error, a wrong flow, a differing mask).
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
build=${BUILD:-build-dev}
data=${DATA:-.devdata/grabcut}
mkdir -p "$out"
status=0
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
dev=$(echo "$device" | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
echo "device: $device"
say() { echo "[$(date +%T)] $*"; }

build_tree() { # SRC BUILD: a Release sm_90 build of SRC in BUILD
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGCUT_TESTS=ON >"$out/build_$(basename "$2").log" 2>&1 &&
    cmake --build "$2" -j"$(nproc)" --target gcut gcut-check gpu-grid-bench \
      ${TARGETS:-gpu-maxflow-bench} >>"$out/build_$(basename "$2").log" 2>&1 ||
    { tail -30 "$out/build_$(basename "$2").log"; return 1; }
  echo "built $2, warnings: $(grep -c 'warning' "$out/build_$(basename "$2").log")"
}

# The GPU ms column of the benchmark tables: grid rows "graph size conn ms",
# general-graph rows "graph solver ms".
grid_rows() { awk -F'|' '/^\| [^-g*]/ && $6 ~ /[0-9]/ {gsub(/ /,"",$2); gsub(/ /,"",$3); gsub(/ /,"",$4); gsub(/ /,"",$6); print "grid", $2 "_" $3 "_" $4 "-conn", $6}' "$1"; }
graph_rows() { awk -F'|' '$3 ~ /worklist|async|color/ && $3 !~ /phase 2/ && $4 ~ /^ *[0-9.]+ *$/ {gsub(/ /,"",$2); gsub(/ /,"",$3); gsub(/ /,"",$4); sub(/\(.*/,"",$3); print "graph", $2 "_" $3, $4}' "$1"; }

ab() { # TREE
  local old=$1 rounds=${ROUNDS:-3} tree
  local old_build=${AB_BUILD:-$old/build-dev}
  [ -x "$old_build/bench/gpu-grid-bench" ] || build_tree "$old" "$old_build" || return 1
  : >"$out/ab_rows.txt"
  for r in $(seq "$rounds"); do
    for tree in old new; do
      local bin=$build ; [ $tree = old ] && bin=$old_build
      for im in ${AB_IMAGES:-flower sheep banana1}; do
        timeout 300 "$bin/bench/gpu-grid-bench" "$data" "$out/ab_${tree}_grid.md" \
          --upscale "$im" --only "$im" --min-mp 0.9 --reps "${AB_REPS:-5}" --lockfree-max-mp 0 \
          >>"$out/ab_${tree}.log" 2>&1 || status=1
        grid_rows "$out/ab_${tree}_grid.md" | sed "s/^/$tree $r /" >>"$out/ab_rows.txt"
      done
      local g=() spec
      for spec in ${AB_GRAPHS:-rlg-long:512x1024 rlg-wide:1536 acyclic-dense:2000 acyclic-dense:4000 genrmf-long:32x256 genrmf-wide:64}; do
        g+=(-g "$spec")
      done
      timeout 300 "$bin/bench/gpu-maxflow-bench" -o "$out/ab_${tree}_graph.md" "${g[@]}" \
        --reps "${AB_REPS:-5}" --variants worklist >>"$out/ab_${tree}.log" 2>&1 || status=1
      graph_rows "$out/ab_${tree}_graph.md" | sed "s/^/$tree $r /" >>"$out/ab_rows.txt"
      say "ab round $r: $tree done"
    done
  done
  # One line a row: the median and range of each tree's rounds.
  python3 - "$out/ab_rows.txt" "$device" >"$out/ab.md" <<'EOF'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    tree, rnd, kind, name, ms = line.split()
    rows.setdefault((kind, name), {}).setdefault(tree, []).append(float(ms))
print(f"# A/B on {sys.argv[2]}: GPU ms per row, median [min-max] over the rounds\n")
print("| bench | row | old | new | new / old |\n|---|---|---|---|---|")
for (kind, name), t in rows.items():
    o, n = t.get("old", []), t.get("new", [])
    if not o or not n:
        continue
    mo, mn = statistics.median(o), statistics.median(n)
    print(f"| {kind} | {name} | {mo:.3f} [{min(o):.3f}-{max(o):.3f}] | "
          f"{mn:.3f} [{min(n):.3f}-{max(n):.3f}] | {mn / mo:.3f} |")
EOF
  cat "$out/ab.md"
  # Masks: the same cut on the GPU, byte for byte.
  local im differ=0
  for im in ${AB_MASKS:-banana1 flower sheep teddy llama 124084}; do
    for tree in old new; do
      local bin=$build ; [ $tree = old ] && bin=$old_build
      "$bin/gcut" segment -q --device gpu -s "$data/scribbles1/$im-anno.png" \
        -o "$out/mask_${tree}_$im.png" "$data/images/$im.jpg" >>"$out/ab_masks.log" 2>&1 || status=1
    done
    if cmp -s "$out/mask_old_$im.png" "$out/mask_new_$im.png"; then
      echo "mask $im: equal"
    else
      echo "mask $im: DIFFERS"; differ=1
    fi
    rm -f "$out/mask_old_$im.png"
  done | tee "$out/ab_masks.txt"
  grep -q DIFFERS "$out/ab_masks.txt" && status=1
}

for step in "$@"; do
  arg=${step#*=}
  [ "$arg" = "$step" ] && arg=
  t=$(date +%s)
  case ${step%%=*} in
  build) build_tree . "$build" || exit 1 ;;
  check)
    timeout 400 "$build/tests/gcut-check" ${arg:+-o "$arg"} >"$out/check.log" 2>&1 || status=1
    tail -4 "$out/check.log"
    grep FAIL -A1 "$out/check.log" ;;
  san | san_large)
    # san: the GPU checks on small instances; san_large: the large grids
    # (2 MP, the tiled solver's size-dependent parts), slower under the tools.
    checks="grid.gpu_tiled_vs grid.gpu_lockfree grid.gpu_knobs grid.gpu_snapshot graph.gpu segment.gpu"
    [ "${step%%=*}" = san_large ] && checks=grid.gpu_tiled_large
    for tool in ${SAN_TOOLS:-memcheck racecheck}; do
      for only in $checks; do
        timeout "${SAN_TIMEOUT:-200}" compute-sanitizer --tool "$tool" --error-exitcode 99 \
          "$build/tests/gcut-check" -o "$only" -n "${arg:-4}" >"$out/san_${tool}_$only.log" 2>&1
        rc=$?
        [ $rc = 0 ] || status=1
        echo "compute-sanitizer $tool, gcut-check -o $only -n ${arg:-4}: exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${tool}_$only.log" | tail -1); $(tail -1 "$out/san_${tool}_$only.log"))"
      done
    done ;;
  grid)
    timeout 400 "$build/bench/gpu-grid-bench" "$data" "$out/gpu_grid_$dev.md" ${arg//,/ } \
      >"$out/grid.log" 2>&1 || status=1
    tail -12 "$out/grid.log" ;;
  set)
    timeout "${SET_TIMEOUT:-400}" "$build/bench/gpu-grid-bench" "$data" "$out/gpu_grid_all_$dev.md" \
      --set up --lockfree-max-mp 0 --reps "${SET_REPS:-5}" \
      --trace "$out/gpu_grid_all_trace_$dev.md" ${arg//,/ } >"$out/set.log" 2>&1 || status=1
    sed -n '/^## Summary/,$p' "$out/gpu_grid_all_$dev.md" ;;
  graph)
    timeout 400 "$build/bench/gpu-maxflow-bench" -o "$out/gpu_maxflow_$dev.md" ${arg//,/ } \
      >"$out/graph.log" 2>&1 || status=1
    tail -12 "$out/graph.log" ;;
  ab) ab "$arg" ;;
  *) echo "gpu_device.sh: unknown step '$step'" >&2; exit 2 ;;
  esac
  say "$step: $(($(date +%s) - t)) s, status $status"
done
exit $status
