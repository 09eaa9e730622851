#!/bin/bash
# Real-RDMA tier (make check-rdma): Debian's kernel in two QEMU guests with
# soft-RoCE, ibscan against the real verbs stack and the reference tools
# (ibv_devinfo, rdma, ibv_rc_pingpong, perftest). tests/rdma/image.sh builds
# the guests' image once (cached under build/rdma/, rebuilt when a package
# version changes); the fresh ./ibscan is added at each run. The guests boot
# once for the whole tier; its tests run one after the other in them
# (tests/rdma/t_*.sh). A test passes only when it exits 0 and prints its
# "done: NAME" line (tests/runner.sh). A failed run keeps the guests'
# consoles and the tests' logs in build/rdma/failed-DATE/.
# Usage: tests/rdma/run.sh [TEST...]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
if ! NEED_WHO=rdma tools/deps/need.sh rdma; then
	echo "rdma: 0 passed, 1 failed"
	exit 1
fi
t_start=$SECONDS
tests/rdma/image.sh || { echo "rdma: 0 passed, 1 failed (image)"; exit 1; }
if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do
		case $t in */*) tests+=("$t") ;; *) tests+=("tests/rdma/${t%.sh}.sh") ;; esac
	done
else
	tests=(tests/rdma/t_*.sh)
fi
export ROOT=$root IBSCAN=${IBSCAN:-$root/ibscan}
export RDMA_RUN=$root/build/rdma/run.$$
rm -rf "$RDMA_RUN"
mkdir -p "$RDMA_RUN"
. tests/rdma/lib.sh
. tests/runner.sh
fail=0 pass=0
finish() {
	vm_halt
	if [ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]; then
		rm -rf "$RDMA_RUN"
	else
		local keep
		keep=$root/build/rdma/failed-$(date +%Y%m%d-%H%M%S)
		rm -f "$RDMA_RUN/initrd" "$RDMA_RUN/overlay.cpio"
		mv "$RDMA_RUN" "$keep" && echo "rdma: consoles and logs kept in $keep"
	fi
}
trap finish EXIT
trap 'exit 130' INT TERM
if ! vm_boot; then
	fail=1
	echo "rdma: 0 passed, 1 failed (the guests did not boot)"
	exit 1
fi
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	log=$RDMA_RUN/$name.log
	start=$SECONDS rc=0
	# A test's time limit: 300 s, or what its line "# rdma-timeout: SECONDS" says.
	limit=$(sed -n 's/^# rdma-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -1)
	TEST_NAME=$name timeout -k 10 "${limit:-300}" bash "$t" >"$log" 2>&1 || rc=$?
	if why=$(t_verdict "$name" "$rc" "$log"); then
		printf 'ok   %-28s %4ds\n' "$name" $((SECONDS - start))
		pass=$((pass + 1))
	else
		printf 'FAIL %-28s %s (log follows)\n' "$name" "$why"
		sed 's/^/    /' "$log" | tail -60
		fail=$((fail + 1))
	fi
done
echo "rdma: $pass passed, $fail failed in $((SECONDS - t_start)) s"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#tests[@]}" ]
