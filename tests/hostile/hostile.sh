#!/usr/bin/env bash
# The hostile-input suite (issue 22): files and options a hostile or careless
# user would give, each case checking the exit status, the message, and that
# no output file is left (or an earlier one is left as it was) and no
# temporary either. One table of cases; files are made here, small.
# Usage: hostile.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
umask 022
pass=0
fail=0

# A path's state: absent, a folder, or its bytes' checksum.
state_of() {
    if [ -d "$1" ]; then echo folder
    elif [ -e "$1" ]; then md5sum <"$1" | cut -c1-32
    else echo absent
    fi
}

# hcase DESCRIPTION STATUS NEEDLE WATCHED -- ARGS...
# Runs gcut ARGS; expects exit STATUS, NEEDLE in stderr (empty: any), and
# each path of WATCHED (space-separated) as it was before: absent if it was
# absent, the same bytes if it existed; and no *.tmp-* file anywhere in $T.
hcase() {
    local what=$1 want=$2 needle=$3 watched=$4
    shift 5
    local p sums_before="" sums_after=""
    for p in $watched; do
        sums_before+="$p:$(state_of "$p") "
    done
    "$GCUT" "$@" >"$T/.out" 2>"$T/.err"
    local rc=$?
    for p in $watched; do
        sums_after+="$p:$(state_of "$p") "
    done
    local why=""
    [ "$rc" -eq "$want" ] || why="exit $rc, expected $want"
    [ -z "$why" ] && [ -n "$needle" ] && ! grep -qF -- "$needle" "$T/.err" && why="no '$needle' in stderr"
    [ -z "$why" ] && [ "$sums_before" != "$sums_after" ] && why="an output changed: $sums_after"
    [ -z "$why" ] && find "$T" -name '*.tmp-*' | grep -q . && why="a temporary was left: $(find "$T" -name '*.tmp-*')"
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what: $why"
        sed 's/^/  stderr: /' "$T/.err" | head -4
        find "$T" -name '*.tmp-*' -delete
    fi
}

# ---- inputs ----------------------------------------------------------------
IMG="$SRC/samples/teddy.jpg"
SCRIB="$SRC/samples/teddy-scribbles.png"
printf 'p max 4 5\nn 1 s\nn 4 t\na 1 2 3\na 1 3 2\na 2 3 1\na 2 4 2\na 3 4 3\n' >"$T/g.max"
cp "$SRC/samples/tiny.max" "$T/grid.max"
: >"$T/empty"
{ printf '\x00\xff\xfe garbage \x89PN'; yes 'Zq#@! 7 -1 a p n' | head -c 3000; } >"$T/garbage"
mkdir "$T/adir"
head -c 400 "$SCRIB" >"$T/truncated.png"
head -c 5000 "$IMG" >"$T/truncated.jpg"
printf 'P6\n64 64\n255\n' >"$T/truncated.ppm"
head -c 8 "$SCRIB" >"$T/signature-only.png"
printf 'P5\n16384 16385\n255\n' >"$T/huge.pgm"          # one pixel row past 2^28
printf 'P6\n99999999 99999999\n255\n' >"$T/huger.ppm"
printf 'p max 5 5\nn 1 s\nn 5 t\na 1 2 4\na 2 5 3\n' >"$T/truncated.max"
printf 'p max 100000000 1\nn 1 s\nn 2 t\na 1 2 5\n' >"$T/declared-huge.max"   # issue case 1
printf 'p max 3 1\nn 1 s\nn 3 t\na 1 3 2147483648\n' >"$T/cap-huge.max"
printf 'p max 3 1\nn 1 s\nn 3 t\na 4 3 5\n' >"$T/tail-range.max"
printf 'c grid 30000 30000 8\np max 900000002 0\nn 900000001 s\nn 900000002 t\n' >"$T/grid-huge.max"
printf 'c grid 2 1 4\np max 4 3\nn 3 s\nn 4 t\na 3 1 5\n' >"$T/grid-truncated.max"
echo "earlier" >"$T/earlier.png"
O="$T/o.png"; F="$T/f.sol"; C="$T/c.cut"; L="$T/l.png"

# ---- graph files -----------------------------------------------------------
W="$F $C"
hcase "maxflow: empty file" 1 "empty file" "$W" -- maxflow "$T/empty" --flow "$F" --cut "$C"
hcase "maxflow: garbage" 1 "garbage:1:" "$W" -- maxflow "$T/garbage" --flow "$F" --cut "$C"
hcase "maxflow: truncated" 1 "2 of the 5 arcs" "$W" -- maxflow "$T/truncated.max" --flow "$F" --cut "$C"
hcase "maxflow: 10^8 nodes declared in 4 lines" 1 "at most 4 of the 100000000 nodes" "$W" -- maxflow "$T/declared-huge.max" --flow "$F" --cut "$C"
hcase "maxflow: capacity 2^31" 1 "past the int32" "$W" -- maxflow "$T/cap-huge.max" --flow "$F" --cut "$C"
hcase "maxflow: tail N+1" 1 "tail-range.max:4: arc 4 -> 3: node id outside 1..3" "$W" -- maxflow "$T/tail-range.max" --flow "$F" --cut "$C"
hcase "maxflow: missing file" 1 "cannot open" "$W" -- maxflow "$T/nope.max" --flow "$F"
hcase "maxflow: a folder as input" 1 "adir" "$W" -- maxflow "$T/adir" --flow "$F"
hcase "maxflow: an image as input" 1 "teddy.jpg:1:" "$W" -- maxflow "$IMG" --flow "$F"
hcase "maxflow: --flow onto a folder" 1 "cannot write $T/adir" "$T/adir" -- maxflow "$T/g.max" --device cpu --flow "$T/adir"
hcase "maxflow: --flow into a missing folder" 1 "nodir/f.sol" "" -- maxflow "$T/g.max" --device cpu --flow "$T/nodir/f.sol"
hcase "maxflow: unknown option" 2 "" "$W" -- maxflow "$T/g.max" --frobnicate
hcase "grid: garbage" 1 "garbage:1:" "$L" -- grid "$T/garbage" --labels "$L"
hcase "grid: truncated" 1 "grid-truncated.max" "$L" -- grid "$T/grid-truncated.max" --labels "$L"
hcase "grid: 9*10^8 pixels declared in 4 lines" 1 "needs about" "$L" -- grid "$T/grid-huge.max" --labels "$L"
hcase "grid: a general graph" 1 "no grid hint" "$L" -- grid "$T/g.max" --labels "$L"
hcase "grid: --labels onto a folder" 1 "cannot write $T/adir" "$T/adir" -- grid "$T/grid.max" --device cpu --labels "$T/adir"
hcase "grid: bad connectivity option" 2 "" "$L" -- grid "$T/grid.max" --threads -3 --labels "$L"

# ---- images ----------------------------------------------------------------
W="$O $T/ov.png $T/sg.max"
S=(-o "$O" --overlay "$T/ov.png" --save-graph "$T/sg.max")
hcase "segment: empty image" 1 "empty file" "$W" -- segment -s "$SCRIB" "$T/empty" "${S[@]}"
hcase "segment: garbage image" 1 "not an image" "$W" -- segment -s "$SCRIB" "$T/garbage" "${S[@]}"
hcase "segment: truncated PNG" 1 "truncated.png" "$W" -- segment -s "$T/truncated.png" "$IMG" "${S[@]}"
hcase "segment: truncated JPEG" 1 "malformed JPEG" "$W" -- segment -s "$SCRIB" "$T/truncated.jpg" "${S[@]}"
hcase "segment: truncated PPM" 1 "truncated" "$W" -- segment -b 1,1,9,9 "$T/truncated.ppm" "${S[@]}"
hcase "segment: PNG signature only" 1 "malformed PNG" "$W" -- segment -s "$T/signature-only.png" "$IMG" "${S[@]}"
hcase "segment: a 122-byte PNG whose chunk declares 1.9 GB" 1 "declares 1936946035 bytes" "$W" -- segment -b 1,1,3,3 "$SRC/fuzz/regressions/png/oom-huge-chunk-length.png" "${S[@]}"
hcase "segment: 2^28 + 16384 pixels" 1 "over the limit of 268435456 pixels" "$W" -- segment -b 1,1,9,9 "$T/huge.pgm" "${S[@]}"
hcase "segment: 10^16 pixels" 1 "huger.ppm" "$W" -- segment -b 1,1,9,9 "$T/huger.ppm" "${S[@]}"
hcase "segment: seeds of another size" 1 "" "$W" -- segment -s "$SCRIB" "$T/truncated.ppm" "${S[@]}"
hcase "segment: -o onto a folder" 1 "cannot write $T/adir" "$T/adir" -- segment -s "$SCRIB" "$IMG" -i 1 --device cpu -o "$T/adir"
hcase "segment: -o into a missing folder" 1 "nodir/m.png" "" -- segment -s "$SCRIB" "$IMG" -i 1 --device cpu -o "$T/nodir/m.png"
hcase "segment: an earlier output kept on failure" 1 "" "$T/earlier.png" -- segment -s "$SCRIB" "$T/garbage" -o "$T/earlier.png"
hcase "segment: bad lambda" 2 "" "$W" -- segment -s "$SCRIB" "$IMG" --lambda -1 "${S[@]}"
hcase "segment: zero iterations" 2 "" "$W" -- segment -s "$SCRIB" "$IMG" -i 0 "${S[@]}"
hcase "segment: a box of three numbers" 2 "" "$W" -- segment -b 1,2,3 "$IMG" "${S[@]}"
hcase "segment: connectivity 6" 2 "" "$W" -- segment -s "$SCRIB" "$IMG" -N 6 "${S[@]}"
hcase "segment: no seeds" 2 "" "$W" -- segment "$IMG" "${S[@]}"

# ---- matrices and flow fields (match, assign, flow) ------------------------
MTX='%%MatrixMarket matrix coordinate pattern general'
printf '%s\n3 3 3\n1 1\n2 2\n3 3\n' "$MTX" >"$T/m.mtx"
printf '%s\n3 3 3\n1 1\n2 2\n' "$MTX" >"$T/m-truncated.mtx"
printf '%s\n1000000000 1000000000 1000000000000\n1 1\n' "$MTX" >"$T/m-declared-huge.mtx"
printf '%s\n1000000000 1000000000 1000000000\n1 1\n' "$MTX" >"$T/m-declared-many.mtx"
printf '%s\n1000000000 1000000000 1\n1 1\n' "$MTX" >"$T/m-declared-empty.mtx"
printf '1 1\n2 2000000000\n' >"$T/far-id.txt"
ln "$T/m.mtx" "$T/m-link.mtx"
printf '%%%%MatrixMarket matrix coordinate integer general\n1000000000 1000000000 1000000000\n1 1 5\n' >"$T/a-declared-many.mtx"
printf '2000000000 1\n7\n' >"$T/a-declared-rows.txt"
printf '3 3\n4 1 3\n2 0 5\n3 2 2\n' >"$T/a.txt"
printf '3 3\n4 1 3\n2 0\n' >"$T/a-short.txt"
printf '1 1\n0.25\n' >"$T/a-real.txt"
F0="$SRC/samples/rubberwhale-crop-10.png"; F1="$SRC/samples/rubberwhale-crop-11.png"
head -c 100 "$SRC/samples/rubberwhale-crop-10.flo" >"$T/truncated.flo"
printf 'PIEH\x10\x27\x00\x00\x10\x27\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$T/declared-huge.flo" # 10^4 x 10^4
P="$T/p.txt"; CV="$T/cover.txt"; FL="$T/f.flo"; VZ="$T/v.png"
W="$P $CV"
hcase "match: empty file" 1 "empty file" "$W" -- match "$T/empty" -o "$P" --cover "$CV"
hcase "match: garbage" 1 "garbage:1:" "$W" -- match "$T/garbage" -o "$P" --cover "$CV"
hcase "match: truncated" 1 "m-truncated.mtx:4: the file ends after 2 of the 3 entries" "$W" -- match "$T/m-truncated.mtx" -o "$P" --cover "$CV"
hcase "match: 10^12 entries declared in 3 lines" 1 "1000000000000 entries: at most 2147483646" "$W" -- match "$T/m-declared-huge.mtx" -o "$P" --cover "$CV"
hcase "match: 10^9 entries declared in 3 lines" 1 "after 1 of the 1000000000 entries" "$W" -- match "$T/m-declared-many.mtx" -o "$P" --cover "$CV"
hcase "match: 10^9 rows for one entry" 1 "at least 999999999 rows would have no entry" "$W" -- match "$T/m-declared-empty.mtx" -o "$P" --cover "$CV"
hcase "match: an edge list naming column 2*10^9" 1 "far-id.txt:2: column id 2000000000" "$W" -- match "$T/far-id.txt" -o "$P" --cover "$CV"
hcase "match: an image as input" 1 "teddy.jpg:1:" "$W" -- match "$IMG" -o "$P"
hcase "match: -o is the input" 2 "--output '$T/m.mtx' would overwrite the input" "$T/m.mtx" -- match "$T/m.mtx" -o "$T/m.mtx"
hcase "match: --cover is a hard link of the input" 2 "would overwrite the input" "$T/m.mtx" -- match "$T/m.mtx" --cover "$T/m-link.mtx"
hcase "match: -o x --cover x" 2 "are the same file" "$T/x.txt" -- match "$T/m.mtx" -o "$T/x.txt" --cover "$T/./x.txt"
hcase "match: -o fine, --cover into a missing folder" 1 "cannot write $T/nodir/c.txt" "$P" -- match "$T/m.mtx" -o "$P" --cover "$T/nodir/c.txt"
hcase "match: -o onto a folder" 1 "cannot write $T/adir" "$T/adir" -- match "$T/m.mtx" -o "$T/adir"
hcase "match: bad --format" 2 "--format must be auto, mtx or edges" "$W" -- match "$T/m.mtx" --format csv -o "$P"
hcase "match: --max-memory 100" 1 "over the memory budget of 100 bytes" "$W" -- match "$T/m.mtx" -o "$P" --cover "$CV" -X 100
W="$P"
hcase "assign: empty file" 1 "empty (no size line)" "$W" -- assign "$T/empty" -o "$P"
hcase "assign: garbage" 1 "not a text file" "$W" -- assign "$T/garbage" -o "$P"
hcase "assign: a short row" 1 "a-short.txt:3: fewer costs than columns" "$W" -- assign "$T/a-short.txt" -o "$P"
hcase "assign: 10^9 entries declared in 3 lines" 1 "a-declared-many.mtx:3: 1 entries of 1000000000" "$W" -- assign "$T/a-declared-many.mtx" -o "$P"
hcase "assign: 2*10^9 dense rows declared in 2 lines" 1 "1 rows of 2000000000" "$W" -- assign "$T/a-declared-rows.txt" -o "$P"
hcase "assign: a real cost without --scale" 1 "a-real.txt:2: a real cost" "$W" -- assign "$T/a-real.txt" -o "$P"
hcase "assign: -o is the input" 2 "would overwrite the input" "$T/a.txt" -- assign "$T/a.txt" -o "$T/a.txt"
hcase "assign: -o into a missing folder" 1 "cannot write $T/nodir/p.txt" "" -- assign "$T/a.txt" -o "$T/nodir/p.txt"
hcase "assign: an earlier output kept on failure" 1 "" "$T/earlier.png" -- assign "$T/a-short.txt" -o "$T/earlier.png"
hcase "assign: bad --scale" 2 "--scale must be a number above 0" "$W" -- assign "$T/a.txt" --scale nan -o "$P"
hcase "assign: --max-memory 500" 1 "assign: 3 rows, 3 columns and 9 arcs needs about" "$W" -- assign "$T/a.txt" -d cpu -o "$P" -X 500
W="$FL $VZ"
hcase "flow: a garbage frame" 1 "not an image" "$W" -- flow "$T/garbage" "$F1" -o "$FL" --viz "$VZ"
hcase "flow: a truncated frame" 1 "truncated.png" "$W" -- flow "$F0" "$T/truncated.png" -o "$FL" --viz "$VZ"
hcase "flow: frames of two sizes" 1 "but" "$W" -- flow "$F0" "$IMG" -o "$FL" --viz "$VZ"
hcase "flow: a truncated --gt" 1 "truncated.flo: ends at byte 100, 160 x 120 vectors need 153612 bytes" "$W" -- flow "$F0" "$F1" --gt "$T/truncated.flo" -o "$FL" --viz "$VZ"
hcase "flow: --gt declaring 10^8 vectors in 20 bytes" 1 "ends at byte 20, 10000 x 10000 vectors need 800000012 bytes" "$W" -- flow "$F0" "$F1" --gt "$T/declared-huge.flo" -o "$FL"
hcase "flow: a garbage --gt" 1 "not a .flo file" "$W" -- flow "$F0" "$F1" --gt "$T/garbage" -o "$FL"
cp "$F0" "$T/f0.png"
hcase "flow: -o is FRAME0" 2 "--output '$T/f0.png' would overwrite FRAME0" "$T/f0.png" -- flow "$T/f0.png" "$F1" -o "$T/f0.png"
hcase "flow: --viz is FRAME0" 2 "would overwrite FRAME0" "$T/f0.png" -- flow "$T/f0.png" "$F1" --viz "$T/f0.png"
hcase "flow: -o is --gt" 2 "would overwrite --gt" "$T/truncated.flo" -- flow "$F0" "$F1" --gt "$T/truncated.flo" -o "$T/truncated.flo"
hcase "flow: -o x --viz x" 2 "are the same file" "$T/fv.png" -- flow "$F0" "$F1" -o "$T/fv.png" --viz "$T/fv.png"
hcase "flow: -o fine, --viz into a missing folder" 1 "cannot write $T/nodir/v.png" "$FL" -- flow "$F0" "$F1" -o "$FL" --viz "$T/nodir/v.png"
hcase "flow: --viz not a picture name" 2 "--viz '$T/v.jpg': the name must end in .png or .ppm" "$W" -- flow "$F0" "$F1" --viz "$T/v.jpg"
hcase "flow: --radius 0" 2 "--radius must be an integer in 1..16" "$W" -- flow "$F0" "$F1" -r 0 -o "$FL"
hcase "flow: --max-memory 3M" 1 "160 x 120 frames with a window of radius 2 needs about" "$W" -- flow "$F0" "$F1" -d cpu -o "$FL" --viz "$VZ" -X 3M

# ---- the issue's five cases -------------------------------------------------
# 1: a 4-line file declaring 10^8 nodes (above, "declared in 4 lines").
# 2: outputs naming an input or another output: exit 2 before any work.
cp "$T/g.max" "$T/in.max"; cp "$SCRIB" "$T/seeds.png"; djpeg_in="$T/in.png"
cp "$SRC/samples/teddy-gt.png" "$djpeg_in"
ln "$T/in.max" "$T/hardlink.max"
hcase "2: -o is the image" 2 "would overwrite the image" "$djpeg_in" -- segment -s "$SCRIB" "$djpeg_in" -o "$djpeg_in"
hcase "2: -o is the seeds" 2 "would overwrite --seeds" "$T/seeds.png" -- segment -s "$T/seeds.png" "$IMG" -o "$T/seeds.png"
hcase "2: --overlay is -o" 2 "are the same file" "$O" -- segment -s "$SCRIB" "$IMG" --overlay "$O" -o "$O"
hcase "2: --save-graph is -o (another spelling)" 2 "are the same file" "$O" -- segment -s "$SCRIB" "$IMG" --save-graph "$O" -o "$T/./o.png"
hcase "2: grid --labels is the input" 2 "would overwrite the input" "$T/grid.max" -- grid "$T/grid.max" --labels "$T/grid.max"
hcase "2: maxflow --flow is the input" 2 "would overwrite the input" "$T/in.max" -- maxflow "$T/in.max" --flow "$T/in.max"
hcase "2: maxflow --flow is a hard link of the input" 2 "would overwrite the input" "$T/in.max" -- maxflow "$T/in.max" --flow "$T/hardlink.max"
hcase "2: --flow x --cut x" 2 "are the same file" "$T/x" -- maxflow "$T/in.max" --flow "$T/x" --cut "$T/x"
# 3: several outputs, one of them impossible: none written, before any work.
hcase "3: --flow f.sol --cut nodir/c.cut" 1 "cannot write $T/nodir/c.cut" "$F" -- maxflow "$T/g.max" --flow "$F" --cut "$T/nodir/c.cut"
mkdir "$T/adir.png"
hcase "3: segment -o fine, --overlay onto a folder" 1 "Is a directory" "$O" -- segment -s "$SCRIB" "$IMG" -o "$O" --overlay "$T/adir.png"
# 4: an empty foreground is a result; boxes clipped to the image.
"$GCUT" segment --box 10,10,10,10 "$IMG" -o "$T/empty-fg.png" --device cpu >/dev/null 2>"$T/.err4"
rc4=$?
if [ $rc4 -eq 0 ] && [ -s "$T/empty-fg.png" ] && grep -qF "foreground is empty" "$T/.err4"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: 4: empty foreground (exit $rc4)"; fi
"$GCUT" segment --box 16,20,284,398 "$IMG" -o "$T/edge.png" --device cpu -i 1 >/dev/null 2>"$T/.err4"
rc4=$?
if [ $rc4 -eq 0 ] && [ -s "$T/edge.png" ] && grep -qF "clipped to the 284x398 image: 16,20,283,397" "$T/.err4"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: 4: box to the edge (exit $rc4)"; fi
hcase "4: a box with no pixel inside" 1 "no pixel of the 284x398 image" "$O" -- segment --box 300,0,400,10 "$IMG" -o "$O"
# 5: a 16000x16000 PNG of 250 KB: refused by the budget before the work.
python3 - "$T/big.png" <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
co = zlib.compressobj(9); row = b'\0' + b'\x80' * 16000
idat = b''.join(co.compress(row) for _ in range(16000)) + co.flush()
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16000, 16000, 8, 0, 0, 0, 0)) + chunk(b'IDAT', idat) + chunk(b'IEND', b''))
PY
hcase "5: 16000x16000 PNG under --max-memory 1G" 1 "needs about 44 GiB, over the memory budget of 1.0 GiB" "$O" -- segment --box 100,100,15900,15900 "$T/big.png" -o "$O" --max-memory 1G
hcase "5: --max-memory on maxflow" 1 "over the memory budget of 100 bytes" "$F" -- maxflow "$T/g.max" --flow "$F" --max-memory 100
hcase "5: --max-memory on grid" 1 "over the memory budget" "$L" -- grid "$T/grid.max" --labels "$L" -X 1K
hcase "5: --max-memory on gen" 1 "over the memory budget" "$T/gen.max" -- gen rlg rows=100 cols=100 -o "$T/gen.max" -X 1M
hcase "bad --max-memory" 2 "--max-memory needs a size" "$O" -- segment -s "$SCRIB" "$IMG" -o "$O" --max-memory 12Q
hcase "maxflow: unknown algorithm" 2 "--algo must be one of" "$F" -- maxflow "$T/g.max" --algo nope --flow "$F"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
