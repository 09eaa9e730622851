#!/bin/bash
# The Makefile honours the packager's CPPFLAGS (a Debian build passes -D_FORTIFY_SOURCE=2 there):
# every compile line of both builds and of the unit tests carries it, and the product builds with it.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
make -n -B CPPFLAGS=-D_FORTIFY_SOURCE=2 build/rel/core/base/err.o build/san/core/base/err.o \
	build/rel/cmd/main.o build/san/tests/test_mad >"$TMP/lines" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "make -n failed"; }
n=$(grep -cE '^(cc|gcc|clang|\S*cc) .* -c -o build/(rel|san)/' "$TMP/lines" || true)
[ "$n" -ge 3 ] || { cat "$TMP/lines" >&2; fail "make -n printed $n compile lines, want 3 or more"; }
if grep -E '^(cc|gcc|clang|\S*cc) ' "$TMP/lines" | grep -E -- ' -c | -o build/san/tests/' | grep -v -- '-D_FORTIFY_SOURCE=2' >"$TMP/bad"; then
	cat "$TMP/bad" >&2
	fail "a compile line without the CPPFLAGS given to make"
fi

# And the product builds warning-free with it (glibc's fortified headers warn where a result is
# ignored): every release compile line, -Werror, into nothing.
make -n -B CPPFLAGS=-D_FORTIFY_SOURCE=2 build/rel/ibscan 2>"$TMP/err" |
	grep -E -- ' -c -o build/rel/' | sed -E 's| -c -o build/rel/\S+| -Werror -c -o /dev/null|' >"$TMP/cc"
[ "$(wc -l <"$TMP/cc")" -ge 20 ] || fail "make -n printed $(wc -l <"$TMP/cc") release compile lines"
tr '\n' '\0' <"$TMP/cc" | xargs -0 -P 2 -n 1 sh -c >"$TMP/ccout" 2>&1 || { head -20 "$TMP/ccout" >&2; fail "the build with -D_FORTIFY_SOURCE=2 warns"; }
echo done
