/* runtime_restore.c - live restore: the pods that ran before this
 * agent started are taken back (a process is re-adopted only if its pid
 * and start time still match, through a pidfd; one that died meanwhile
 * is an exit for the state machine), and the processes that no pod
 * accounts for are killed (the sweep). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "clock.h"
#include "log.h"
#include "proc.h"
#include "runtime_int.h"
#include "xalloc.h"

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

/* Why a recorded exit status is unknown, from its message (the
 * static text the machine keeps), or NULL: the run was seen to end. */
static const char *
lost_of(const struct state_terminated *t)
{
	if (t->reason == NULL || strcmp(t->reason, CTR_REASON_UNKNOWN))
		return NULL;
	return t->message && !strcmp(t->message, ctr_lost_not_child)
		   ? ctr_lost_not_child
		   : ctr_lost_while_down;
}

/* The last run of a container that runs again (or waits to), as the
 * status recorded it in lastState.terminated: the machine keeps it (its
 * last termination), so the status this agent writes shows it as the one
 * before did. Example: a container that exited 3 and was restarted, then
 * the daemon restarted: lastState.terminated still says exitCode 3, not
 * nothing. */
static void
restore_last_state(struct rcont *c, const struct container_status *cs)
{
	const struct state_terminated *t = cs->last_state.terminated;

	if (t == NULL)
		return;
	c->m.terminated = true;
	c->m.exit_code = t->exit_code;
	c->m.signal = t->signal;
	c->m.term_started = t->started_at;
	c->m.term_finished = t->finished_at;
	c->m.lost = lost_of(t);
	c->m.updated = t->reason && !strcmp(t->reason, CTR_REASON_INPLACE);
}

/* How long a start waits at most for what a stray process of its
 * container held to be let go (clear_strays). */
#define STRAY_WAIT_MS 2000

/* A stray of one container: a process the journal says runs, that the
 * status does not report (the dead agent started it and was killed
 * before it wrote the status: the crashpoint inplace-after-start). */
struct strays {
	const char *uid, *container;
	int reported; /* the pid the status reports, or 0 */
	int killed;
};

/* Kills one stray and waits (up to the deadline) for it to exit. */
static void
kill_stray(void *arg, const char *uid, const char *container, int pid,
	   uint64_t ticks)
{
	struct strays *st = arg;
	struct pollfd pfd = {.events = POLLIN};
	int64_t end = clock_mono_ms() + STRAY_WAIT_MS, now;

	if (strcmp(uid, st->uid) || strcmp(container, st->container) ||
	    pid == st->reported || (pfd.fd = proc_adopt(pid, ticks)) < 0)
		return;
	log_info("agent: pid %d (pod %s, container %s) is not in its pod's "
		 "status: SIGKILL before the container starts again",
		 pid, uid, container);
	kill(-pid, SIGKILL);
	while ((now = clock_mono_ms()) < end &&
	       poll(&pfd, 1, (int)(end - now)) < 0 && errno == EINTR)
		;
	close(pfd.fd);
	st->killed++;
}

/* A listener of the host holds the port (as runtime_ports.c checks it:
 * with SO_REUSEADDR, so that connections in TIME_WAIT do not count). */
static bool
port_held(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	bool held;

	if (fd < 0)
		return false;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	sa.sin_port = htons((uint16_t)port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	held = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 &&
	       errno == EADDRINUSE;
	close(fd);
	return held;
}

/* Before a container whose process is gone starts again at a live
 * restore: the processes of it that the journal records and the status
 * does not report are killed, and the start waits (up to STRAY_WAIT_MS,
 * on the loop: a crash's aftermath, once) until they have exited and
 * its host ports are free again, as any start finds them. Without the
 * wait the start came 6 ms after the SIGKILL and failed on its port,
 * which the dying process still held. The sweep (below) would kill them
 * too, but only after this start. */
static void
clear_strays(struct runtime *rt, const struct rcont *c, int reported)
{
	struct strays st = {c->pod->pod.metadata.uid, c->spec->name, reported,
			    0};
	int64_t end;
	size_t i;

	if (pidlog_running(rt->cfg.log_dir, kill_stray, &st) || !st.killed)
		return;
	end = clock_mono_ms() + STRAY_WAIT_MS;
	for (i = 0; i < c->ports.n; i++)
		while (c->ports.v[i].host_port &&
		       port_held((int)c->ports.v[i].host_port) &&
		       clock_mono_ms() < end)
			usleep(1000);
}

bool
runtime_adopt(struct runtime *rt, const struct pod *pod)
{
	struct rpod *p = rt_find(rt, pod->metadata.uid);
	size_t i;

	if (p)
		return true;
	p = rt_new_pod(rt, pod);
	for (i = 0; i < p->n; i++) {
		struct rcont *c = &p->c[i];
		const struct container_status *cs =
		    rt_status_of(pod, c->spec->name);
		int pid, fd = -1;
		uint64_t ticks;
		bool updating;

		if (cs == NULL)
			continue;
		c->m.restarts = cs->restart_count;
		/* a run, or a wait, shows the run before (an end seen now
		 * replaces it) */
		restore_last_state(c, cs);
		if (cs->state.terminated) {
			const struct state_terminated *t = cs->state.terminated;
			struct ctr_event ev = {
			    .type = CEV_RESTORED_EXITED,
			    .status = t->exit_code,
			    .signal = t->signal,
			    .started_at = t->started_at,
			    .finished_at = t->finished_at,
			};

			ev.lost = lost_of(t);
			cont_step(c, &ev);
			continue;
		}
		if (!cs->state.running ||
		    parse_id(cs->container_id, &pid, &ticks))
			continue; /* waiting: ensure() starts it */
		updating = cont_adopt_mid_update(c, cs);
		c->pid = pid;
		c->start_ticks = ticks;
		fd = proc_adopt(pid, ticks);
		if (fd < 0) {
			log_info("agent: %s/%s container %s: pid %d is gone",
				 pod->metadata.namespace, pod->metadata.name,
				 c->spec->name, pid);
			clear_strays(rt, c, pid);
			/* it exited while the agent was away: by policy */
			cont_step(
			    c, &(struct ctr_event){
				   .type = CEV_ADOPTED_GONE,
				   .status = CTR_EXIT_UNKNOWN,
				   .lost = ctr_lost_while_down,
				   .started_at = cs->state.running->started_at,
				   .updating = updating});
			continue;
		}
		c->watch = xcalloc(1, sizeof(*c->watch));
		uv_poll_init(rt->cfg.loop, c->watch, fd);
		c->watch->data = c;
		uv_poll_start(c->watch, UV_READABLE, rt_on_pidfd);
		cont_step(c,
			  &(struct ctr_event){
			      .type = CEV_ADOPTED,
			      .started_at = cs->state.running->started_at,
			      .was_started = !cs->started.set || cs->started.v,
			      .was_ready = cs->ready});
		if (updating) /* out of its Services again, then updated */
			cont_step(c, &(struct ctr_event){.type = CEV_DRAIN});
		log_info("agent: re-adopted %s/%s container %s, pid %d",
			 pod->metadata.namespace, pod->metadata.name,
			 c->spec->name, pid);
	}
	return true;
}

struct sweep {
	struct runtime *rt;
	bool (*exists)(void *arg, const char *uid);
	void *arg;
	int killed;
};

/* A process of the runtime: one it runs, or the one a start under way
 * made (its container's, started since: its pid comes back to the loop
 * after the start, and the sweep may run before). */
static bool
known(struct runtime *rt, const char *uid, const char *container, int pid,
      uint64_t ticks)
{
	struct rpod *p = rt_find(rt, uid);
	size_t i;

	for (i = 0; p && i < p->n; i++) {
		const struct rcont *c = &p->c[i];

		if (ctr_runs(c->m.state) && c->pid == pid)
			return true;
		if (c->spawning && !strcmp(c->spec->name, container) &&
		    ticks >= c->spawn_ticks)
			return true;
	}
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

	if (known(sw->rt, uid, container, pid, ticks) ||
	    (fd = proc_adopt(pid, ticks)) < 0)
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
	rt_each_running(((struct sweep *)arg)->rt, cb, cb_arg);
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
