/* runtime.c - the pod lifecycle of the process runtime (runtime.h):
 * the pods by uid, and for each container its state machine
 * (src/core/plan/pod_status.h) fed by cont_step() and carried out by
 * cont_apply(); exits, stops with grace, and the pod's status. Starting a
 * process, probes, live restore and host ports are in runtime_spawn.c,
 * runtime_probe.c, runtime_restore.c and runtime_ports.c
 * (runtime_int.h).
 *
 * Hooks of later features: cont_ready_changed() is where the proxy adds
 * or removes a container's endpoint; cont_apply() carries out new
 * actions (an in-place update needed none: it is the UPDATE event and
 * the UPDATING state, with runtime_update.c keeping the new spec). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uthash.h>
#include <utlist.h>

#include "log.h"
#include "probe_pool.h"
#include "proc.h"
#include "runtime_int.h"
#include "xalloc.h"

void
rt_free_handle(uv_handle_t *h)
{
	free(h);
}

const char *
rt_address(const struct runtime *rt)
{
	return rt->cfg.address && *rt->cfg.address ? rt->cfg.address
						   : "127.0.0.1";
}

const char *
probe_host(const struct runtime *rt, const char *host)
{
	return host && *host ? host : rt_address(rt);
}

struct rpod *
rt_find(struct runtime *rt, const char *uid)
{
	struct rpod *p;

	HASH_FIND_STR(rt->by_uid, uid, p);
	return p;
}

void
rt_notify(struct rpod *p, enum runtime_change what)
{
	p->rt->cfg.changed(p->rt->cfg.arg, p->pod.metadata.namespace,
			   p->pod.metadata.name, what);
}

void
rt_close_timer(uv_timer_t **t)
{
	if (*t) {
		uv_timer_stop(*t);
		uv_close((uv_handle_t *)*t, rt_free_handle);
		*t = NULL;
	}
}

bool
pod_idle(const struct rpod *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (ctr_runs(p->c[i].m.state) || p->c[i].spawning)
			return false;
	return true;
}

/* The timer of BACKOFF or PORT_WAIT is over: it is closed, then the
 * state machine hears of it. The killer timer of KILLING (on_killer)
 * stays until the exit closes it with the probes (CA_STOP_PROBES). */
static void
on_backoff(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, rt_free_handle);
	c->backoff = NULL;
	cont_step(c, &(struct ctr_event){.type = CEV_BACKOFF_DONE});
}

static void
on_port_retry(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, rt_free_handle);
	c->backoff = NULL;
	cont_step(c, &(struct ctr_event){.type = CEV_PORT_RETRY});
}

static void
on_killer(uv_timer_t *t)
{
	cont_step(t->data, &(struct ctr_event){.type = CEV_GRACE_OVER});
}

static void
arm(struct rcont *c, uv_timer_t **t, uv_timer_cb cb, int64_t ms)
{
	*t = xcalloc(1, sizeof(**t));
	uv_timer_init(c->pod->rt->cfg.loop, *t);
	(*t)->data = c;
	uv_timer_start(*t, cb, (uint64_t)(ms > 0 ? ms : 0), 0);
}

/* Where the proxy will add or remove the container's endpoints (the
 * ready flag flipped, pod_status.h): for now the pod's status carries
 * readiness, and CA_NOTIFY reports it. */
static void
cont_ready_changed(struct rcont *c)
{
	(void)c;
}

/* Carries out the actions of one step, in pod_status.h's order. */
static void
cont_apply(struct rcont *c, const struct ctr_out *out)
{
	unsigned a = out->actions;

	if (a & CA_CANCEL_TIMER)
		rt_close_timer(&c->backoff);
	if (a & CA_STOP_PROBES)
		probers_stop(c);
	if (a & CA_STOP_STARTUP)
		prober_stop(&c->probes[PK_STARTUP]);
	if (a & CA_STOP_READINESS)
		prober_stop(&c->probes[PK_READINESS]);
	if (a & CA_JOURNAL_EXIT)
		rt_journal_exited(c);
	if (a & (CA_SIGTERM | CA_SIGKILL))
		kill(-c->pid, a & CA_SIGKILL ? SIGKILL : SIGTERM);
	if (a & CA_ARM_KILLER)
		arm(c, &c->killer, on_killer, out->timer_ms);
	if (a & CA_ARM_BACKOFF)
		arm(c, &c->backoff, on_backoff, out->timer_ms);
	if (a & CA_ARM_PORT)
		arm(c, &c->backoff, on_port_retry, out->timer_ms);
	if (a & CA_START_STARTUP)
		prober_start(c, PK_STARTUP, c->spec->startup_probe);
	if (a & CA_START_PROBES)
		probers_start_run(c);
	if (out->ready_changed)
		cont_ready_changed(c);
	if (a & CA_SPAWN)
		cont_spawn(c);
	if (a & CA_NOTIFY)
		rt_notify(c->pod, out->ready_changed ? RUNTIME_READY_CHANGED
						     : RUNTIME_CHANGED);
}

/* Feeds one event to the container's state machine (pod_status.h) and
 * carries out what it asks. Returns -1, changing nothing, if the machine
 * refuses the event in the container's state. */
int
cont_step(struct rcont *c, const struct ctr_event *ev)
{
	struct ctr_spec spec = {
	    .restart = restart_policy_parse(c->pod->pod.spec.restart_policy),
	    .startup_probe = c->spec->startup_probe != NULL,
	    .readiness_probe = c->spec->readiness_probe != NULL,
	    .name = c->spec->name,
	    .pod = c->pod->pod.metadata.name,
	};
	struct ctr_out out;

	if (ctr_step(&c->m, &spec, ev, c->pod->rt->cfg.now(), &out)) {
		log_debug("agent: %s/%s container %s: %s ignored in %s",
			  c->pod->pod.metadata.namespace,
			  c->pod->pod.metadata.name, c->spec->name,
			  ctr_event_name(ev->type), ctr_state_name(c->m.state));
		return -1;
	}
	cont_apply(c, &out);
	rt_events_step(c, ev, &out);
	return 0;
}

void
rt_unwatch(struct rcont *c)
{
	int fd = -1;

	if (c->watch == NULL)
		return;
	if (uv_fileno((uv_handle_t *)c->watch, &fd) != 0)
		fd = -1;
	uv_poll_stop(c->watch);
	uv_close((uv_handle_t *)c->watch, rt_free_handle);
	c->watch = NULL;
	if (fd >= 0)
		close(fd);
}

/* A container's process exited (its pidfd is readable). An adopted
 * process is not our child, so its exit status is not ours to read: it is
 * reported as ContainerStatusUnknown, 137, as the kubelet does. */
void
rt_on_pidfd(uv_poll_t *h, int status, int events)
{
	struct rcont *c = h->data;
	struct rpod *p = c->pod;
	int fd = -1, code = CTR_EXIT_UNKNOWN, sig = 0;
	const char *lost = ctr_lost_not_child;
	bool stopping = c->m.state == CTR_TERMINATING;

	(void)status;
	(void)events;
	if (uv_fileno((uv_handle_t *)h, &fd) == 0 && c->child &&
	    proc_reap(fd, &code, &sig) == 0)
		lost = NULL;
	rt_unwatch(c);
	c->child = false;
	log_info("agent: %s/%s container %s exited (status %lld, signal %d)",
		 p->pod.metadata.namespace, p->pod.metadata.name, c->spec->name,
		 (long long)code, sig);
	cont_step(c, &(struct ctr_event){.type = CEV_EXIT,
					 .status = code,
					 .signal = sig,
					 .lost = lost});
	if (stopping && pod_idle(p)) {
		rt_close_timer(&p->kill);
		rt_notify(p, RUNTIME_STOPPED);
	}
}

struct runtime *
runtime_new(const struct runtime_config *cfg)
{
	struct runtime *rt = xcalloc(1, sizeof(*rt));

	rt->cfg = *cfg;
	mkdir(cfg->log_dir, 0700);
	rt_ports_init(rt);
	rt->pool = probe_pool_new(cfg->loop, rt_on_pool_result, rt);
	if (rt->pool == NULL)
		log_warn("agent: no probe thread: probes run on the agent's "
			 "loop");
	rt->logs = logpool_new(cfg->log_dir, RUNTIME_LOGPOOL);
	if (rt->logs == NULL)
		log_warn("agent: no log file thread (%s): log files are "
			 "created on the loop",
			 strerror(errno));
	rt->pids = pidlog_open(cfg->log_dir);
	if (rt->pids == NULL)
		log_warn("agent: %s/pids: %s: processes of pods deleted while "
			 "the agent is down will not be found",
			 cfg->log_dir, strerror(errno));
	rt->rotate = xcalloc(1, sizeof(*rt->rotate));
	uv_timer_init(cfg->loop, rt->rotate);
	rt->rotate->data = rt;
	uv_timer_start(rt->rotate, rt_on_rotate, 10000, 10000);
	return rt;
}

const struct container_status *
rt_status_of(const struct pod *pod, const char *name)
{
	size_t i;

	for (i = 0; i < pod->status.container_statuses.n; i++)
		if (!strcmp(pod->status.container_statuses.v[i].name, name))
			return &pod->status.container_statuses.v[i];
	return NULL;
}

struct rpod *
rt_new_pod(struct runtime *rt, const struct pod *pod)
{
	struct rpod *p = xcalloc(1, sizeof(*p));
	size_t i;

	p->rt = rt;
	pod_copy(&p->pod, pod);
	p->n = p->pod.spec.containers.n;
	p->c = xcalloc(p->n + 1, sizeof(*p->c));
	for (i = 0; i < p->n; i++) {
		p->c[i].pod = p;
		p->c[i].spec = &p->pod.spec.containers.v[i];
		ctr_init(&p->c[i].m);
		ports_alloc(&p->c[i], rt_status_of(pod, p->c[i].spec->name));
	}
	p->start_time =
	    pod->status.start_time ? pod->status.start_time : rt->cfg.now();
	rt_make_volumes(p);
	DL_PREPEND(rt->pods, p);
	HASH_ADD_KEYPTR(hh, rt->by_uid, p->pod.metadata.uid,
			strlen(p->pod.metadata.uid), p);
	return p;
}

int
runtime_ensure(struct runtime *rt, const struct pod *pod)
{
	struct rpod *p = rt_find(rt, pod->metadata.uid);
	size_t i;

	if (p == NULL)
		p = rt_new_pod(rt, pod);
	if (p->stopping)
		return -1;
	/* the API lets only image, command and args change, container by
	 * container (inplace_check.h) */
	for (i = 0; i < p->n && i < pod->spec.containers.n; i++)
		if (!strcmp(pod->spec.containers.v[i].name, p->c[i].spec->name))
			cont_notice_spec(&p->c[i], &pod->spec.containers.v[i]);
	for (i = 0; i < p->n; i++)
		if (p->c[i].m.state == CTR_CREATING)
			cont_spawn(&p->c[i]);
	return 0;
}

static void
on_kill(uv_timer_t *t)
{
	struct rpod *p = t->data;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (ctr_runs(p->c[i].m.state)) {
			log_info("agent: %s/%s: grace period over, SIGKILL",
				 p->pod.metadata.namespace,
				 p->pod.metadata.name);
			cont_step(&p->c[i],
				  &(struct ctr_event){.type = CEV_GRACE_OVER});
		}
}

static void
forget(struct runtime *rt, struct rpod *p)
{
	size_t i;

	DL_DELETE(rt->pods, p);
	HASH_DEL(rt->by_uid, p);
	for (i = 0; i < p->n; i++) {
		if (p->c[i].backoff) {
			uv_timer_stop(p->c[i].backoff);
			uv_close((uv_handle_t *)p->c[i].backoff,
				 rt_free_handle);
		}
		probers_stop(&p->c[i]);
		cont_pending_release(&p->c[i]);
		ports_release(&p->c[i]);
		ctr_release(&p->c[i].m);
		schema_release(
		    &schema_container_status,
		    &(struct container_status){.ports = p->c[i].ports});
	}
	free(p->c);
	pod_release(&p->pod);
	free(p);
}

void
runtime_unready(struct runtime *rt, const char *uid)
{
	struct rpod *p = rt_find(rt, uid);
	size_t i;

	for (i = 0; p && i < p->n; i++)
		cont_step(&p->c[i], &(struct ctr_event){.type = CEV_DRAIN});
}

bool
runtime_stop(struct runtime *rt, const char *uid, int64_t grace_s)
{
	struct rpod *p = rt_find(rt, uid);
	size_t i;

	if (p == NULL)
		return true;
	if (!p->stopping) {
		p->stopping = true;
		p->stop_grace_s = grace_s;
		/* a container being started hears of the stop once it runs
		 * (cont_spawn's outcome) */
		for (i = 0; i < p->n; i++)
			if (!p->c[i].spawning)
				cont_step(&p->c[i], &(struct ctr_event){
							.type = CEV_STOP,
							.grace_s = grace_s});
		if (!pod_idle(p)) {
			p->kill = xcalloc(1, sizeof(*p->kill));
			uv_timer_init(rt->cfg.loop, p->kill);
			p->kill->data = p;
			uv_timer_start(
			    p->kill, on_kill,
			    (uint64_t)(grace_s > 0 ? grace_s : 0) * 1000, 0);
		}
	}
	if (pod_idle(p)) {
		rt_remove_logs(p);
		rt_remove_volumes(p);
		forget(rt, p);
		return true;
	}
	return false;
}

static struct state_terminated *
terminated_of(const struct rcont *c)
{
	struct state_terminated *t = xcalloc(1, sizeof(*t));
	char id[64];

	t->exit_code = c->m.exit_code;
	t->signal = c->m.signal;
	t->reason = xstrdup(ctr_terminated_reason(&c->m));
	t->message = c->m.lost ? xstrdup(c->m.lost) : NULL;
	t->started_at = c->m.term_started;
	t->finished_at = c->m.term_finished;
	snprintf(id, sizeof(id), "drover://%d-%llu", c->pid,
		 (unsigned long long)c->start_ticks);
	t->container_id = xstrdup(id);
	return t;
}

/* One containerStatus, from what the state machine shows (ctr_report)
 * and what only the runtime knows: the process id, the host ports. */
static void
container_status_of(const struct rcont *c, const struct ctr_report *r,
		    struct container_status *cs)
{
	struct container_status tmp = {.ports = c->ports}, cp;
	char id[64];

	cs->name = xstrdup(c->spec->name);
	cs->image = xstrdup(c->spec->image);
	cont_image_id(c, id, sizeof(id));
	cs->image_id = xstrdup(id);
	cs->restart_count = c->m.restarts;
	cs->started.set = true;
	cs->started.v = r->started;
	schema_copy(&schema_container_status, &cp, &tmp);
	cs->ports = cp.ports;
	cp.ports = (struct container_port_list){0};
	schema_release(&schema_container_status, &cp);
	switch (r->shown) {
	case SHOW_RUNNING:
		snprintf(id, sizeof(id), "drover://%d-%llu", c->pid,
			 (unsigned long long)c->start_ticks);
		cs->container_id = xstrdup(id);
		cs->state.running = xcalloc(1, sizeof(*cs->state.running));
		cs->state.running->started_at = c->m.started_at;
		cs->ready = r->ready;
		break;
	case SHOW_WAITING:
		cs->state.waiting = xcalloc(1, sizeof(*cs->state.waiting));
		cs->state.waiting->reason = xstrdup(r->reason);
		cs->state.waiting->message = xstrdup(c->m.waiting_msg);
		break;
	default:
		cs->state.terminated = terminated_of(c);
		break;
	}
	if (r->last_state)
		cs->last_state.terminated = terminated_of(c);
}

bool
runtime_status(struct runtime *rt, const struct pod *pod, struct pod_status *st)
{
	struct rpod *p = rt_find(rt, pod->metadata.uid);
	struct ctr_report *r;
	size_t i;

	if (p == NULL)
		return false;
	/* A start under way: its outcome asks for the write (spawn_done).
	 * Written now, a restart would show the last run as terminated,
	 * and an agent killed before the outcome would take that for the
	 * end of the container (live restore: RESTORED_EXITED). */
	for (i = 0; i < p->n; i++)
		if (p->c[i].spawning)
			return false;
	/* container statuses are rebuilt from scratch */
	while (st->container_statuses.n)
		schema_release(
		    &schema_container_status,
		    &st->container_statuses.v[--st->container_statuses.n]);
	r = xcalloc(p->n + 1, sizeof(*r));
	for (i = 0; i < p->n; i++) {
		struct container_status *cs = anylist_push(
		    (struct anylist *)&st->container_statuses, sizeof(*cs));

		ctr_report(&p->c[i].m, &r[i]);
		container_status_of(&p->c[i], &r[i], cs);
	}
	free(st->host_ip);
	st->host_ip = xstrdup(rt_address(p->rt));
	free(st->pod_ip);
	st->pod_ip = xstrdup(rt_address(p->rt));
	if (st->pod_ips.n == 0) {
		struct pod_ip *ip =
		    anylist_push((struct anylist *)&st->pod_ips, sizeof(*ip));

		ip->ip = xstrdup(rt_address(p->rt));
	}
	if (!st->start_time)
		st->start_time = p->start_time;
	pod_status_derive(st, r, p->n,
			  restart_policy_parse(p->pod.spec.restart_policy),
			  rt->cfg.now());
	free(r);
	return true;
}

bool
runtime_knows(struct runtime *rt, const char *uid)
{
	return rt_find(rt, uid) != NULL;
}

size_t
runtime_pods(const struct runtime *rt)
{
	size_t n = 0;
	const struct rpod *p;

	for (p = rt->pods; p; p = p->next)
		n++;
	return n;
}

void
runtime_free(struct runtime *rt)
{
	/* Processes keep running: they belong to their own sessions and
	 * outlive the agent (see NEEDSWORK in runtime.h). */
	rt_detach_spawns(rt);
	while (rt->pods) {
		struct rpod *p = rt->pods;
		size_t i;

		for (i = 0; i < p->n; i++)
			rt_unwatch(&p->c[i]);
		if (p->kill) {
			uv_timer_stop(p->kill);
			uv_close((uv_handle_t *)p->kill, rt_free_handle);
		}
		forget(rt, p);
	}
	uv_timer_stop(rt->rotate);
	uv_close((uv_handle_t *)rt->rotate, rt_free_handle);
	rt_remove_doomed(rt, true);
	pidlog_close(rt->pids);
	logpool_free(rt->logs);
	portalloc_release(&rt->ports);
	probe_pool_free(rt->pool);
	free(rt);
}
