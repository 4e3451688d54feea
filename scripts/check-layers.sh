#!/bin/sh
# check-layers.sh - keep the layering honest (STYLE.md §3.2):
#  1. src/core includes only its own headers and libc;
#  2. each layer includes only its own folder and lower layers; the
#     controllers and the agent reach the API only through src/client;
#  3. `nm -u` of libdrover_core.a names only allowed libc symbols.
# Usage: scripts/check-layers.sh BUILD_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
fail=0

# 1+2: quoted includes per folder must resolve in allowed folders.
allowed() {
	case "$1" in
	core) echo "core" ;;
	sys) echo "sys core" ;;
	codec) echo "codec core" ;;
	store) echo "store core" ;;
	client) echo "client codec sys core" ;;
	api) echo "api client store codec sys core" ;;
	ctl) echo "ctl client codec sys core" ;;
	proxy) echo "proxy sys core" ;;
	agent) echo "agent proxy client codec sys core" ;;
	daemon) echo "daemon agent proxy ctl api client store codec sys core" ;;
	cli) echo "cli daemon api client codec sys core" ;;
	*) echo "" ;;
	esac
}
for dir in "$root"/src/*/; do
	layer=$(basename "$dir")
	ok=$(allowed "$layer")
	if [ -z "$ok" ]; then
		echo "check-layers: no rule for src/$layer" >&2; fail=1; continue
	fi
	for f in "$dir"*.c "$dir"*.h; do
		[ -e "$f" ] || continue
		grep -o '#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' |
		while read -r inc; do
			found=""
			for l in $ok; do
				[ -e "$root/src/$l/$inc" ] && found=$l
			done
			if [ -z "$found" ]; then
				echo "check-layers: $f includes \"$inc\", not allowed in src/$layer" >&2
				echo x
			fi
		done
	done
done | grep -q x && fail=1
for f in "$root"/src/core/*.c "$root"/src/core/*.h; do
	if grep -E '#include <(uv|sqlite3|jansson|yaml|curl|microhttpd|pthread|unistd|sys/|time|fcntl)' "$f" >/dev/null; then
		echo "check-layers: $f includes a system header outside libc's pure part" >&2
		fail=1
	fi
done

# 3: undefined symbols of the core library.
lib=$(find "$build" -name libdrover_core.a | head -1)
if [ -z "$lib" ]; then
	echo "check-layers: libdrover_core.a not found under $build" >&2
	exit 1
fi
# (__udivti3 and friends: libgcc's 128-bit division, which an unoptimised
# build calls for quantity.c's __int128 arithmetic; pure arithmetic.)
allow='^(malloc|calloc|realloc|free|abort|memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strchr|strrchr|memchr|strspn|strstr|strtoll|strtol|strtod|strtoull|snprintf|vsnprintf|qsort|__assert_fail|__stack_chk_fail|__udivti3|__umodti3|__divti3|__modti3|__ubsan_.*|__asan_.*|__sanitizer_.*|__sancov_.*|_GLOBAL_OFFSET_TABLE_)$'
defined=$(mktemp)
nm --defined-only "$lib" 2>/dev/null | awk 'NF==3 {print $3}' | sort -u >"$defined"
bad=$(nm -u "$lib" | awk '{print $2}' | grep -v '^$' | sort -u |
	comm -23 - "$defined" | grep -Ev "$allow" || true)
rm -f "$defined"
if [ -n "$bad" ]; then
	echo "check-layers: libdrover_core.a uses symbols outside the libc allow-list:" >&2
	echo "$bad" >&2
	fail=1
fi
[ $fail -eq 0 ] && echo "check-layers: ok"
exit $fail
