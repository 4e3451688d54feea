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
#include "podlog.h"
#include "portalloc.h"
#include "probe.h"
#include "probe_pool.h"
#include "proc.h"
#include "runtime.h"
#include "secexec.h"
#include "strbuf.h"
#include "xalloc.h"

#define BACKOFF_START_MS 10000
#define BACKOFF_MAX_MS   300000
#define BACKOFF_RESET_MS 600000

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
	int64_t successes, failures;
	UT_hash_handle hh; /* in runtime.by_probe_id, while pool_id != 0 */
};

struct rcont {
	struct rpod *pod;
	const struct container *spec; /* in pod->pod */
	uv_poll_t *watch;             /* its pidfd, while it runs */
	bool child;                   /* ours (else adopted): reaped */
	bool running;
	int pid; /* also its process group */
	uint64_t start_ticks;
	bool started_ever;
	dtime started_at;
	int64_t restarts;
	/* the last termination */
	bool terminated;
	int64_t exit_code;
	int64_t signal;
	dtime term_started, term_finished;
	const char *lost; /* why its exit status is unknown (static), or NULL */
	/* waiting */
	const char *waiting; /* reason, static, or NULL */
	char *waiting_msg;
	uv_timer_t *backoff;
	int64_t backoff_ms;
	struct container_port_list ports; /* declared, with host ports */
	struct prober probes[PK_N];
	bool ready;         /* readiness (or running, without a probe) */
	bool started;       /* startup probe passed (or none) */
	uv_timer_t *killer; /* SIGKILL after a liveness kill's grace */
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

static void set_waiting(struct rcont *c, const char *reason, const char *msg);
static void on_pidfd(uv_poll_t *h, int status, int events);

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
	p->successes = p->failures = 0;
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

	if (p->inflight || !c->running)
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
	p->successes = p->failures = 0;
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

/* Readiness and liveness start once the startup probe has passed. */
static void
probers_after_startup(struct rcont *c)
{
	c->started = true;
	if (c->spec->readiness_probe)
		prober_start(c, PK_READINESS, c->spec->readiness_probe);
	else
		c->ready = true;
	if (c->spec->liveness_probe)
		prober_start(c, PK_LIVENESS, c->spec->liveness_probe);
}

static void
probers_start(struct rcont *c)
{
	c->ready = false;
	c->started = false;
	if (c->spec->startup_probe)
		prober_start(c, PK_STARTUP, c->spec->startup_probe);
	else
		probers_after_startup(c);
}

static void
on_killer(uv_timer_t *t)
{
	struct rcont *c = t->data;

	if (c->running)
		kill(-c->pid, SIGKILL);
}

/* A failed liveness or startup probe: stop the container (it restarts
 * by its policy, from the exit callback). */
static void
kill_container(struct rcont *c, const struct probe *sp, const char *what)
{
	int64_t grace =
	    opt(&sp->termination_grace_period_seconds,
		opt(&c->pod->pod.spec.termination_grace_period_seconds, 30));

	log_info("agent: %s/%s container %s: %s probe failed, restarting",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, what);
	prober_stop(&c->probes[PK_STARTUP]);
	prober_stop(&c->probes[PK_READINESS]);
	prober_stop(&c->probes[PK_LIVENESS]);
	c->ready = false;
	if (!c->running || c->killer)
		return;
	kill(-c->pid, grace > 0 ? SIGTERM : SIGKILL);
	c->killer = xcalloc(1, sizeof(*c->killer));
	uv_timer_init(c->pod->rt->cfg.loop, c->killer);
	c->killer->data = c;
	uv_timer_start(c->killer, on_killer, (uint64_t)grace * 1000, 0);
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

static void
probe_result(struct prober *p, bool ok, const char *why)
{
	struct rcont *c;
	const struct probe *sp;
	bool was;

	c = p->c;
	sp = p->spec;
	(void)why;
	if (ok) {
		p->successes++;
		p->failures = 0;
	} else {
		p->failures++;
		p->successes = 0;
	}
	switch (p->kind) {
	case PK_STARTUP:
		if (ok && p->successes >= opt(&sp->success_threshold, 1)) {
			prober_stop(p);
			probers_after_startup(c);
			notify(c->pod, false);
		} else if (!ok &&
			   p->failures >= opt(&sp->failure_threshold, 3)) {
			kill_container(c, sp, "startup");
		}
		break;
	case PK_READINESS:
		was = c->ready;
		if (ok && p->successes >= opt(&sp->success_threshold, 1))
			c->ready = true;
		else if (!ok && p->failures >= opt(&sp->failure_threshold, 3))
			c->ready = false;
		if (was != c->ready)
			notify(c->pod, false);
		break;
	case PK_LIVENESS:
		if (!ok && p->failures >= opt(&sp->failure_threshold, 3)) {
			kill_container(c, sp, "liveness");
			notify(c->pod, false);
		}
		break;
	default:
		break;
	}
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
	if (c->started_ever)
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
			if (p->c[i].running && p->c[i].pid > 0) {
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

static void spawn(struct rcont *c);

/* A container waiting for a host port tries again. */
static void
on_port_retry(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, free_handle);
	c->backoff = NULL;
	if (c->pod->stopping)
		return;
	spawn(c);
	notify(c->pod, false);
}

#define PORT_RETRY_MS 2000

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
	set_waiting(c, "CreateContainerError", msg);
	c->backoff = xcalloc(1, sizeof(*c->backoff));
	uv_timer_init(rt->cfg.loop, c->backoff);
	c->backoff->data = c;
	uv_timer_start(c->backoff, on_port_retry, PORT_RETRY_MS, 0);
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
		set_waiting(c, "CreateContainerConfigError", err);
		return;
	}
	if (!ports_ready(c))
		return;
	env = build_env(c, &vars);
	if (s->command.n == 0) {
		if (!is_exec(s->image)) {
			set_waiting(c, "CreateContainerConfigError",
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
		set_waiting(c, "CreateContainerError", strerror(errno));
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
		set_waiting(c, "RunContainerError", msg);
		goto out;
	}
	c->pid = pid;
	c->child = true;
	c->watch = xcalloc(1, sizeof(*c->watch));
	uv_poll_init(c->pod->rt->cfg.loop, c->watch, pidfd);
	c->watch->data = c;
	uv_poll_start(c->watch, UV_READABLE, on_pidfd);
	c->running = true;
	if (proc_start_time(c->pid, &c->start_ticks))
		c->start_ticks = 0;
	journal_started(c);
	c->started_ever = true;
	c->started_at = c->pod->rt->cfg.now();
	c->waiting = NULL;
	free(c->waiting_msg);
	c->waiting_msg = NULL;
	probers_start(c);
	log_info("agent: started %s/%s container %s, pid %d",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 s->name, c->pid);
out:
	strbuf_release(&sb);
	strlist_release(&argv);
	free_strv(env);
	strmap_release(&vars);
}

static void
set_waiting(struct rcont *c, const char *reason, const char *msg)
{
	c->waiting = reason;
	free(c->waiting_msg);
	c->waiting_msg = xstrdup(msg);
	log_warn("agent: %s/%s container %s: %s: %s",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, reason, msg);
}

static bool
pod_idle(const struct rpod *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->c[i].running)
			return false;
	return true;
}

static void
on_backoff(uv_timer_t *t)
{
	struct rcont *c = t->data;

	uv_close((uv_handle_t *)c->backoff, free_handle);
	c->backoff = NULL;
	if (c->pod->stopping)
		return;
	c->restarts++;
	spawn(c);
	notify(c->pod, false);
}

static void container_exited(struct rcont *c, int64_t status, int sig,
			     const char *lost);

/* Kubernetes' reason and exit code for a container whose end the agent
 * could not see; the messages say which case it was. */
#define REASON_UNKNOWN "ContainerStatusUnknown"
#define EXIT_UNKNOWN   137
static const char lost_while_down[] =
    "The container could not be located when the agent restarted";
static const char lost_not_child[] =
    "The container exited while adopted by the agent; its exit status is "
    "unknown";

/* A container's process exited (its pidfd is readable). An adopted
 * process is not our child, so its exit status is not ours to read: it is
 * reported as ContainerStatusUnknown, 137, as the kubelet does. */
static void
on_pidfd(uv_poll_t *h, int status, int events)
{
	struct rcont *c = h->data;
	int fd = -1, code = EXIT_UNKNOWN, sig = 0;
	const char *lost = lost_not_child;

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
	container_exited(c, code, sig, lost);
}

static void
container_exited(struct rcont *c, int64_t status, int sig, const char *lost)
{
	struct rpod *p = c->pod;
	const char *policy =
	    p->pod.spec.restart_policy ? p->pod.spec.restart_policy : "Always";
	dtime now = p->rt->cfg.now();
	bool restart;

	c->running = false;
	journal_exited(c);
	probers_stop(c);
	c->ready = false;
	c->terminated = true;
	c->exit_code = sig ? 128 + sig : status;
	c->signal = sig;
	c->lost = lost;
	c->term_started = c->started_at;
	c->term_finished = now;
	log_info("agent: %s/%s container %s exited (status %lld, signal %d)",
		 p->pod.metadata.namespace, p->pod.metadata.name, c->spec->name,
		 (long long)status, sig);
	if (p->stopping) {
		if (pod_idle(p)) {
			if (p->kill) {
				uv_timer_stop(p->kill);
				uv_close((uv_handle_t *)p->kill, free_handle);
				p->kill = NULL;
			}
			notify(p, true);
		}
		return;
	}
	restart = !strcmp(policy, "Always") ||
		  (!strcmp(policy, "OnFailure") && c->exit_code != 0);
	if (restart) {
		/* The first restart is immediate; then 10 s doubling to
		 * 5 min, reset after 10 min of running. */
		if (now - c->started_at >= BACKOFF_RESET_MS)
			c->backoff_ms = 0;
		if (c->backoff_ms == 0) {
			c->backoff_ms = BACKOFF_START_MS;
			c->restarts++;
			spawn(c);
		} else {
			char msg[300];

			snprintf(
			    msg, sizeof(msg),
			    "back-off %llds restarting failed container=%s "
			    "pod=%s",
			    (long long)(c->backoff_ms / 1000), c->spec->name,
			    p->pod.metadata.name);
			c->waiting = "CrashLoopBackOff";
			free(c->waiting_msg);
			c->waiting_msg = xstrdup(msg);
			c->backoff = xcalloc(1, sizeof(*c->backoff));
			uv_timer_init(p->rt->cfg.loop, c->backoff);
			c->backoff->data = c;
			uv_timer_start(c->backoff, on_backoff,
				       (uint64_t)c->backoff_ms, 0);
			c->backoff_ms *= 2;
			if (c->backoff_ms > BACKOFF_MAX_MS)
				c->backoff_ms = BACKOFF_MAX_MS;
		}
	}
	notify(p, false);
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
		if (!p->c[i].started_ever && !p->c[i].running &&
		    !p->c[i].waiting)
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
		c->restarts = cs->restart_count;
		if (cs->state.terminated) {
			const struct state_terminated *t = cs->state.terminated;

			c->started_ever = c->terminated = true;
			c->exit_code = t->exit_code;
			c->signal = t->signal;
			c->term_started = t->started_at;
			c->term_finished = t->finished_at;
			if (t->reason && !strcmp(t->reason, REASON_UNKNOWN))
				c->lost = t->message && !strcmp(t->message,
								lost_not_child)
					      ? lost_not_child
					      : lost_while_down;
			continue;
		}
		if (!cs->state.running ||
		    parse_id(cs->container_id, &pid, &ticks))
			continue; /* waiting: ensure() starts it */
		c->started_ever = true;
		c->pid = pid;
		c->start_ticks = ticks;
		c->started_at = cs->state.running->started_at;
		fd = proc_adopt(pid, ticks);
		if (fd < 0) {
			log_info("agent: %s/%s container %s: pid %d is gone",
				 pod->metadata.namespace, pod->metadata.name,
				 c->spec->name, pid);
			c->running = true; /* so that it exits, by policy */
			container_exited(c, EXIT_UNKNOWN, 0, lost_while_down);
			continue;
		}
		c->running = true;
		c->watch = xcalloc(1, sizeof(*c->watch));
		uv_poll_init(rt->cfg.loop, c->watch, fd);
		c->watch->data = c;
		uv_poll_start(c->watch, UV_READABLE, on_pidfd);
		probers_start(c);
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
		if (p->c[i].running) {
			log_info("agent: %s/%s: grace period over, SIGKILL",
				 p->pod.metadata.namespace,
				 p->pod.metadata.name);
			kill(-p->c[i].pid, SIGKILL);
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
		free(p->c[i].waiting_msg);
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

	for (i = 0; p && i < p->n; i++) {
		prober_stop(&p->c[i].probes[PK_READINESS]);
		p->c[i].ready = false;
	}
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
		for (i = 0; i < p->n; i++) {
			if (p->c[i].backoff) {
				uv_timer_stop(p->c[i].backoff);
				uv_close((uv_handle_t *)p->c[i].backoff,
					 free_handle);
				p->c[i].backoff = NULL;
			}
			probers_stop(&p->c[i]);
			p->c[i].ready = false;
			if (p->c[i].running)
				kill(-p->c[i].pid,
				     grace_s > 0 ? SIGTERM : SIGKILL);
		}
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

static void
cond(struct pod_status *st, const char *type, bool ok, dtime now)
{
	struct condition *cur = condition_find(&st->conditions, type);
	const char *s = ok ? "True" : "False";
	struct condition c = {.type = (char *)type,
			      .status = (char *)s,
			      .last_transition_time = now};

	if (cur && cur->status && !strcmp(cur->status, s))
		return; /* keep its transition time */
	condition_remove(&st->conditions, type);
	condition_append(&st->conditions, &c);
}

static struct state_terminated *
terminated_of(const struct rcont *c)
{
	struct state_terminated *t = xcalloc(1, sizeof(*t));
	char id[64];

	t->exit_code = c->exit_code;
	t->signal = c->signal;
	t->reason = xstrdup(c->lost             ? REASON_UNKNOWN
			    : c->exit_code == 0 ? "Completed"
						: "Error");
	t->message = c->lost ? xstrdup(c->lost) : NULL;
	t->started_at = c->term_started;
	t->finished_at = c->term_finished;
	snprintf(id, sizeof(id), "drover://%d-%llu", c->pid,
		 (unsigned long long)c->start_ticks);
	t->container_id = xstrdup(id);
	return t;
}

bool
runtime_status(struct runtime *rt, const struct pod *pod, struct pod_status *st)
{
	struct rpod *p = find(rt, pod->metadata.uid);
	bool all_ready = true, any_running = false, all_done = true,
	     all_ok = true;
	dtime now = rt->cfg.now();
	size_t i;

	if (p == NULL)
		return false;
	/* container statuses are rebuilt from scratch */
	while (st->container_statuses.n)
		schema_release(
		    &schema_container_status,
		    &st->container_statuses.v[--st->container_statuses.n]);
	for (i = 0; i < p->n; i++) {
		struct rcont *c = &p->c[i];
		struct container_status *cs = anylist_push(
		    (struct anylist *)&st->container_statuses, sizeof(*cs));
		char id[64];

		cs->name = xstrdup(c->spec->name);
		cs->image = xstrdup(c->spec->image);
		cs->image_id = xstrdup("");
		cs->restart_count = c->restarts;
		cs->started.set = true;
		cs->started.v = c->running && c->started;
		{
			struct container_status tmp = {.ports = c->ports}, cp;

			schema_copy(&schema_container_status, &cp, &tmp);
			cs->ports = cp.ports;
			cp.ports = (struct container_port_list){0};
			schema_release(&schema_container_status, &cp);
		}
		if (c->running) {
			snprintf(id, sizeof(id), "drover://%d-%llu", c->pid,
				 (unsigned long long)c->start_ticks);
			cs->container_id = xstrdup(id);
			cs->state.running =
			    xcalloc(1, sizeof(*cs->state.running));
			cs->state.running->started_at = c->started_at;
			cs->ready = c->ready && c->started;
			any_running = true;
			all_done = false;
		} else if (c->waiting || !c->started_ever) {
			cs->state.waiting =
			    xcalloc(1, sizeof(*cs->state.waiting));
			cs->state.waiting->reason = xstrdup(
			    c->waiting ? c->waiting : "ContainerCreating");
			cs->state.waiting->message = xstrdup(c->waiting_msg);
			all_done = false;
		} else {
			cs->state.terminated = terminated_of(c);
			if (c->exit_code != 0)
				all_ok = false;
		}
		if (c->terminated && !cs->state.terminated)
			cs->last_state.terminated = terminated_of(c);
		if (!cs->ready)
			all_ready = false;
	}
	free(st->phase);
	st->phase = xstrdup(any_running ? "Running"
			    : all_done  ? (all_ok ? "Succeeded" : "Failed")
					: "Pending");
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
	cond(st, "PodScheduled", true, now);
	cond(st, "Initialized", true, now);
	cond(st, "ContainersReady", all_ready && p->n, now);
	cond(st, "Ready", all_ready && p->n, now);
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
		if (p->c[i].running && p->c[i].pid == pid)
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
