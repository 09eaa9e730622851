# shellcheck shell=bash
# t_done: a test's last command. It prints the line "done: NAME" that the
# tier's runner (tests/runner.sh) requires: a test that stops before its
# end, whatever its exit status, never passes. NAME is the test the runner
# started (TEST_NAME), or this script's name.
t_done() { echo "done: ${TEST_NAME:-$(basename "$0" .sh)}"; }
