#!/usr/bin/env bash
# gcut match: exit codes, messages naming file and line, --json shape, the
# pairs and cover files, --verify, devices, formats, and no output file
# after a failure or onto the input.
# Usage: match.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=match
. "$SRC/tests/cli_harness.sh"

# 4 rows x 3 columns; rows 1 and 2 both see only column 1, and (2, 1)
# appears twice: the maximum matching has 3 pairs.
M="$TMP/g.mtx"
cat >"$M" <<'MTX'
%%MatrixMarket matrix coordinate pattern general
% a small deficient graph
4 3 7
1 1
2 1
3 2
3 3
4 3
2 1
4 2
MTX
E="$TMP/g.txt"
printf '# the same graph as an edge list\n1 1\n2 1\n3 2\n3 3\n4 3\n2 1\n4 2\n' >"$E"

# --- help and version ---------------------------------------------------------
run --help
expect "--help exits 0 with the usage on stdout" eval 'is 0 && out_has "Usage: gcut match" && err_empty'
expect "--help names the options" eval 'out_has "--algo" && out_has "--cover" && out_has "--verify" && out_has "--format"'
run --version
expect "--version exits 0" eval 'is 0 && out_has "gcut "'

# --- usage errors ---------------------------------------------------------------
run
expect "no file: exit 2 and the hint" eval 'is 2 && err_has "no input file" && err_has "Try '\''gcut match --help'\''" && out_empty'
run --bogus "$M"
expect "unknown option: exit 2" eval 'is 2 && err_has "bogus" && out_empty'
run "$M" --output
expect "a missing value: exit 2 naming the option" eval 'is 2 && err_has "option '\''--output'\'' needs a value"'
run --device quantum "$M"
expect "bad --device: exit 2 naming it" eval 'is 2 && err_has "quantum"'
run --format csv "$M"
expect "bad --format: exit 2 naming it" eval 'is 2 && err_has "csv"'
run "$M" "$M"
expect "two files: exit 2" is 2
cp "$M" "$TMP/keep.mtx"
run -o "$TMP/keep.mtx" "$TMP/keep.mtx"
expect "-o onto the input: exit 2" eval 'is 2 && err_has "would overwrite the input"'
expect "-o onto the input leaves it alone" cmp -s "$M" "$TMP/keep.mtx"
run --cover "$TMP/keep.mtx" "$TMP/keep.mtx"
expect "--cover onto the input: exit 2" eval 'is 2 && err_has "--cover" && err_has "would overwrite the input"'
expect "--cover onto the input leaves it alone" cmp -s "$M" "$TMP/keep.mtx"
run -o "$TMP/same.txt" -c "$TMP/same.txt" "$M"
expect "-o and --cover on one file: exit 2" eval 'is 2 && err_has "are the same file" && nothing_at "$TMP/same.txt"'
run -X 10Q "$M"
expect "bad --max-memory: exit 2 naming it" eval 'is 2 && err_has "--max-memory"'

# --- solving --------------------------------------------------------------------
for algo in pr hk; do
    for input in "$M" "$E"; do
        run --algo "$algo" "$input"
        expect "$algo $(basename "$input"): exit 0, 3 pairs" eval 'is 0 && out_has "matching 3"'
        expect "$algo $(basename "$input"): counts the merged duplicate" out_has "7 entries, 1 duplicates merged"
    done
    run -a "$algo" -v -j "$M"
    expect "$algo --json --verify: exit 0" is 0
    expect "$algo --json: one line" eval '[ "$(wc -l <"$TMP/out")" -eq 1 ]'
    for key in '"matching_size": 3' '"rows": 4' '"cols": 3' '"edges": 6' '"time_ms": ' '"device": "cpu"' "\"algo\": \"$algo\"" '"verified": true'; do
        expect "$algo --json has $key" out_has "$key"
    done
    if command -v python3 >/dev/null; then
        expect "$algo --json parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["matching_size"]==3 and isinstance(d["time_ms"],float)' "$TMP/out"
    fi
done
run --algo nope "$M"
expect "unknown algorithm: exit 1 naming the list" eval 'is 1 && err_has "nope" && err_has "pr,hk"'
run --format edges "$M"
expect "--format edges on a Matrix Market file: exit 1 naming it" eval 'is 1 && err_has "g.mtx:"'
cp "$E" "$TMP/list.mtx"
run --format edges "$TMP/list.mtx"
expect "--format edges reads an edge list named .mtx" eval 'is 0 && out_has "matching 3"'

# --- devices --------------------------------------------------------------------
run --device gpu -o "$TMP/gpu.txt" "$M"
if [ "$rc" -eq 0 ]; then
    expect "--device gpu: 3 pairs on the GPU" eval 'out_has "matching 3" && out_has "gpr on" && ! out_has "on cpu"'
    run -a gpr -v -j "$M"
    expect "gpr --verify --json" eval 'is 0 && out_has "\"matching_size\": 3" && out_has "\"verified\": true"'
else
    expect "--device gpu fails clearly" eval 'is 1 && err_has "GPU" && out_empty'
    expect "--device gpu leaves no pairs file" nothing_at "$TMP/gpu.txt"
    run --device auto "$M"
    expect "--device auto runs on the CPU and says so" eval 'is 0 && out_has "on cpu" && err_has "CPU"'
fi
run --device cpu -a gpr "$M"
expect "gpr on --device cpu: exit 1" eval 'is 1 && err_has "gpr"'

# --- outputs --------------------------------------------------------------------
run -a hk -o "$TMP/pairs.txt" --cover "$TMP/cover.txt" "$M"
expect "-o --cover: exit 0" is 0
expect "three pairs, 1-based" eval '[ "$(wc -l <"$TMP/pairs.txt")" -eq 3 ]'
expect "every pair is an edge of the file" awk '
    NR == FNR { if (FNR > 3) edge[$1 " " $2] = 1; next }
    !(($1 " " $2) in edge) { exit 1 }' "$M" "$TMP/pairs.txt"
expect "no row or column twice" eval '[ "$(cut -d" " -f1 "$TMP/pairs.txt" | sort -u | wc -l)" -eq 3 ] && [ "$(cut -d" " -f2 "$TMP/pairs.txt" | sort -u | wc -l)" -eq 3 ]'
expect "the cover has 3 vertices" eval '[ "$(wc -l <"$TMP/cover.txt")" -eq 3 ]'
expect "the cover touches every edge" awk '
    NR == FNR { if ($1 == "r") r[$2] = 1; else c[$2] = 1; next }
    FNR > 3 && !/^%/ && !(($1 in r) || ($2 in c)) { exit 1 }' "$TMP/cover.txt" "$M"
expect "output files get the usual mode" mode_is "$TMP/pairs.txt" 644

# --- bad input: exit 1, PATH:LINE, no output files ---------------------------------
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n4 1\n' >"$TMP/range.mtx"
run -o "$TMP/bad.txt" --cover "$TMP/badc.txt" -v "$TMP/range.mtx"
expect "an id out of range: exit 1 naming file and line" eval 'is 1 && err_has "range.mtx:4:" && out_empty'
expect "a bad file leaves no pairs file" nothing_at "$TMP/bad.txt"
expect "a bad file leaves no cover file" nothing_at "$TMP/badc.txt"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n' >"$TMP/short.mtx"
run "$TMP/short.mtx"
expect "a truncated file: exit 1, line named" eval 'is 1 && err_has "short.mtx:3:" && err_has "1 of the 2"'
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 nan\n' >"$TMP/nan.mtx"
run "$TMP/nan.mtx"
expect "a NaN value: exit 1, line named" eval 'is 1 && err_has "nan.mtx:3:" && err_has "finite"'
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1\n2 2\n' >"$TMP/many.mtx"
run "$TMP/many.mtx"
expect "too many entries: exit 1, line named" eval 'is 1 && err_has "many.mtx:4:" && err_has "more entries"'
printf '1 2\n3 x\n' >"$TMP/bad.txt.in"
run --format edges "$TMP/bad.txt.in"
expect "a bad edge line: exit 1, line named" eval 'is 1 && err_has "bad.txt.in:2:"'
run "$TMP/missing.mtx"
expect "a missing file: exit 1 naming it" eval 'is 1 && err_has "missing.mtx"'
run -o "$TMP/no/such/dir/p.txt" "$M"
expect "an unwritable output: exit 1" eval 'is 1 && err_has "no/such/dir"'
run -o "$TMP/p2.txt" -c "$TMP/no/such/dir/c.txt" "$M"
expect "one unwritable output of two: exit 1, neither written" eval 'is 1 && err_has "no/such/dir/c.txt" && nothing_at "$TMP/p2.txt"'
run --max-memory 100 -o "$TMP/p3.txt" "$M"
expect "--max-memory too small: exit 1 naming the budget, no file" eval 'is 1 && err_has "over the memory budget" && nothing_at "$TMP/p3.txt"'
run --max-memory 64M -o "$TMP/p4.txt" "$M"
expect "--max-memory large enough: exit 0" eval 'is 0 && out_has "matching 3" && [ -s "$TMP/p4.txt" ]'
expect "no temporary left beside the outputs" eval '! ls "$TMP" | grep -q "tmp-"'

finish
