#!/bin/bash
# Bad captures: truncated, corrupted, wrong version, binary, enormous, missing:
# a clear error naming the file and line, exit 3, no crash, no hang. Every
# other input file over its size limit is refused before it is read, too.
. "$(dirname "$0")/lib.sh"
good=$ROOT/fixtures/captures/net.2sw2path4hca.cap

head -c 20000 "$good" >"$TMP/trunc.cap"
run 3 topology --replay "$TMP/trunc.cap"
err_has "$TMP/trunc.cap:"
# Version 2 (the end record): cut between lines, a warning that it was cut short; cut within one, file:line.
grep -qE "trunc.cap:[0-9]+: (truncated|bad)|trunc.cap: the recording was cut short" "$TMP/err" ||
	fail "truncated: no file:line reason and no word that it was cut short"

# Cut right after a request line: the exchange is incomplete.
awk 'BEGIN{n=0} /^> /{n++} {print} n==3 && /^> /{exit}' "$good" >"$TMP/cut.cap"
run 3 topology --replay "$TMP/cut.cap"
err_has "cut.cap:"
# Version 1 says the exchange is incomplete; version 2 (the bundled captures) that it has no end record.
grep -qE "truncated: the last exchange is incomplete|cut.cap: the recording was cut short" "$TMP/err" ||
	fail "cut: neither 'the last exchange is incomplete' nor 'cut short'"

ln=$(grep -n '^< resp ' "$good" | sed -n 3p | cut -d: -f1)
sed "${ln}s/^< resp ../< resp zz/" "$good" >"$TMP/corrupt.cap"
run 3 nodes --replay "$TMP/corrupt.cap"
err_has "corrupt.cap:$ln: bad response bytes"

sed '1s/.*/ibscan-capture 9/' "$good" >"$TMP/v9.cap"
run 3 topology --replay "$TMP/v9.cap"
err_has "v9.cap:1: capture format version 9 is not supported"

run 3 topology --replay "$IBSCAN"
err_has "not a capture (binary file?)"

run 3 topology --replay "$TMP/nonexistent.cap"
err_has "cannot open '$TMP/nonexistent.cap': No such file or directory"

# Enormous: refused from its size, before reading (a sparse 2 GiB file).
truncate -s 2G "$TMP/huge.cap"
start=$(date +%s%N)
run 3 topology --replay "$TMP/huge.cap"
err_has "is larger than the limit"
ms=$((($(date +%s%N) - start) / 1000000))
[ $ms -le 1000 ] || fail "enormous capture took $ms ms to refuse, want at most 1000 (reading 2 GiB would take longer)"
# The other input files too, each just over its limit (sparse files).
truncate -s $((512 * 1024 * 1024 + 1)) "$TMP/huge.json"
run 3 diff "$TMP/huge.json" "$TMP/huge.json"
err_has "'$TMP/huge.json' is larger than the limit of 536870912 bytes"
truncate -s $((64 * 1024 * 1024 + 1)) "$TMP/huge.map"
run 3 topology --replay "$ROOT/fixtures/captures/net.2sw2path4hca.cap" --node-name-map "$TMP/huge.map"
err_has "'$TMP/huge.map' is larger than the limit of 67108864 bytes"
truncate -s $((1024 * 1024 + 1)) "$TMP/huge.thr"
run 3 health --replay "$ROOT/fixtures/captures/net.2sw2path4hca.cap" --thresholds "$TMP/huge.thr"
err_has "'$TMP/huge.thr' is larger than the limit of 1048576 bytes"

# A line of 100 MB with no newline.
{ echo "ibscan-capture 1"; head -c 100000000 /dev/zero | tr '\0' 'a'; } >"$TMP/longline.cap"
run 3 capture info "$TMP/longline.cap"
err_has "longline.cap:2: line too long"

# A directory.
run 3 topology --replay "$TMP"
err_has "$TMP"

# capture info and export share the parser.
run 3 capture info "$TMP/v9.cap"
err_has "v9.cap:1:"
run 3 capture export "$TMP/corrupt.cap" -o "$TMP/x.pcap"
[ ! -e "$TMP/x.pcap" ] || fail "export left a file behind on error"
run 2 capture export "$good"
err_has "export needs -o OUT.pcap"
run 2 capture
err_has "missing subcommand"
run 2 capture frob "$good"
err_has "unknown subcommand 'frob'"

# --replay-strict: a request the capture does not hold is an error naming it.
grep -v '^#' "$good" | awk '/^x SMI-DR Get PortInfo mod=5 addr=dr:0$/{skip=3} skip>0{skip--; next} {print}' >"$TMP/hole.cap"
run 3 topology --replay "$TMP/hole.cap" --replay-strict
err_has "has no answer for SMI-DR Get PortInfo mod=5 addr=dr:0 (--replay-strict)"
grep -q "did the device or the simulator go away" "$TMP/err" && fail "a strict replay's miss blamed on a device"
# Without it the hole is a dead target: the walk goes on and says partial.
run 3 topology --replay "$TMP/hole.cap" --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['partial'] and d['summary']['nodes']==6" "$TMP/out" || fail "hole: not partial"
run 2 topology --replay "$good" --record "$TMP/r.cap"

# A capture cut short in place while it is read through its mapping (a preload cuts it to
# nothing right after mmap, as `cp` over it would): every command that maps one says which
# file, exit 3, rather than die by a bare SIGBUS (135); a replay does not blame an index it
# does not have; health's -o says UNKNOWN. The release build: ASan refuses foreign preloads.
cc -shared -fPIC -o "$TMP/cut.so" "$ROOT/tests/cli/preload/cutidx.c" -ldl || fail "cannot build the preload"
bin=${IBSCAN_PRELOAD_BIN:-$ROOT/ibscan}
mapped() { # WHAT ARGS...: ARGS on a fresh copy of a capture that the preload cuts once mapped
	local what=$1 rc=0
	shift
	cp "$ROOT/fixtures/captures/fattree2-small.cap" "$TMP/m.cap"
	CUTIDX_SUFFIX=.cap LD_PRELOAD=$TMP/cut.so "$bin" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ ! -s "$TMP/m.cap" ] || fail "$what: the preload did not cut the capture"
	[ $rc = 3 ] || { cat "$TMP/err"; fail "$what: exit $rc, want 3"; }
	[ "$(cat "$TMP/err")" = "ibscan: error: $TMP/m.cap: the capture was cut short while it was read (changed in place?); run again" ] ||
		fail "$what: stderr is '$(cat "$TMP/err")'"
}
mapped "capture info" capture info "$TMP/m.cap"
mapped "capture export" capture export "$TMP/m.cap" -o "$TMP/m.pcap"
[ ! -e "$TMP/m.pcap" ] || fail "capture export of a capture cut short left a pcap"
mapped "capture index" capture index "$TMP/m.cap"
[ ! -e "$TMP/m.cap.idx" ] || fail "capture index of a capture cut short left an index"
mapped "--replay" nodes --replay "$TMP/m.cap"
echo "IBSCAN OK - the last run" >"$TMP/v.txt"
mapped "health --replay" health --replay "$TMP/m.cap" -o "$TMP/v.txt"
grep -q '^IBSCAN UNKNOWN - a file being read was cut short under it (SIGBUS): stopped |' "$TMP/v.txt" ||
	fail "health -o after SIGBUS: $(cat "$TMP/v.txt")"
echo "bad captures: ok"
t_done
