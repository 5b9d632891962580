#!/bin/sh
# tests/loaded/run.sh [N] — the test suite on a loaded machine.
#
# Starts two CPU-bound processes (as two other engineers' builds would be),
# runs `go test -race -count=1` N times (default 3) meanwhile, prints each
# run's result and duration, and exits non-zero if any run failed. A test
# that waits on a clock rather than on its event fails here first.
#
#   PKGS   the packages to test (default ./...)
#   RUN    a -run pattern (default: every test)
#   LOAD   how many CPU-bound processes (default 2)
#
# Run it from the repository's root, e.g.
#   tests/loaded/run.sh 5
#   PKGS=./socketproto/... tests/loaded/run.sh 1
set -u

n=${1:-3}
case $n in
'' | *[!0-9]*)
	echo "usage: $0 [N]  (N runs, default 3)" >&2
	exit 2
	;;
esac
pkgs=${PKGS:-./...}
load=${LOAD:-2}

burners=""
stop() {
	for pid in $burners; do
		kill "$pid" 2>/dev/null
	done
	for pid in $burners; do
		wait "$pid" 2>/dev/null
	done
	burners=""
}
trap stop EXIT
trap 'exit 130' INT TERM HUP

i=0
while [ "$i" -lt "$load" ]; do
	sh -c 'while :; do :; done' &
	burners="$burners $!"
	i=$((i + 1))
done
echo "loaded: $load CPU-bound processes ($(echo $burners)) on $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs"

failed=0
run=1
while [ "$run" -le "$n" ]; do
	start=$(date +%s)
	# shellcheck disable=SC2086 # PKGS is a list of patterns
	if go test -race -count=1 ${RUN:+-run "$RUN"} $pkgs; then
		result=ok
	else
		result=FAIL
		failed=$((failed + 1))
	fi
	echo "run $run of $n: $result in $(($(date +%s) - start)) s"
	run=$((run + 1))
done

echo "$failed of $n runs failed"
[ "$failed" -eq 0 ]
