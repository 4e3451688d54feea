/* client_queue.c - the work queue of controllers and agents, on a real
 * libuv loop: de-duplication, first-in first-out order, no re-entrant
 * sync of a key, delayed requeue, retry with back-off, a queue run from
 * another's settle (queue_run_now), one budget of CPU for the whole
 * loop turn; the loop is empty at the end. (The retry cap of 15 is 163 s
 * of back-off, too slow for a test.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "queue.h"
#include "strbuf.h"

struct rec {
	struct queue *q;
	int calls_a, calls_b;
	int fail_first; /* fail this many syncs of "a" */
	int64_t requeue_once;
	uint64_t t_first, t_last;
	uv_loop_t *loop;
	bool readd;
};

static int
sync_cb(void *arg, const char *key, int64_t *requeue)
{
	struct rec *r = arg;

	if (!strcmp(key, "b")) {
		r->calls_b++;
		return 0;
	}
	r->calls_a++;
	if (r->calls_a == 1)
		r->t_first = uv_now(r->loop);
	r->t_last = uv_now(r->loop);
	if (r->readd) {
		r->readd = false;
		queue_add(r->q, "a"); /* during its own sync: runs later */
	}
	if (r->requeue_once) {
		*requeue = r->requeue_once;
		r->requeue_once = 0;
	}
	return r->calls_a <= r->fail_first ? -1 : 0;
}

static void
run(uv_loop_t *loop, struct queue *q)
{
	uv_run(loop, UV_RUN_DEFAULT);
	queue_free(q);
	uv_run(loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(loop), 0); /* nothing left open */
}

static void
test_dedupe_and_readd(void **state)
{
	uv_loop_t loop;
	struct rec r = {.loop = &loop, .readd = true};

	(void)state;
	uv_loop_init(&loop);
	r.q = queue_new(&loop, "t", sync_cb, &r);
	queue_add(r.q, "a");
	queue_add(r.q, "a");
	queue_add(r.q, "b");
	queue_add(r.q, "a");
	assert_int_equal(queue_pending(r.q), 2);
	run(&loop, r.q);
	assert_int_equal(r.calls_a, 2); /* once, then the re-add */
	assert_int_equal(r.calls_b, 1);
}

struct order {
	char seen[16];
	size_t n;
};

static int
order_cb(void *arg, const char *key, int64_t *requeue)
{
	struct order *o = arg;

	(void)requeue;
	if (o->n < sizeof(o->seen) - 1)
		o->seen[o->n++] = key[0];
	return 0;
}

/* Keys run in the order they were first added since their last run,
 * whatever order the queue first met them in. */
static void
test_fifo(void **state)
{
	uv_loop_t loop;
	struct order o = {0};
	struct queue *q;

	(void)state;
	uv_loop_init(&loop);
	q = queue_new(&loop, "t", order_cb, &o);
	queue_add(q, "x");
	queue_add(q, "y");
	queue_add(q, "z");
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_string_equal(o.seen, "xyz");
	o.n = 0;
	memset(o.seen, 0, sizeof(o.seen));
	queue_add(q, "z");
	queue_add(q, "x");
	queue_add(q, "z"); /* keeps its place */
	queue_add(q, "y");
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_string_equal(o.seen, "zxy");
	run(&loop, q);
}

static void
test_requeue_after(void **state)
{
	uv_loop_t loop;
	struct rec r = {.loop = &loop, .requeue_once = 120};

	(void)state;
	uv_loop_init(&loop);
	r.q = queue_new(&loop, "t", sync_cb, &r);
	queue_add(r.q, "a");
	run(&loop, r.q);
	assert_int_equal(r.calls_a, 2);
	assert_true(r.t_last - r.t_first >= 120);
}

static void
test_backoff(void **state)
{
	uv_loop_t loop;
	struct rec r = {.loop = &loop, .fail_first = 4};

	(void)state;
	uv_loop_init(&loop);
	r.q = queue_new(&loop, "t", sync_cb, &r);
	queue_add(r.q, "a");
	run(&loop, r.q);
	/* 4 failures: retries after 5 + 10 + 20 + 40 ms, then success */
	assert_int_equal(r.calls_a, 5);
	assert_true(r.t_last - r.t_first >= 75);
}

/* The line "NAME{name=\"metrics\"} V" of the exposition: V, or -1. */
static double
metric(const char *text, const char *family)
{
	char pat[160];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s{name=\"metrics\"} ", family);
	p = strstr(text, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

/* client-go's workqueue metrics: an add counts once while the key waits
 * (three adds of "a" and one of "b" before the loop runs: 2), a retry
 * for each back-off after a failure and each delayed add, the work
 * duration once per sync, the depth back to 0. */
static void
test_metrics(void **state)
{
	uv_loop_t loop;
	struct rec r = {.fail_first = 1};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	uv_loop_init(&loop);
	r.loop = &loop;
	r.q = queue_new(&loop, "metrics", sync_cb, &r);
	queue_add(r.q, "a");
	queue_add(r.q, "a");
	queue_add(r.q, "a");
	queue_add(r.q, "b");
	queue_metrics_collect(NULL, &sb);
	assert_true(metric(sb.buf, "drover_workqueue_depth") == 2);
	assert_true(metric(sb.buf, "drover_workqueue_adds_total") == 2);
	queue_add_after(r.q, "b", 5);
	run(&loop, r.q);
	/* a failed once (a back-off retry, then its sync); b ran twice */
	assert_int_equal(r.calls_a, 2);
	assert_int_equal(r.calls_b, 2);
	strbuf_reset(&sb);
	queue_metrics_collect(NULL, &sb);
	assert_non_null(strstr(sb.buf, "# TYPE drover_workqueue_adds_total "
				       "counter\n"));
	assert_non_null(strstr(sb.buf, "# TYPE drover_workqueue_work_duration_"
				       "seconds histogram\n"));
	assert_true(metric(sb.buf, "drover_workqueue_depth") == 0);
	assert_true(metric(sb.buf, "drover_workqueue_adds_total") == 4);
	assert_true(metric(sb.buf, "drover_workqueue_retries_total") == 2);
	assert_true(metric(sb.buf, "drover_workqueue_work_duration_seconds_"
				   "count") == 4);
	assert_true(metric(sb.buf, "drover_workqueue_queue_duration_seconds_"
				   "count") == 4);
	assert_non_null(strstr(sb.buf, "drover_workqueue_work_duration_"
				       "seconds_bucket{name=\"metrics\","
				       "le=\"+Inf\"} 4\n"));
	strbuf_release(&sb);
}

/* queue_run_now: the downstream queue's batch runs inside the upstream
 * one's settle (before the loop's next timer), never inside its own. */
struct chain {
	struct queue *up, *down;
	struct strbuf log;
	int settles_down;
};

static int
sync_up(void *arg, const char *key, int64_t *requeue)
{
	struct chain *c = arg;

	(void)requeue;
	strbuf_addf(&c->log, "up:%s ", key);
	queue_add(c->down, key); /* the next hop */
	return 0;
}

static int
sync_down(void *arg, const char *key, int64_t *requeue)
{
	struct chain *c = arg;

	(void)requeue;
	strbuf_addf(&c->log, "down:%s ", key);
	return 0;
}

static void
settle_up(void *arg)
{
	struct chain *c = arg;

	strbuf_addstr(&c->log, "settle-up ");
	queue_run_now(c->down);
	strbuf_addstr(&c->log, "after ");
}

static void
settle_down(void *arg)
{
	struct chain *c = arg;

	c->settles_down++;
	queue_run_now(c->down); /* its own batch: nothing */
}

static void
test_run_now_from_a_settle(void **state)
{
	uv_loop_t loop;
	struct chain c = {.log = STRBUF_INIT};

	(void)state;
	uv_loop_init(&loop);
	c.up = queue_new(&loop, "up", sync_up, &c);
	c.down = queue_new(&loop, "down", sync_down, &c);
	queue_set_settle(c.up, settle_up, &c);
	queue_set_settle(c.down, settle_down, &c);
	queue_run_now(c.down); /* nothing waits: nothing happens */
	assert_int_equal(c.settles_down, 0);
	queue_add(c.up, "x");
	queue_add(c.up, "y");
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_string_equal(c.log.buf,
			    "up:x up:y settle-up down:x down:y after ");
	assert_int_equal(c.settles_down, 1);
	queue_free(c.up);
	queue_free(c.down);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	strbuf_release(&c.log);
}

/* The turn's budget is one for the whole loop turn (turn.h). A check
 * handle (work after the poll) uses 15 ms of CPU and adds three keys to
 * a queue, kicked by a 0 ms timer, which libuv runs in the next
 * iteration's timers phase, before it polls again: the same turn. Each
 * of the queue's syncs uses 12 ms. A budget counted from the start of
 * each loop iteration let the queue run two of them after the check
 * (39 ms in that turn); counted over the turn, it runs one (27 ms) and
 * the rest wait for the poll. */
#define CHECK_MS 15
#define BURN_MS  12

struct turns {
	struct queue *q;
	uv_prepare_t prepare;
	uv_check_t check;
	uv_idle_t idle;
	double mark, worst; /* thread CPU ms at the last prepare; the most a
			       turn used */
	int runs;
};

static double
cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void
burn(double ms)
{
	double until = cpu_ms() + ms;

	while (cpu_ms() < until)
		;
}

/* The end of a turn: its CPU; done once the three syncs have run. */
static void
on_turn_end(uv_prepare_t *h)
{
	struct turns *t = h->data;
	double now = cpu_ms();

	if (now - t->mark > t->worst)
		t->worst = now - t->mark;
	t->mark = now;
	if (t->runs == 3)
		uv_prepare_stop(h);
}

static void
on_check_once(uv_check_t *h)
{
	struct turns *t = h->data;

	uv_check_stop(h);
	uv_idle_stop(&t->idle);
	burn(CHECK_MS);
	queue_add(t->q, "b1");
	queue_add(t->q, "b2");
	queue_add(t->q, "b3");
}

static void
idle_nothing(uv_idle_t *h)
{
	(void)h;
}

static int
sync_burn(void *arg, const char *key, int64_t *requeue)
{
	struct turns *t = arg;

	(void)key;
	(void)requeue;
	burn(BURN_MS);
	t->runs++;
	return 0;
}

static void
test_budget_is_the_whole_turn(void **state)
{
	uv_loop_t loop;
	struct turns t = {0};

	(void)state;
	uv_loop_init(&loop);
	t.q = queue_new(&loop, "turn", sync_burn, &t);
	uv_prepare_init(&loop, &t.prepare);
	uv_check_init(&loop, &t.check);
	uv_idle_init(&loop, &t.idle); /* the first poll does not wait */
	t.prepare.data = t.check.data = t.idle.data = &t;
	uv_prepare_start(&t.prepare, on_turn_end);
	uv_check_start(&t.check, on_check_once);
	uv_idle_start(&t.idle, idle_nothing);
	t.mark = cpu_ms();
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(t.runs, 3);
	/* one sync may start just under the budget (here at 15 ms), and
	 * some slack for the loop itself; two syncs after the check would
	 * be 39 */
	assert_true(t.worst >= CHECK_MS + BURN_MS);
	assert_true(t.worst < CHECK_MS + BURN_MS + 5);
	queue_free(t.q);
	uv_close((uv_handle_t *)&t.prepare, NULL);
	uv_close((uv_handle_t *)&t.check, NULL);
	uv_close((uv_handle_t *)&t.idle, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dedupe_and_readd),
	    cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_requeue_after),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_run_now_from_a_settle),
	    cmocka_unit_test(test_budget_is_the_whole_turn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
