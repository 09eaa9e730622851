#!/usr/bin/env bash
# compare.sh A B: compare two normalized topology files (the output of
# ibnd2norm.py / ibscan2norm.py) line by line, order-insensitively.  One of
# A and B may be - (stdin).
# Prints the lines only in A and the lines only in B, with counts.
# Exit: 0 same, 1 different, 2 usage error or unreadable file.
set -u -o pipefail

if [[ $# -ne 2 ]]; then
	echo "usage: compare.sh A B   (normalized topology files)" >&2
	exit 2
fi
a=$1 b=$2
if [[ $a == - && $b == - ]]; then
	echo "compare.sh: only one of A and B can be - (stdin)" >&2
	exit 2
fi
for f in "$a" "$b"; do
	if [[ $f != - && ! -r $f ]]; then
		echo "compare.sh: cannot read $f" >&2
		exit 2
	fi
done

sorted_a=$(LC_ALL=C sort -- "$a") || exit 2
sorted_b=$(LC_ALL=C sort -- "$b") || exit 2
only_a=$(LC_ALL=C comm -23 <(printf '%s\n' "$sorted_a") <(printf '%s\n' "$sorted_b")) || exit 2
only_b=$(LC_ALL=C comm -13 <(printf '%s\n' "$sorted_a") <(printf '%s\n' "$sorted_b")) || exit 2

if [[ -z $only_a && -z $only_b ]]; then
	exit 0
fi
count() {
	if [[ -z $1 ]]; then echo 0; else printf '%s\n' "$1" | wc -l; fi
}
echo "--- only in $a ($(count "$only_a") lines):"
[[ -n $only_a ]] && printf '%s\n' "$only_a" | sed 's/^/-  /'
echo "+++ only in $b ($(count "$only_b") lines):"
[[ -n $only_b ]] && printf '%s\n' "$only_b" | sed 's/^/+  /'
exit 1
