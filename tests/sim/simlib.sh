# shellcheck shell=bash
# simlib.sh: run a simulated InfiniBand fabric (ibsim + libumad2sim + opensm)
# for one test.  Source it from bash:   . tests/sim/simlib.sh
#
# Every simulator gets its own temp dir and its own IBSIM_SOCKNAME, so tests
# can run in parallel.  Everything started is killed by sim_stop, which
# sim_start installs as an EXIT/INT/TERM trap (chained to a trap the caller
# had before).  Call sim_start in the test's main shell, not in $(...) or a
# pipeline: the state lives in shell variables.  One simulator per shell.
# Works with or without `set -euo pipefail` in the caller.
#
# Functions
#   sim_start FABRICFILE [SIM_HOST]
#       Start ibsim on FABRICFILE and opensm under the shim, and wait (poll,
#       with a deadline) until opensm's log says SUBNET UP and `sminfo` says
#       MASTER.  SIM_HOST (a node id such as H-node0001, or a node
#       description) is exported for the clients run by sim_run (port 1 of
#       an HCA, port 0 of a switch); default: $SIM_HOST if already set, else
#       the id of the fabric's first node, where ibsim attaches clients
#       anyway (setting it keeps the shim's "attached as client" warning
#       off the clients' stderr).  sim_stop unsets what sim_start exported.
#       opensm attaches to $SIM_OSM_HOST, default the first node.  ibsim gets -N/-S/-P/-L limits computed from the file.  Returns
#       non-zero with a message and the logs' tails on stderr if ibsim, opensm
#       or the shim is missing or the subnet does not come up in time.
#       Sets: SIM_DIR (temp dir, also the working dir of every simulator
#       process), IBSIM_SOCKNAME (exported), SIM_FABRIC (absolute path),
#       SIM_IBSIM_PID, SIM_OSM_PID, SIM_FIFO_PID, SIM_UP_SECONDS (time from
#       starting opensm to SUBNET UP), SIM_SHIM.
#       Logs: $SIM_DIR/ibsim.log (ibsim stdout+stderr, console replies),
#       $SIM_DIR/osm.log (opensm -f), $SIM_DIR/osm.out (opensm stdout+stderr).
#   sim_run CMD [ARG...]
#       Run CMD under the shim (LD_PRELOAD, IBSIM_SOCKNAME, SIM_HOST as set)
#       with $SIM_DIR as working directory (the shim writes ./sys-<pid>/
#       there).  A relative CMD path containing '/' is made absolute first;
#       other arguments are passed as they are (use absolute paths).  Returns
#       CMD's exit status.  Do not kill such clients with a signal: ibsim
#       keeps a killed client's slot (it serves at most 10 clients, opensm
#       included).  So do not pipe a client into `grep -q` or `head` (SIGPIPE):
#       capture its output first (out=$(sim_run ...) or > file).  A client
#       started while no ibsim listens on $IBSIM_SOCKNAME does not fail: the
#       shim retries the connection every 2 s for ever; wrap such runs in
#       `timeout` (a timed-out client has no slot to leak).
#   sim_console 'COMMAND'
#       Send one console command to ibsim (through the FIFO on its stdin),
#       e.g. 'Unlink "S-leaf01"[3]', 'ReLink "S-leaf01"[3]',
#       'Error "S-spine01" 10', 'Guid "H-node0007" 0x0002c90300000011',
#       'Baselid "H-node0008"[1] 7',
#       'PerformanceSet "S-leaf01"[1] PortCounters.SymbolErrorCounter=5000'.
#       Waits until ibsim has executed it (a marker comment sent after the
#       command comes back on ibsim's console), so the next MAD already sees
#       the change; prints ibsim's reply, without prompts, on stdout.  Returns
#       1 if the reply is an ibsim error message ("not found", "bad ...", ...)
#       or ibsim does not answer in $SIM_CONSOLE_TIMEOUT s (default 10).
#       Commands are limited to 126 characters (ibsim's console buffer).
#   sim_ibsim_dump [NODEID]
#       ibsim's own view of the net (console 'Dump'), all nodes or one node.
#   sim_port_state NODEID PORT
#       Print ibsim's state of one port, e.g. "Active/LinkUp" or
#       "Down/Polling" (from Dump).  Ground truth after an Unlink/ReLink.
#   sim_attached
#       List the clients attached to ibsim (console 'Attached').
#   sim_subnet_up_count
#       How many times opensm has logged SUBNET UP so far.
#   sim_wait_subnet_up N [TIMEOUT]
#       Wait until opensm has logged SUBNET UP at least N times (use after a
#       console change: n=$(sim_subnet_up_count); sim_console ...;
#       sim_wait_subnet_up $((n+1))).  opensm runs with -s 0 (no periodic
#       sweep): it sweeps again on the traps ibsim sends for Unlink/Link.
#   sim_wait_sm_master [TIMEOUT]
#       Wait until `sminfo` (run with sim_run) reports SMINFO_MASTER.
#   sim_poll TIMEOUT CMD [ARG...]
#       Run CMD every 0.1 s until it succeeds (0) or TIMEOUT seconds pass
#       (then 1).  E.g. sim_poll 30 sim_run smpquery portinfo 1 3.
#   sim_kill_ibsim
#       SIGKILL ibsim and reap it ("simulator vanished" tests).  Clients then
#       get errors (or hang: keep deadlines); sim_stop still cleans up.
#   sim_stop_opensm
#       Stop opensm (SIGTERM, SIGKILL after 10 s).  Its ibsim client slot
#       stays taken (see sim_run).
#   sim_stop
#       Kill everything sim_start started (opensm, ibsim, the FIFO holder),
#       reap it, remove $SIM_DIR (kept and printed if SIM_KEEP=1) and restore
#       the caller's traps.  Idempotent; always returns 0.
#
# Environment knobs
#   SIM_START_TIMEOUT   seconds for sim_start (default 120, plus nodes/50 for
#                       fabrics over 3000 nodes)
#   SIM_CONSOLE_TIMEOUT seconds for sim_console to see its reply (default 10)
#   SIM_OSM_HOST        SIM_HOST for opensm (default: the first node)
#   SIM_NO_SM           1: start ibsim only, no opensm (a fabric without LIDs)
#   SIM_OSM_ARGS        extra opensm arguments
#   SIM_IBSIM_ARGS      extra ibsim arguments (e.g. -I: accept duplicate GUIDs)
#   SIM_KEEP=1          keep $SIM_DIR after sim_stop (for debugging)
#   SIM_VERBOSE=1       say on stderr how long the subnet took to come up
#   SIM_SHIM            path of libumad2sim.so (default: Debian's)
#
# Simulator facts this relies on (ibsim 0.10, opensm 3.3.23)
# - ibsim's console reads stdin; on a closed/empty stdin it spins at 100% CPU,
#   so stdin is a FIFO kept open by a `sleep infinity` holder.  After each
#   console command ibsim prints "sim> " and flushes, which sim_console uses.
# - ibsim binds abstract unix sockets "@$IBSIM_SOCKNAME:ctl" etc. only after
#   printing "Network simulator ready."; sim_start waits for the socket in
#   /proc/net/unix before starting opensm.
# - opensm buffers its log unless -d2; -s 0 turns periodic sweeps off.
# - The shim snapshots the port's LID when a client starts: a client started
#   before the subnet is up sees LID 0.

SIM_SHIM=${SIM_SHIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}

_sim_err() { printf 'simlib: %s\n' "$*" >&2; }

_sim_now_ms() {
	local t=${EPOCHREALTIME:-}
	if [[ -n $t ]]; then
		t=${t/[.,]/}
		printf '%s\n' "$((10#$t / 1000))"
	else
		printf '%s\n' "$(($(date +%s%N) / 1000000))"
	fi
}

# The diags and opensm live in /usr/sbin, which a user's PATH may lack.
_sim_path() {
	case ":$PATH:" in
	*:/usr/sbin:*) printf '%s\n' "$PATH" ;;
	*) printf '%s\n' "$PATH:/usr/sbin:/sbin" ;;
	esac
}

_sim_bin() {
	PATH=$(_sim_path) command -v "$1"
}

_sim_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

# _sim_kill PID [GRACE_SECONDS]: SIGTERM, SIGKILL after the grace, reap.
_sim_kill() {
	local pid=${1:-} grace=${2:-5} end
	[[ -n $pid ]] || return 0
	if _sim_alive "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		end=$(($(_sim_now_ms) + grace * 1000))
		while _sim_alive "$pid" && [[ $(ps -o stat= -p "$pid" 2>/dev/null) != Z* ]]; do
			if (($(_sim_now_ms) > end)); then
				kill -KILL "$pid" 2>/dev/null || true
				break
			fi
			sleep 0.05
		done
	fi
	wait "$pid" 2>/dev/null || true
	return 0
}

_sim_tail_logs() {
	local f
	[[ -n ${SIM_DIR:-} ]] || return 0
	for f in ibsim.log osm.out osm.log; do
		if [[ -s $SIM_DIR/$f ]]; then
			printf -- '--- tail of %s ---\n' "$f" >&2
			tail -n 25 "$SIM_DIR/$f" >&2
		fi
	done
}

_sim_fail() {
	_sim_err "$*"
	_sim_tail_logs
	sim_stop
	return 1
}

sim_poll() {
	local -
	set +e +u +o pipefail
	local timeout=$1 end
	shift
	end=$(($(_sim_now_ms) + ${timeout%.*} * 1000))
	while :; do
		"$@" && return 0
		(($(_sim_now_ms) > end)) && return 1
		sleep 0.1
	done
}

# _sim_fabric_size FILE: "nodes switches ports lids" as ibsim counts them.
_sim_fabric_size() {
	awk '
	/^Switch/ { s = substr($0, 7); match(s, /[0-9]+/); p = substr(s, RSTART, RLENGTH) + 0
		    n++; sw++; ports += p + 1; lids++; next }
	/^(Hca|Ca|Rt)/ { s = $0; sub(/^(Hca|Ca|Rt)/, "", s); match(s, /[0-9]+/)
		    p = substr(s, RSTART, RLENGTH) + 0; n++; ports += p; lids += p; next }
	END { printf "%d %d %d %d\n", n, sw, ports, lids }' "$1"
}

# EXIT: clean up, then the caller's EXIT trap.  INT/TERM: clean up, then the
# caller's trap for the signal if it had one, else exit 130/143.
_sim_trap_handler() {
	local -
	set +e +u +o pipefail
	local sig=$1 prev
	prev=_sim_prev_trap_$sig
	prev=${!prev:-}
	sim_stop
	if [[ -n $prev ]]; then
		eval "$prev"
	elif [[ $sig == INT ]]; then
		exit 130
	elif [[ $sig == TERM ]]; then
		exit 143
	fi
}

_sim_install_traps() {
	local sig t
	local -a _sim_words=()
	for sig in EXIT INT TERM; do
		t=$(trap -p "$sig")
		if [[ -n $t ]]; then
			# t is: trap -- 'COMMAND' SIG
			eval "_sim_words=($t)"
			printf -v "_sim_prev_trap_$sig" '%s' "${_sim_words[2]}"
		else
			printf -v "_sim_prev_trap_$sig" '%s' ""
		fi
		# shellcheck disable=SC2064
		trap "_sim_trap_handler $sig" "$sig"
	done
	_sim_traps_installed=1
}

_sim_restore_traps() {
	local sig v
	[[ ${_sim_traps_installed:-0} == 1 ]] || return 0
	for sig in EXIT INT TERM; do
		v=_sim_prev_trap_$sig
		if [[ -n ${!v:-} ]]; then
			# shellcheck disable=SC2064
			trap "${!v}" "$sig"
		else
			trap - "$sig"
		fi
	done
	_sim_traps_installed=0
}

sim_start() {
	local -
	set +e +u +o pipefail
	local fabric=${1:-} host=${2:-} nodes switches ports lids
	local -a limits
	local timeout end t0 i

	if [[ -n ${SIM_DIR:-} ]]; then
		_sim_err "sim_start: a simulator is already running here ($SIM_DIR)"
		return 1
	fi
	if [[ -z $fabric || ! -r $fabric ]]; then
		_sim_err "sim_start: cannot read fabric file '${fabric}'"
		return 1
	fi
	for i in ibsim opensm sminfo; do
		if ! _sim_bin "$i" >/dev/null; then
			_sim_err "sim_start: '$i' not found: install ibsim-utils, opensm and infiniband-diags (make deps)"
			return 1
		fi
	done
	if [[ ! -r $SIM_SHIM ]]; then
		_sim_err "sim_start: shim $SIM_SHIM not found: install libumad2sim0 (make deps)"
		return 1
	fi
	[[ $fabric == /* ]] || fabric=$PWD/$fabric
	# shellcheck disable=SC2034 # documented output
	SIM_FABRIC=$fabric

	read -r nodes switches ports lids < <(_sim_fabric_size "$fabric")
	if ((nodes == 0)); then
		_sim_err "sim_start: no nodes in $fabric"
		return 1
	fi
	limits=(-N "$((nodes > 2048 ? nodes : 2048))"
		-S "$((switches > 256 ? switches : 256))"
		-P "$((ports > 13312 ? ports : 13312))")
	if ((lids + 64 > 30720)); then
		limits+=(-L "$((lids + 64 > 49152 ? 49152 : lids + 64))")
	fi
	timeout=${SIM_START_TIMEOUT:-}
	if [[ -z $timeout ]]; then
		timeout=120
		((nodes > 3000)) && timeout=$((120 + nodes / 50))
	fi

	SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ibscan-sim.XXXXXX") || {
		_sim_err "sim_start: mktemp failed"
		SIM_DIR=''
		return 1
	}
	export IBSIM_SOCKNAME="ibscan-${BASHPID}-${RANDOM}${RANDOM}"
	# Clients print "ibwarn: ... attached as client N at node X" on stderr
	# when SIM_HOST is unset: default it to the first node (where ibsim
	# attaches them anyway) to keep their stderr clean.
	_sim_set_host=0
	if [[ -z $host && -z ${SIM_HOST:-} ]]; then
		host=$(awk 'match($0, /^(Switch|Hca|Ca|Rt)[^"]*"[^"]+"/) {
			s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s)
			sub(/"$/, "", s); print s; exit }' "$fabric")
	fi
	if [[ -n $host ]]; then
		export SIM_HOST=$host
		_sim_set_host=1
	fi
	_sim_ack=0
	SIM_IBSIM_PID='' SIM_OSM_PID='' SIM_FIFO_PID='' SIM_UP_SECONDS=''
	_sim_install_traps

	mkfifo "$SIM_DIR/console" || { _sim_fail "sim_start: mkfifo failed"; return 1; }
	# The holder keeps a writer on the FIFO so ibsim never reads EOF.
	# shellcheck disable=SC2217
	sleep infinity 1<>"$SIM_DIR/console" </dev/null 2>/dev/null &
	SIM_FIFO_PID=$!
	(cd "$SIM_DIR" && exec "$(_sim_bin ibsim)" -s "${limits[@]}" ${SIM_IBSIM_ARGS:-} "$fabric") \
		<"$SIM_DIR/console" >"$SIM_DIR/ibsim.log" 2>&1 &
	SIM_IBSIM_PID=$!

	end=$(($(_sim_now_ms) + timeout * 1000))
	until grep -qF "@$IBSIM_SOCKNAME:ctl" /proc/net/unix 2>/dev/null; do
		if ! _sim_alive "$SIM_IBSIM_PID"; then
			_sim_fail "sim_start: ibsim exited while loading $fabric"
			return 1
		fi
		if (($(_sim_now_ms) > end)); then
			_sim_fail "sim_start: ibsim did not listen on $IBSIM_SOCKNAME within ${timeout}s"
			return 1
		fi
		sleep 0.05
	done

	if [[ ${SIM_NO_SM:-0} == 1 ]]; then
		# No subnet manager: nothing assigns LIDs (no-SM fault tests).
		SIM_UP_SECONDS=0
		return 0
	fi
	t0=$(_sim_now_ms)
	(
		cd "$SIM_DIR" || exit 1
		unset SIM_HOST
		[[ -n ${SIM_OSM_HOST:-} ]] && export SIM_HOST=$SIM_OSM_HOST
		export OSM_TMP_DIR=$SIM_DIR OSM_CACHE_DIR=$SIM_DIR LD_PRELOAD=$SIM_SHIM
		# shellcheck disable=SC2086
		exec "$(_sim_bin opensm)" -d2 -s 0 -f "$SIM_DIR/osm.log" ${SIM_OSM_ARGS:-}
	) </dev/null >"$SIM_DIR/osm.out" 2>&1 &
	SIM_OSM_PID=$!

	until grep -q "SUBNET UP" "$SIM_DIR/osm.log" 2>/dev/null; do
		if ! _sim_alive "$SIM_OSM_PID"; then
			_sim_fail "sim_start: opensm exited before SUBNET UP"
			return 1
		fi
		if ! _sim_alive "$SIM_IBSIM_PID"; then
			_sim_fail "sim_start: ibsim exited before SUBNET UP"
			return 1
		fi
		if (($(_sim_now_ms) > end)); then
			_sim_fail "sim_start: no SUBNET UP within ${timeout}s ($nodes nodes in $fabric)"
			return 1
		fi
		sleep 0.1
	done
	t=$(($(_sim_now_ms) - t0))
	printf -v SIM_UP_SECONDS '%d.%02d' "$((t / 1000))" "$((t % 1000 / 10))"

	if ! sim_wait_sm_master "$(((end - $(_sim_now_ms)) / 1000 + 1))"; then
		_sim_fail "sim_start: sminfo does not report SMINFO_MASTER"
		return 1
	fi
	if [[ ${SIM_VERBOSE:-0} == 1 ]]; then
		_sim_err "$fabric: $nodes nodes, SUBNET UP after ${SIM_UP_SECONDS}s (dir $SIM_DIR, socket $IBSIM_SOCKNAME)"
	fi
	return 0
}

sim_run() {
	local -
	set +e +u +o pipefail
	local cmd=${1:-}
	if [[ -z ${SIM_DIR:-} ]]; then
		_sim_err "sim_run: no simulator (call sim_start first)"
		return 1
	fi
	if [[ -z $cmd ]]; then
		_sim_err "sim_run: no command"
		return 1
	fi
	shift
	[[ $cmd == */* && $cmd != /* ]] && cmd=$PWD/$cmd
	(cd "$SIM_DIR" && PATH=$(_sim_path) LD_PRELOAD=$SIM_SHIM exec "$cmd" "$@")
}

_sim_sminfo_master() {
	sim_run sminfo 2>/dev/null | grep -q SMINFO_MASTER
}

sim_wait_sm_master() {
	local -
	set +e +u +o pipefail
	sim_poll "${1:-60}" _sim_sminfo_master
}

sim_subnet_up_count() {
	local -
	set +e +u +o pipefail
	grep -c "SUBNET UP" "$SIM_DIR/osm.log" 2>/dev/null || true
}

_sim_up_ge() { (($(sim_subnet_up_count) >= $1)); }

sim_wait_subnet_up() {
	local -
	set +e +u +o pipefail
	local want=${1:-1} timeout=${2:-60}
	sim_poll "$timeout" _sim_up_ge "$want"
}

sim_console() {
	local -
	set +e +u +o pipefail
	local cmd="$*" marker log off fd end reply
	if [[ -z ${SIM_DIR:-} ]]; then
		_sim_err "sim_console: no simulator (call sim_start first)"
		return 1
	fi
	if ((${#cmd} > 126)); then
		_sim_err "sim_console: command longer than 126 characters"
		return 1
	fi
	if [[ $cmd == *$'\n'* ]]; then
		_sim_err "sim_console: one command at a time"
		return 1
	fi
	if ! _sim_alive "$SIM_IBSIM_PID"; then
		_sim_err "sim_console: ibsim is not running"
		return 1
	fi
	log=$SIM_DIR/ibsim.log
	_sim_ack=$((_sim_ack + 1))
	marker="# simlib-ack-$_sim_ack"
	off=$(stat -c %s "$log")
	# O_RDWR never blocks on a FIFO, even if ibsim has just died.
	exec {fd}<>"$SIM_DIR/console"
	printf '%s\n%s\n' "$cmd" "$marker" >&"$fd"
	exec {fd}>&-
	end=$(($(_sim_now_ms) + ${SIM_CONSOLE_TIMEOUT:-10} * 1000))
	until tail -c +"$((off + 1))" "$log" | grep -qF -- "${marker}sim> "; do
		if ! _sim_alive "$SIM_IBSIM_PID"; then
			_sim_err "sim_console: ibsim died after '$cmd'"
			return 1
		fi
		if (($(_sim_now_ms) > end)); then
			_sim_err "sim_console: no reply from ibsim to '$cmd'"
			return 1
		fi
		sleep 0.05
	done
	reply=$(tail -c +"$((off + 1))" "$log")
	reply=${reply%%"${marker}sim> "*}
	reply=${reply//sim> /}
	[[ -n $reply ]] && printf '%s\n' "${reply%$'\n'}"
	[[ $cmd == \#* ]] && return 0
	# ibsim's console errors: "# ..." lines (but not Dump's own "#" lines)
	# and a few bare messages.
	if grep -E "^# |^(command '|bad |wait: bad|no route found|Bad port state|do_cmd_from_file)" <<<"$reply" |
		grep -qvE "^(# Net status|#  dumped)"; then
		return 1
	fi
	return 0
}

sim_ibsim_dump() {
	local -
	set +e +u +o pipefail
	if [[ -n ${1:-} ]]; then
		sim_console "Dump \"$1\""
	else
		sim_console "Dump"
	fi
}

sim_port_state() {
	local -
	set +e +u +o pipefail
	local node=${1:-} port=${2:-}
	sim_ibsim_dump "$node" | awk -v p="[$port]" '
		$2 == p { for (i = NF; i > 0; i--) if ($i ~ /\//) { print $i; exit } }'
}

sim_attached() {
	local -
	set +e +u +o pipefail
	sim_console "Attached"
}

sim_kill_ibsim() {
	local -
	set +e +u +o pipefail
	if _sim_alive "${SIM_IBSIM_PID:-}"; then
		kill -KILL "$SIM_IBSIM_PID" 2>/dev/null
		wait "$SIM_IBSIM_PID" 2>/dev/null
	fi
	return 0
}

sim_stop_opensm() {
	local -
	set +e +u +o pipefail
	_sim_kill "${SIM_OSM_PID:-}" 10
	return 0
}

sim_stop() {
	local -
	set +e +u +o pipefail
	[[ -n ${SIM_DIR:-} ]] || { _sim_restore_traps; return 0; }
	_sim_kill "${SIM_OSM_PID:-}" 5
	_sim_kill "${SIM_IBSIM_PID:-}" 5
	_sim_kill "${SIM_FIFO_PID:-}" 2
	if [[ ${SIM_KEEP:-0} == 1 ]]; then
		_sim_err "kept $SIM_DIR"
	else
		rm -rf "$SIM_DIR"
	fi
	SIM_DIR='' SIM_OSM_PID='' SIM_IBSIM_PID='' SIM_FIFO_PID=''
	unset IBSIM_SOCKNAME
	[[ ${_sim_set_host:-0} == 1 ]] && unset SIM_HOST
	_sim_set_host=0
	_sim_restore_traps
	return 0
}
