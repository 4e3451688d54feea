/* agent_probe_pool.c - probes scheduled on the probe thread: the first
 * check waits for its start time, results come back on the caller's loop,
 * a failing target fails, and a stopped probe falls silent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe_pool.h"

struct seen {
	int n[3];  /* results per id (1, 2) */
	int ok[3]; /* of which successful */
	uint64_t first_ns[3];
	int stop_at; /* stop the loop once id 1 has this many */
	uv_loop_t *loop;
};

static void
on_result(void *arg, uint64_t id, bool ok, const char *why)
{
	struct seen *s = arg;

	(void)why;
	assert_true(id == 1 || id == 2);
	if (s->n[id]++ == 0)
		s->first_ns[id] = uv_hrtime();
	s->ok[id] += ok;
	if (s->stop_at && s->n[1] >= s->stop_at)
		uv_stop(s->loop);
}

static void
on_deadline(uv_timer_t *t)
{
	uv_stop(t->loop);
}

/* Runs the loop until stopped or ms have passed. */
static void
run_for(uv_loop_t *loop, uint64_t ms)
{
	uv_timer_t t;

	uv_timer_init(loop, &t);
	uv_timer_start(&t, on_deadline, ms, 0);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&t, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
}

static int
listener(int *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 64), 0);
	getsockname(fd, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void
test_schedule_results_and_stop(void **state)
{
	uv_loop_t loop;
	struct seen s = {.stop_at = 3, .loop = &loop};
	struct probe_pool *pp;
	int open_port, closed_port, fd, closed_fd, before;
	uint64_t t0;

	(void)state;
	uv_loop_init(&loop);
	fd = listener(&open_port);
	closed_fd = listener(&closed_port);
	close(closed_fd); /* nothing listens there any more */
	pp = probe_pool_new(&loop, on_result, &s);
	assert_non_null(pp);
	t0 = uv_hrtime();
	probe_pool_start(pp, 1,
			 &(struct probe_pool_spec){.type = PROBE_TCP,
						   .port = open_port,
						   .first_ns = t0 + 100000000,
						   .period_ms = 20,
						   .timeout_ms = 1000});
	probe_pool_start(pp, 2,
			 &(struct probe_pool_spec){.type = PROBE_HTTP,
						   .port = closed_port,
						   .path = "/healthz",
						   .first_ns = t0,
						   .period_ms = 20,
						   .timeout_ms = 1000});
	run_for(&loop, 5000);
	assert_int_equal(s.n[1], 3);
	assert_int_equal(s.ok[1], 3);                 /* connected */
	assert_true(s.first_ns[1] - t0 >= 100000000); /* not before its time */
	assert_true(s.n[2] >= 1);
	assert_int_equal(s.ok[2], 0); /* refused */
	probe_pool_stop(pp, 1);
	probe_pool_stop(pp, 2);
	s.stop_at = 0;
	run_for(&loop, 50); /* a result already on its way may come */
	before = s.n[1];
	run_for(&loop, 200); /* then silence */
	assert_int_equal(s.n[1], before);
	probe_pool_free(pp);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_schedule_results_and_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
