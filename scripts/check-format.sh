#!/bin/sh
# check-format.sh - the C sources follow .clang-format (run by make test).
# `make format` rewrites them.
set -eu
cd "$(dirname "$0")/.."
files=$(find src -name "*.[ch]" | sort; ls tests/unit/*.c tests/unit/*.h tests/integ/*.c \
	tests/fuzz/*.c examples/service/*.c bench/*.c bench/proxy/*.c 2>/dev/null)
if clang-format --dry-run -Werror $files 2>/tmp/check-format.$$; then
	rm -f /tmp/check-format.$$
	echo "check-format: ok ($(echo "$files" | wc -w) files)"
	exit 0
fi
grep -E "^[^ ].*: (error|warning):" /tmp/check-format.$$ | cut -d: -f1 | sort -u |
	sed 's/^/check-format: not formatted: /'
rm -f /tmp/check-format.$$
echo "check-format: run 'make format'" >&2
exit 1
