#!/usr/bin/env bash
# gcut segment: exit codes, messages, --json shape, outputs (mask values,
# overlay, graph), seeds of every kind, and no output file left after a
# failure. Usage: segment.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
IMG="$SRC/samples/teddy.jpg"
SEEDS="$SRC/samples/teddy-scribbles.png"
SUBCOMMAND=segment
. "$SRC/tests/cli_harness.sh"

# --- help and version -------------------------------------------------------
run --help
expect "--help exits 0" is 0
expect "--help prints the usage on stdout" out_has "Usage: gcut segment"
for opt in --seeds --trimap --box --output --mask-values --overlay --save-graph --json \
    --model --components --iterations --lambda --connectivity --device --verify --threads; do
    expect "--help names $opt" out_has "$opt"
done
expect "--help writes nothing on stderr" err_empty
run -h
expect "-h exits 0" eval 'is 0 && out_has "Usage: gcut segment"'
run --version
expect "--version exits 0 with the version" eval 'is 0 && out_has "gcut"'

# --- usage errors: exit 2, a hint, nothing on stdout ---------------------------
usage_case() {
    local what=$1 msg=$2
    shift 2
    run "$@"
    expect "$what exits 2" is 2
    expect "$what says '$msg'" err_has "$msg"
    expect "$what points to --help" err_has "Try 'gcut segment --help'."
    expect "$what prints nothing on stdout" out_empty
}
usage_case "no image" "no image given" --seeds "$SEEDS"
usage_case "no seeds" "no seeds given" "$IMG"
usage_case "two images" "one image only" -s "$SEEDS" "$IMG" "$IMG"
usage_case "unknown option" "unknown option" --frobnicate "$IMG"
usage_case "missing value" "needs a value" "$IMG" --seeds
usage_case "bad box" "--box needs" --box 1,2,3 "$IMG"
usage_case "inverted box" "X1 <= X2" --box 30,2,3,40 "$IMG"
usage_case "bad lambda" "--lambda must be" -s "$SEEDS" -l abc "$IMG"
usage_case "negative lambda" "--lambda must be" -s "$SEEDS" -l -1 "$IMG"
usage_case "bad connectivity" "--connectivity must be 4 or 8" -s "$SEEDS" -N 6 "$IMG"
usage_case "bad model" "--model must be gmm or hist" -s "$SEEDS" -m svm "$IMG"
usage_case "bad components" "--components must be" -s "$SEEDS" -k 0 "$IMG"
usage_case "bad iterations" "--iterations must be" -s "$SEEDS" -i 0 "$IMG"
usage_case "bad mask values" "--mask-values needs" -s "$SEEDS" -M 3,3 "$IMG"
usage_case "bad colour" "--fg-color needs" -s "$SEEDS" -F 1,2,300 "$IMG"
usage_case "same colours" "are the same colour" -s "$SEEDS" -F 0,0,255 "$IMG"
usage_case "bad device" "--device must be" -s "$SEEDS" -d tpu "$IMG"
usage_case "bad overlay extension" "--overlay" -s "$SEEDS" -O "$TMP/o.tiff" "$IMG"
usage_case "bad thread count" "--threads must be" -s "$SEEDS" -T 65 "$IMG"
usage_case "negative thread count" "--threads must be" -s "$SEEDS" --threads -1 "$IMG"

# Trimaps written as PGM (the loader reads PNM too): $1 = bytes of the
# top band (0: background), then unknown (128), with a foreground block.
W=284
H=398
# (Heights under 210 are not supported: the bands would not fit.)
pgm() {
    { printf 'P5\n%d %d\n255\n' "$2" "$3"
      head -c $(($2 * 10)) /dev/zero
      head -c $(($2 * 190)) /dev/zero | tr '\0' '\200'
      head -c $(($2 * 10)) /dev/zero | tr '\0' "$1"
      head -c $(($2 * ($3 - 210))) /dev/zero | tr '\0' '\200'; } >"$4"
}
pgm '\377' $W $H "$TMP/tri.pgm"
{ printf 'P5\n%d %d\n255\n' $W $H; head -c $((W * H)) /dev/zero | tr '\0' '\377'; } >"$TMP/allfg.pgm"
pgm '\377' 10 220 "$TMP/small.pgm"

# --- a good run ---------------------------------------------------------------
run -q -s "$SEEDS" -o "$TMP/mask.png" -O "$TMP/over.png" -g "$TMP/g.max" -c "$IMG"
expect "a run exits 0" is 0
expect "a run is quiet with -q" err_empty
expect "the text names the foreground" out_has "foreground:"
expect "the text gives the stage times" out_has "load"
expect "the mask is a PNG" is_png "$TMP/mask.png"
expect "the overlay is a PNG" is_png "$TMP/over.png"
expect "the graph has the grid hint" grep -q "^c grid 284 398 8" "$TMP/g.max"
expect "no temporaries are left" eval '! ls "$TMP" | grep -q "\.tmp-"'

# The saved graph solves again to the same flow.
run -q -s "$SEEDS" --json "$IMG"
flow=$(sed -n 's/.*"flow": \([0-9]*\).*/\1/p' "$TMP/out")
"$GCUT" grid --json "$TMP/g.max" >"$TMP/gridout" 2>/dev/null
expect "gcut grid on the saved graph gives the same flow" grep -q "\"flow\": $flow[,}]" "$TMP/gridout"

# --json: one object with every field the issue asks for.
run -q -s "$SEEDS" --json -o "$TMP/m2.png" "$IMG"
expect "--json exits 0" is 0
for key in '"flow": ' '"energy": ' '"foreground": ' '"iterations": ' '"device": ' \
    '"time_ms": {' '"load": ' '"model": ' '"graph": ' '"cut": ' '"write": ' '"total": ' \
    '"width": 284' '"height": 398' '"outputs": {"mask": '; do
    expect "--json has $key" out_has "$key"
done
expect "--json is one line" eval '[ "$(wc -l <"$TMP/out")" -eq 1 ]'
if command -v python3 >/dev/null 2>&1; then
    expect "--json parses" python3 -c "import json,sys; json.load(open('$TMP/out'))"
fi

# The foreground's size, from --json (the error rate against the ground
# truth is checked by the Criterion suite).
fg=$(sed -n 's/.*"foreground": \([0-9]*\).*/\1/p' "$TMP/out")
expect "the foreground is a plausible part of the image" eval '[ "$fg" -gt 20000 ] && [ "$fg" -lt 60000 ]'

# Threads change the time, never the result: the same mask, flow and energy.
run -q -s "$SEEDS" -T 1 --json -o "$TMP/t1.png" "$IMG"
sed 's/"time_ms".*//' "$TMP/out" >"$TMP/t1.json"
run -q -s "$SEEDS" --threads 3 --json -o "$TMP/t3.png" "$IMG"
sed 's/"time_ms".*//' "$TMP/out" | sed 's/t3\.png/t1.png/' >"$TMP/t3.json"
expect "-T 3 gives the mask of -T 1" cmp -s "$TMP/t1.png" "$TMP/t3.png"
expect "-T 3 reports what -T 1 does" cmp -s "$TMP/t1.json" "$TMP/t3.json"

# --mask-values and 4-connectivity, histogram model, box and trimap seeds.
run -q -s "$SEEDS" -M 1,0 -o "$TMP/m10.png" "$IMG"
expect "--mask-values 1,0 works" eval 'is 0 && is_png "$TMP/m10.png"'
run -q -s "$SEEDS" -N 4 -m hist -i 2 --json "$IMG"
expect "-N 4 -m hist runs" eval 'is 0 && out_has "\"connectivity\": 4" && out_has "\"model\": \"hist\""'
run -q --box 20,20,260,380 --json "$IMG"
expect "a box alone segments" eval 'is 0 && out_has "\"foreground\": "'
run -q --trimap "$TMP/tri.pgm" --json "$IMG"
expect "a trimap segments" is 0
run -q --trimap "$TMP/tri.pgm" -s "$SEEDS" --box 5,5,278,392 --json "$IMG"
expect "seeds, trimap and box combine" is 0
if "$GCUT" segment --help | grep -q "jpg"; then
    run -q -s "$SEEDS" -O "$TMP/over.jpg" "$IMG"
    expect "a JPEG overlay" eval 'is 0 && [ -s "$TMP/over.jpg" ]'
fi

# --- runtime errors: exit 1, one message, no output left --------------------------
runtime_case() {
    local what=$1 msg=$2
    shift 2
    run "$@" -o "$TMP/fail-mask.png" -O "$TMP/fail-over.png" -g "$TMP/fail.max"
    expect "$what exits 1" is 1
    expect "$what says '$msg'" err_has "$msg"
    expect "$what prefixes gcut: segment:" err_has "gcut: segment:"
    expect "$what leaves no mask" nothing_at "$TMP/fail-mask.png"
    expect "$what leaves no overlay" nothing_at "$TMP/fail-over.png"
    expect "$what leaves no graph" nothing_at "$TMP/fail.max"
    expect "$what prints nothing on stdout" out_empty
}
runtime_case "a missing image" "$TMP/none.jpg" -s "$SEEDS" "$TMP/none.jpg"
head -c 3000 "$IMG" >"$TMP/trunc.jpg"
runtime_case "a truncated JPEG" "$TMP/trunc.jpg" -s "$SEEDS" "$TMP/trunc.jpg"
echo "not an image" >"$TMP/text.png"
runtime_case "a text file" "not an image" -s "$TMP/text.png" "$IMG"
runtime_case "a seed image of another size" "10x220" -s "$TMP/small.pgm" "$IMG"
expect "a seed image of another size names the image's size" err_has "284x398"
runtime_case "a box outside the image" "no pixel of the 284x398 image" --box 300,0,400,10 "$IMG"
runtime_case "only foreground seeds" "no background seeds" --trimap "$TMP/allfg.pgm" "$IMG"
run -q -s "$SEEDS" -o "$TMP/no/such/dir/m.png" "$IMG"
expect "an unwritable output exits 1" is 1
expect "an unwritable output is named" err_has "$TMP/no/such/dir/m.png"
# The overlay fails after the mask was written: the mask goes too.
run -q -s "$SEEDS" -o "$TMP/keep-not.png" -O "$TMP/no/such/dir/o.png" "$IMG"
expect "a failed overlay exits 1" is 1
expect "a failed overlay takes the mask with it" nothing_at "$TMP/keep-not.png"
run -d gpu -s "$SEEDS" "$IMG"
if [ "$rc" -ne 0 ]; then
    expect "--device gpu without a GPU solver exits 1" is 1
    expect "--device gpu without one says why" err_has "GPU"
fi

# GPU runs fork (cli_detach.c): the command returns with the child's status
# once the outputs are in place. GCUT_DETACH=1 forks without a driver too
# (a no-op in builds without CUDA).
export GCUT_DETACH=1
run -q --json -s "$SEEDS" -o "$TMP/detached.png" "$IMG"
expect "a detached run exits 0" is 0
expect "a detached run's mask is there when it returns" is_png "$TMP/detached.png"
expect "a detached run's JSON is whole" out_has '"foreground"'
"$GCUT" segment -q --json -s "$SEEDS" -o "$TMP/piped.png" "$IMG" | cat >"$TMP/out"
expect "a detached run's output through a pipe is whole" out_has '"foreground"'
run -q -s "$SEEDS" -o "$TMP/detached-missing.png" "$TMP/no-such-image.jpg"
expect "a detached failure exits 1" is 1
expect "a detached failure names the input" err_has "no-such-image.jpg"
expect "a detached failure writes nothing" nothing_at "$TMP/detached-missing.png"
# A signal to the command reaches its worker: seeds from a FIFO keep it waiting.
mkfifo "$TMP/seeds-fifo"
"$GCUT" segment -q -s "$TMP/seeds-fifo" -o "$TMP/killed.png" "$IMG" >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
expect "SIGTERM ends a detached run (143)" is 143
sleep 0.3
# (A finished worker that nobody reaped shows as "[gcut] <defunct>".)
worker_left() { ps -eo args= | grep -F "$TMP/seeds-fifo" | grep -qv grep; }
expect "SIGTERM leaves no worker running" eval '! worker_left'
expect "SIGTERM leaves no output" nothing_at "$TMP/killed.png"
unset GCUT_DETACH

finish
