#!/bin/bash
# A tool that is not there, where no status shows it (inside an if).
. "$ROOT/tests/cli/lib.sh"
if ibscan-planted-no-such-tool --version; then echo "it was there"; fi
t_done
