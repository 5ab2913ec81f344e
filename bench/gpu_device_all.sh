#!/usr/bin/env bash
# The whole GPU grid device session in one call (about 4 minutes on an
# H100, more than one 240 s call allows; split the steps over calls of
# gpu_device_run.sh when needed): the GPU grid checks in full, the
# sanitizers, the tuning sweep, then the table with PyMaxflow and
# `gcut segment` (carry .devdata and .whl).
#   bash bench/gpu_device_all.sh OUTDIR
exec bash "$(dirname "$0")/gpu_device_run.sh" "$1" check san=4 tune wheels \
  bench=--reps,5,--pymaxflow,bench/gpu_grid_pymaxflow.py,--segment,build-dev/gcut
