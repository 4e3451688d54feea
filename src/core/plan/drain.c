/* drain.c - the drain handshake's decision (drain.h). */
#include <string.h>

#include "drain.h"

bool
drain_acked(const char *key, int64_t since_rv, const struct drain_ack *acks,
	    size_t n)
{
	size_t i, j;

	/* Every node with a proxy must have answered for this pod: one
	 * that is behind, or still busy with it, holds the SIGTERM back.
	 * Example with key "default/web-1/u1" and since_rv 812:
	 *   {815, []}, {812, ["default/web-2/u2"]}   -> true
	 *   {815, []}, {811, []}                      -> false (behind)
	 *   {815, ["default/web-1/u1"]}               -> false (busy) */
	for (i = 0; i < n; i++) {
		/* This proxy may not have seen the pod leave yet. */
		if (acks[i].observed < since_rv)
			return false;
		/* It has, but a connection or request to it is open. */
		for (j = 0; j < acks[i].nbusy; j++)
			if (acks[i].busy[j] && !strcmp(acks[i].busy[j], key))
				return false;
	}
	return true;
}

int64_t
drain_kill_after(int64_t deletion_ts_ms, int64_t now_ms)
{
	/* Whole seconds, rounded up: with 3.2 s left the process gets
	 * 4 s, not 3 (the grace period is a promise of at least that
	 * long); with 1.2 s left it gets DRAIN_MIN_KILL_S. */
	int64_t left_ms = deletion_ts_ms - now_ms;
	int64_t left = left_ms > 0 ? (left_ms + 999) / 1000 : 0;

	return left > DRAIN_MIN_KILL_S ? left : DRAIN_MIN_KILL_S;
}
