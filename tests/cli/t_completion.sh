#!/bin/bash
# Bash completion (completion/ibscan.bash): sourced in a fresh bash, with
# COMP_WORDS/COMP_CWORD set as bash sets them, _ibscan must offer the
# commands, each command's options (the same set as `ibscan help CMD`), the
# values of --format per command and of --op, files after the options that
# take one, and capture's subcommands.
. "$(dirname "$0")/lib.sh"
script=$ROOT/completion/ibscan.bash
bash -n "$script" || fail "completion/ibscan.bash does not parse"

mkdir -p "$TMP/cwd/subdir"
: >"$TMP/cwd/fab.cap"
: >"$TMP/cwd/fab.json"
: >"$TMP/cwd/other.txt"

# comp WORD... CUR: what _ibscan offers, sorted, space-separated.
comp() {
	(cd "$TMP/cwd" && bash -c '
		source "$1" || exit 9
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_ibscan || exit 8
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$script" "$IBSCAN" "$@") | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}

# expect "WANT" WORD... CUR
expect() {
	local want=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$want" ] || fail "completing 'ibscan $*': got '$got', want '$want'"
}

# Commands, from `ibscan --help`.
cmds=$("$IBSCAN" --help | awk '/^commands:/{on=1;next} on&&/^$/{exit} on&&/^  [a-z]/{print $1}' | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$cmds" ] || fail "no commands in ibscan --help"
expect "$cmds" ""
expect "topology" to
expect "capture counters" c
expect "--help --version" --
expect "$cmds" help ""
expect "health" help hea
expect "health help" he
expect "nodes" --help no

# Each command's options are exactly those of its help.
for c in $cmds; do
	[ "$c" = help ] && continue
	want=$("$IBSCAN" help "$c" | grep -oE '^ +(-[A-Za-z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | sort -u | tr '\n' ' ' | sed 's/ $//')
	[ -n "$want" ] || fail "no options in ibscan help $c"
	expect "$want" "$c" --
done
expect "--record --record-times" topology --rec
expect "--retries" health --ret
expect "--reset-counters" health --res

# --format values per command (and --op's).
expect "dot json netfile plan slurm slurm-block slurm-yaml svg text" topology --format ""
expect "json text" nodes --format ""
expect "json text" links --format ""
expect "json text" sm --format ""
expect "json text" diff --format ""
expect "dot json prom svg text" health --format ""
expect "json prom text" counters --format ""
expect "json text" capture info x.cap --format ""
expect "slurm slurm-block slurm-yaml svg" topology --format s
expect "slurm slurm-block slurm-yaml svg" topology --format = s
expect "dot json netfile plan slurm slurm-block slurm-yaml svg text" topology --format =
expect "prom" counters --replay fab.cap --format p
expect "atomic read send write" ping --op ""
# A flag takes no value: options come next.
expect "--replay --replay-strict" topology --json --repl

# Files (and directories) after the options that take a file.
files="fab.cap fab.json other.txt subdir"
for o in --replay --record -o --output --node-name-map --load-cache; do
	expect "$files" topology "$o" ""
done
for o in --baseline --thresholds; do
	expect "$files" health "$o" ""
done
expect "fab.cap fab.json" nodes --replay fab
expect "fab.cap fab.json" nodes --replay = fab
expect "subdir" local --sysfs ""
expect "" topology --window ""

# capture: subcommands, then its file; diff: files or live.
expect "export index info" capture ""
expect "index info" capture in
expect "info" capture inf
expect "fab.cap fab.json" capture index fa
expect "$files" capture info ""
expect "fab.cap fab.json" capture export fa
expect "$files" capture export fab.cap -o ""
expect "fab.cap fab.json live other.txt subdir" diff ""
expect "fab.cap fab.json live other.txt subdir" diff --replay fab.cap fab.json ""
expect "live" diff li
# Commands without arguments offer their options.
expect "--window" sm --win
expect "--deadline" sm -v --dead
echo "completion: ok"
t_done
