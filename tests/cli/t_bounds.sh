#!/bin/bash
# Bounded work and memory (docs/reliability.md): every kind of file ibscan
# reads, at 1x, 10x and 100x a base size, takes peak memory within the bound
# stated for it and CPU time that grows linearly (tests/cli/bounds.py, which
# prints the figures); a device or pipe is cut at once or at the limit; an
# oversized file is refused from its size. Measured on the release build:
# under ASan, ASan's own memory would be what is measured.
. "$(dirname "$0")/lib.sh"
bin=${IBSCAN_BOUNDS_BIN:-$ROOT/ibscan}
fix=$ROOT/fixtures/captures/fattree3.cap
cc -O2 -o "$TMP/rusage" "$ROOT/tests/cli/rusage.c" || fail "cannot build the rusage helper"
python3 "$ROOT/tests/cli/bounds.py" "$TMP/rusage" "$bin" "$TMP" || fail "an input outgrew its bound (figures above)"

# usage WANT-RC MAX-KB ARGS...: exit code, then peak RSS at most MAX-KB and CPU under 1 s.
usage() {
	local want=$1 max=$2 rc kb cpu
	shift 2
	read -r rc kb cpu <<<"$("$TMP/rusage" "$bin" "$@")"
	[ "$rc" = "$want" ] || fail "ibscan $*: exit $rc, want $want"
	[ "$kb" -le "$max" ] || fail "ibscan $*: peak RSS $kb KiB, want at most $max"
	awk -v c="$cpu" 'BEGIN { exit !(c < 1) }' || fail "ibscan $*: $cpu s of CPU"
}

# /dev/zero is cut at its first read: refused at once, whatever reads it.
IBSCAN=$bin run 3 topology --replay /dev/zero
err_has "/dev/zero:1: NUL byte: this is not a capture"
usage 3 16384 topology --replay /dev/zero
IBSCAN=$bin run 3 diff /dev/zero "$ROOT/fixtures/baselines/moved.json"
err_has "/dev/zero:1: NUL byte: not a topology file"
usage 3 16384 diff /dev/zero "$ROOT/fixtures/baselines/moved.json"
IBSCAN=$bin run 3 nodes --replay "$fix" --node-name-map /dev/zero
err_has "/dev/zero:1:"
usage 3 16384 nodes --replay "$fix" --node-name-map /dev/zero
IBSCAN=$bin run 3 health --replay "$fix" --thresholds /dev/zero
err_has "/dev/zero:1:"
usage 3 16384 health --replay "$fix" --thresholds /dev/zero

# A pipe of text is read up to the limit (thresholds: 1 MiB), not further.
head -c 5000000 /dev/zero | tr '\0' '\n' >"$TMP/lines"
mkfifo "$TMP/fifo"
(timeout 20 cat "$TMP/lines" >"$TMP/fifo" 2>/dev/null &)
IBSCAN=$bin run 3 health --replay "$fix" --thresholds "$TMP/fifo"
err_has "'$TMP/fifo' is larger than the limit of 1048576 bytes"

# A FIFO that no one writes blocks its reader's open(): a command that reads the fabric still ends
# at --deadline plus the watchdog's 5 s, whatever input it was reading (the baseline and the name
# map blocked for ever).
mkfifo "$TMP/silent"
for args in "health --baseline $TMP/silent" "nodes --node-name-map $TMP/silent" "diff live $TMP/silent"; do
	start=$(date +%s) rc=0
	# shellcheck disable=SC2086
	timeout 20 "$bin" $args --replay "$fix" --deadline 1 >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ $rc = 3 ] || fail "ibscan $args: exit $rc (124: still blocked after 20 s), want 3"
	err_has "no progress within --deadline plus 5 s grace"
	[ $(($(date +%s) - start)) -le 9 ] || fail "ibscan $args: took $(($(date +%s) - start)) s, want 6"
done

# Oversized regular files are refused from their size, before any is read.
truncate -s 600M "$TMP/big.cache"
printf '\x2b\x83\xe7\x8f' | dd of="$TMP/big.cache" conv=notrunc status=none
IBSCAN=$bin run 3 nodes --load-cache "$TMP/big.cache"
err_has "is larger than the limit of 536870912 bytes"
usage 3 16384 nodes --load-cache "$TMP/big.cache"
truncate -s 600M "$TMP/big.net"
IBSCAN=$bin run 3 diff "$TMP/big.net" "$TMP/big.net"
err_has "is larger than the limit of 536870912 bytes"
echo "bounds: ok"
t_done
