#!/usr/bin/env bash
# Copy what the grid benchmark needs from the shared data into .devdata/
# (git-ignored), so that it travels to the device machine as a carried path:
# the GrabCut images and their scribbles (about 2 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
src=${GCUT_DATA:-/work/shared/data}/grabcut
if [ ! -d "$src/images" ] || [ ! -d "$src/scribbles1" ]; then
  echo "prepare_devdata.sh: $src/images or $src/scribbles1 is missing" >&2
  exit 1
fi
mkdir -p .devdata/grabcut
# The shared copies are read-only, and cp keeps their modes: make ours writable.
for d in images scribbles1; do
  if [ -d ".devdata/grabcut/$d" ]; then chmod -R u+w ".devdata/grabcut/$d"; fi
  rm -rf ".devdata/grabcut/$d"
done
cp -r "$src/images" "$src/scribbles1" .devdata/grabcut/
chmod -R u+w .devdata/grabcut/images .devdata/grabcut/scribbles1
du -sh .devdata/grabcut
