# Bash completion for ibscan(1): commands, options and their values.
# Everything is read from `ibscan --help` and `ibscan help COMMAND` when you
# press TAB, so the completion follows the binary and cannot go stale:
#   - commands from the "commands:" list of `ibscan --help`;
#   - each command's long options from its help;
#   - values of --format and --op from the words their help lists;
#   - files after options whose value is FILE or F, directories after DIR,
#     RDMA devices after --ca;
#   - capture's subcommands from the "subcommands:" list of its help.
# Installed as share/bash-completion/completions/ibscan; or source it.

# _ibscan_options BIN CMD: one line per option: LONG SHORT PLACEHOLDER VALUE...
_ibscan_options()
{
	"$1" help "$2" 2>/dev/null | awk '
	function flush() {
		if (long == "")
			return
		gsub(/\([^)]*\)/, " ", desc)
		gsub(/,/, " ", desc)
		n = split(desc, w, /[ \t]+/)
		vals = ""
		if (long == "--format" || long == "--op")
			for (i = 1; i <= n; i++)
				if (w[i] ~ /^[a-z][a-z0-9-]*$/ && w[i] != "or")
					vals = vals " " w[i]
		print long, (short == "" ? "-" : short), (ph == "" ? "-" : ph) vals
		long = ""
	}
	/^ +(-[A-Za-z], )?--[a-z0-9]/ {
		flush()
		line = $0
		sub(/^ +/, "", line)
		short = ""
		if (line ~ /^-[A-Za-z], /) {
			short = substr(line, 1, 2)
			line = substr(line, 5)
		}
		long = line
		sub(/ .*/, "", long)
		line = substr(line, length(long) + 1)
		ph = ""
		if (line ~ /^ [^ ]/) {
			ph = substr(line, 2)
			sub(/ .*/, "", ph)
			line = substr(line, length(ph) + 2)
		}
		desc = line
		next
	}
	/^                    +[^ -]/ && long != "" { desc = desc " " $0; next }
	{ flush() }
	END { flush() }'
}

# _ibscan_section BIN CMD HEADING: the first word of each line under "HEADING:".
_ibscan_section()
{
	"$1" help "$2" 2>/dev/null | awk -v h="$3:" '
		$0 == h { on = 1; next }
		on && /^[^ ]/ { exit }
		on && /^  [a-z]/ { print $1 }'
}

_ibscan_commands()
{
	"$1" --help 2>/dev/null | awk '
		/^commands:/ { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }'
}

# _ibscan_add WORDS CUR: add the WORDS that start with CUR to COMPREPLY.
_ibscan_add()
{
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "$1" -- "$2")
}

# _ibscan_files -f|-d CUR: add files (or directories) to COMPREPLY.
_ibscan_files()
{
	# -o filenames: slashes on directories, quoting; only inside a completion.
	compopt -o filenames 2>/dev/null
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen "$1" -- "$2")
}

_ibscan()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' opt='' bin=${COMP_WORDS[0]} cmd='' i
	local -a rows
	COMPREPLY=()
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# shellcheck disable=SC2088 # a literal "~/" that bash left unexpanded
	case $bin in "~/"*) bin=$HOME/${bin#"~/"} ;; esac
	command -v "$bin" >/dev/null 2>&1 || bin=ibscan

	# --opt=value: bash splits it into "--opt" "=" "value".
	if [ "$cur" = "=" ]; then
		opt=$prev
		cur=
	elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			_ibscan_add "--help --version" "$cur"
		else
			_ibscan_add "$(_ibscan_commands "$bin")" "$cur"
		fi
		return 0
	fi
	if [ "$cmd" = help ]; then
		[ "$COMP_CWORD" -eq $((i + 1)) ] &&
			_ibscan_add "$(_ibscan_commands "$bin")" "$cur"
		return 0
	fi

	mapfile -t rows < <(_ibscan_options "$bin" "$cmd")
	[ ${#rows[@]} -gt 0 ] || return 0
	[ -n "$opt" ] || opt=$prev

	# The value of an option.
	local row long short ph vals
	for row in "${rows[@]}"; do
		read -r long short ph vals <<<"$row"
		[ "$opt" = "$long" ] || [ "$opt" = "$short" ] || continue
		[ "$ph" = "-" ] && break # a flag: nothing to complete for it
		if [ -n "$vals" ]; then
			_ibscan_add "$vals" "$cur"
		elif [ "$long" = "--ca" ]; then
			_ibscan_add "$(ls /sys/class/infiniband 2>/dev/null)" "$cur"
		elif [ "$ph" = FILE ] || [ "$ph" = F ] || [ "$ph" = OUT ]; then
			_ibscan_files -f "$cur"
		elif [ "$ph" = DIR ]; then
			_ibscan_files -d "$cur"
		fi
		return 0
	done

	if [[ $cur == -* ]]; then
		_ibscan_add "$(printf '%s\n' "${rows[@]}" | cut -d' ' -f1)" "$cur"
		return 0
	fi

	# Arguments that are not options (option values skipped).
	local -A takes=()
	for row in "${rows[@]}"; do
		read -r long short ph vals <<<"$row"
		[ "$ph" = "-" ] && continue
		takes[$long]=1
		[ "$short" = "-" ] || takes[$short]=1
	done
	local -a args=()
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		=) ((i++)) ;;
		-*) [ -n "${takes[${COMP_WORDS[i]}]}" ] && [ "${COMP_WORDS[i + 1]}" != "=" ] && ((i++)) ;;
		*) args+=("${COMP_WORDS[i]}") ;;
		esac
	done
	case $cmd in
	capture)
		if [ ${#args[@]} -eq 0 ]; then
			_ibscan_add "$(_ibscan_section "$bin" capture subcommands)" "$cur"
		else
			_ibscan_files -f "$cur"
		fi
		;;
	diff)
		_ibscan_add live "$cur"
		_ibscan_files -f "$cur"
		;;
	ping)
		mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
		;;
	*)
		_ibscan_add "$(printf '%s\n' "${rows[@]}" | cut -d' ' -f1)" "$cur"
		;;
	esac
	return 0
} &&
	complete -F _ibscan ibscan
