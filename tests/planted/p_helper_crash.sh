#!/bin/bash
# A helper that crashes, its status dropped by || true.
. "$ROOT/tests/cli/lib.sh"
python3 -c 'raise RuntimeError("the helper crashed")' || true
bash -c 'kill -SEGV $$' || true
t_done
