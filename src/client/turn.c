/* turn.c - the CPU clock of a loop's turn (turn.h): a prepare handle
 * reads CLOCK_THREAD_CPUTIME_ID at the end of each turn. */
#include <stdlib.h>
#include <time.h>

#include "turn.h"
#include "xalloc.h"

struct turn_clock {
	uv_prepare_t *prepare; /* owned; freed by its close callback */
	int users;
	uint64_t mark_ns; /* thread CPU at the last prepare phase */
};

static _Thread_local struct turn_clock clock_of_thread;

uint64_t
turn_thread_cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) < 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void
on_prepare(uv_prepare_t *h)
{
	(void)h;
	clock_of_thread.mark_ns = turn_thread_cpu_ns();
}

static void
free_handle(uv_handle_t *h)
{
	free(h);
}

void
turn_attach(uv_loop_t *loop)
{
	struct turn_clock *c = &clock_of_thread;

	if (c->users++ > 0)
		return;
	c->prepare = xcalloc(1, sizeof(*c->prepare));
	uv_prepare_init(loop, c->prepare);
	uv_prepare_start(c->prepare, on_prepare);
	uv_unref((uv_handle_t *)c->prepare); /* keeps no loop alive */
	c->mark_ns = turn_thread_cpu_ns();
}

void
turn_detach(void)
{
	struct turn_clock *c = &clock_of_thread;

	if (c->users == 0 || --c->users > 0)
		return;
	uv_close((uv_handle_t *)c->prepare, free_handle);
	c->prepare = NULL;
}

double
turn_cpu_ms(void)
{
	uint64_t now;

	if (clock_of_thread.users == 0)
		return 0;
	now = turn_thread_cpu_ns();
	return now > clock_of_thread.mark_ns
		   ? (double)(now - clock_of_thread.mark_ns) / 1e6
		   : 0;
}

bool
turn_over_ms(double ms)
{
	return turn_cpu_ms() > ms;
}
