#!/bin/sh
# comment-density.sh - comment lines / all lines, per file and in total.
#
# Usage: scripts/comment-density.sh src/core/*.c
#
# A line counts as a comment line when any part of it is inside /* */ or
# after //: a code line with a trailing comment counts, a blank line
# inside a block comment counts, a blank line outside does not. String
# literals are not parsed, so a "/*" inside a string would be miscounted
# (src/core has none). STYLE.md aims for 20-30% in src/core.
#
# Output: one line per file (name, comment lines, lines, percent), then
# TOTAL over all the files given.
set -eu

if [ $# -eq 0 ]; then
	echo "usage: $0 FILE..." >&2
	exit 2
fi

exec awk '
FNR == 1 { if (f != "") out(); f = FILENAME; c = n = 0; inc = 0 }
{
	n++; l = $0
	# inside a block comment: count, and leave it at its end
	if (inc) { c++; if (l ~ /\*\//) inc = 0; next }
	# a block comment starts: count; stay inside unless it closes here
	if (l ~ /\/\*/) {
		c++; t = l; sub(/.*\/\*/, "", t)
		if (t !~ /\*\//) inc = 1
		next
	}
	if (l ~ /\/\//) c++
}
function out() {
	printf "%-32s %5d %5d %5.1f%%\n", f, c, n, n ? 100 * c / n : 0
	C += c; N += n
}
END {
	out()
	printf "%-32s %5d %5d %5.1f%%\n", "TOTAL", C, N, N ? 100 * C / N : 0
}' "$@"
