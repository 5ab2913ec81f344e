#!/usr/bin/env bash
# gcut flow: exit codes, messages, --json shape, the .flo and picture
# outputs, the error against ground truth, thread-count independence, and no
# output file left after a failure. Usage: flow.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
F0="$SRC/samples/rubberwhale-crop-10.png"
F1="$SRC/samples/rubberwhale-crop-11.png"
GT="$SRC/samples/rubberwhale-crop-10.flo"
SUBCOMMAND=flow
. "$SRC/tests/cli_harness.sh"

# --- help and version -------------------------------------------------------
run --help
expect "--help exits 0" is 0
expect "--help prints the usage on stdout" out_has "Usage: gcut flow"
for opt in --output --viz --gt --json --radius --levels --patch --cost --occlusion-cost \
    --motion-penalty --iterations --smoothness --device --algo --threads --repeat; do
    expect "--help names $opt" out_has "$opt"
done
expect "--help writes nothing on stderr" err_empty
run -h
expect "-h exits 0" eval 'is 0 && out_has "Usage: gcut flow"'
run --version
expect "--version exits 0 with the version" eval 'is 0 && out_has "gcut"'

# --- usage errors: exit 2, a hint, nothing on stdout ---------------------------
usage_case() {
    local what=$1 msg=$2
    shift 2
    run "$@"
    expect "$what exits 2" is 2
    expect "$what says '$msg'" err_has "$msg"
    expect "$what points to --help" err_has "Try 'gcut flow --help'."
    expect "$what prints nothing on stdout" out_empty
}
usage_case "no frames" "two frames needed, 0 given"
usage_case "one frame" "two frames needed, 1 given" "$F0"
usage_case "three frames" "two frames only" "$F0" "$F1" "$F0"
usage_case "unknown option" "unknown option" --frobnicate "$F0" "$F1"
usage_case "missing value" "needs a value" "$F0" "$F1" --radius
usage_case "radius 0" "--radius must be an integer in 1..16" -r 0 "$F0" "$F1"
usage_case "radius text" "--radius must be an integer in 1..16, not 'x'" -r x "$F0" "$F1"
usage_case "levels 11" "--levels must be an integer in 1..10" -L 11 "$F0" "$F1"
usage_case "even patch" "--patch must be 3, 5 or 7" -p 4 "$F0" "$F1"
usage_case "patch 9" "--patch must be an integer in 3..7" -p 9 "$F0" "$F1"
usage_case "unknown cost" "--cost must be census or sad" -C ncc "$F0" "$F1"
usage_case "occlusion cost 0" "--occlusion-cost must be an integer" -k 0 "$F0" "$F1"
usage_case "negative penalty" "--motion-penalty must be an integer" -m -1 "$F0" "$F1"
usage_case "too many iterations" "--iterations must be an integer in 0..50" -i 51 "$F0" "$F1"
usage_case "zero smoothness" "--smoothness must be a number" -s 0 "$F0" "$F1"
usage_case "viz extension" "--viz '$TMP/v.jpg': the name must end in .png or .ppm" \
    -z "$TMP/v.jpg" "$F0" "$F1"
usage_case "unknown device" "--device must be auto, cpu or gpu" -d tpu "$F0" "$F1"
usage_case "threads 65" "--threads must be an integer in 0..64" -T 65 "$F0" "$F1"
usage_case "repeat 0" "--repeat must be an integer in 1..1000" -n 0 "$F0" "$F1"

# --- a flow with every output ------------------------------------------------------
# Each solve is checked for several things at once (a few seconds each, a
# minute under the sanitizers): the text and the outputs here, the JSON and
# the thread count below.
run -q -d cpu -T 1 -o "$TMP/f.flo" -z "$TMP/f.png" -g "$GT" "$F0" "$F1"
expect "a flow exits 0" is 0
expect "the text names the error" out_has "error: EPE"
expect "the text names the outputs" eval 'out_has "flow: $TMP/f.flo" && out_has "viz: $TMP/f.png"'
expect "the .flo has the tag and 160x120 vectors" eval \
    '[ "$(head -c 4 "$TMP/f.flo")" = "PIEH" ] && [ "$(stat -c %s "$TMP/f.flo")" -eq 153612 ]'
expect "the picture is a PNG" is_png "$TMP/f.png"
expect "outputs get the usual mode" eval 'mode_is "$TMP/f.flo" 644 && mode_is "$TMP/f.png" 644'
expect "no temporary is left" eval '! ls "$TMP" | grep -q "\.tmp-"'

# The result does not depend on the number of threads.
run -q -d cpu -T 3 --json -g "$GT" -o "$TMP/t3.flo" "$F0" "$F1"
expect "--json exits 0" is 0
expect "-T 3 writes what -T 1 does" cmp -s "$TMP/f.flo" "$TMP/t3.flo"
for key in '"width": 160' '"height": 120' '"time_ms"' '"device": "cpu"' '"epe"' '"aae"' \
    '"algo"' '"arcs"' '"occluded"' '"levels"'; do
    expect "--json has $key" out_has "$key"
done
expect "--json is one line" eval '[ "$(wc -l <"$TMP/out")" -eq 1 ]'
if command -v python3 >/dev/null; then
    expect "--json parses" python3 -c "import json,sys; json.load(open('$TMP/out'))"
    # The sample is a crop of Middlebury's RubberWhale: the default method
    # finds its flow within a fifth of a pixel on average (0.18 measured).
    expect "the sample's EPE is under 0.25" python3 -c \
        "import json,sys; sys.exit(0 if json.load(open('$TMP/out'))['epe'] < 0.25 else 1)"
fi
# The flow against itself as ground truth: no error. Other options run.
run -q -d cpu --json -g "$TMP/f.flo" "$F0" "$F1"
expect "a flow against itself has EPE 0" out_has '"epe": 0.000000, "aae": 0.000000'
run -q -d cpu --json -C sad -p 3 -r 1 -L 2 -k 30 -m 0 -i 0 -s 4 -o "$TMP/o.flo" "$F0" "$F1"
expect "other options run" eval 'is 0 && [ -s "$TMP/o.flo" ]'
expect "without --gt there is no epe" eval 'is 0 && ! out_has "\"epe\""'
# --repeat: the flow computed again in the same process, the same result.
run -q -d cpu --json -n 2 -L 2 -o "$TMP/r2.flo" "$F0" "$F1"
expect "--repeat 2 runs twice" eval 'is 0 && out_has "\"runs\": 2, \"first_ms\""'
run -q -d cpu -L 2 -o "$TMP/r1.flo" "$F0" "$F1"
expect "--repeat gives the flow of one run" cmp -s "$TMP/r1.flo" "$TMP/r2.flo"

# --- runtime errors: exit 1, the message names the file, nothing written ----------
runtime_case() {
    local what=$1 msg=$2
    shift 2
    run -q -o "$TMP/fail.flo" -z "$TMP/fail.png" "$@"
    expect "$what exits 1" is 1
    expect "$what says '$msg'" err_has "$msg"
    expect "$what prints nothing on stdout" out_empty
    expect "$what leaves no flow" nothing_at "$TMP/fail.flo"
    expect "$what leaves no picture" nothing_at "$TMP/fail.png"
}
runtime_case "a missing frame" "$TMP/none.png" "$TMP/none.png" "$F1"
printf 'not an image' >"$TMP/bad.png"
runtime_case "a frame that is no image" "$TMP/bad.png" "$F0" "$TMP/bad.png"
runtime_case "frames of two sizes" "is 160x120 but" "$F0" "$SRC/samples/teddy.jpg"
head -c 1000 "$GT" >"$TMP/cut.flo"
runtime_case "a truncated ground truth" "$TMP/cut.flo: ends at byte 1000" -g "$TMP/cut.flo" \
    "$F0" "$F1"
printf 'PIEX\002\000\000\000\002\000\000\000' >"$TMP/tag.flo"
runtime_case "a ground truth with a bad tag" "not a .flo file" -g "$TMP/tag.flo" "$F0" "$F1"
printf 'PIEH\002\000\000\000\002\000\000\000' >"$TMP/small.flo"
head -c 32 /dev/zero >>"$TMP/small.flo"
runtime_case "a ground truth of another size" "is 2x2 but the frames are 160x120" \
    -g "$TMP/small.flo" "$F0" "$F1"
run -q -d cpu -o "$TMP/no/such/dir/f.flo" "$F0" "$F1"
expect "an unwritable output exits 1" is 1
expect "an unwritable output is named" err_has "$TMP/no/such/dir/f.flo"
# The picture fails after the flow was written: the flow goes too.
run -q -d cpu -o "$TMP/keep-not.flo" -z "$TMP/no/such/dir/v.png" "$F0" "$F1"
expect "a failed picture exits 1" is 1
expect "a failed picture takes the flow with it" nothing_at "$TMP/keep-not.flo"
run -d gpu "$F0" "$F1"
if [ "$rc" -ne 0 ]; then
    expect "--device gpu without a GPU exits 1" is 1
    expect "--device gpu without one says why" err_has "GPU"
fi

finish
