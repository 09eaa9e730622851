# shellcheck shell=bash
# Stand-ins of ibscan that lie, one place for both tests of tools/hwcheck/hwcheck.sh
# (tests/cli/t_hwcheck.sh on fixture machines, over the stand-in ibscan;
# tests/rdma/t_hwcheck.sh in the soft-RoCE guests, over the real one):
# make_liar PATH REAL LIE writes PATH, an ibscan that is REAL in everything
# but LIE, where it is wrong as an ibscan with a bug would be. Each lie and
# the checks of hwcheck's probe (RoCE) path it must make FAIL, while every
# other probe check still passes (liar_fails LIE prints them):
#   mute          a ping client prints nothing and exits 0
#   gid-type      local --json calls every RoCE v2 GID RoCE v1
#   port-state    local --json calls an ACTIVE port INIT
#   ping-figures  a measured ping run's median 1000 times too slow, its Gb/s
#                 1000 times too fast
#   ping-figures-low  the other way: its median 1000 times too fast, its Gb/s
#                 1000 times too slow (a figure too low passed any tolerance of
#                 100 % or more, or of more than perftest's median, while hwcheck
#                 compared differences rather than ratios)
#   sigint-exit   a ping client stopped by SIGINT exits 0, as if it had finished
#   leak-qp       a ping client leaves a queue pair (and its MR) behind: a
#                 process holding one (ibv_rc_pingpong's server, which creates
#                 its QP before it waits for a client); liar_cleanup PATH ends it
# shellcheck disable=SC2034 # for the scripts that source this one
LIARS="mute gid-type port-state ping-figures ping-figures-low sigint-exit leak-qp"

# liar_fails LIE: the probe checks LIE makes fail.
liar_fails() {
	case $1 in
	mute) echo "ping-latency ping-read ping-atomic ping-bandwidth sigint-ping" ;;
	gid-type) echo local ;;
	port-state) echo local-port ;;
	ping-figures | ping-figures-low) echo "ping-latency ping-read ping-atomic ping-bandwidth" ;;
	sigint-exit) echo sigint-ping ;;
	leak-qp) echo teardown ;;
	*) echo "liar_fails: no lie '$1'" >&2; return 1 ;;
	esac
}

# liar_verdicts LIE OUT CHECKS: hwcheck's output OUT has, for each of CHECKS, FAIL where
# LIE touches it and PASS elsewhere, and no other verdict; else it says what differs (return 1).
liar_verdicts() {
	local lie=$1 out=$2 checks=$3 c want bad='' n=0 touched
	touched=" $(liar_fails "$lie") "
	for c in $checks; do
		want=PASS
		[[ $touched == *" $c "* ]] && want=FAIL
		grep -q "^$want $c: " "$out" || bad="$bad $c (want $want: $(grep -m1 -E "^(PASS|FAIL|SKIP) $c: " "$out" || echo none))"
		n=$((n + 1))
	done
	for c in $touched; do
		[[ " $checks " == *" $c "* ]] || bad="$bad $c (touched by $lie, not run)"
	done
	[ "$(grep -cE '^(PASS|FAIL|SKIP) ' "$out")" = "$n" ] || bad="$bad (verdicts other than $checks)"
	[ -z "$bad" ] && return 0
	echo "an ibscan that lies ($lie):$bad"
	return 1
}

# make_liar PATH REAL LIE
make_liar() {
	local path=$1 real=$2 lie=$3
	liar_fails "$lie" >/dev/null || return 1
	cat >"$path" <<SH
#!/bin/bash
# An ibscan that lies ($lie; tests/hwcheck-liars.sh); the rest is $real.
real=$real lie=$lie
SH
	cat >>"$path" <<'SH'
# The trap first: a SIGINT that comes before the client starts is lied about too.
# (Its own stderr closed first: job control would report the interrupted job there.)
# Every other lie ends on SIGINT as ibscan does: without a trap, a SIGINT that comes while
# this script waits for a command of its own (leak-qp's wait for its QP) would be taken as
# handled by that command, and the script go on to a client that is never stopped.
if [ "$lie" = sigint-exit ]; then
	trap '[ -n "${c:-}" ] && kill -INT "$c" 2>/dev/null; exec 2>/dev/null; wait; exit 0' INT
else
	trap 'exit 130' INT
fi
args=("$@") out='' listen=0 json=0 dev='' port=1
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in
	-o) out=${args[i + 1]} ;; -C) dev=${args[i + 1]} ;; -P) port=${args[i + 1]} ;;
	--listen) listen=1 ;; --json) json=1 ;;
	esac
done
client=0
[ "$1" = ping ] && [ "$listen" = 0 ] && client=1
case $lie in
mute) [ "$client" = 1 ] && exit 0 ;;
gid-type | port-state)
	if [ "$1" = local ] && [ -n "$out" ]; then
		"$real" "$@" || exit
		if [ "$lie" = gid-type ]; then sed -i 's/"RoCE v2"/"IB\/RoCE v1"/' "$out"
		else sed -i 's/"state": "ACTIVE"/"state": "INIT"/' "$out"; fi
		exit 0
	fi ;;
ping-figures | ping-figures-low)
	if [ "$client" = 1 ] && [ "$json" = 1 ] && [ -n "$out" ]; then
		"$real" "$@" || exit
		k=1000
		[ "$lie" = ping-figures-low ] && k=0.001
		jq --argjson k "$k" '(.latency_us.median |= if . then . * $k else . end) | (.gbit_per_s |= if . then . * $k else . end)' \
			"$out" >"$out.lie" && mv "$out.lie" "$out"
		exit 0
	fi ;;
sigint-exit)
	if [ "$client" = 1 ]; then
		set -m # the client its own job, so that it does not start with SIGINT ignored
		"$real" "$@" &
		c=$!
		wait "$c"
		exit
	fi ;;
leak-qp)
	if [ "$client" = 1 ] && [ ! -e "$0.leak" ]; then
		# A SIGINT during the setup is taken after it: teardown must find the QP there.
		int=0
		trap 'int=1' INT
		setsid -f bash -c 'echo $$ >"$1"; exec ibv_rc_pingpong -d "$2" -i "$3" -p 18519' _ "$0.leak" "$dev" "$port" \
			</dev/null >/dev/null 2>&1
		# Its QP listed before the probe goes on: teardown must not look before it is there.
		for _ in $(seq 100); do rdma res show qp 2>/dev/null | grep -q ' comm ibv_rc_pingpong' && break; sleep 0.1; done
		[ "$int" = 0 ] || exit 130
		trap 'exit 130' INT
	fi ;;
esac
exec "$real" "$@"
SH
	chmod 755 "$path"
}

# liar_cleanup PATH: end what the liar at PATH left running (leak-qp's QP holder).
liar_cleanup() {
	[ -s "$1.leak" ] && kill "$(cat "$1.leak")" 2>/dev/null
	rm -f "$1.leak"
	return 0
}
