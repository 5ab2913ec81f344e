#!/usr/bin/env bash
# One device call for the GPU grid work: checks + sanitizers, a tuning sweep
# of the tiled solver's knobs (1 MP and 8.3 MP, 8-connected), then the full
# benchmark with the knobs that did best on the two together (sum of each
# time over the best time of its size). Usage: bash bench/gpu_device_all.sh OUTDIR
out=$1
bash bench/gpu_device_check.sh "$out" full "${SAN_COUNT:-8}" none
s1=$?
timeout 150 ./build-gpu/bench/gpu-grid-bench .devdata/grabcut /dev/null --tune 1 --reps 3 \
  >"$out/tune.log" 2>&1
best=$(grep '^tune' "$out/tune.log" | awk '{size=$2; key=$4" "$6" "$8; sub(":","",key); t=$9;
  if (!(size in m) || t < m[size]) m[size]=t; tt[size,key]=t; keys[key]=1; sizes[size]=1}
  END {bk=""; bs=1e18; for (k in keys) { s=0; for (z in sizes) s += tt[z,k]/m[z]; if (s < bs) {bs=s; bk=k} } print bk}')
set -- $best
echo "best knobs: sweeps $1 pushes $2 batch $3"
grep '^tune' "$out/tune.log" | sort -t: -k2 -n | head -4
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_' | tr -cd 'A-Za-z0-9_-')
timeout 300 ./build-gpu/bench/gpu-grid-bench .devdata/grabcut "$out/gpu_grid_${dev}.md" --reps 9 \
  --sweeps "$1" --pushes "$2" --batch "$3" >"$out/bench.log" 2>&1
s2=$?
cat "$out/bench.log"
echo "checks exit $s1, bench exit $s2"
