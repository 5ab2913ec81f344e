#!/usr/bin/env bash
# One device session for gpu-csa within about four minutes: build, the
# assignment checks (GPU against the Hungarian reference and the CPU; the
# row-major dense squares take the dense device path), the benchmark
# against scipy (bench/assign_bench.py: dense 1000-5000 and sparse 10^6
# arcs with the CPU's CSA), compute-sanitizer memcheck, the knobs
# (bench/gpu_assign_knobs_bench.c: the dense device path against the
# host-built problem, alpha and the first eps), memcheck and racecheck on
# more small instances (racecheck last), then dense 10000 and sparse 10^7
# arcs once each. The benchmark runs before the sanitizers: its figures are
# what a cut-off run must keep. Every step has its own time limit, and
# every result file is written as its rows finish, so that a cut-off run
# still returns figures. At most 8 files go to $OUT (the device tool's
# limit). Run from the repository root.
#
# Comparing builds: COMPARE_TREES="label=DIR ..." builds each other tree's
# libgcut.so (in DIR/build-cmp, in the background while the checks run),
# and the scipy bench is replaced by gpu-csa of this tree (THIS_LABEL,
# default "this") and of each of them on the same instances, scipy once an
# instance (compare_*.md; the phase logs in compare.log). LARGE=0 leaves
# out dense 10000 and sparse 10^7 arcs; DEADLINE (s) bounds the whole run.
set -u
OUT=${OUT:-/tmp/assign-out}
mkdir -p "$OUT"
log="$OUT/steps.log"
end=$(( $(date +%s) + ${DEADLINE:-230} ))
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
# a step's time limit: its own, or what is left of the deadline
lim() {
    local l=$(( end - $(date +%s) ))
    [ "$1" -lt "$l" ] && l=$1
    [ "$l" -lt 1 ] && l=1
    echo $l
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')

step build
{ cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
    cmake --build build -j"$(nproc)" --target gcut-check gcut_shared gpu-assign-knobs-bench; } \
    >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "warnings: $(grep -c 'warning' "$OUT/build.log")" | tee -a "$log"
CHECK=build/tests/gcut-check LIB=build/libgcut.so KNOBS=build/bench/gpu-assign-knobs-bench
COMPARE="${THIS_LABEL:-this}=$LIB"
for t in ${COMPARE_TREES:-}; do
    ( cmake -S "${t#*=}" -B "${t#*=}/build-cmp" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build "${t#*=}/build-cmp" -j8 \
        --target gcut_shared ) >>"$OUT/build.log" 2>&1 &
    COMPARE="$COMPARE ${t%%=*}=${t#*=}/build-cmp/libgcut.so"
done

step checks
for c in "assign.gpu_vs_hungarian" "assign.gpu_knobs" "assign.gpu_vs_cpu -n ${CPU_N:-20}"; do
    timeout "$(lim 25)" "$CHECK" -o $c 2>&1 | tee -a "$OUT/checks.log" | tail -3 | tee -a "$log"
done

if [ -n "${COMPARE_TREES:-}" ]; then
    step compare
    wait
    PYTHONUNBUFFERED=1 timeout "$(lim "${COMPARE_LIMIT:-120}")" python3 - \
        "$OUT/compare_$name.md" "${DENSE:-1000,2000,5000}" "${SPARSE:-100000x10}" \
        "${REPEAT:-5}" $COMPARE 2>"$OUT/compare.log" <<'PY' | tee -a "$log"
import json, subprocess, sys
sys.path.insert(0, "bench")
import assign_bench as ab
import numpy as np
out, dense, sparse, reps, builds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), \
    [b.split("=", 1) for b in sys.argv[5:]]
CHILD = r"""
import json, sys
sys.path.insert(0, "bench")
import assign_bench as ab, numpy as np
lib, kind = sys.argv[1], sys.argv[2]
n, d, reps = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if kind == "dense":
    cost = ab.dense_instance(n, 1000 + n).reshape(-1)
    row_ptr = np.arange(0, n * n + 1, n, dtype=np.int64)
    col = np.tile(np.arange(n, dtype=np.int32), n)
else:
    row_ptr, col, cost = ab.sparse_instance(n, d, 1000 + n + d)
g = ab.Gcut(lib)
runs = []
for _ in range(reps):
    total, info = g.assign("gpu-csa", n, n, row_ptr, col, cost)
    runs.append(info.time_ms)
v = ab.Gcut(lib, verbose=True)
v.assign("gpu-csa", n, n, row_ptr, col, cost)
print(json.dumps({"runs": runs, "cost": total, "device": info.device.decode(),
                  "work": f"{info.refines} phases, {info.pushes} bids, "
                          f"{info.price_updates} updates"}))
"""
inst = [("dense", int(x), 0) for x in dense.split(",") if x] + \
       [("sparse", int(x.split("x")[0]), int(x.split("x")[1])) for x in sparse.split(",") if x]
rows = []
for kind, n, d in inst:
    if kind == "dense":
        name, arrays = f"dense {n}x{n} [0,1000]", {"mat": ab.dense_instance(n, 1000 + n)}
        arcs = n * n
    else:
        row_ptr, col, cost = ab.sparse_instance(n, d, 1000 + n + d)
        name, arcs = f"sparse n={n} deg {d}", int(row_ptr[-1])
        arrays = {"n": np.int64(n), "row_ptr": row_ptr, "col": col, "cost": cost}
    sp_ms, sp_cost = ab.scipy_solve(arrays, 20)
    print(f"{name}: scipy {sp_ms} ms cost {sp_cost}", flush=True)
    for label, lib in builds:
        print(f"== {label} {name}", file=sys.stderr, flush=True)
        p = subprocess.run([sys.executable, "-c", CHILD, lib, kind, str(n), str(d), str(reps)],
                           capture_output=True, text=True)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            print(f"  {label}: failed ({p.returncode})", flush=True)
            rows.append((name, arcs, label, None, sp_ms, None, None, ""))
            continue
        r = json.loads(p.stdout.strip().splitlines()[-1])
        runs = sorted(r["runs"])
        med, worst = runs[len(runs) // 2], runs[-1]
        same = None if sp_cost is None else r["cost"] == sp_cost
        print(f"  {label} on {r['device']}: median {med:.1f} worst {worst:.1f} ms, "
              f"{sp_ms / med if sp_ms else 0:.1f}x scipy, same {same}, {r['work']}; runs "
              f"{', '.join(f'{x:.1f}' for x in r['runs'])}", flush=True)
        rows.append((name, arcs, label, r["device"], sp_ms, (med, worst), same, r["work"]))
    with open(out, "w") as f:
        f.write("| instance | arcs | build | device | scipy ms | gcut ms median | worst | "
                "speed-up (median / worst) | same | work |\n"
                "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n")
        for name, arcs, label, dev, sp, t, same, work in rows:
            sps = f"{sp:.1f}" if sp else "> 20000"
            if t is None:
                f.write(f"| {name} | {arcs} | {label} | | {sps} | error | | | | |\n")
                continue
            ratio = f"{sp / t[0]:.1f}x / {sp / t[1]:.1f}x" if sp else "n/a"
            same_s = "n/a" if same is None else "yes" if same else "**NO**"
            f.write(f"| {name} | {arcs} | {label} | {dev} | {sps} | {t[0]:.1f} | {t[1]:.1f} | "
                    f"{ratio} | {same_s} | {work} |\n")
PY
    echo "exit $?" | tee -a "$log"
else
    step scipy bench
    PYTHONUNBUFFERED=1 timeout "$(lim "${BENCH_LIMIT:-60}")" python3 bench/assign_bench.py \
        "$LIB" "$OUT/assign_$name.md" --algos gpu-csa,csa --dense "${DENSE:-1000,2000,5000}" \
        --sparse "${SPARSE:-100000x10}" --repeat 3 --scipy-repeat 2 --scipy-timeout 20 \
        --cpu-max-arcs 5000000 --device-name "$name" --verbose >"$OUT/bench.log" 2>&1
    echo "exit $?" | tee -a "$log"
    grep -v '^    \[gcut\]' "$OUT/bench.log" | tee -a "$log"
fi

step memcheck
timeout "$(lim 40)" compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" \
    -o assign.gpu_vs_hungarian -n "${MEMCHECK_N:-14}" >"$OUT/sanitizer.log" 2>&1
echo "memcheck (vs hungarian) exit $?" | tee -a "$OUT/sanitizer.log" "$log"

step knobs
# A/G/U/H/S: alpha, threads a row, updates every U n bids, H 1 = the
# host-built problem and CPU proof, S = the first eps's extra divisor
timeout "$(lim "${KNOBS_LIMIT:-40}")" "$KNOBS" -o "$OUT/knobs_$name.md" --no-cpu \
    --reps "${KNOBS_REPS:-2}" -d 1000 -d 2000 -d 5000 -s 100000x10 \
    --variants "${VARIANTS:-0/0/0,0/0/0/1,4/0/0,30/0/0,0/0/0/0/30,0/0/2}" 2>&1 | tee -a "$log"

step sanitizers
timeout "$(lim 25)" compute-sanitizer --tool memcheck --error-exitcode 9 "$CHECK" \
    -o assign.gpu_vs_cpu -n 1 >>"$OUT/sanitizer.log" 2>&1
echo "memcheck (dense vs cpu) exit $?" | tee -a "$OUT/sanitizer.log" "$log"
timeout "$(lim 30)" compute-sanitizer --tool racecheck --error-exitcode 9 "$CHECK" \
    -o assign.gpu_knobs -n "${RACECHECK_N:-14}" >>"$OUT/sanitizer.log" 2>&1
echo "racecheck exit $?" | tee -a "$OUT/sanitizer.log" "$log"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed" "$OUT/sanitizer.log" | tee -a "$log"

if [ "${LARGE:-1}" = 1 ]; then
    step large
    PYTHONUNBUFFERED=1 timeout "$(lim "${LARGE_LIMIT:-70}")" python3 bench/assign_bench.py \
        "$LIB" "$OUT/assign_large_$name.md" --algos gpu-csa --dense "${LARGE_DENSE:-10000}" \
        --sparse "${LARGE_SPARSE:-1000000x10}" --repeat 1 --scipy-repeat 1 \
        --scipy-timeout "${LARGE_SCIPY:-25}" --device-name "$name" --verbose \
        >"$OUT/bench_large.log" 2>&1
    echo "exit $?" | tee -a "$log"
    grep -v '^    \[gcut\]' "$OUT/bench_large.log" | tee -a "$log"
fi
step done
