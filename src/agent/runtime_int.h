/* runtime_int.h - what the files of the process runtime share (private
 * to src/agent/runtime*.c; the agent sees runtime.h only).
 *
 * The runtime is cut by job:
 *
 *   runtime.c          the pod lifecycle: pods by uid, each container's
 *                      state machine (pod_status.h) fed by cont_step()
 *                      and carried out by cont_apply(), exits, stops,
 *                      the status
 *   runtime_spawn.c    starting a container's process group: argv, env,
 *                      working directory, its log file, the journal of
 *                      started processes, log rotation
 *   runtime_probe.c    the probes of a container and their verdicts
 *   runtime_restore.c  live restore: re-adoption and the sweep of
 *                      processes no pod accounts for
 *   runtime_ports.c    host ports: allocation, the OS check, reservation
 *   runtime_update.c   in-place updates: the new image/command/args kept
 *                      until the next start, the hash of each run
 *   runtime_volumes.c  the pod's emptyDir directories: made with the
 *                      pod, removed with it
 *
 * Every change of a container's state goes through cont_step(): a file
 * that learns something (an exit, a probe verdict, a failed start)
 * makes it an event. The named hooks of later features are in runtime.c:
 * cont_ready_changed() (the proxy: add or remove the endpoint) and
 * cont_apply() (new actions, e.g. an in-place resize of a running
 * container's resources).
 *
 * Ownership: the runtime owns its pods (rt_new_pod, freed by forget in
 * runtime.c); a pod owns its containers, a container its probers, ports
 * and timers; libuv handles are freed from their close callback
 * (rt_free_handle). */
#ifndef DROVER_AGENT_RUNTIME_INT_H
#define DROVER_AGENT_RUNTIME_INT_H

#include <uthash.h>
#include <uv.h>

#include "logpool.h"
#include "pidlog.h"
#include "pod_status.h"
#include "portalloc.h"
#include "runtime.h"
#include "secexec.h"
#include "strbuf.h"
#include "strmap.h"

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
	uv_timer_t *killer; /* KILLING, UPDATING: SIGKILL after the grace */
	/* In-place update (runtime_update.c): the newest image, command and
	 * args of the pod's spec while they are not yet spec's (owned);
	 * taken by the next start. */
	bool pending;
	char *next_image;
	struct strlist next_command, next_args;
	dtime pending_since;
	uint64_t run_hash; /* ctr_spec_hash() of the run; imageID */
	/* A start under way on a thread (runtime_spawn.c): the container
	 * stays CREATING until its outcome comes back to the loop. */
	struct spawn_job *spawning;
	/* Clock ticks since boot (as /proc/PID/stat's start time) just
	 * before that start: a process of this container started since is
	 * the start's own, which the sweep of live restore leaves alone. */
	uint64_t spawn_ticks;
	/* uv_hrtime() as this run's process started (read on the start's
	 * thread, right after the spawn); 0 if not known (a process taken
	 * back by live restore). The probes' initialDelaySeconds count from
	 * it. */
	uint64_t run_ns;
};

struct rpod {
	struct runtime *rt;
	struct pod pod; /* the pod as it was started */
	struct rcont *c;
	size_t n;
	bool stopping;
	int64_t stop_grace_s; /* of the stop, for a start under way then */
	uv_timer_t *kill;
	dtime start_time;
	struct rpod *prev, *next; /* in runtime.pods */
	UT_hash_handle hh;        /* in runtime.by_uid */
};

/* How many log files the runtime keeps made ahead (logpool.h). Starts
 * faster than the thread makes files (0.3 ms or more each) take them
 * down; past this many in a row, a start creates its own. */
#define RUNTIME_LOGPOOL 64

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
	struct pidlog *pids;      /* DIR/pids, or NULL if it cannot be opened */
	struct logpool *logs;     /* log files made ahead (NULL: none) */
	struct portalloc ports;   /* the host ports this agent hands out */
	struct spawn_job *spawns; /* starts under way, to detach at free */
	struct doomed_log *doomed; /* deleted pods' logs, kept a little */
};

/* A log file of a deleted pod, removed at `at` (uv_now, ms) or at the
 * runtime's free: a follower (`drover logs -f`) still reads its last
 * lines by the pod's uid once the pod is gone (api h_log). */
struct doomed_log {
	char *path;
	uint64_t at;
	struct doomed_log *next;
};
/* How long a deleted pod's logs stay readable: the rotation timer's
 * period or twice it. */
#define RUNTIME_LOG_KEEP_MS 10000
/* Removes the doomed logs whose time has come; all of them if `all`. */
void rt_remove_doomed(struct runtime *rt, bool all);

/* ---- runtime.c: the pod lifecycle ---- */

/* uv_close callback of every handle the runtime allocates. */
void rt_free_handle(uv_handle_t *h);
/* Stops and closes *t if set, and clears it. */
void rt_close_timer(uv_timer_t **t);
/* Stops watching the container's pidfd and closes it, in that order (a
 * descriptor closed while libuv still polls it may be reused at once by
 * a start on another thread, and the poll would then watch that one);
 * nothing if not watched. */
void rt_unwatch(struct rcont *c);
struct rpod *rt_find(struct runtime *rt, const char *uid);
/* The node's address (runtime_config.address, else 127.0.0.1). */
const char *rt_address(const struct runtime *rt);
/* Where a probe goes: its host, else the pod's IP, the node's address. */
const char *probe_host(const struct runtime *rt, const char *host);
/* Tells the agent what changed of the pod (runtime.h). */
void rt_notify(struct rpod *p, enum runtime_change what);
/* True if no container of the pod runs. */
bool pod_idle(const struct rpod *p);
/* Feeds one event to the container's state machine and carries out the
 * actions. Returns -1, changing nothing, if the machine refuses it. */
int cont_step(struct rcont *c, const struct ctr_event *ev);
/* The pidfd of a running container became readable: it exited. */
void rt_on_pidfd(uv_poll_t *h, int status, int events);
/* A pod record for pod (copied), its containers in CREATING, their host
 * ports taken from pod's status when it reports some. The runtime owns
 * it. */
struct rpod *rt_new_pod(struct runtime *rt, const struct pod *pod);
/* The status of the container called name in pod, or NULL. */
const struct container_status *rt_status_of(const struct pod *pod,
					    const char *name);

/* ---- runtime_spawn.c: starting a process ---- */

/* CA_SPAWN: starts the container's process and feeds the outcome back
 * (SPAWNED, START_FAILED or NO_PORT). The posix_spawn itself runs on a
 * thread of libuv's pool and its outcome comes back on the loop in a
 * later phase of the turn (c->spawning meanwhile); a failure before it
 * (configuration, ports, the log) is fed back at once. A stop of the pod
 * meanwhile waits for the outcome (runtime_stop). */
void cont_spawn(struct rcont *c);
/* The runtime goes away with starts under way: their outcomes are
 * dropped (a process started is left running, as every other one). */
void rt_detach_spawns(struct runtime *rt);
/* The environment of a container (NULL-terminated, the caller frees each
 * string and the array); vars receives every variable. */
char **rt_build_env(struct rcont *c, struct strmap *vars);
void rt_journal_exited(const struct rcont *c);
/* pidlog_compact's walk of the processes running. */
void rt_each_running(void *arg, pidlog_entry_cb cb, void *cb_arg);
/* The log rotation timer (every 10 s). */
void rt_on_rotate(uv_timer_t *t);
/* Removes the logs of a pod stopped for its deletion. */
void rt_remove_logs(struct rpod *p);

/* ---- runtime_volumes.c: emptyDir volumes ---- */

/* The directory of the pod's volume called name, into out (len bytes):
 * DIR/pods/volumes/<uid>/<name>. Returns 0, or -1 if the uid or name
 * could name another directory or the path does not fit. */
int rt_volume_path(const struct runtime *rt, const struct pod *pod,
		   const char *name, char *out, size_t len);
/* Makes the directories of the pod's emptyDir volumes (those there are
 * kept, with their contents). Returns 0, or -1 (logged) if one cannot
 * be made. */
int rt_make_volumes(struct rpod *p);
/* Removes the pod's volume directories, contents and all. */
void rt_remove_volumes(struct rpod *p);

/* ---- runtime_events.c: the kubelet's Events ---- */

/* After cont_step fed ev to c's machine, which asked for out: Created
 * and Started when the process started, Killing when it is sent
 * SIGTERM, BackOff when a restart waits, Failed when a start failed. */
void rt_events_step(struct rcont *c, const struct ctr_event *ev,
		    const struct ctr_out *out);
/* A probe of kind failed with why ("HTTP 500", "exit status 1"):
 * Unhealthy, as the kubelet records every failed probe. */
void rt_events_probe_failed(struct rcont *c, enum probe_kind kind,
			    const char *why);
/* Host port `was` of container port p, taken on the host by another
 * process, was replaced by `now` (0: none free yet): HostPortInUse. */
void rt_events_port_moved(struct rcont *c, const struct container_port *p,
			  int was, int now);

/* ---- runtime_probe.c: probes ---- */

void prober_start(struct rcont *c, enum probe_kind kind,
		  const struct probe *sp);
void prober_stop(struct prober *p);
/* Every probe of the container, and its killer timer. */
void probers_stop(struct rcont *c);
/* CA_START_PROBES: the readiness and liveness probes declared. */
void probers_start_run(struct rcont *c);
/* A result of the probe thread (probe_pool.h). */
void rt_on_pool_result(void *arg, uint64_t id, bool ok, const char *why);

/* ---- runtime_ports.c: host ports ---- */

/* The host ports of a new container: its hostPorts, those prev reports,
 * else from the agent's range. */
void ports_alloc(struct rcont *c, const struct container_status *prev);
/* Before each start: a port of the range that another process on the
 * host now listens on is replaced (an Event says so); then fills the
 * ports still missing; false (and NO_PORT fed) if the range has none
 * left. */
bool ports_ready(struct rcont *c);
/* The host port behind a probe's port. */
int ports_host(const struct rcont *c, const struct intstr *port);
/* "P1,P2", as the journal records them. */
void ports_text(const struct rcont *c, struct strbuf *sb);
/* The agent's range from cfg, the warning about the ephemeral range and
 * the quarantine of the last run's ports. */
void rt_ports_init(struct runtime *rt);
/* Returns the container's host ports to the allocator. */
void ports_release(struct rcont *c);

/* ---- runtime_update.c: in-place updates ---- */

/* runtime_ensure: the pod's spec gives c the container nw; a new image,
 * command or args is kept as pending and c is drained. */
void cont_notice_spec(struct rcont *c, const struct container *nw);
/* cont_spawn: the pending spec, if any, becomes c's spec. */
void cont_take_pending(struct rcont *c);
/* Frees the pending spec. */
void cont_pending_release(struct rcont *c);
/* runtime_adopt, for a container the status reports running: true if
 * the reported run (imageID) is of another spec than c's, i.e. an
 * update was under way; then c's spec goes back to the reported image
 * and the spec becomes pending. Sets c->run_hash in any case. */
bool cont_adopt_mid_update(struct rcont *c, const struct container_status *cs);
/* The imageID of c's run: "drover-spec://<16 hex digits>". */
void cont_image_id(const struct rcont *c, char *buf, size_t len);

#endif
