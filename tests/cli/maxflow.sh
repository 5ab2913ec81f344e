#!/usr/bin/env bash
# gcut maxflow: exit codes, messages naming file and line, --json shape,
# --flow / --cut files, --verify, devices, and no output file after a failure.
# Usage: maxflow.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=maxflow
. "$SRC/tests/cli_harness.sh"

# A diamond with a parallel arc (1->2 twice) and a self-loop: flow 5.
G="$TMP/g.max"
cat >"$G" <<'MAX'
c diamond
p max 4 7
n 1 s
n 4 t
a 1 2 3
a 1 3 2
a 2 4 2
a 3 4 4
a 2 3 1
a 1 2 2
a 3 3 9
MAX

# --- help and version ---------------------------------------------------------
run --help
expect "--help exits 0 with the usage on stdout" eval 'is 0 && out_has "Usage: gcut maxflow" && err_empty'
expect "--help names the options" eval 'out_has "--algo" && out_has "--flow" && out_has "--verify"'
run --version
expect "--version exits 0" eval 'is 0 && out_has "gcut "'

# --- usage errors ---------------------------------------------------------------
run
expect "no file: exit 2 and the hint" eval 'is 2 && err_has "no input file" && err_has "Try '\''gcut maxflow --help'\''" && out_empty'
run --bogus "$G"
expect "unknown option: exit 2" eval 'is 2 && err_has "bogus" && out_empty'
expect "unknown option: one message, no getopt text" eval '[ "$(grep -c . "$TMP/err")" -eq 2 ] && ! err_has "unrecognized"'
run "$G" --flow
expect "a missing value: exit 2 naming the option" eval 'is 2 && err_has "option '\''--flow'\'' needs a value" && out_empty'
run --verify=yes "$G"
expect "a value for a flag: exit 2 naming it" eval 'is 2 && err_has "option '\''--verify'\'' takes no value"'
run --device quantum "$G"
expect "bad --device: exit 2 naming it" eval 'is 2 && err_has "quantum"'
run "$G" "$G"
expect "two files: exit 2" is 2

# --- solving --------------------------------------------------------------------
for algo in prf bk; do
    run --algo "$algo" "$G"
    expect "$algo: exit 0" is 0
    expect "$algo: prints the flow" out_has "flow 5"
    expect "$algo: counts merged arcs and self-loops" out_has "1 parallel merged, 1 self-loops dropped"
    run -a "$algo" -v -j "$G"
    expect "$algo --json --verify: exit 0" is 0
    expect "$algo --json: one line" eval '[ "$(wc -l <"$TMP/out")" -eq 1 ]'
    for key in '"flow": 5' '"time_ms": ' '"device": "cpu"' "\"algo\": \"$algo\"" '"nodes": 4' '"arcs": 7' '"verified": true' '"cut_capacity": 5'; do
        expect "$algo --json has $key" out_has "$key"
    done
    if command -v python3 >/dev/null; then
        expect "$algo --json parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["flow"]==5 and isinstance(d["time_ms"],float)' "$TMP/out"
    fi
done
run --algo nope "$G"
expect "unknown algorithm: a usage error (exit 2) naming the list" eval 'is 2 && err_has "nope" && err_has "prf,bk"'
run --device auto "$G"
expect "--device auto runs on the CPU" eval 'is 0 && out_has "on cpu"'
run --device gpu --flow "$TMP/gpu.sol" "$G"
expect "--device gpu fails clearly" eval 'is 1 && err_has "GPU" && out_empty'
expect "--device gpu leaves no flow file" nothing_at "$TMP/gpu.sol"

# --- outputs --------------------------------------------------------------------
run --flow "$TMP/f.sol" --cut "$TMP/c.txt" "$G"
expect "--flow --cut: exit 0" is 0
expect "the flow file has the value" grep -qx "s 5" "$TMP/f.sol"
expect "the flow file has one f line per distinct arc" eval '[ "$(grep -c "^f " "$TMP/f.sol")" -eq 5 ]'
expect "the flow conserves at 2 and 3 and sends 5" awk '
    /^f / { net[$3] += $4; net[$2] -= $4 }
    END { exit !(net[1] == -5 && net[2] == 0 && net[3] == 0 && net[4] == 5) }' "$TMP/f.sol"
expect "the cut file lists the source side" eval 'grep -v "^c" "$TMP/c.txt" | tr "\n" " " | grep -qx "1 2 "'

# --- bad input: exit 1, PATH:LINE, no output files ---------------------------------
printf 'p max 3 1\nn 1 s\nn 3 t\na 1 9 4\n' >"$TMP/range.max"
run --flow "$TMP/bad.sol" --cut "$TMP/bad.txt" "$TMP/range.max"
expect "a bad node id: exit 1" is 1
expect "a bad node id names file and line" err_has "$TMP/range.max:4:"
expect "a bad node id: nothing on stdout" out_empty
expect "a bad file leaves no flow file" nothing_at "$TMP/bad.sol"
expect "a bad file leaves no cut file" nothing_at "$TMP/bad.txt"
printf 'p max 3 2\nn 1 s\nn 3 t\na 1 2 4\n' >"$TMP/short.max"
run "$TMP/short.max"
expect "a truncated file: exit 1, line named" eval 'is 1 && err_has "short.max:4:" && err_has "1 of the 2"'
printf 'p max 3 1\nn 1 s\nn 3 t\nq\n' >"$TMP/fmt.max"
run "$TMP/fmt.max"
expect "an unknown line: exit 1, line named" eval 'is 1 && err_has "fmt.max:4:"'
run "$TMP/missing.max"
expect "a missing file: exit 1 naming it" eval 'is 1 && err_has "missing.max"'
run --flow "$TMP/no/such/dir/f.sol" "$G"
expect "an unwritable output: exit 1" eval 'is 1 && err_has "no/such/dir"'

finish
