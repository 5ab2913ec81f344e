#!/usr/bin/env bash
# One device session for matching: build, the checks, compute-sanitizer
# memcheck and racecheck on the GPU checks, the CLI script, then the
# benchmark against scipy. Logs and results go to $OUT. Run from the
# repository root with the shared data at ../../.devshared/data (the
# device layout) or $GCUT_MATRICES.
set -u
OUT=${OUT:-/tmp/match-out}
mkdir -p "$OUT"
export GCUT_MATRICES=${GCUT_MATRICES:-../../.devshared/data/matrices}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/cmake.log" 2>&1
cmake --build build -j"$(nproc)" --target gcut-check gcut gcut_shared >>"$OUT/cmake.log" 2>&1 ||
    { tail -30 "$OUT/cmake.log"; exit 1; }
CHECK=build/tests/gcut-check GCUT=build/gcut LIB=build/libgcut.so

"$CHECK" -o bipartite | tee "$OUT/check.log"
"$CHECK" -o match | tee -a "$OUT/check.log"
compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" -o match.gpu -n 25 >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$OUT/memcheck.log"
tail -4 "$OUT/memcheck.log"
compute-sanitizer --tool racecheck --error-exitcode 9 "$CHECK" -o match.gpu -n 25 >"$OUT/racecheck.log" 2>&1
echo "racecheck exit $?" | tee -a "$OUT/racecheck.log"
tail -4 "$OUT/racecheck.log"
bash tests/cli/match.sh "$GCUT" . | tail -3 | tee "$OUT/cli.log"

name=$(head -1 "$OUT/gpu.txt" | cut -d, -f1 | tr ' ' '_')
timeout "${BENCH_LIMIT:-240}" python3 bench/match_bench.py "$LIB" --matrices "$GCUT_MATRICES" \
    --sizes "${BENCH_SIZES:-1e5,1e6,1e7}" --reps 3 --scipy-limit "${SCIPY_LIMIT:-10}" \
    --out "$OUT/match_$name.md" 2>&1 | tee "$OUT/bench.log"
