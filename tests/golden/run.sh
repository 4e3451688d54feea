#!/bin/sh
# run.sh - golden tests of `drover plan`: every cases/NAME.args holds the
# flags of one run (the state file is cases/NAME.yaml unless the flags say
# otherwise); its stdout must equal cases/NAME.out, its stderr
# cases/NAME.err (when that file exists) and its exit status the number
# in cases/NAME.status (default 0). Every case runs twice and must give
# identical bytes (determinism).
# Usage: run.sh DROVER [--update]
set -u
drover=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/cases" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for args in *.args; do
	name=${args%.args}
	n=$((n + 1))
	# shellcheck disable=SC2046
	"$drover" plan $(cat "$args") >"$tmp/out" 2>"$tmp/err"
	status=$?
	"$drover" plan $(cat "$args") >"$tmp/out2" 2>"$tmp/err2"
	if ! cmp -s "$tmp/out" "$tmp/out2" || ! cmp -s "$tmp/err" "$tmp/err2"; then
		echo "FAIL $name: two runs differ"
		fail=1
	fi
	if [ "$update" = "--update" ]; then
		cp "$tmp/out" "$name.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$name.err"; else rm -f "$name.err"; fi
		if [ "$status" -ne 0 ]; then echo "$status" >"$name.status"; else rm -f "$name.status"; fi
		continue
	fi
	want_status=0
	[ -f "$name.status" ] && want_status=$(cat "$name.status")
	if [ "$status" -ne "$want_status" ]; then
		echo "FAIL $name: exit status $status, want $want_status"
		cat "$tmp/err"
		fail=1
	fi
	if ! diff -u "$name.out" "$tmp/out" >"$tmp/diff"; then
		echo "FAIL $name: stdout differs"
		head -40 "$tmp/diff"
		fail=1
	fi
	if [ -f "$name.err" ] && ! diff -u "$name.err" "$tmp/err" >"$tmp/diff"; then
		echo "FAIL $name: stderr differs"
		head -40 "$tmp/diff"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "golden: $n cases ok"
exit $fail
