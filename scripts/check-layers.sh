#!/bin/sh
# check-layers.sh - keep the layering honest (STYLE.md §3.2):
#  1. src/core includes only its own headers and libc, and its rooms
#     point one way (base <- API groups <- registry <- planners);
#  2. each layer includes only its own folder and lower layers; the
#     controllers and the agent reach the API only through src/client;
#  3. `nm -u` of libdrover_core.a names only allowed libc symbols.
# Usage: scripts/check-layers.sh BUILD_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
fail=0

# 1+2: quoted includes per folder must resolve in allowed folders. The
# core's rooms point one way: base below everything; the API groups on
# base (meta first, core on meta, apps and discovery on core); the
# registry and the columns (src/core/apis) on every group; the planners
# (src/core/plan) on the API types, never the reverse. Another layer that
# may include "core" may include every room of it.
core_all="core/base core/apis/meta core/apis/core core/apis/apps core/apis/discovery core/apis/policy core/apis/coordination core/apis core/plan"
allowed() {
	case "$1" in
	core/base) echo "core/base" ;;
	core/apis/meta) echo "core/apis/meta core/base" ;;
	core/apis/core) echo "core/apis/core core/apis/meta core/base" ;;
	core/apis/apps) echo "core/apis/apps core/apis/core core/apis/meta core/base" ;;
	core/apis/discovery) echo "core/apis/discovery core/apis/core core/apis/meta core/base" ;;
	core/apis/policy) echo "core/apis/policy core/apis/meta core/base" ;;
	core/apis/coordination) echo "core/apis/coordination core/apis/meta core/base" ;;
	core/apis) echo "core/apis core/apis/meta core/apis/core core/apis/apps core/apis/discovery core/apis/policy core/apis/coordination core/base" ;;
	core/plan) echo "core/plan core/apis core/apis/meta core/apis/core core/apis/apps core/apis/discovery core/apis/policy core/apis/coordination core/base" ;;
	sys) echo "sys $core_all" ;;
	codec) echo "codec $core_all" ;;
	store) echo "store $core_all" ;;
	client) echo "client codec sys $core_all" ;;
	api) echo "api client store codec sys $core_all" ;;
	ctl) echo "ctl client codec sys $core_all" ;;
	proxy) echo "proxy sys $core_all" ;;
	agent) echo "agent proxy client codec sys $core_all" ;;
	daemon) echo "daemon agent proxy ctl api client store codec sys $core_all" ;;
	cli) echo "cli daemon api client codec sys $core_all" ;;
	*) echo "" ;;
	esac
}
units=$(cd "$root/src" && find . -name '*.[ch]' | sed 's|^\./||; s|/[^/]*$||' | sort -u)
for layer in $units; do
	dir="$root/src/$layer/"
	ok=$(allowed "$layer")
	if [ -z "$ok" ]; then
		echo "check-layers: no rule for src/$layer" >&2; echo x; continue
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
for f in $(find "$root/src/core" -name '*.[ch]'); do
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
# (__udivti3 and friends: libgcc's 128-bit division, which a build may
# call for quantity.c's __int128 arithmetic; pure arithmetic.)
allow='^(malloc|calloc|realloc|free|abort|memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strchr|strrchr|memchr|strspn|strstr|strtoll|strtol|strtod|strtoull|snprintf|vsnprintf|qsort|bsearch|__assert_fail|__stack_chk_fail|__udivti3|__umodti3|__udivmodti4|__divti3|__modti3|__divmodti4|__ubsan_.*|__asan_.*|__sanitizer_.*|__sancov_.*|_GLOBAL_OFFSET_TABLE_)$'
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
