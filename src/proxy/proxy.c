/* proxy.c - the proxy's thread and loop: start, stop, and the hand-over
 * of tables from other threads (the latest copy waits in p->pending; a
 * uv_async_send wakes the loop, which applies it). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pstate.h"

static void
on_async(uv_async_t *a)
{
	struct proxy *p = a->data;
	struct tcopy *t;
	bool stopping;

	uv_mutex_lock(&p->qmu);
	t = p->pending;
	p->pending = NULL;
	stopping = p->stopping;
	uv_mutex_unlock(&p->qmu);
	if (t && !p->stopped) {
		px_apply(p, t);
		px_free_copy(t);
	} else {
		px_free_copy(t);
	}
	if (stopping && !p->stopped) {
		struct plink *l, *next;

		p->stopped = true;
		px_remove_all(p);
		for (l = p->conns.next; l != &p->conns; l = next) {
			next = l->next;
			l->kill(l);
		}
		uv_close((uv_handle_t *)&p->async, NULL);
		uv_close((uv_handle_t *)&p->relisten, NULL);
	}
}

static void
run(void *arg)
{
	struct proxy *p = arg;

	uv_run(&p->loop, UV_RUN_DEFAULT);
}

struct proxy *
proxy_start(const struct proxy_config *cfg)
{
	struct proxy *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	int rc;

	if (p == NULL)
		return NULL;
	if (cfg) {
		p->on_idle = cfg->on_idle;
		p->on_applied = cfg->on_applied;
		p->on_listen = cfg->on_listen;
		p->arg = cfg->arg;
	}
	p->conns.next = p->conns.prev = &p->conns;
	if (uv_loop_init(&p->loop) < 0) {
		free(p);
		return NULL;
	}
	p->loop.data = p;
	uv_async_init(&p->loop, &p->async, on_async);
	p->async.data = p;
	uv_timer_init(&p->loop, &p->relisten);
	p->relisten.data = p;
	uv_mutex_init(&p->mu);
	uv_mutex_init(&p->qmu);
	/* The thread starts with every signal blocked: the process's
	 * signals are the main loop's business, and a write to a client
	 * that has gone raises SIGPIPE on the writing thread, which would
	 * end the process; blocked, it stays pending and the write says
	 * EPIPE. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = uv_thread_create(&p->thread, run, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		uv_close((uv_handle_t *)&p->async, NULL);
		uv_close((uv_handle_t *)&p->relisten, NULL);
		uv_run(&p->loop, UV_RUN_DEFAULT);
		uv_loop_close(&p->loop);
		uv_mutex_destroy(&p->mu);
		uv_mutex_destroy(&p->qmu);
		free(p);
		return NULL;
	}
	return p;
}

void
proxy_stop(struct proxy *p)
{
	if (p == NULL)
		return;
	uv_mutex_lock(&p->qmu);
	p->stopping = true;
	uv_mutex_unlock(&p->qmu);
	uv_async_send(&p->async);
	uv_thread_join(&p->thread);
	uv_loop_close(&p->loop);
	px_free_copy(p->pending);
	uv_mutex_destroy(&p->mu);
	uv_mutex_destroy(&p->qmu);
	free(p);
}

int64_t
proxy_set_table(struct proxy *p, const struct proxy_table *t)
{
	struct tcopy *c, *old;
	int64_t gen;
	int err;

	c = px_copy_table(t, &err);
	if (c == NULL)
		return err;
	uv_mutex_lock(&p->qmu);
	gen = c->gen = ++p->gen;
	old = p->pending; /* replaced whole by the newer table */
	p->pending = c;
	uv_mutex_unlock(&p->qmu);
	px_free_copy(old);
	uv_async_send(&p->async);
	return gen;
}

int64_t
proxy_applied(struct proxy *p)
{
	return atomic_load(&p->applied);
}
