#!/usr/bin/env bash
# gcut segment --seeds-sequence: one mask per scribble state, each equal to
# a segmentation of that state alone; -o's %d pattern; usage errors; a bad
# state leaves none of the run's masks behind.
# Usage: segment_sequence.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=segment
. "$SRC/tests/cli_harness.sh"

# A 48x40 picture (a bright disk on a darker gradient, a little noise) and
# three states of red (foreground) and blue (background) scribbles, as PPM.
W=48
H=40
ppm() { # FILE KIND STATE: KIND image or scribbles
    awk -v W=$W -v H=$H -v kind="$2" -v state="$3" 'BEGIN {
        printf "P6\n%d %d\n255\n", W, H
        srand(7)
        for (y = 0; y < H; y++) for (x = 0; x < W; x++) {
            r = g = b = 0
            if (kind == "image") {
                inside = (x - 24) ^ 2 + (y - 20) ^ 2 <= 100
                v = inside ? 210 : 40 + x
                n = int(rand() * 21) - 10
                r = v + n; g = inside ? 180 + n : 60 + y; b = inside ? 30 : 90 + n
            } else {
                if (y == 1 && x > 2 && x < W - 3) b = 255                      # background, top
                if (state >= 2 && x == 1 && y > 2) b = 255                     # and the left edge
                if (state >= 2 && y == 20 && x >= 22 && x <= 26) r = 255       # foreground, centre
                if (state >= 3 && x == 24 && y >= 14 && y <= 26) { r = 255; b = 0 }
            }
            printf "%c%c%c", (r < 0 ? 0 : r > 255 ? 255 : r), (g < 0 ? 0 : g > 255 ? 255 : g), (b < 0 ? 0 : b > 255 ? 255 : b)
        }
    }' >"$1"
}
if ! awk 'BEGIN { printf "%c", 200 }' | od -An -tu1 | grep -q 200; then
    echo "skipped: this awk cannot write bytes"; finish; exit $?
fi
IMG="$TMP/img.ppm"
ppm "$IMG" image 0
for k in 1 2 3; do ppm "$TMP/s$k.ppm" scribbles $k; done
SEQ="$TMP/s1.ppm,$TMP/s2.ppm,$TMP/s3.ppm"

# --- masks equal independent segmentations -------------------------------------------
for conn in 4 8; do
    run -q -N $conn --seeds-sequence "$SEQ" -o "$TMP/m$conn-%d.png" "$IMG"
    expect "$conn-conn: exit 0" is 0
    expect "$conn-conn: one line per state" eval 'out_has "state 1 (" && out_has "state 2 (" && out_has "state 3 ("'
    for k in 1 2 3; do
        "$GCUT" segment -q -N $conn --seeds "$TMP/s$k.ppm" -o "$TMP/r$conn-$k.png" "$IMG" >/dev/null 2>&1
        expect "$conn-conn: state $k's mask equals a segmentation of state $k alone" cmp -s "$TMP/m$conn-$k.png" "$TMP/r$conn-$k.png"
    done
done
expect "the states differ (the sequence is not trivial)" eval '! cmp -s "$TMP/m8-1.png" "$TMP/m8-3.png"'
run -q -j -c --seeds-sequence "$SEQ" "$IMG"
expect "--json: exit 0, one line" eval 'is 0 && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
if command -v python3 >/dev/null; then
    expect "--json parses, one entry per state" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["states"] == 3 and d["verified"] is True and d["algo"] in ("bk", "pbk")
for key in ("flows", "foreground", "iterations", "update_ms", "cut_ms", "masks"):
    assert len(d[key]) == 3, key
assert d["masks"] == [None, None, None]' "$TMP/out"
fi

# --- usage errors -----------------------------------------------------------------------
run --seeds-sequence "$SEQ" -o "$TMP/mask.png" "$IMG"
expect "-o without %d: exit 2" eval 'is 2 && err_has "exactly one %d"'
run --seeds-sequence "$SEQ" -o "$TMP/m-%d-%d.png" "$IMG"
expect "-o with two %: exit 2" eval 'is 2 && err_has "exactly one %d"'
run --seeds-sequence "$SEQ" -o "$TMP/m-%s.png" "$IMG"
expect "-o with %s: exit 2" eval 'is 2 && err_has "exactly one %d"'
run --seeds-sequence "$TMP/s1.ppm,,$TMP/s2.ppm" "$IMG"
expect "an empty name: exit 2" eval 'is 2 && err_has "separated by commas"'
run --seeds-sequence "$SEQ" --seeds "$TMP/s1.ppm" "$IMG"
expect "with --seeds: exit 2" eval 'is 2 && err_has "replaces --seeds"'
run --seeds-sequence "$SEQ" --overlay "$TMP/o.png" "$IMG"
expect "with --overlay: exit 2" eval 'is 2 && err_has "masks only"'

# --- a bad state: exit 1, no mask of this run left ----------------------------------------
run -q --seeds-sequence "$TMP/s1.ppm,$TMP/s2.ppm,$TMP/missing.ppm" -o "$TMP/bad-%d.png" "$IMG"
expect "a missing state file: exit 1 naming it" eval 'is 1 && err_has "missing.ppm"'
expect "no mask of the failed run is left" eval '[ ! -e "$TMP/bad-1.png" ] && [ ! -e "$TMP/bad-2.png" ]'
printf 'P6\n4 4\n255\n' >"$TMP/small.ppm"
head -c 48 /dev/zero >>"$TMP/small.ppm"
run -q --seeds-sequence "$TMP/s1.ppm,$TMP/small.ppm" -o "$TMP/bad2-%d.png" "$IMG"
expect "a state of the wrong size: exit 1 naming both sizes" eval 'is 1 && err_has "4x4"'
expect "no mask of that run is left" nothing_at "$TMP/bad2-1.png"

finish
