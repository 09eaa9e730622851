#!/bin/bash
# Stops half way with status 0: it never reaches t_done.
. "$ROOT/tests/cli/lib.sh"
echo "ok: the first half"
exit 0
echo "ok: the second half"
t_done
