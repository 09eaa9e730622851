#!/bin/bash
# `make install` and `make uninstall` with DESTDIR and PREFIX: the binary,
# the man page, the bash completion and the docs with the examples land
# where they belong (and nowhere else), with the right modes; uninstall
# removes exactly those and leaves other packages' files alone.
# `-o ibscan`: the binary is already built; the test must not rebuild it.
. "$(dirname "$0")/lib.sh"
dest=$TMP/dest

mk() { make -C "$ROOT" -o ibscan --no-print-directory "$@" >"$TMP/make.log" 2>&1 || fail "make $*: $(tail -5 "$TMP/make.log")"; }

# Another package's files, which uninstall must not touch.
mkdir -p "$dest/usr/share/doc/other" "$dest/usr/share/man/man1" "$dest/usr/bin" "$dest/usr/share/bash-completion/completions"
: >"$dest/usr/share/doc/other/README"
: >"$dest/usr/share/man/man1/other.1"
: >"$dest/usr/bin/other"
(cd "$dest" && find . -type f | sort) >"$TMP/before"

mk install DESTDIR="$dest" PREFIX=/usr

# What must be there: fixed paths, every docs/*.md, every file in examples/.
{
	echo ./usr/bin/ibscan
	echo ./usr/share/man/man1/ibscan.1
	echo ./usr/share/bash-completion/completions/ibscan
	echo ./usr/share/doc/ibscan/README.md
	(cd "$ROOT/docs" && find img -type f) | sed 's|^|./usr/share/doc/ibscan/|'
	echo ./usr/share/doc/ibscan/.installed-dirs # the directories install made, for uninstall
	for f in "$ROOT"/docs/*.md; do echo "./usr/share/doc/ibscan/$(basename "$f")"; done
	(cd "$ROOT" && find examples -type f) | sed 's|^|./usr/share/doc/ibscan/|'
	cat "$TMP/before"
} | sort >"$TMP/want"
(cd "$dest" && find . -type f | sort) >"$TMP/got"
diff "$TMP/want" "$TMP/got" >"$TMP/d" || fail "installed files differ from the list:
$(cat "$TMP/d")"
for f in slurm.md checks.md json-schema.md capture-format.md examples/ibscan-health.cron \
	examples/ibscan-health.service examples/ibscan-health.timer examples/jq/degraded-links.jq; do
	[ -f "$dest/usr/share/doc/ibscan/$f" ] || fail "share/doc/ibscan/$f not installed"
done

# The installed README's links (pictures, docs) lead to installed files.
links=$(grep -oE '\]\([^)#:]+\)' "$dest/usr/share/doc/ibscan/README.md" | sed 's/^](\(.*\))$/\1/')
[ -n "$links" ] || fail "the installed README has no relative link"
for l in $links; do
	[ -f "$dest/usr/share/doc/ibscan/$l" ] || fail "the installed README links $l, which is not installed"
done
# Modes: programs 0755, the rest 0644; the contents are the repository's.
mode() { stat -c %a "$dest/$1"; }
[ "$(mode usr/bin/ibscan)" = 755 ] || fail "bin/ibscan mode $(mode usr/bin/ibscan)"
[ "$(mode usr/share/doc/ibscan/examples/ibscan-health.cron)" = 644 ] || fail "ibscan-health.cron mode"
[ "$(mode usr/share/man/man1/ibscan.1)" = 644 ] || fail "ibscan.1 mode"
[ "$(mode usr/share/bash-completion/completions/ibscan)" = 644 ] || fail "completion mode"
cmp -s "$ROOT/docs/ibscan.1" "$dest/usr/share/man/man1/ibscan.1" || fail "man page differs"
cmp -s "$ROOT/completion/ibscan.bash" "$dest/usr/share/bash-completion/completions/ibscan" || fail "completion differs"
cmp -s "$ROOT/ibscan" "$dest/usr/bin/ibscan" || fail "binary differs"

# They work from there.
"$dest/usr/bin/ibscan" --version | grep -q '^ibscan ' || fail "installed binary does not run"
man -l "$dest/usr/share/man/man1/ibscan.1" 2>/dev/null | grep -q 'topology' || fail "installed man page does not render"
got=$(bash -c 'source "$1"; complete -p ibscan; COMP_WORDS=("$2" topology --format ""); COMP_CWORD=3; _ibscan; echo "${COMPREPLY[*]}"' \
	_ "$dest/usr/share/bash-completion/completions/ibscan" "$dest/usr/bin/ibscan")
[[ $got == "complete -F _ibscan ibscan"*slurm* ]] || fail "installed completion: $got"

# Installing again over it is fine.
mk install DESTDIR="$dest" PREFIX=/usr

mk uninstall DESTDIR="$dest" PREFIX=/usr
(cd "$dest" && find . -type f | sort) >"$TMP/after"
diff "$TMP/before" "$TMP/after" >"$TMP/d" || fail "uninstall left or removed files:
$(cat "$TMP/d")"
[ ! -e "$dest/usr/share/doc/ibscan" ] || fail "uninstall left share/doc/ibscan"
[ -d "$dest/usr/share/bash-completion/completions" ] || fail "uninstall removed a shared directory (empty, but there before install)"
# Uninstalling twice is harmless.
mk uninstall DESTDIR="$dest" PREFIX=/usr

# PREFIX defaults to /usr/local.
mk install DESTDIR="$TMP/dest2"
for f in bin/ibscan share/man/man1/ibscan.1 share/bash-completion/completions/ibscan share/doc/ibscan/slurm.md; do
	[ -f "$TMP/dest2/usr/local/$f" ] || fail "default PREFIX: no /usr/local/$f"
done
mk uninstall DESTDIR="$TMP/dest2"
[ -z "$(find "$TMP/dest2" -type f)" ] || fail "default PREFIX: uninstall left $(find "$TMP/dest2" -type f)"
# Every directory install made there is gone too; only DESTDIR itself is left.
[ -z "$(find "$TMP/dest2" -mindepth 1)" ] || fail "default PREFIX: uninstall left directories: $(find "$TMP/dest2" -mindepth 1 | head -5)"
echo "install: ok"
t_done
