#!/usr/bin/env bash
# gcut grid: exit codes, messages, --json shape, --labels PNG, --verify, and
# no output file left after a failure.
# Usage: grid.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SAMPLE="$SRC/samples/tiny.max"
SUBCOMMAND=grid
. "$SRC/tests/cli_harness.sh"

# --- help and version -------------------------------------------------------
run --help
expect "--help exits 0" is 0
expect "--help prints the usage on stdout" out_has "Usage: gcut grid"
expect "--help names the options" out_has "--labels"
expect "--help writes nothing on stderr" err_empty
run -h
expect "-h exits 0 with the usage" eval 'is 0 && out_has "Usage: gcut grid"'
run --version
expect "--version exits 0 on stdout" eval 'is 0 && out_has "gcut " && err_empty'

# --- usage errors: exit 2 and the hint ---------------------------------------
run --no-such-option "$SAMPLE"
expect "an unknown option exits 2" is 2
expect "an unknown option is named" err_has "--no-such-option"
expect "an unknown option points to --help" err_has "Try 'gcut grid --help'"
expect "an unknown option prints nothing on stdout" out_empty
run -Z "$SAMPLE"
expect "an unknown short option exits 2 with the hint" \
    eval 'is 2 && err_has "-Z" && err_has "Try '\''gcut grid --help'\''"'
run
expect "no file exits 2 with the hint" eval 'is 2 && err_has "Try '\''gcut grid --help'\''"'
run "$SAMPLE" "$SAMPLE"
expect "two files exit 2" eval 'is 2 && err_has "Try '\''gcut grid --help'\''"'
run --device tpu "$SAMPLE"
expect "a bad --device exits 2 naming it" eval 'is 2 && err_has "tpu"'
run --algo nosuch "$SAMPLE"
expect "an unknown --algo exits 2 naming it" eval 'is 2 && err_has "nosuch"'
run "$SAMPLE" --labels
expect "--labels without a value exits 2" eval 'is 2 && err_has "--labels"'
run --threads 65 "$SAMPLE"
expect "--threads past 64 exits 2 naming it" eval 'is 2 && err_has "--threads" && err_has "65"'
run -T two "$SAMPLE"
expect "a --threads that is no number exits 2" eval 'is 2 && err_has "two"'

# --- pbk: the parallel CPU cut gives BK's flow and BK's labels ---------------
run --algo pbk --threads 3 --verify --json "$SAMPLE"
expect "pbk solves and verifies the sample" \
    eval 'is 0 && out_has "\"flow\": 8" && out_has "\"algo\": \"pbk\"" && out_has "\"verified\": true"'
"$GCUT" gen vision width=300 height=257 connectivity=8 -o "$TMP/v8.max" >/dev/null 2>&1
run --algo bk --json --labels "$TMP/bk.png" "$TMP/v8.max"
bk_flow=$(grep -o '"flow": [0-9]*' "$TMP/out")
for t in 2 5 8; do
    run --algo pbk -T "$t" --verify --json --labels "$TMP/pbk.png" "$TMP/v8.max"
    expect "pbk on $t threads: BK's flow, verified" \
        eval 'is 0 && [ -n "$bk_flow" ] && out_has "$bk_flow," && out_has "\"verified\": true"'
    expect "pbk on $t threads: BK's labels" cmp -s "$TMP/bk.png" "$TMP/pbk.png"
done

# --- solving the sample --------------------------------------------------------
run --device cpu "$SAMPLE"
expect "the sample solves" is 0
expect "the report gives the flow 8" out_has "max flow: 8"
expect "the report gives the size" out_has "3x2 pixels, 4-connected"
expect "the report names the solver" out_has "bk on cpu"

run --device cpu --verify "$SAMPLE"
expect "--verify exits 0" is 0
expect "--verify says what it proved" out_has "verified: flow = cut capacity = 8"

run --device cpu --json --verify "$SAMPLE"
expect "--json exits 0" is 0
cp "$TMP/out" "$TMP/json"
json_ok() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
want = {"flow": int, "time_ms": float, "device": str, "algo": str, "width": int,
        "height": int, "connectivity": int, "iterations": int, "read_ms": float,
        "device_start_ms": float, "device_wait_ms": float, "verified": bool}
assert set(d) == set(want), sorted(d)
for k, t in want.items():
    assert type(d[k]) is t or (t is float and type(d[k]) is int), (k, d[k])
assert d["flow"] == 8 and d["width"] == 3 and d["height"] == 2, d
assert d["connectivity"] == 4 and d["device"] == "cpu" and d["algo"] == "bk", d
assert d["verified"] is True and d["time_ms"] >= 0 and d["read_ms"] >= 0, d
assert d["device_start_ms"] == 0 and d["device_wait_ms"] == 0, d  # no GPU started on cpu
' "$TMP/json"
}
expect "--json prints one object with the keys and types" json_ok
expect "--json prints exactly one line" eval '[ "$(wc -l <"$TMP/json")" -eq 1 ]'
run --device cpu -j "$SAMPLE"
expect "--json without --verify has no verified key" \
    eval 'is 0 && python3 -c "import json,sys; d=json.load(sys.stdin); assert \"verified\" not in d" <"$TMP/out"'

# --- labels PNG ------------------------------------------------------------------
run --device cpu --labels "$TMP/labels.png" "$SAMPLE"
expect "--labels exits 0" is 0
expect "--labels says where" out_has "$TMP/labels.png"
# Decode the PNG with the standard library: an 8-bit grey 3x2 image in which
# pixels 1 and 4 (column 0) are on the source side (255) and pixels 3, 5, 6
# on the sink side (0) in every minimum cut of the sample.
png_ok() {
    python3 -c '
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, colour = ihdr[:4]
assert (w, h, depth, colour) == (3, 2, 8, 0), ihdr
raw, rows, prev = zlib.decompress(idat), [], [0] * w
for y in range(h):
    f, line = raw[y * (w + 1)], list(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
    for x in range(w):
        a = line[x - 1] if x else 0
        b, c = prev[x], (prev[x - 1] if x else 0)
        p = a + b - c
        pred = [0, a, b, (a + b) // 2,
                a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                else b if abs(p - b) <= abs(p - c) else c][f]
        line[x] = (line[x] + pred) & 255
    rows.append(line)
    prev = line
assert all(v in (0, 255) for r in rows for v in r), rows
assert rows[0][0] == 255 and rows[1][0] == 255, rows
assert rows[0][2] == 0 and rows[1][1] == 0 and rows[1][2] == 0, rows
' "$1"
}
expect "--labels writes a 3x2 8-bit grey PNG of the cut" png_ok "$TMP/labels.png"
expect "--labels leaves no temporary" nothing_at "$TMP/none"
expect "--labels gets mode 644 under umask 022 (not a temporary's 600)" mode_is "$TMP/labels.png" 644

# --- runtime errors: exit 1, a message, no output ----------------------------------
printf 'c grid 2 2 4\np max 6 2\nn 5 s\nn 6 t\na 5 1 3\na 1 4 2\n' >"$TMP/diag.max"
run --device cpu --labels "$TMP/bad.png" "$TMP/diag.max"
expect "a malformed file exits 1" is 1
expect "a malformed file's message names the file and line" err_has "diag.max:6:"
expect "a malformed file's message says what" err_has "not neighbours"
expect "a malformed file prints nothing on stdout" out_empty
expect "a malformed file leaves no labels file" nothing_at "$TMP/bad.png"

printf 'c grid 2 2 4\np max 6 3\nn 5 s\nn 6 t\na 5 1 3\n' >"$TMP/short.max"
run --json "$TMP/short.max"
expect "a truncated file exits 1 naming the line" eval 'is 1 && err_has "short.max:5:" && out_empty'

run --device cpu --labels "$TMP/no-such-dir/labels.png" "$SAMPLE"
expect "labels into a missing folder exit 1" is 1
expect "labels into a missing folder name the path" err_has "$TMP/no-such-dir/labels.png"
expect "labels into a missing folder leave nothing" nothing_at "$TMP/no-such-dir/labels.png"

run "$TMP/no-such-file.max"
expect "a missing input exits 1 naming it" eval 'is 1 && err_has "no-such-file.max"'

# --- devices ------------------------------------------------------------------------
if "$GCUT" --version | grep -q "GPUs: none found"; then
    run --device gpu --labels "$TMP/gpu.png" "$SAMPLE"
    expect "--device gpu without a GPU exits 1" is 1
    expect "--device gpu without a GPU says so" err_has "GPU"
    expect "--device gpu without a GPU leaves no labels" nothing_at "$TMP/gpu.png"
    run --device auto "$SAMPLE"
    expect "--device auto without a GPU solves on the CPU" eval 'is 0 && out_has "on cpu"'
    expect "--device auto without a GPU says so on stderr" err_has "solving on the CPU"
    run --device auto --quiet "$SAMPLE"
    expect "--quiet silences the notice" eval 'is 0 && err_empty'
else
    run --device gpu --json --verify "$SAMPLE"
    expect "--device gpu solves and verifies the sample" eval 'is 0 && out_has "\"flow\": 8"'
fi

finish
