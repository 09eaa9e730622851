#!/bin/bash
# An unset variable, inside a command substitution whose status is lost.
. "$ROOT/tests/cli/lib.sh"
echo "value: $(echo "$IBSCAN_PLANTED_NEVER_SET")"
t_done
