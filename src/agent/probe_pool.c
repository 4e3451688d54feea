/* probe_pool.c - probe schedules on a thread of their own (see probe_pool.h).
 *
 * Two queues under one mutex: commands (start, stop, quit) from the
 * agent's loop to the probe loop, results the other way; a uv_async_t on
 * each side wakes the reader. */
#include <stdlib.h>
#include <string.h>

#include "probe_pool.h"
#include "xalloc.h"

enum cmd_op { CMD_START, CMD_STOP, CMD_QUIT };

struct cmd {
	enum cmd_op op;
	uint64_t id;
	struct probe_pool_spec spec; /* strings owned by the command */
	struct cmd *next;
};

struct result {
	uint64_t id;
	bool ok;
	char why[64];
	struct result *next;
};

/* One probe's schedule, on the probe loop. */
struct sched {
	struct probe_pool *pp;
	uint64_t id;
	struct probe_pool_spec spec; /* strings owned */
	uv_timer_t timer;
	bool inflight; /* a check runs: the next tick waits for it */
	bool stopped;  /* freed when the check in flight ends */
	struct sched *next;
};

struct probe_pool {
	/* the agent's loop */
	uv_loop_t *main;
	uv_async_t results_ready;
	probe_pool_cb cb;
	void *arg;
	/* the probe loop and its thread */
	uv_loop_t loop;
	uv_async_t cmds_ready;
	uv_thread_t thread;
	struct sched *scheds;
	/* shared */
	uv_mutex_t lock;
	struct cmd *cmds, **cmds_tail;
	struct result *results, **results_tail;
};

static void
spec_copy(struct probe_pool_spec *dst, const struct probe_pool_spec *src)
{
	*dst = *src;
	dst->host = src->host ? xstrdup(src->host) : NULL;
	dst->path = src->path ? xstrdup(src->path) : NULL;
}

static void
spec_release(struct probe_pool_spec *s)
{
	free((char *)s->host);
	free((char *)s->path);
}

/* ---- the probe loop ---- */

static void
free_sched(uv_handle_t *h)
{
	struct sched *s = h->data;

	spec_release(&s->spec);
	free(s);
}

static void
post_result(struct probe_pool *pp, uint64_t id, bool ok, const char *why)
{
	struct result *r = xcalloc(1, sizeof(*r));

	r->id = id;
	r->ok = ok;
	strncpy(r->why, why ? why : "", sizeof(r->why) - 1);
	uv_mutex_lock(&pp->lock);
	*pp->results_tail = r;
	pp->results_tail = &r->next;
	uv_mutex_unlock(&pp->lock);
	uv_async_send(&pp->results_ready);
}

static void
on_checked(void *arg, bool ok, const char *why)
{
	struct sched *s = arg;

	s->inflight = false;
	if (s->stopped) {
		uv_close((uv_handle_t *)&s->timer, free_sched);
		return;
	}
	post_result(s->pp, s->id, ok, why);
}

static void
on_tick(uv_timer_t *t)
{
	struct sched *s = t->data;
	struct probe_target tg = {
	    .host = s->spec.host, .port = s->spec.port, .path = s->spec.path};

	if (s->inflight)
		return; /* the previous check is still running */
	s->inflight = true;
	probe_check(&s->pp->loop, s->spec.type, &tg, s->spec.timeout_ms,
		    on_checked, s);
}

static void
start_sched(struct probe_pool *pp, struct cmd *c)
{
	struct sched *s = xcalloc(1, sizeof(*s));
	uint64_t now, delay_ms = 0;

	/* Timers count from the loop's clock: bring it to now first, or a
	 * thread that waited to run would start the first check early. */
	uv_update_time(&pp->loop);
	now = uv_hrtime();

	s->pp = pp;
	s->id = c->id;
	s->spec = c->spec; /* takes the strings */
	memset(&c->spec, 0, sizeof(c->spec));
	/* + 1: the loop's clock counts whole milliseconds, truncated */
	if (s->spec.first_ns > now)
		delay_ms = (s->spec.first_ns - now + 999999) / 1000000 + 1;
	uv_timer_init(&pp->loop, &s->timer);
	s->timer.data = s;
	uv_timer_start(&s->timer, on_tick, delay_ms,
		       s->spec.period_ms ? s->spec.period_ms : 1000);
	s->next = pp->scheds;
	pp->scheds = s;
}

static void
stop_sched(struct probe_pool *pp, uint64_t id)
{
	struct sched **sp, *s;

	for (sp = &pp->scheds; (s = *sp) != NULL; sp = &s->next)
		if (s->id == id) {
			*sp = s->next;
			s->stopped = true;
			uv_timer_stop(&s->timer);
			if (!s->inflight)
				uv_close((uv_handle_t *)&s->timer, free_sched);
			return;
		}
}

static void
on_cmds(uv_async_t *a)
{
	struct probe_pool *pp = a->data;
	struct cmd *c, *next;
	bool quit = false;

	uv_mutex_lock(&pp->lock);
	c = pp->cmds;
	pp->cmds = NULL;
	pp->cmds_tail = &pp->cmds;
	uv_mutex_unlock(&pp->lock);
	for (; c; c = next) {
		next = c->next;
		if (c->op == CMD_START)
			start_sched(pp, c);
		else if (c->op == CMD_STOP)
			stop_sched(pp, c->id);
		else
			quit = true;
		spec_release(&c->spec);
		free(c);
	}
	if (quit) {
		/* Every schedule stops; a check in flight ends by itself
		 * (within its timeout) and the loop with it. */
		while (pp->scheds)
			stop_sched(pp, pp->scheds->id);
		uv_close((uv_handle_t *)&pp->cmds_ready, NULL);
	}
}

static void
run(void *arg)
{
	struct probe_pool *pp = arg;

	uv_run(&pp->loop, UV_RUN_DEFAULT);
}

/* ---- the agent's loop ---- */

static void
on_results(uv_async_t *a)
{
	struct probe_pool *pp = a->data;
	struct result *r, *next;

	uv_mutex_lock(&pp->lock);
	r = pp->results;
	pp->results = NULL;
	pp->results_tail = &pp->results;
	uv_mutex_unlock(&pp->lock);
	for (; r; r = next) {
		next = r->next;
		pp->cb(pp->arg, r->id, r->ok, r->why);
		free(r);
	}
}

static void
send_cmd(struct probe_pool *pp, struct cmd *c)
{
	uv_mutex_lock(&pp->lock);
	*pp->cmds_tail = c;
	pp->cmds_tail = &c->next;
	uv_mutex_unlock(&pp->lock);
	uv_async_send(&pp->cmds_ready);
}

static void
free_pool(uv_handle_t *h)
{
	free(h->data);
}

struct probe_pool *
probe_pool_new(uv_loop_t *loop, probe_pool_cb cb, void *arg)
{
	struct probe_pool *pp = xcalloc(1, sizeof(*pp));

	pp->main = loop;
	pp->cb = cb;
	pp->arg = arg;
	pp->cmds_tail = &pp->cmds;
	pp->results_tail = &pp->results;
	if (uv_loop_init(&pp->loop)) {
		free(pp);
		return NULL;
	}
	uv_mutex_init(&pp->lock);
	uv_async_init(&pp->loop, &pp->cmds_ready, on_cmds);
	pp->cmds_ready.data = pp;
	uv_async_init(loop, &pp->results_ready, on_results);
	pp->results_ready.data = pp;
	if (uv_thread_create(&pp->thread, run, pp)) {
		uv_close((uv_handle_t *)&pp->cmds_ready, NULL);
		uv_run(&pp->loop, UV_RUN_DEFAULT);
		uv_loop_close(&pp->loop);
		uv_mutex_destroy(&pp->lock);
		uv_close((uv_handle_t *)&pp->results_ready, free_pool);
		return NULL;
	}
	return pp;
}

void
probe_pool_start(struct probe_pool *pp, uint64_t id,
		 const struct probe_pool_spec *spec)
{
	struct cmd *c = xcalloc(1, sizeof(*c));

	c->op = CMD_START;
	c->id = id;
	spec_copy(&c->spec, spec);
	send_cmd(pp, c);
}

void
probe_pool_stop(struct probe_pool *pp, uint64_t id)
{
	struct cmd *c = xcalloc(1, sizeof(*c));

	c->op = CMD_STOP;
	c->id = id;
	send_cmd(pp, c);
}

void
probe_pool_free(struct probe_pool *pp)
{
	struct cmd *c;
	struct result *r, *rn;

	if (pp == NULL)
		return;
	c = xcalloc(1, sizeof(*c));
	c->op = CMD_QUIT;
	send_cmd(pp, c);
	uv_thread_join(&pp->thread);
	uv_loop_close(&pp->loop);
	for (r = pp->results; r; r = rn) {
		rn = r->next;
		free(r);
	}
	uv_mutex_destroy(&pp->lock);
	uv_close((uv_handle_t *)&pp->results_ready, free_pool);
}
