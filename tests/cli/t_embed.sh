#!/bin/bash
# tools/build/embed.py puts the report's script together: each `/* include PART.js */`
# line of the entry replaced by that part, indented as the line is, the SHA-256 over
# what the page holds; every other .js beside the entry included once, a part
# including nothing; a style sheet taken as it is.
. "$(dirname "$0")/lib.sh"
embed="$ROOT/tools/build/embed.py"
d=$TMP/js
mkdir -p "$d"
printf '(function () {\n\t/* include a.js */\n/* include b.js */\n}());\n' >"$d/main.js"
printf '/* part a */\nvar a = 1;\n\nfunction f() {\n\treturn a;\n}\n' >"$d/a.js"
printf 'var b = 2;\n' >"$d/b.js"
printf '/* include a.js */\nbody { color: red; }\n' >"$d/style.css"
python3 "$embed" "$TMP/out.h" js="$d/main.js" css="$d/style.css" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "embed.py failed"; }
python3 - "$TMP/out.h" <<'PY' || fail "the embedded script or style is not what the parts make"
import base64, hashlib, re, sys
h = open(sys.argv[1]).read()
def string(name):
    m = re.search(r'static const char %s\[\] =\n(.*?);\n' % name, h, re.S)
    text = ''.join(eval(l.strip()) for l in m.group(1).split('\n'))
    digest = re.search(r'static const char %s_sha256\[\] = "(.*?)";' % name, h).group(1)
    assert digest == base64.b64encode(hashlib.sha256(text.encode()).digest()).decode(), name + ': hash'
    return text
want = ('(function () {\n\t/* part a */\n\tvar a = 1;\n\n\tfunction f() {\n\t\treturn a;\n\t}\n'
        'var b = 2;\n}());\n')
got = string('js')
assert got == want, 'script: %r' % got
assert string('css') == '/* include a.js */\nbody { color: red; }\n', 'style'
PY

# refused NAME MESSAGE: embedding main.js now fails, saying MESSAGE.
refused() {
	local rc=0
	python3 "$embed" "$TMP/bad.h" js="$d/main.js" 2>"$TMP/err" || rc=$?
	[ $rc != 0 ] || fail "$1: embed.py exited 0"
	grep -qF "$2" "$TMP/err" || { cat "$TMP/err" >&2; fail "$1: no '$2' on stderr"; }
	[ ! -e "$TMP/bad.h" ] || fail "$1: a header was written"
}
printf 'var c;\n' >"$d/c.js"
refused "a part left out" "embed.py: error: '$d/c.js' is not included by '$d/main.js'"
printf '/* include a.js */\n/* include b.js */\n/* include c.js */\n/* include a.js */\n' >"$d/main.js"
refused "a part twice" "'$d/main.js' includes 'a.js' twice"
printf '/* include a.js */\n/* include b.js */\n/* include c.js */\n' >"$d/main.js"
printf '/* include a.js */\n' >"$d/c.js"
refused "a part that includes" "'$d/c.js' includes 'a.js': a part includes nothing"
printf '/* include a.js */\n/* include b.js */\n/* include gone.js */\n' >"$d/main.js"
rm "$d/c.js"
refused "a missing part" "cannot read '$d/gone.js'"
printf '/* include a.js */\n/* include b.js */\n' >"$d/main.js"
printf 'var b = "\xc3\xa9";\n' >"$d/b.js"
refused "a part not ASCII" "'$d/b.js' is not ASCII"
echo done
t_done
