# shellcheck shell=bash
# Hostile-string tests (tests/cli/t_hostile.sh, tests/sim/t_hostile.sh): every
# view of one source, judged by the tool that consumes it. Needs $IBSCAN,
# $TMP and fail() from the tier's lib.sh; the strings and checks are in
# tests/hostile.py.
H="python3 $ROOT/tests/hostile.py"
for tool in promtool jq dot xmllint; do
	command -v $tool >/dev/null || fail "$tool is missing: run 'make deps'"
done

# shellcheck disable=SC2034 # used by name (views NAME ALL_VIEWS ...)
ALL_VIEWS=("topology txt" "topology json --json" "topology dot --format dot" "topology net --format netfile"
	"topology slurm --format slurm" "nodes txt" "nodes json --json" "links txt" "links json --json"
	"health txt" "health json --json" "health prom --format prom" "sm txt" "counters txt")
# shellcheck disable=SC2034 # a cache holds no SMInfo or counters: health, sm and counters refuse it
CACHE_VIEWS=("${ALL_VIEWS[@]:0:9}")
# shellcheck disable=SC2034
HEALTH_VIEWS=("health txt" "health json --json" "health prom --format prom")

# views NAME VIEWS-ARRAY RUNNER ARGS...: each view of one source (RUNNER: ibscan, or a
# function that runs it), its output and stderr checked by their consumers in $TMP/NAME/.
views() {
	local name=$1 run=$3 rc f max
	local -n list=$2
	shift 3
	mkdir -p "$TMP/$name"
	for v in "${list[@]}"; do
		read -r cmd ext args <<<"$v"
		f=$TMP/$name/$cmd.$ext
		rc=0
		max=1
		[ "$cmd" != health ] || max=2 # WARNING, CRITICAL
		# shellcheck disable=SC2086
		"$run" $cmd $args "$@" -o "$f" 2>"$f.err" || rc=$?
		[ $rc -le $max ] || { cat "$f.err"; fail "$name: $cmd $args exited $rc"; }
		$H text "$f.err" || fail "$name: $cmd $args: stderr"
		case $ext in
		txt | slurm) $H text "$f" || fail "$name: $cmd $args" ;;
		json) jq . "$f" >/dev/null || fail "$name: jq rejects $cmd $args"
			$H json "$f" || fail "$name: $cmd $args" ;;
		prom) promtool check metrics <"$f" >"$f.promtool" 2>&1 || { cat "$f.promtool"; fail "$name: promtool rejects $cmd $args"; }
			$H text "$f" || fail "$name: $cmd $args" ;;
		dot) dot -Tsvg "$f" >"$f.svg" 2>"$f.dot.err" || { cat "$f.dot.err"; fail "$name: dot rejects $cmd $args"; }
			[ ! -s "$f.dot.err" ] || { cat "$f.dot.err"; fail "$name: dot warns about $cmd $args"; }
			xmllint --noout "$f.svg" || fail "$name: the SVG dot drew is not XML"
			$H text "$f" || fail "$name: $cmd $args" ;;
		net) $H netfile "$f" || fail "$name: $cmd $args"
			rc=0
			"$IBSCAN" diff "$f" "$f" >"$f.diff" 2>&1 || rc=$?
			[ $rc = 0 ] || { cat "$f.diff"; fail "$name: the netfile ibscan wrote does not load back equal (exit $rc)"; } ;;
		esac
		[ "$ext" != slurm ] || $H slurm "$f" >/dev/null || fail "$name: slurm"
	done
	echo "ok: $name: every view accepted by its consumer"
}
