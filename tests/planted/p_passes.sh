#!/bin/bash
# The control: a test that runs to its end passes.
. "$ROOT/tests/cli/lib.sh"
echo "ok: all of it"
t_done
