/* runtime_probe.c - the probes of a container (startup, then readiness
 * and liveness): exec probes on the agent's loop, tcpSocket and httpGet
 * on the probe thread (probe_pool.h); each result is counted against
 * its thresholds (probe_tally_add) and a verdict is an event of the
 * container's state machine. */
#include <stdlib.h>

#include "log.h"
#include "probe.h"
#include "probe_pool.h"
#include "proc.h"
#include "runtime_int.h"
#include "xalloc.h"

static void on_probe_result(void *arg, bool ok, const char *why);
static void probe_result(struct prober *p, bool ok, const char *why);

void
prober_stop(struct prober *p)
{
	if (p->pool_id) {
		probe_pool_stop(p->c->pod->rt->pool, p->pool_id);
		HASH_DEL(p->c->pod->rt->by_probe_id, p);
		p->pool_id = 0;
	}
	rt_close_timer(&p->timer);
	if (p->inflight) {
		p->inflight->cancelled = true;
		p->inflight = NULL;
	}
	p->spec = NULL;
	p->tally = (struct probe_tally){0};
}

void
probers_stop(struct rcont *c)
{
	int k;

	for (k = 0; k < PK_N; k++)
		prober_stop(&c->probes[k]);
	rt_close_timer(&c->killer);
}

static int64_t
opt(const struct opt_int *o, int64_t def)
{
	return o->set ? o->v : def;
}

static void
on_probe_tick(uv_timer_t *t)
{
	struct prober *p = t->data;
	struct rcont *c = p->c;
	const struct probe *sp = p->spec;
	struct probe_target tg = {0};
	struct strmap vars = {0};
	char **env = NULL, **argv = NULL, err[512];
	struct secspec sec;
	enum probe_type type;
	size_t i;

	if (p->inflight || !ctr_runs(c->m.state))
		return; /* the previous check is still running */
	if (sp->exec && sp->exec->command.n) {
		type = PROBE_EXEC;
		/* with the container's rights (secexec.h), as Kubernetes
		 * runs it in the container */
		if (secspec_resolve(&c->pod->pod, c->spec, &c->pod->rt->cfg.sec,
				    &sec, err, sizeof(err)))
			return;
		env = rt_build_env(c, &vars);
		argv = xcalloc(sp->exec->command.n + 1, sizeof(*argv));
		for (i = 0; i < sp->exec->command.n; i++)
			argv[i] = sp->exec->command.v[i];
		if (sec.any)
			tg.sec = &sec.p;
		tg.argv = argv;
		tg.env = env;
		tg.cwd = c->spec->working_dir && *c->spec->working_dir
			     ? c->spec->working_dir
			     : "/";
	} else if (sp->http_get) {
		type = PROBE_HTTP;
		tg.host = probe_host(c->pod->rt, sp->http_get->host);
		tg.port = ports_host(c, &sp->http_get->port);
		tg.path = sp->http_get->path;
	} else if (sp->tcp_socket) {
		type = PROBE_TCP;
		tg.host = probe_host(c->pod->rt, sp->tcp_socket->host);
		tg.port = ports_host(c, &sp->tcp_socket->port);
	} else {
		return;
	}
	p->inflight = xcalloc(1, sizeof(*p->inflight));
	p->inflight->p = p;
	probe_check(c->pod->rt->cfg.loop, type, &tg,
		    (unsigned)opt(&sp->timeout_seconds, 1) * 1000,
		    on_probe_result, p->inflight);
	if (env) {
		for (i = 0; env[i]; i++)
			free(env[i]);
		free(env);
		strmap_release(&vars);
	}
	free(argv); /* the strings belong to the spec */
}

/* When the first check of a probe is due (uv_hrtime()): its
 * initialDelaySeconds after the container started, as the kubelet counts
 * it, and not before now. The start is the process's own (c->run_ns, read
 * on the start's thread), not when the loop heard of it: a loop busy for
 * 30 ms with a rollout's writes would otherwise delay every first check,
 * and every pod's readiness, by as much. Example: a process started at
 * t = 10.000 s whose start the loop takes in at 10.030 s, with
 * initialDelaySeconds 1: first check at 11.000 s, not 11.030 s. A
 * readiness probe started once a slow startup probe has passed, at
 * 14.000 s, checks at once. Without a known start (a process taken back
 * by live restore): now + the delay. */
static uint64_t
first_check_ns(const struct rcont *c, uint64_t delay_ms)
{
	uint64_t now = uv_hrtime();
	uint64_t from = c->run_ns && c->run_ns < now ? c->run_ns : now;
	uint64_t due = from + delay_ms * 1000000;

	return due > now ? due : now;
}

void
prober_start(struct rcont *c, enum probe_kind kind, const struct probe *sp)
{
	struct runtime *rt = c->pod->rt;
	struct prober *p = &c->probes[kind];
	uint64_t delay = (uint64_t)opt(&sp->initial_delay_seconds, 0) * 1000;
	uint64_t period = (uint64_t)opt(&sp->period_seconds, 10) * 1000;
	uint64_t first = first_check_ns(c, delay), now;

	p->c = c;
	p->kind = kind;
	p->spec = sp;
	p->tally = (struct probe_tally){0};
	if (rt->pool && !(sp->exec && sp->exec->command.n) &&
	    (sp->http_get || sp->tcp_socket)) {
		struct probe_pool_spec ps = {
		    .type = sp->http_get ? PROBE_HTTP : PROBE_TCP,
		    .host = probe_host(rt, sp->http_get ? sp->http_get->host
							: sp->tcp_socket->host),
		    .port = ports_host(c, sp->http_get ? &sp->http_get->port
						       : &sp->tcp_socket->port),
		    .path = sp->http_get ? sp->http_get->path : NULL,
		    .first_ns = first,
		    .period_ms = (unsigned)(period ? period : 1000),
		    .timeout_ms = (unsigned)opt(&sp->timeout_seconds, 1) * 1000,
		};

		p->pool_id = ++rt->next_probe_id;
		HASH_ADD(hh, rt->by_probe_id, pool_id, sizeof(p->pool_id), p);
		probe_pool_start(rt->pool, p->pool_id, &ps);
		return;
	}
	p->timer = xcalloc(1, sizeof(*p->timer));
	uv_timer_init(c->pod->rt->cfg.loop, p->timer);
	p->timer->data = p;
	/* The loop's clock is the start of this turn, which may have started
	 * many containers: without a fresh clock the first probe of the last
	 * one would come before its initialDelaySeconds were over. Rounded
	 * up: never early. */
	uv_update_time(c->pod->rt->cfg.loop);
	now = uv_hrtime();
	uv_timer_start(p->timer, on_probe_tick,
		       first > now ? (first - now + 999999) / 1000000 : 0,
		       period ? period : 1000);
}

/* CA_START_PROBES: readiness and liveness, those declared, once the
 * startup probe has passed (or at once without one). */
void
probers_start_run(struct rcont *c)
{
	if (c->spec->readiness_probe)
		prober_start(c, PK_READINESS, c->spec->readiness_probe);
	if (c->spec->liveness_probe)
		prober_start(c, PK_LIVENESS, c->spec->liveness_probe);
}

/* The grace period of a kill after a failed probe: the probe's own
 * terminationGracePeriodSeconds, else the pod's, else 30 s. */
static int64_t
probe_grace(const struct rcont *c, const struct probe *sp)
{
	return opt(&sp->termination_grace_period_seconds,
		   opt(&c->pod->pod.spec.termination_grace_period_seconds, 30));
}

static void
on_probe_result(void *arg, bool ok, const char *why)
{
	struct ticket *t = arg;
	struct prober *p = t->p;

	if (t->cancelled) {
		free(t);
		return;
	}
	free(t);
	p->inflight = NULL;
	probe_result(p, ok, why);
}

/* A result from the probe thread: for a prober still scheduled there. */
void
rt_on_pool_result(void *arg, uint64_t id, bool ok, const char *why)
{
	struct runtime *rt = arg;
	struct prober *p;

	HASH_FIND(hh, rt->by_probe_id, &id, sizeof(id), p);
	if (p)
		probe_result(p, ok, why);
}

/* A probe's result, counted against its thresholds (probe_tally_add);
 * a verdict is an event of the container's state machine. */
static void
probe_result(struct prober *p, bool ok, const char *why)
{
	struct rcont *c = p->c;
	const struct probe *sp = p->spec;
	enum probe_verdict v;
	struct ctr_event ev = {0};

	if (!ok)
		rt_events_probe_failed(c, p->kind, why);
	v = probe_tally_add(&p->tally, ok, opt(&sp->success_threshold, 1),
			    opt(&sp->failure_threshold, 3));
	if (v == PROBE_UNDECIDED)
		return;
	switch (p->kind) {
	case PK_STARTUP:
		ev.type =
		    v == PROBE_PASSED ? CEV_STARTUP_PASSED : CEV_STARTUP_FAILED;
		break;
	case PK_READINESS:
		ev.type = v == PROBE_PASSED ? CEV_READY : CEV_UNREADY;
		break;
	case PK_LIVENESS:
		if (v == PROBE_PASSED)
			return;
		ev.type = CEV_LIVENESS_FAILED;
		break;
	default:
		return;
	}
	if (ev.type == CEV_STARTUP_FAILED || ev.type == CEV_LIVENESS_FAILED) {
		log_info("agent: %s/%s container %s: %s probe failed, "
			 "restarting",
			 c->pod->pod.metadata.namespace,
			 c->pod->pod.metadata.name, c->spec->name,
			 p->kind == PK_STARTUP ? "startup" : "liveness");
		ev.grace_s = probe_grace(c, sp);
	}
	cont_step(c, &ev);
}
