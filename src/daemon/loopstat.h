/* loopstat.h - how much work each turn of the daemon's loop does: the
 * CPU time of the loop's thread from one turn's wait for I/O to the
 * next (the timers, the I/O callbacks, the requests answered, the group
 * commit, the watch deliveries), as a histogram on /metrics:
 *
 *   drover_event_loop_turn_cpu_seconds_bucket{le="0.1"} 91234
 *
 * Every request waits for the turn under way, so the longest turns are
 * how long one request or one controller's sync holds every other
 * request up. CPU time, not wall time: what a busy host takes from the
 * thread is not the daemon's work, and a test can bound the work
 * whatever else runs beside it.
 *
 * Ownership: the caller owns struct loopstat (it must outlive the loop
 * turns and the registry's collection); loopstat_stop closes its handle. */
#ifndef DROVER_DAEMON_LOOPSTAT_H
#define DROVER_DAEMON_LOOPSTAT_H

#include <stdint.h>
#include <uv.h>

#include "histogram.h"
#include "strbuf.h"

struct loopstat {
	uv_prepare_t prepare;
	uint64_t last_ns; /* the thread's CPU time at the last turn's end */
	struct histogram turns;
};

/* Starts measuring on loop: call it before any other prepare handle is
 * started, so that its turn ends after theirs (libuv runs prepare
 * handles in the reverse order of their start). 0 or a libuv error. */
int loopstat_start(struct loopstat *ls, uv_loop_t *loop);
/* Closes the handle; the histogram stays until loopstat_release. */
void loopstat_stop(struct loopstat *ls);
void loopstat_release(struct loopstat *ls);
/* A metrics collector (metrics.h) of arg, a struct loopstat. */
void loopstat_collect(void *arg, struct strbuf *out);

#endif
