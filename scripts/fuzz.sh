#!/usr/bin/env bash
# Fuzzes every parser with libFuzzer for a bounded time.
#   bash scripts/fuzz.sh                 10 s per target (what scripts/test.sh runs)
#   bash scripts/fuzz.sh 600             10 minutes per target, by hand
#   bash scripts/fuzz.sh 60 png jpeg     only those targets
# Builds build-fuzz/ with clang (-DGCUT_FUZZ=ON, ASan + UBSan), then runs
# each fuzz-<target> from the committed seeds in fuzz/corpus/<target>/ (new
# inputs go to a scratch folder; the committed corpus is not changed).
# Prints each target's executions and coverage; a crash stops with the
# input's path: add it to fuzz/regressions/<target>/, where every build's
# CTest replays it, and fix the bug.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(dimacs dimacs_grid png jpeg pnm seeds bipartite assign flo)

CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCUT_FUZZ=ON \
  -DGCUT_SANITIZE=ON -DGCUT_CUDA=OFF -DGCUT_TESTS=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target gcut_fuzzers >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t" build-fuzz/crashes
  log="$scratch/$t.log"
  # -rss_limit_mb: the harnesses run under a 64 MiB memory budget, so a
  # process past 1 GiB is a budget the library failed to enforce.
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    build-fuzz/fuzz/fuzz-"$t" "$scratch/$t" fuzz/corpus/"$t" -max_total_time="$seconds" \
    -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
    -artifact_prefix=build-fuzz/crashes/"$t"- >"$log" 2>&1; then
    echo "fuzz $t: FAILED" >&2
    tail -40 "$log" >&2
    status=1
    continue
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 |
        sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 edges, \2 features, \3 inputs/p')
  echo "fuzz $t: ${runs:-?} executions in ${seconds} s, coverage ${cov:-?}"
done
exit $status
