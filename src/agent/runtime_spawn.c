/* runtime_spawn.c - starting a container's process group: argv from
 * command and args after $(VAR) expansion, the environment, the working
 * directory, the securityContext (applied by proc_spawn), stdout and
 * stderr appended to the container's log file; the journal of started
 * processes (pidlog.h) and the size rotation of the logs. The outcome of
 * a start is an event of the container's state machine. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utlist.h>

#include "downward.h"
#include "expand.h"
#include "crashpoint.h"
#include "log.h"
#include "podlog.h"
#include "proc.h"
#include "runtime_int.h"
#include "xalloc.h"

/* The value of a downward-API field for this pod (downward.h): its node
 * is this agent's, its address the loopback its ports are on. */
static const char *
field_ref(struct rpod *p, const char *path)
{
	return downward_env_value(&p->pod, path, p->rt->cfg.node_name,
				  rt_address(p->rt));
}

/* NAME as an environment variable's suffix: upper case, '-' as '_'
 * ("web-8080" -> "WEB_8080"). */
static void
env_suffix(char *s)
{
	for (; *s; s++)
		*s = *s == '-'                  ? '_'
		     : (*s >= 'a' && *s <= 'z') ? (char)(*s - 32)
						: *s;
}

/* Environment of a container: PATH, HOSTNAME, PORT and PORT_<NAME> (its
 * host ports), VOLUME_<NAME> (the directory of each volume it mounts,
 * runtime_volumes.c), then Kubernetes' order (each value may refer to
 * the ones before it), then DROVER_IMAGE. vars receives every variable
 * for the expansion of command and args. */
char **
rt_build_env(struct rcont *c, struct strmap *vars)
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

		snprintf(val, sizeof(val), "%lld",
			 (long long)c->ports.v[i].host_port);
		if (i == 0)
			strmap_set(vars, "PORT", val);
		if (c->ports.v[i].name && *c->ports.v[i].name) {
			snprintf(name, sizeof(name), "PORT_%s",
				 c->ports.v[i].name);
			env_suffix(name);
			strmap_set(vars, name, val);
		}
	}
	for (i = 0; i < s->volume_mounts.n; i++) {
		char name[128], path[1200];

		if (rt_volume_path(c->pod->rt, &c->pod->pod,
				   s->volume_mounts.v[i].name, path,
				   sizeof(path)))
			continue;
		snprintf(name, sizeof(name), "VOLUME_%s",
			 s->volume_mounts.v[i].name);
		env_suffix(name);
		strmap_set(vars, name, path);
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

/* The log of a container (podlog.h). A restart first moves the last
 * run's log to the .previous.log (`drover logs --previous`). A new log
 * is a file of the runtime's pool given its name (logpool.h), an
 * existing one is appended to. It belongs to the user the container runs
 * as, mode 0600 (the daemon reads it as root; `drover logs` goes through
 * the API). */
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
	fd = logpool_open(c->pod->rt->logs, path);
	if (fd >= 0 && sec->p.ids &&
	    (fchown(fd, (uid_t)sec->p.uid, (gid_t)sec->p.gid) ||
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

void
rt_each_running(void *arg, pidlog_entry_cb cb, void *cb_arg)
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
	    pidlog_compact(rt->pids, rt_each_running, rt))
		log_warn("agent: cannot rewrite %s/pids", rt->cfg.log_dir);
}

void
rt_journal_exited(const struct rcont *c)
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

void
rt_on_rotate(uv_timer_t *t)
{
	rotate_logs(t->data);
	rt_remove_doomed(t->data, false);
}

/* A pod stopped for its deletion: its logs go with it (the API object
 * is removed right after), as the kubelet removes a deleted pod's. They
 * would otherwise pile up, a file per container start. They go
 * RUNTIME_LOG_KEEP_MS later, not at once: a `drover logs -f` polling the
 * log reads the lines the process wrote while it stopped after the pod
 * is gone (by its uid), instead of losing what came after its last
 * poll. */
void
rt_remove_logs(struct rpod *p)
{
	const struct object_meta *m = &p->pod.metadata;
	uint64_t at = uv_now(p->rt->cfg.loop) + RUNTIME_LOG_KEEP_MS;
	char path[1200];
	size_t i;
	int prev;

	for (i = 0; i < p->n; i++)
		for (prev = 0; prev < 2; prev++)
			if (podlog_path(path, sizeof(path), p->rt->cfg.log_dir,
					m->namespace, m->name, m->uid,
					p->c[i].spec->name, prev) == 0) {
				struct doomed_log *d = xcalloc(1, sizeof(*d));

				d->path = xstrdup(path);
				d->at = at;
				d->next = p->rt->doomed;
				p->rt->doomed = d;
			}
}

void
rt_remove_doomed(struct runtime *rt, bool all)
{
	uint64_t now = uv_now(rt->cfg.loop);
	struct doomed_log **pp = &rt->doomed, *d;

	while ((d = *pp) != NULL) {
		if (!all && d->at > now) {
			pp = &d->next;
			continue;
		}
		unlink(d->path);
		*pp = d->next;
		free(d->path);
		free(d);
	}
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

/* A start on a thread of libuv's pool: what proc_spawn needs (owned:
 * argv, env, the log descriptor, the rights to apply), then what it did.
 * c is NULL once the runtime has gone (rt_detach_spawns). */
struct spawn_job {
	uv_work_t req;
	struct runtime *rt;
	struct rcont *c;
	struct spawn_job *prev, *next; /* in runtime.spawns */
	bool updated;                  /* an in-place update's first start */
	struct strlist argv;
	char **env;
	char *cwd;
	int fd;
	bool secure; /* apply sec */
	struct proc_sec sec;
	/* the outcome */
	int r;
	pid_t pid;
	int pidfd;
	uint64_t start_ticks;
	uint64_t started_ns; /* uv_hrtime() right after the spawn */
	char err[512];
};

static void
job_free(struct spawn_job *j)
{
	strlist_release(&j->argv);
	free_strv(j->env);
	free(j->cwd);
	free(j);
}

/* On the pool's thread: only the job. The start time is read here too:
 * /proc/PID/stat waits for the child's exec to finish. */
static void
spawn_work(uv_work_t *req)
{
	struct spawn_job *j = req->data;
	struct proc_spawn o = {0};

	o.file = j->argv.v[0];
	o.argv = j->argv.v;
	o.env = j->env;
	o.cwd = j->cwd;
	o.out_fd = j->fd;
	if (j->secure) { /* the securityContext (secexec.h) */
		o.sec = &j->sec;
		o.err = j->err;
		o.errlen = sizeof(j->err);
	}
	j->r = proc_spawn(&o, &j->pid, &j->pidfd);
	j->started_ns = uv_hrtime();
	close(j->fd);
	if (j->r == 0 && proc_start_time(j->pid, &j->start_ticks))
		j->start_ticks = 0;
}

/* Back on the loop: the outcome is an event of the container's machine;
 * a stop of the pod that came meanwhile follows it. */
static void
spawn_done(uv_work_t *req, int status)
{
	struct spawn_job *j = req->data;
	struct rcont *c = j->c;
	struct rpod *p;

	(void)status;
	if (c == NULL) { /* the runtime went: the process runs on */
		if (j->r == 0)
			close(j->pidfd);
		job_free(j);
		return;
	}
	DL_DELETE(j->rt->spawns, j);
	c->spawning = NULL;
	p = c->pod;
	if (j->r) {
		char msg[600];

		snprintf(msg, sizeof(msg), "cannot start %s: %s", j->argv.v[0],
			 *j->err ? j->err : strerror(j->r));
		cont_start_failed(c, "RunContainerError", msg);
	} else {
		c->pid = j->pid;
		c->child = true;
		c->start_ticks = j->start_ticks;
		c->run_ns = j->started_ns;
		c->watch = xcalloc(1, sizeof(*c->watch));
		uv_poll_init(p->rt->cfg.loop, c->watch, j->pidfd);
		c->watch->data = c;
		if (uv_poll_start(c->watch, UV_READABLE, rt_on_pidfd))
			log_warn("agent: %s/%s container %s: cannot watch pid "
				 "%d: its exit will go unseen",
				 p->pod.metadata.namespace,
				 p->pod.metadata.name, c->spec->name, c->pid);
		cont_step(c, &(struct ctr_event){.type = CEV_SPAWNED});
		journal_started(c);
		log_info("agent: started %s/%s container %s, pid %d",
			 p->pod.metadata.namespace, p->pod.metadata.name,
			 c->spec->name, c->pid);
		if (j->updated)
			crashpoint("inplace-after-start");
	}
	job_free(j);
	if (p->stopping) {
		cont_step(c, &(struct ctr_event){.type = CEV_STOP,
						 .grace_s = p->stop_grace_s});
		if (pod_idle(p)) {
			rt_close_timer(&p->kill);
			rt_notify(p, RUNTIME_STOPPED);
			return;
		}
	}
	/* The status changed (running, or waiting with the reason); a
	 * start made in the agent's own call was written by that call. */
	rt_notify(p, RUNTIME_CHANGED);
}

void
rt_detach_spawns(struct runtime *rt)
{
	while (rt->spawns) {
		struct spawn_job *j = rt->spawns;

		j->c->spawning = NULL;
		j->c = NULL;
		DL_DELETE(rt->spawns, j);
	}
}

/* Now in clock ticks since boot, one tick early (a process started now
 * may read a tick lower after the conversion). */
static uint64_t
boot_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t t;

	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	t = (uint64_t)ts.tv_sec * (uint64_t)hz +
	    (uint64_t)ts.tv_nsec / (1000000000u / (uint64_t)hz);
	return t ? t - 1 : 0;
}

void
cont_spawn(struct rcont *c)
{
	/* an in-place update's new spec first (runtime_update.c) */
	bool updated = c->pending;
	const struct container *s;
	struct strmap vars = {0};
	struct strbuf sb = STRBUF_INIT;
	struct spawn_job *j;
	struct secspec sec;
	char path[1024], err[512];
	const char *image_dir;
	size_t i;
	int fd;

	if (c->spawning)
		return; /* its outcome comes */
	s = (cont_take_pending(c), c->spec);
	image_dir = is_dir(s->image) ? s->image : NULL;
	c->run_hash = ctr_spec_hash(s);
	if (secspec_resolve(&c->pod->pod, s, &c->pod->rt->cfg.sec, &sec, err,
			    sizeof(err))) {
		cont_start_failed(c, "CreateContainerConfigError", err);
		return;
	}
	if (!ports_ready(c))
		return;
	j = xcalloc(1, sizeof(*j));
	j->env = rt_build_env(c, &vars);
	if (s->command.n == 0) {
		if (!is_exec(s->image)) {
			cont_start_failed(c, "CreateContainerConfigError",
					  "no command, and the image is not an "
					  "executable path");
			goto fail;
		}
		strlist_push(&j->argv, s->image); /* the image is the program */
	}
	for (i = 0; i < s->command.n + s->args.n; i++) {
		const char *a = i < s->command.n ? s->command.v[i]
						 : s->args.v[i - s->command.n];

		strbuf_reset(&sb);
		expand_vars(a, &vars, &sb);
		strlist_push(&j->argv, sb.buf);
	}
	if (image_dir && j->argv.v[0][0] != '/' && strchr(j->argv.v[0], '/')) {
		snprintf(path, sizeof(path), "%s/%s", image_dir, j->argv.v[0]);
		free(j->argv.v[0]);
		j->argv.v[0] = xstrdup(path);
	}
	fd = open_log(c, &sec);
	if (fd < 0) {
		cont_start_failed(c, "CreateContainerError", strerror(errno));
		goto fail;
	}
	j->argv.v = xrealloc(j->argv.v, (j->argv.n + 1) * sizeof(char *));
	j->argv.v[j->argv.n] = NULL;
	j->cwd = xstrdup(s->working_dir && *s->working_dir ? s->working_dir
			 : image_dir                       ? image_dir
							   : "/");
	j->fd = fd;
	if (sec.any) {
		j->sec = sec.p;
		j->secure = true;
	}
	j->rt = c->pod->rt;
	j->c = c;
	j->updated = updated;
	j->req.data = j;
	c->spawning = j;
	c->spawn_ticks = boot_ticks();
	DL_APPEND(c->pod->rt->spawns, j);
	if (uv_queue_work(c->pod->rt->cfg.loop, &j->req, spawn_work,
			  spawn_done)) {
		/* only refused without a work callback: start here then */
		spawn_work(&j->req);
		spawn_done(&j->req, 0);
	}
	j = NULL;
fail:
	if (j)
		job_free(j);
	strbuf_release(&sb);
	strmap_release(&vars);
}
