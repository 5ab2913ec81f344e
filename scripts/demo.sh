#!/usr/bin/env bash
# The demo: installs what is missing, builds gcut into build/, and segments
# the bundled sample (samples/teddy.jpg with its scribbles), writing the
# mask and an overlay into demo-out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)"

out=demo-out
mkdir -p "$out"
overlay="$out/teddy-overlay.png"
if ./build/gcut segment --help | grep -q '\.jpg'; then
    overlay="$out/teddy-overlay.jpg"
fi
echo
echo "gcut segment --seeds samples/teddy-scribbles.png samples/teddy.jpg -o $out/teddy-mask.png --overlay $overlay"
./build/gcut segment --seeds samples/teddy-scribbles.png samples/teddy.jpg \
    -o "$out/teddy-mask.png" --overlay "$overlay"
echo
echo "The mask (255 = foreground): $PWD/$out/teddy-mask.png"
echo "The overlay (foreground tinted green, scribbles in red and blue): $PWD/$overlay"
