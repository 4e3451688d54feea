/* runtime.c - containers as process groups (see runtime.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netinet/in.h>
#include <uthash.h>
#include <utlist.h>
#include <sys/socket.h>

#include "downward.h"
#include "expand.h"
#include "log.h"
#include "pidlog.h"
#include "pod_status.h"
#include "podlog.h"
#include "portalloc.h"
#include "probe.h"
#include "probe_pool.h"
#include "proc.h"
#include "runtime.h"
#include "secexec.h"
#include "strbuf.h"
#include "xalloc.h"

struct rpod;
struct rcont;

enum probe_kind { PK_STARTUP, PK_READINESS, PK_LIVENESS, PK_N };

/* A check in flight points here; if the prober goes away first the
 * ticket is cancelled and the callback only frees it. */
struct ticket {
	struct prober *p;
	bool cancelled;
};

struct prober {
	struct rcont *c;
	enum probe_kind kind;
	const struct probe *spec;
	uv_timer_t *timer;
	struct ticket *inflight;
	uint64_t pool_id; /* scheduled on the probe thread (probe_pool.h) */
	struct probe_tally tally;
	UT_hash_handle hh; /* in runtime.by_probe_id, while pool_id != 0 */
};

struct rcont {
	struct rpod *pod;
	const struct container *spec; /* in pod->pod */
	struct ctr m;                 /* its state machine (pod_status.h) */
	uv_poll_t *watch;             /* its pidfd, while it runs */
	bool child;                   /* ours (else adopted): reaped */
	int pid;                      /* also its process group */
	uint64_t start_ticks;
	uv_timer_t *backoff; /* BACKOFF or PORT_WAIT: the timer of the state */
	struct container_port_list ports; /* declared, with host ports */
	struct prober probes[PK_N];
	uv_timer_t *killer; /* KILLING: SIGKILL after the grace period */
};

struct rpod {
	struct runtime *rt;
	struct pod pod; /* the pod as it was started */
	struct rcont *c;
	size_t n;
	bool stopping;
	uv_timer_t *kill;
	dtime start_time;
	struct rpod *prev, *next; /* in runtime.pods */
	UT_hash_handle hh;        /* in runtime.by_uid */
};

struct runtime {
	struct runtime_config cfg;
	struct rpod *pods;
	/* The same pods by uid, and the probers scheduled on the probe
	 * thread by id: an agent of a thousand pods finds one in a hash,
	 * not a walk of all of them per event and per probe result. */
	struct rpod *by_uid;
	struct prober *by_probe_id;
	uv_timer_t *rotate;
	struct probe_pool *pool; /* tcpSocket and httpGet probes */
	uint64_t next_probe_id;
	struct pidlog *pids;    /* DIR/pids, or NULL if it cannot be opened */
	struct portalloc ports; /* the host ports this agent hands out */
};

static void
free_handle(uv_handle_t *h)
{
	free(h);
}

static struct rpod *
find(struct runtime *rt, const char *uid)
{
	struct rpod *p;

	HASH_FIND_STR(rt->by_uid, uid, p);
	return p;
}

static void
notify(struct rpod *p, bool stopped)
{
	p->rt->cfg.changed(p->rt->cfg.arg, p->pod.metadata.namespace,
			   p->pod.metadata.name, stopped);
}

/* The OS check of the port allocator (portalloc.h): something on the
 * host listens on the port, at any address. A server sets SO_REUSEADDR,
 * and then only a listener (not a connection in TIME_WAIT) is in its
 * way: the check does the same. */
static bool
port_busy(void *arg, int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	bool busy;

	(void)arg;
	if (fd < 0)
		return false; /* cannot tell: the allocator's table decides */
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	sa.sin_port = htons((uint16_t)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	busy = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
	       errno == EADDRINUSE;
	close(fd);
	return busy;
}

/* Host ports still missing (0) of a container, from the agent's range.
 * Returns false if the range has none left. */
static bool
fill_ports(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	size_t i;

	for (i = 0; i < c->ports.n; i++)
		if (c->ports.v[i].host_port == 0 &&
		    (c->ports.v[i].host_port = portalloc_get(
			 &rt->ports, rt->cfg.now(), port_busy, NULL)) == 0)
			return false;
	return true;
}

/* Host ports for the declared ports: a declared hostPort, else the one
 * prev reports (a pod being re-adopted keeps its ports), else one from
 * the agent's range (fill_ports; 0 while the range is exhausted). */
static void
alloc_ports(struct rcont *c, const struct container_status *prev)
{
	struct runtime *rt = c->pod->rt;
	size_t i, j;

	for (i = 0; i < c->spec->ports.n; i++) {
		const struct container_port *d = &c->spec->ports.v[i];
		struct container_port *p =
		    anylist_push((struct anylist *)&c->ports, sizeof(*p));

		p->name = xstrdup(d->name);
		p->container_port = d->container_port;
		p->protocol = xstrdup(d->protocol ? d->protocol : "TCP");
		p->host_ip = xstrdup("127.0.0.1");
		p->host_port = d->host_port;
		for (j = 0; prev && !p->host_port && j < prev->ports.n; j++)
			if (prev->ports.v[j].container_port ==
			    d->container_port)
				p->host_port = prev->ports.v[j].host_port;
		if (p->host_port)
			portalloc_hold(&rt->ports, (int)p->host_port);
	}
	fill_ports(c);
}

/* The host port behind a probe's port: a declared port by number or
 * name; an undeclared number is used as it is. */
static int
host_port(const struct rcont *c, const struct intstr *port)
{
	size_t i;

	for (i = 0; i < c->ports.n; i++) {
		const struct container_port *p = &c->ports.v[i];

		if ((port->type == INTSTR_INT &&
		     p->container_port == port->ival) ||
		    (port->type == INTSTR_STRING && p->name &&
		     !strcmp(p->name, port->sval)))
			return (int)p->host_port;
	}
	return port->type == INTSTR_INT ? (int)port->ival : 0;
}

/* The value of a downward-API field for this pod (downward.h): its node
 * is this agent's, its address the loopback its ports are on. */
static const char *
field_ref(struct rpod *p, const char *path)
{
	return downward_env_value(&p->pod, path, p->rt->cfg.node_name,
				  "127.0.0.1");
}

/* Environment of a container: Kubernetes' order (each value may refer to
 * the ones before it), then DROVER_IMAGE. vars receives every variable
 * for the expansion of command and args. */
static char **
build_env(struct rcont *c, struct strmap *vars)
{
	const struct container *s = c->spec;
	struct strlist out = {0};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strmap_set(vars, "PATH",
		   "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:"
		   "/bin");
	strmap_set(vars, "HOSTNAME", c->pod->pod.metadata.name);
	for (i = 0; i < c->ports.n; i++) {
		char name[128], val[16];
		size_t k;

		snprintf(val, sizeof(val), "%lld",
			 (long long)c->ports.v[i].host_port);
		if (i == 0)
			strmap_set(vars, "PORT", val);
		if (c->ports.v[i].name && *c->ports.v[i].name) {
			snprintf(name, sizeof(name), "PORT_%s",
				 c->ports.v[i].name);
			for (k = 0; name[k]; k++)
				name[k] = name[k] == '-' ? '_'
					  : (name[k] >= 'a' && name[k] <= 'z')
					      ? (char)(name[k] - 32)
					      : name[k];
			strmap_set(vars, name, val);
		}
	}
	for (i = 0; i < s->env.n; i++) {
		const struct env_var *e = &s->env.v[i];

		strbuf_reset(&sb);
		if (e->value_from && e->value_from->field_ref)
			strbuf_addstr(
			    &sb,
			    field_ref(c->pod,
				      e->value_from->field_ref->field_path
					  ? e->value_from->field_ref->field_path
					  : ""));
		else
			expand_vars(e->value ? e->value : "", vars, &sb);
		strmap_set(vars, e->name, sb.buf);
	}
	strmap_set(vars, "DROVER_IMAGE", s->image ? s->image : "");
	for (i = 0; i < vars->n; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s=%s", vars->v[i].key, vars->v[i].value);
		strlist_push(&out, sb.buf);
	}
	strbuf_release(&sb);
	out.v = xrealloc(out.v, (out.n + 1) * sizeof(char *));
	out.v[out.n] = NULL; /* execve's terminator */
	return out.v;
}

static void
free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return path && path[0] == '/' && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

static bool
is_exec(const char *path)
{
	struct stat st;

	return path && path[0] == '/' && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void on_pidfd(uv_poll_t *h, int status, int events);
static int cont_step(struct rcont *c, const struct ctr_event *ev);

/* ---- probes ---- */

static void on_probe_result(void *arg, bool ok, const char *why);
static void probe_result(struct prober *p, bool ok, const char *why);

static void
close_timer(uv_timer_t **t)
{
	if (*t) {
		uv_timer_stop(*t);
		uv_close((uv_handle_t *)*t, free_handle);
		*t = NULL;
	}
}

static void
prober_stop(struct prober *p)
{
	if (p->pool_id) {
		probe_pool_stop(p->c->pod->rt->pool, p->pool_id);
		HASH_DEL(p->c->pod->rt->by_probe_id, p);
		p->pool_id = 0;
	}
	close_timer(&p->timer);
	if (p->inflight) {
		p->inflight->cancelled = true;
		p->inflight = NULL;
	}
	p->spec = NULL;
	p->tally = (struct probe_tally){0};
}

static void
probers_stop(struct rcont *c)
{
	int k;

	for (k = 0; k < PK_N; k++)
		prober_stop(&c->probes[k]);
	close_timer(&c->killer);
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
	char **env = NULL, **argv = NULL, spec[2048], err[512];
	struct secspec sec;
	enum probe_type type;
	size_t i, k = 0;

	if (p->inflight || !ctr_runs(c->m.state))
		return; /* the previous check is still running */
	if (sp->exec && sp->exec->command.n) {
		type = PROBE_EXEC;
		/* with the container's rights (secexec.h), as Kubernetes
		 * runs it in the container */
		if (secspec_resolve(&c->pod->pod, c->spec, &c->pod->rt->cfg.sec,
				    &sec, err, sizeof(err)))
			return;
		env = build_env(c, &vars);
		/* the helper's four words, the command, NULL */
		argv = xcalloc(sp->exec->command.n + 5, sizeof(*argv));
		if (sec.any) {
			secspec_encode(&sec, spec, sizeof(spec));
			argv[k++] = "drover";
			argv[k++] = PROC_HELPER_VERB;
			argv[k++] = spec;
			argv[k++] = sp->exec->command.v[0];
			tg.file = "/proc/self/exe";
		}
		for (i = 0; i < sp->exec->command.n; i++)
			argv[k++] = sp->exec->command.v[i];
		tg.argv = argv;
		tg.env = env;
		tg.cwd = c->spec->working_dir && *c->spec->working_dir
			     ? c->spec->working_dir
			     : "/";
	} else if (sp->http_get) {
		type = PROBE_HTTP;
		tg.host = sp->http_get->host;
		tg.port = host_port(c, &sp->http_get->port);
		tg.path = sp->http_get->path;
	} else if (sp->tcp_socket) {
		type = PROBE_TCP;
		tg.host = sp->tcp_socket->host;
		tg.port = host_port(c, &sp->tcp_socket->port);
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

static void
prober_start(struct rcont *c, enum probe_kind kind, const struct probe *sp)
{
	struct runtime *rt = c->pod->rt;
	struct prober *p = &c->probes[kind];
	uint64_t delay = (uint64_t)opt(&sp->initial_delay_seconds, 0) * 1000;
	uint64_t period = (uint64_t)opt(&sp->period_seconds, 10) * 1000;

	p->c = c;
	p->kind = kind;
	p->spec = sp;
	p->tally = (struct probe_tally){0};
	if (rt->pool && !(sp->exec && sp->exec->command.n) &&
	    (sp->http_get || sp->tcp_socket)) {
		struct probe_pool_spec ps = {
		    .type = sp->http_get ? PROBE_HTTP : PROBE_TCP,
		    .host = sp->http_get ? sp->http_get->host
					 : sp->tcp_socket->host,
		    .port = host_port(c, sp->http_get ? &sp->http_get->port
						      : &sp->tcp_socket->port),
		    .path = sp->http_get ? sp->http_get->path : NULL,
		    .first_ns = uv_hrtime() + delay * 1000000,
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
	 * one would come before its initialDelaySeconds were over. */
	uv_update_time(c->pod->rt->cfg.loop);
	uv_timer_start(p->timer, on_probe_tick, delay, period ? period : 1000);
}

/* CA_START_PROBES: readiness and liveness, those declared, once the
 * startup probe has passed (or at once without one). */
static void
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
static void
on_pool_result(void *arg, uint64_t id, bool ok, const char *why)
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

	(void)why;
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

/* The log of a container (podlog.h). A restart first moves the last
 * run's log to the .previous.log (`drover logs --previous`). It belongs
 * to the user the container runs as, mode 0600 (the daemon reads it as
 * root; `drover logs` goes through the API). */
static int
open_log(struct rcont *c, const struct secspec *sec)
{
	const struct object_meta *m = &c->pod->pod.metadata;
	char path[1200], prev[1200];
	int fd;

	if (podlog_path(path, sizeof(path), c->pod->rt->cfg.log_dir,
			m->namespace, m->name, m->uid, c->spec->name, false) ||
	    podlog_path(prev, sizeof(prev), c->pod->rt->cfg.log_dir,
			m->namespace, m->name, m->uid, c->spec->name, true)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (c->m.ran)
		rename(path, prev);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0 && sec->identity &&
	    (fchown(fd, (uid_t)sec->uid, (gid_t)sec->gid) ||
	     fchmod(fd, 0600))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The journal of started processes (pidlog.h) stays about as long as the
 * list of running ones: past this many bytes of history it is rewritten
 * from that list. */
#define PIDLOG_COMPACT_BYTES (256 * 1024)

/* "P1,P2": a container's host ports, as the journal records them. */
static void
ports_text(const struct rcont *c, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < c->ports.n; i++)
		strbuf_addf(sb, "%s%lld", i ? "," : "",
			    (long long)c->ports.v[i].host_port);
}

static void
each_running(void *arg, pidlog_entry_cb cb, void *cb_arg)
{
	struct runtime *rt = arg;
	struct strbuf ports = STRBUF_INIT;
	struct rpod *p;
	size_t i;

	for (p = rt->pods; p; p = p->next)
		for (i = 0; i < p->n; i++)
			if (ctr_runs(p->c[i].m.state) && p->c[i].pid > 0) {
				strbuf_reset(&ports);
				ports_text(&p->c[i], &ports);
				cb(cb_arg, p->pod.metadata.uid,
				   p->c[i].spec->name, p->c[i].pid,
				   p->c[i].start_ticks, ports.buf);
			}
	strbuf_release(&ports);
}

static void
journal_started(const struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	struct strbuf ports = STRBUF_INIT;

	if (rt->pids == NULL)
		return;
	ports_text(c, &ports);
	pidlog_started(rt->pids, c->pod->pod.metadata.uid, c->spec->name,
		       c->pid, c->start_ticks, ports.buf);
	strbuf_release(&ports);
	if (pidlog_size(rt->pids) > PIDLOG_COMPACT_BYTES &&
	    pidlog_compact(rt->pids, each_running, rt))
		log_warn("agent: cannot rewrite %s/pids", rt->cfg.log_dir);
}

static void
journal_exited(const struct rcont *c)
{
	if (c->pod->rt->pids)
		pidlog_exited(c->pod->rt->pids, c->pod->pod.metadata.uid,
			      c->spec->name);
}

/* Size rotation, copy-and-truncate: the process keeps its O_APPEND
 * descriptor and goes on writing at the new end. */
static void
rotate_logs(struct runtime *rt)
{
	struct rpod *p;
	size_t i;

	for (p = rt->pods; p; p = p->next)
		for (i = 0; i < p->n; i++) {
			char path[1200], old[1300], buf[65536];
			struct stat st;
			ssize_t n;
			int in, out;

			if (podlog_path(
				path, sizeof(path), rt->cfg.log_dir,
				p->pod.metadata.namespace, p->pod.metadata.name,
				p->pod.metadata.uid, p->c[i].spec->name, false))
				continue;
			if (stat(path, &st) || st.st_size < RUNTIME_LOG_MAX)
				continue;
			snprintf(old, sizeof(old), "%s.1", path);
			in = open(path, O_RDWR | O_CLOEXEC);
			out =
			    open(old, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0600);
			if (out >= 0 && fchown(out, st.st_uid, st.st_gid))
				log_warn("agent: cannot chown %s", old);
			while (in >= 0 && out >= 0 &&
			       (n = read(in, buf, sizeof(buf))) > 0)
				if (write(out, buf, (size_t)n) != n)
					break;
			if (in >= 0 && ftruncate(in, 0) != 0)
				log_warn("agent: cannot truncate %s", path);
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
		}
}

static void
on_rotate(uv_timer_t *t)
{
	rotate_logs(t->data);
}

/* A start that cannot be made: the container waits with the reason
 * (START_FAILED). */
static void
cont_start_failed(struct rcont *c, const char *reason, const char *msg)
{
	struct ctr_event ev = {
	    .type = CEV_START_FAILED, .reason = reason, .message = msg};

	log_warn("agent: %s/%s container %s: %s: %s",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, reason, msg);
	cont_step(c, &ev);
}

/* Host ports first: with the range exhausted the container waits (and
 * tries again) instead of starting on a port someone else holds. */
static bool
ports_ready(struct rcont *c)
{
	struct runtime *rt = c->pod->rt;
	char msg[300];

	if (fill_ports(c))
		return true;
	snprintf(msg, sizeof(msg),
		 "no free host port in %d-%d: %zu held by pods, the other "
		 "%zu released less than %llds ago or in use on the host",
		 rt->ports.lo, rt->ports.hi, portalloc_held(&rt->ports),
		 (size_t)(rt->ports.hi - rt->ports.lo + 1) -
		     portalloc_held(&rt->ports),
		 (long long)(rt->ports.quarantine / 1000));
	log_warn("agent: %s/%s container %s: CreateContainerError: %s",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, msg);
	cont_step(c, &(struct ctr_event){.type = CEV_NO_PORT, .message = msg});
	return false;
}

static void
spawn(struct rcont *c)
{
	const struct container *s = c->spec;
	struct strmap vars = {0};
	struct strlist argv = {0};
	struct strbuf sb = STRBUF_INIT;
	struct proc_spawn o = {0};
	struct secspec sec;
	char **env, path[1024], spec[2048], err[512];
	const char *image_dir = is_dir(s->image) ? s->image : NULL;
	size_t i;
	pid_t pid;
	int fd, pidfd, r;

	if (secspec_resolve(&c->pod->pod, s, &c->pod->rt->cfg.sec, &sec, err,
			    sizeof(err))) {
		cont_start_failed(c, "CreateContainerConfigError", err);
		return;
	}
	if (!ports_ready(c))
		return;
	env = build_env(c, &vars);
	if (s->command.n == 0) {
		if (!is_exec(s->image)) {
			cont_start_failed(c, "CreateContainerConfigError",
					  "no command, and the image is not an "
					  "executable path");
			goto out;
		}
		strlist_push(&argv, s->image); /* the image is the program */
	}
	for (i = 0; i < s->command.n + s->args.n; i++) {
		const char *a = i < s->command.n ? s->command.v[i]
						 : s->args.v[i - s->command.n];

		strbuf_reset(&sb);
		expand_vars(a, &vars, &sb);
		strlist_push(&argv, sb.buf);
	}
	if (image_dir && argv.v[0][0] != '/' && strchr(argv.v[0], '/')) {
		snprintf(path, sizeof(path), "%s/%s", image_dir, argv.v[0]);
		free(argv.v[0]);
		argv.v[0] = xstrdup(path);
	}
	fd = open_log(c, &sec);
	if (fd < 0) {
		cont_start_failed(c, "CreateContainerError", strerror(errno));
		goto out;
	}
	argv.v = xrealloc(argv.v, (argv.n + 1) * sizeof(char *));
	argv.v[argv.n] = NULL;
	o.file = argv.v[0];
	o.argv = argv.v;
	o.env = env;
	o.cwd = s->working_dir && *s->working_dir ? s->working_dir
		: image_dir                       ? image_dir
						  : "/";
	o.out_fd = fd;
	if (sec.any) { /* through the exec helper (secexec.h) */
		sec.report = true;
		secspec_encode(&sec, spec, sizeof(spec));
		o.helper = "/proc/self/exe";
		o.helper_arg = spec;
		o.err = err;
		o.errlen = sizeof(err);
	}
	r = proc_spawn(&o, &pid, &pidfd);
	close(fd);
	if (r) {
		char msg[600];

		snprintf(msg, sizeof(msg), "cannot start %s: %s", o.file,
			 o.err && *o.err ? o.err : strerror(r));
		cont_start_failed(c, "RunContainerError", msg);
		goto out;
	}
	c->pid = pid;
	c->child = true;
	c->watch = xcalloc(1, sizeof(*c->watch));
	uv_poll_init(c->pod->rt->cfg.loop, c->watch, pidfd);
	c->watch->data = c;
	uv_poll_start(c->watch, UV_READABLE, on_pidfd);
	if (proc_start_time(c->pid, &c->start_ticks))
		c->start_ticks = 0;
	cont_step(c, &(struct ctr_event){.type = CEV_SPAWNED});
	journal_started(c);
	log_info("agent: started %s/%s container %s, pid %d",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 s->name, c->pid);
out:
	strbuf_release(&sb);
	strlist_release(&argv);
	free_strv(env);
	strmap_release(&vars);
}

static bool
pod_idle(const struct rpod *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (ctr_runs(p->c[i].m.state))
			return false;
	return true;
}

/* The timer of a state (BACKOFF, PORT_WAIT, KILLING) is over: it is
 * closed, then the state machine hears of it. */
static void
on_backoff(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, free_handle);
	c->backoff = NULL;
	cont_step(c, &(struct ctr_event){.type = CEV_BACKOFF_DONE});
}

static void
on_port_retry(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, free_handle);
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
		close_timer(&c->backoff);
	if (a & CA_STOP_PROBES)
		probers_stop(c);
	if (a & CA_STOP_STARTUP)
		prober_stop(&c->probes[PK_STARTUP]);
	if (a & CA_STOP_READINESS)
		prober_stop(&c->probes[PK_READINESS]);
	if (a & CA_JOURNAL_EXIT)
		journal_exited(c);
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
		spawn(c);
	if (a & CA_NOTIFY)
		notify(c->pod, false);
}

/* Feeds one event to the container's state machine (pod_status.h) and
 * carries out what it asks. Returns -1, changing nothing, if the machine
 * refuses the event in the container's state. */
static int
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
	return 0;
}

/* A container's process exited (its pidfd is readable). An adopted
 * process is not our child, so its exit status is not ours to read: it is
 * reported as ContainerStatusUnknown, 137, as the kubelet does. */
static void
on_pidfd(uv_poll_t *h, int status, int events)
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
	if (fd >= 0)
		close(fd);
	uv_poll_stop(h);
	uv_close((uv_handle_t *)h, free_handle);
	c->watch = NULL;
	c->child = false;
	log_info("agent: %s/%s container %s exited (status %lld, signal %d)",
		 p->pod.metadata.namespace, p->pod.metadata.name, c->spec->name,
		 (long long)code, sig);
	cont_step(c, &(struct ctr_event){.type = CEV_EXIT,
					 .status = code,
					 .signal = sig,
					 .lost = lost});
	if (stopping && pod_idle(p)) {
		close_timer(&p->kill);
		notify(p, true);
	}
}

static void
quarantine_port(void *arg, int port)
{
	struct runtime *rt = arg;

	portalloc_quarantine(&rt->ports, port, rt->cfg.now());
}

/* Ports of the kernel's ephemeral range can be taken by any outgoing
 * connection: say so if the agent's range overlaps it. */
static void
warn_ephemeral(const struct portalloc *pa)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	int lo, hi;

	if (f == NULL)
		return;
	if (fscanf(f, "%d %d", &lo, &hi) == 2 && pa->lo <= hi && lo <= pa->hi)
		log_warn("agent: host port range %d-%d overlaps the kernel's "
			 "ephemeral range %d-%d: outgoing connections may take "
			 "its ports",
			 pa->lo, pa->hi, lo, hi);
	fclose(f);
}

struct runtime *
runtime_new(const struct runtime_config *cfg)
{
	struct runtime *rt = xcalloc(1, sizeof(*rt));

	rt->cfg = *cfg;
	mkdir(cfg->log_dir, 0700);
	if (portalloc_init(&rt->ports,
			   cfg->port_lo ? cfg->port_lo : PORTALLOC_DEFAULT_LO,
			   cfg->port_hi ? cfg->port_hi : PORTALLOC_DEFAULT_HI,
			   PORTALLOC_DEFAULT_QUARANTINE))
		portalloc_init(&rt->ports, PORTALLOC_DEFAULT_LO,
			       PORTALLOC_DEFAULT_HI,
			       PORTALLOC_DEFAULT_QUARANTINE);
	warn_ephemeral(&rt->ports);
	/* The ports of the last run's starts (the pods' statuses hold the
	 * ones in use: runtime_reserve) are not handed out at once. */
	if (pidlog_ports(cfg->log_dir, quarantine_port, rt))
		log_warn("agent: cannot read %s/pids", cfg->log_dir);
	rt->pool = probe_pool_new(cfg->loop, on_pool_result, rt);
	if (rt->pool == NULL)
		log_warn("agent: no probe thread: probes run on the agent's "
			 "loop");
	rt->pids = pidlog_open(cfg->log_dir);
	if (rt->pids == NULL)
		log_warn("agent: %s/pids: %s: processes of pods deleted while "
			 "the agent is down will not be found",
			 cfg->log_dir, strerror(errno));
	rt->rotate = xcalloc(1, sizeof(*rt->rotate));
	uv_timer_init(cfg->loop, rt->rotate);
	rt->rotate->data = rt;
	uv_timer_start(rt->rotate, on_rotate, 10000, 10000);
	return rt;
}

static const struct container_status *
status_of(const struct pod *pod, const char *name)
{
	size_t i;

	for (i = 0; i < pod->status.container_statuses.n; i++)
		if (!strcmp(pod->status.container_statuses.v[i].name, name))
			return &pod->status.container_statuses.v[i];
	return NULL;
}

static struct rpod *
new_rpod(struct runtime *rt, const struct pod *pod)
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
		alloc_ports(&p->c[i], status_of(pod, p->c[i].spec->name));
	}
	p->start_time =
	    pod->status.start_time ? pod->status.start_time : rt->cfg.now();
	DL_PREPEND(rt->pods, p);
	HASH_ADD_KEYPTR(hh, rt->by_uid, p->pod.metadata.uid,
			strlen(p->pod.metadata.uid), p);
	return p;
}

int
runtime_ensure(struct runtime *rt, const struct pod *pod)
{
	struct rpod *p = find(rt, pod->metadata.uid);
	size_t i;

	if (p == NULL)
		p = new_rpod(rt, pod);
	if (p->stopping)
		return -1;
	for (i = 0; i < p->n; i++)
		if (p->c[i].m.state == CTR_CREATING)
			spawn(&p->c[i]);
	return 0;
}

/* "drover://PID-STARTTICKS" */
static int
parse_id(const char *id, int *pid, uint64_t *ticks)
{
	unsigned long long t;

	if (id == NULL || sscanf(id, "drover://%d-%llu", pid, &t) != 2)
		return -1;
	*ticks = t;
	return 0;
}

bool
runtime_adopt(struct runtime *rt, const struct pod *pod)
{
	struct rpod *p = find(rt, pod->metadata.uid);
	size_t i;

	if (p)
		return true;
	p = new_rpod(rt, pod);
	for (i = 0; i < p->n; i++) {
		struct rcont *c = &p->c[i];
		const struct container_status *cs =
		    status_of(pod, c->spec->name);
		int pid, fd = -1;
		uint64_t ticks;

		if (cs == NULL)
			continue;
		c->m.restarts = cs->restart_count;
		if (cs->state.terminated) {
			const struct state_terminated *t = cs->state.terminated;
			struct ctr_event ev = {
			    .type = CEV_RESTORED_EXITED,
			    .status = t->exit_code,
			    .signal = t->signal,
			    .started_at = t->started_at,
			    .finished_at = t->finished_at,
			};

			if (t->reason && !strcmp(t->reason, CTR_REASON_UNKNOWN))
				ev.lost =
				    t->message && !strcmp(t->message,
							  ctr_lost_not_child)
					? ctr_lost_not_child
					: ctr_lost_while_down;
			cont_step(c, &ev);
			continue;
		}
		if (!cs->state.running ||
		    parse_id(cs->container_id, &pid, &ticks))
			continue; /* waiting: ensure() starts it */
		c->pid = pid;
		c->start_ticks = ticks;
		fd = proc_adopt(pid, ticks);
		if (fd < 0) {
			log_info("agent: %s/%s container %s: pid %d is gone",
				 pod->metadata.namespace, pod->metadata.name,
				 c->spec->name, pid);
			/* it exited while the agent was away: by policy */
			cont_step(c, &(struct ctr_event){
					 .type = CEV_ADOPTED_GONE,
					 .status = CTR_EXIT_UNKNOWN,
					 .lost = ctr_lost_while_down,
					 .started_at =
					     cs->state.running->started_at});
			continue;
		}
		c->watch = xcalloc(1, sizeof(*c->watch));
		uv_poll_init(rt->cfg.loop, c->watch, fd);
		c->watch->data = c;
		uv_poll_start(c->watch, UV_READABLE, on_pidfd);
		cont_step(c, &(struct ctr_event){
				 .type = CEV_ADOPTED,
				 .started_at = cs->state.running->started_at});
		log_info("agent: re-adopted %s/%s container %s, pid %d",
			 pod->metadata.namespace, pod->metadata.name,
			 c->spec->name, pid);
	}
	return true;
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

/* A pod stopped for its deletion: its logs go with it (the API object
 * is removed right after), as the kubelet removes a deleted pod's. They
 * would otherwise pile up, a file per container start. */
static void
remove_logs(struct rpod *p)
{
	const struct object_meta *m = &p->pod.metadata;
	char path[1200];
	size_t i;
	int prev;

	for (i = 0; i < p->n; i++)
		for (prev = 0; prev < 2; prev++)
			if (podlog_path(path, sizeof(path), p->rt->cfg.log_dir,
					m->namespace, m->name, m->uid,
					p->c[i].spec->name, prev) == 0)
				unlink(path);
}

static void
forget(struct runtime *rt, struct rpod *p)
{
	size_t i;

	DL_DELETE(rt->pods, p);
	HASH_DEL(rt->by_uid, p);
	for (i = 0; i < p->n; i++) {
		size_t k;

		if (p->c[i].backoff) {
			uv_timer_stop(p->c[i].backoff);
			uv_close((uv_handle_t *)p->c[i].backoff, free_handle);
		}
		probers_stop(&p->c[i]);
		for (k = 0; k < p->c[i].ports.n; k++)
			portalloc_put(&rt->ports,
				      (int)p->c[i].ports.v[k].host_port,
				      rt->cfg.now());
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
	struct rpod *p = find(rt, uid);
	size_t i;

	for (i = 0; p && i < p->n; i++)
		cont_step(&p->c[i], &(struct ctr_event){.type = CEV_DRAIN});
}

bool
runtime_stop(struct runtime *rt, const char *uid, int64_t grace_s)
{
	struct rpod *p = find(rt, uid);
	size_t i;

	if (p == NULL)
		return true;
	if (!p->stopping) {
		p->stopping = true;
		for (i = 0; i < p->n; i++)
			cont_step(&p->c[i],
				  &(struct ctr_event){.type = CEV_STOP,
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
		remove_logs(p);
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
	cs->image_id = xstrdup("");
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
	struct rpod *p = find(rt, pod->metadata.uid);
	struct ctr_report *r;
	size_t i;

	if (p == NULL)
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
	st->host_ip = xstrdup("127.0.0.1");
	free(st->pod_ip);
	st->pod_ip = xstrdup("127.0.0.1");
	if (st->pod_ips.n == 0) {
		struct pod_ip *ip =
		    anylist_push((struct anylist *)&st->pod_ips, sizeof(*ip));

		ip->ip = xstrdup("127.0.0.1");
	}
	if (!st->start_time)
		st->start_time = p->start_time;
	pod_status_derive(st, r, p->n, rt->cfg.now());
	free(r);
	return true;
}

struct sweep {
	struct runtime *rt;
	bool (*exists)(void *arg, const char *uid);
	void *arg;
	int killed;
};

static bool
known(struct runtime *rt, const char *uid, int pid)
{
	struct rpod *p = find(rt, uid);
	size_t i;

	for (i = 0; p && i < p->n; i++)
		if (ctr_runs(p->c[i].m.state) && p->c[i].pid == pid)
			return true;
	return false;
}

/* A process the journal says runs, that no pod's status accounts for:
 * its pod was deleted while the agent was down, or the agent stopped
 * between starting it and recording it in the pod's status (a crash), in
 * which case the container will be started again. Either way it goes:
 * never two processes for one container. */
static void
sweep_one(void *arg, const char *uid, const char *container, int pid,
	  uint64_t ticks)
{
	struct sweep *sw = arg;
	int fd;

	if (known(sw->rt, uid, pid) || (fd = proc_adopt(pid, ticks)) < 0)
		return;
	if (sw->exists(sw->arg, uid))
		log_info("agent: pid %d (pod %s, container %s) is not in its "
			 "pod's status: SIGKILL",
			 pid, uid, container);
	else
		log_info("agent: pid %d (container %s) belongs to a deleted "
			 "pod (%s): SIGKILL",
			 pid, container, uid);
	kill(-pid, SIGKILL);
	close(fd);
	sw->killed++;
}

/* A service process found writing to a pod log of this node: the start
 * of a process can be cut short between the exec and its journal line
 * (a crash of the agent), so the journal alone may miss it. */
static void
sweep_writer(void *arg, pid_t pid, const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	char ns[256], pod[256], uid[128], container[256];
	uint64_t ticks;

	/* <ns>_<pod>_<uid>_<container>.log (podlog.h) */
	if (sscanf(base, "%255[^_]_%255[^_]_%127[^_]_%255[^.]", ns, pod, uid,
		   container) != 4 ||
	    proc_start_time(pid, &ticks))
		return;
	sweep_one(arg, uid, container, (int)pid, ticks);
}

static void
each_after_sweep(void *arg, pidlog_entry_cb cb, void *cb_arg)
{
	each_running(((struct sweep *)arg)->rt, cb, cb_arg);
}

int
runtime_sweep(struct runtime *rt, bool (*exists)(void *arg, const char *uid),
	      void *arg)
{
	struct sweep sw = {rt, exists, arg, 0};

	if (pidlog_running(rt->cfg.log_dir, sweep_one, &sw))
		log_warn("agent: cannot read %s/pids", rt->cfg.log_dir);
	if (proc_each_writing_under(rt->cfg.log_dir, sweep_writer, &sw))
		log_warn("agent: cannot read /proc");
	/* What is left to remember: the processes adopted so far. */
	if (rt->pids && pidlog_compact(rt->pids, each_after_sweep, &sw))
		log_warn("agent: cannot rewrite %s/pids", rt->cfg.log_dir);
	return sw.killed;
}

void
runtime_reserve(struct runtime *rt, const struct pod *p)
{
	size_t i, j;

	for (i = 0; i < p->status.container_statuses.n; i++) {
		const struct container_status *cs =
		    &p->status.container_statuses.v[i];

		for (j = 0; j < cs->ports.n; j++)
			portalloc_hold(&rt->ports,
				       (int)cs->ports.v[j].host_port);
	}
}

bool
runtime_knows(struct runtime *rt, const char *uid)
{
	return find(rt, uid) != NULL;
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
	while (rt->pods) {
		struct rpod *p = rt->pods;
		size_t i;

		for (i = 0; i < p->n; i++) {
			if (p->c[i].watch) {
				int fd;

				if (uv_fileno((uv_handle_t *)p->c[i].watch,
					      &fd) == 0)
					close(fd);
				uv_close((uv_handle_t *)p->c[i].watch,
					 free_handle);
				p->c[i].watch = NULL;
			}
		}
		if (p->kill) {
			uv_timer_stop(p->kill);
			uv_close((uv_handle_t *)p->kill, free_handle);
		}
		forget(rt, p);
	}
	uv_timer_stop(rt->rotate);
	uv_close((uv_handle_t *)rt->rotate, free_handle);
	pidlog_close(rt->pids);
	portalloc_release(&rt->ports);
	probe_pool_free(rt->pool);
	free(rt);
}
