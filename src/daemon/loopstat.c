/* loopstat.c - the CPU time of each turn of the daemon's loop
 * (loopstat.h). A turn ends in the prepare phase, just before the loop
 * waits for I/O; CLOCK_THREAD_CPUTIME_ID read there, minus the reading
 * of the turn before, is the work of one turn (the wait itself costs no
 * CPU). One system call per turn: about 0.3 us, against turns of tens
 * of microseconds at the least. */
#include "loopstat.h"
#include "metrics.h"
#include "turn.h"

/* 1 ms to 5 s: a turn of a few milliseconds is a busy one; past 100 ms
 * every other request notices. */
static const double bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
				0.1,   0.25,   0.5,   1,    2.5,   5};

static void
on_prepare(uv_prepare_t *h)
{
	struct loopstat *ls = h->data;
	uint64_t now = turn_thread_cpu_ns();

	if (now >= ls->last_ns)
		histogram_observe(&ls->turns,
				  (double)(now - ls->last_ns) / 1e9);
	ls->last_ns = now;
}

int
loopstat_start(struct loopstat *ls, uv_loop_t *loop)
{
	int r;

	histogram_init(&ls->turns, bounds, HISTOGRAM_NBOUNDS(bounds));
	if ((r = uv_prepare_init(loop, &ls->prepare)) < 0)
		return r;
	ls->prepare.data = ls;
	ls->last_ns = turn_thread_cpu_ns();
	return uv_prepare_start(&ls->prepare, on_prepare);
}

void
loopstat_stop(struct loopstat *ls)
{
	uv_close((uv_handle_t *)&ls->prepare, NULL);
}

void
loopstat_release(struct loopstat *ls)
{
	histogram_release(&ls->turns);
}

void
loopstat_collect(void *arg, struct strbuf *out)
{
	const struct loopstat *ls = arg;

	metrics_family(out, "drover_event_loop_turn_cpu_seconds", "histogram",
		       "CPU time of the daemon's loop thread per turn of its "
		       "loop: how long a turn held every other request up.");
	metrics_histogram(out, "drover_event_loop_turn_cpu_seconds", NULL,
			  &ls->turns);
}
