/* pod_status.h - the container state machine of the process runtime, the
 * restart back-off, and the pod phase and conditions derived from the
 * containers: what the kubelet decides, as pure functions.
 *
 * Pure: no I/O, no clock, no libuv. The caller (src/agent/runtime*.c)
 * owns the processes, timers and probes; it feeds each thing that
 * happened to a container into ctr_step() as an event, with the current
 * time, and carries out the actions that come back (spawn, signal, arm a
 * timer, start or stop probes, tell the agent). The record of a
 * container (struct ctr) changes only here.
 *
 * THE STATES (enum ctr_state)
 *
 *                 START_FAILED                    NO_PORT
 *   START_ERROR <-------------- CREATING ------------------> PORT_WAIT
 *                              ^  |  |  ^                        |
 *                              |  |  |  +------ PORT_RETRY ------+
 *           BACKOFF_DONE ------+  |  |
 *           (from BACKOFF)        |  +--- RESTORED_EXITED ---> EXITED
 *                                 |
 *                                 | SPAWNED, ADOPTED
 *                                 v    (no startup probe: to RUNNING)
 *                             STARTING --STARTUP_PASSED--> RUNNING --+
 *                                 |                         |   ^    | READY,
 *                  STARTUP_FAILED |         LIVENESS_FAILED |   +----+ UNREADY
 *                                 v                         |
 *                              KILLING <--------------------+
 *
 *   STARTING, RUNNING, KILLING --EXIT--+--> CREATING  restart now (SPAWN)
 *   CREATING --ADOPTED_GONE------------+--> BACKOFF   restart later
 *                                      +--> EXITED    no restart
 *   BACKOFF --BACKOFF_DONE--> CREATING (SPAWN)
 *
 *   STARTING, RUNNING, KILLING --STOP--> TERMINATING --EXIT--> EXITED
 *   CREATING, START_ERROR, PORT_WAIT, BACKOFF, EXITED --STOP--> EXITED
 *   any state --DRAIN--> the same state, not ready
 *   KILLING, TERMINATING, UPDATING --GRACE_OVER--> the same state (SIGKILL)
 *
 *   STARTING, RUNNING --UPDATE--> UPDATING --EXIT--> CREATING (SPAWN)
 *   BACKOFF, START_ERROR --UPDATE--> CREATING (SPAWN)
 *   CREATING, PORT_WAIT, EXITED, UPDATING --UPDATE--> the same state
 *   UPDATING --STOP--> TERMINATING
 *
 * THE TRANSITIONS (ctr_step; the runtime function that feeds the event,
 * in src/agent/runtime*.c)
 *
 *   event            from                  to                 fed by
 *   ---------------  --------------------  -----------------  ---------------
 *   SPAWNED          CREATING              STARTING|RUNNING   cont_spawn
 *   START_FAILED     CREATING              START_ERROR        cont_spawn
 *   NO_PORT          CREATING              PORT_WAIT          ports_ready
 *   PORT_RETRY       PORT_WAIT             CREATING           on_port_retry
 *   ADOPTED          CREATING              STARTING|RUNNING   runtime_adopt
 *   ADOPTED_GONE     CREATING              as EXIT            runtime_adopt
 *   RESTORED_EXITED  CREATING              EXITED             runtime_adopt
 *   STARTUP_PASSED   STARTING              RUNNING            probe_result
 *   STARTUP_FAILED   STARTING              KILLING            probe_result
 *   READY, UNREADY   RUNNING               RUNNING            probe_result
 *   LIVENESS_FAILED  RUNNING               KILLING            probe_result
 *   GRACE_OVER       KILLING, TERMINATING, (same)             on_killer,
 *                    UPDATING                                 on_kill
 *   EXIT             STARTING, RUNNING,    CREATING|BACKOFF   rt_on_pidfd
 *                    KILLING               |EXITED
 *   EXIT             TERMINATING           EXITED             rt_on_pidfd
 *   EXIT             UPDATING              CREATING (SPAWN)   rt_on_pidfd
 *   BACKOFF_DONE     BACKOFF               CREATING           on_backoff
 *   DRAIN            any                   (same)             runtime_unready
 *   STOP             see the diagram       TERMINATING|EXITED runtime_stop
 *   UPDATE           see the diagram       UPDATING|CREATING  runtime_update
 *                                          |(same)
 *
 * Any other (state, event) pair is refused: ctr_step() returns -1 and
 * changes nothing. The runtime never makes one; a test checks that every
 * pair outside the table is refused.
 *
 * INVARIANTS OF EACH STATE (what the runtime may rely on)
 *
 *   1. CREATING: no process, no timer, no probe. A start is due: either
 *      runtime_ensure() makes it (a container not started yet, or one
 *      waiting in the status at a live restore), or the transition that
 *      led here asked for CA_SPAWN and the runtime spawns at once, so
 *      that a restarted container is never seen here.
 *   2. PORT_WAIT: no process; one timer armed (PORT_RETRY_MS); waiting
 *      reason CreateContainerError.
 *   3. START_ERROR: no process, no timer; waiting with the reason of the
 *      failed start. Nothing retries: the pod must be re-created (as a
 *      kubelet would, only less patiently: NEEDSWORK: retry with back-off).
 *   4. STARTING: the process runs; only the startup probe runs; started
 *      and ready are false.
 *   5. RUNNING: the process runs; started is true; the readiness and
 *      liveness probes declared run; ready follows readiness (true
 *      without a readiness probe, until DRAIN).
 *   6. KILLING: the process runs, was signalled after a failed startup
 *      or liveness probe, and gets SIGKILL when the killer timer fires;
 *      no probe runs; not ready.
 *   7. TERMINATING: the pod is being stopped; the process was signalled
 *      and the pod's timer sends SIGKILL after the grace period; no probe
 *      runs; not ready. Nothing restarts it.
 *   8. BACKOFF: no process; one timer armed for the back-off delay;
 *      waiting reason CrashLoopBackOff; last termination recorded.
 *   9. EXITED: no process, no timer, no probe, and none will come: the
 *      restart policy said no, or the pod is being stopped. Reported as
 *      terminated, or, when a stop caught it waiting (or before it ever
 *      ran), as that waiting state.
 *  10. In every state: ready implies RUNNING; a process runs exactly in
 *      STARTING, RUNNING, KILLING, TERMINATING and UPDATING.
 *  11. UPDATING: the process runs, was signalled to be started again with
 *      a new image, command or args (the pod's spec changed); the killer
 *      timer sends SIGKILL after the grace period; no probe runs; not
 *      ready. Its EXIT is not a crash: restartCount and the back-off stay
 *      as they are, the termination is recorded with the reason
 *      InPlaceUpdate, and the new process starts at once.
 *
 * IN-PLACE UPDATE (Kubernetes: a Pod's container image is mutable and
 * the kubelet restarts the container in the same pod; drover also lets
 * command and args change, for the InPlaceUpdate strategy)
 *
 *   The runtime notices that the pod's spec gives a container another
 *   ctr_spec_hash() than the one it runs; it feeds DRAIN (not ready: the
 *   pod leaves its Services), the agent waits for the drain handshake
 *   (bounded by terminationGracePeriodSeconds), then the runtime feeds
 *   UPDATE. Worked example, readiness probe, grace 30 s:
 *
 *     RUNNING ready --DRAIN--> RUNNING not ready  (CA_STOP_READINESS)
 *     RUNNING --UPDATE--> UPDATING  (CA_STOP_PROBES|CA_SIGTERM|
 *                                   CA_ARM_KILLER 30 s|CA_NOTIFY)
 *     UPDATING --EXIT 143--> CREATING  (spawn with the new spec;
 *                                       lastState terminated InPlaceUpdate,
 *                                       restartCount unchanged)
 *     CREATING --SPAWNED--> RUNNING not ready, readiness probe started
 *
 *   A container that does not run takes the new spec at its next start:
 *   at once from BACKOFF or START_ERROR (a new spec is a new try), at the
 *   start already due from CREATING or PORT_WAIT; never from EXITED (its
 *   restartPolicy said no). KILLING is already on its way to a restart,
 *   which takes the new spec: UPDATE is refused there, as in TERMINATING.
 *
 *   Crash safety (the agent is killed between the SIGTERM and the new
 *   start): the status of a run carries its ctr_spec_hash() (the
 *   runtime's imageID, runtime_restore.c). At live restore, a container
 *   whose reported hash differs from its spec's is in the middle of an
 *   update: alive, it is adopted and the update is made again (DRAIN,
 *   UPDATE); gone, ADOPTED_GONE with `updating` ends it as UPDATING's
 *   EXIT does (no restart counted, reason InPlaceUpdate, SPAWN). A
 *   process the previous agent started with the new spec but did not
 *   report is killed by the sweep (runtime.h), so one process at most
 *   runs for a container.
 *
 * WHERE LATER FEATURES HOOK IN
 *
 *   - The proxy (endpoints follow readiness): ctr_out.ready_changed is set
 *     by every step that flips ready (READY, UNREADY, DRAIN, STOP, EXIT,
 *     STARTUP_FAILED, LIVENESS_FAILED); cont_ready_changed() in
 *     src/agent/runtime.c is the one place to add or remove the endpoint.
 *   - In-place update of resources without restart: a new event on
 *     RUNNING that keeps the state (as READY does) and asks for an
 *     action, carried out in cont_apply() (src/agent/runtime.c); a change
 *     that needs a restart (image, command, args) is UPDATE, above.
 *
 * Ownership: a struct ctr owns its waiting message; ctr_release() frees
 * it. Everything else it holds is a value or a static string. */
#ifndef DROVER_CORE_POD_STATUS_H
#define DROVER_CORE_POD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtime.h"
#include "model.h"

/* The kubelet's restart back-off: the first restart is immediate, then
 * 10 s doubling to 5 min; it starts again from zero once a run lasted
 * 10 min. */
#define BACKOFF_START_MS 10000
#define BACKOFF_MAX_MS   300000
#define BACKOFF_RESET_MS 600000

/* How long a container waiting for a host port waits before it tries
 * again. */
#define PORT_RETRY_MS 2000

/* Kubernetes' reason and exit code for a container whose end the agent
 * could not see, and the two messages that say which case it was. */
#define CTR_REASON_UNKNOWN "ContainerStatusUnknown"
#define CTR_EXIT_UNKNOWN   137
extern const char ctr_lost_while_down[];
extern const char ctr_lost_not_child[];

enum ctr_state {
	CTR_CREATING,    /* a start is due (none made yet, or restarting) */
	CTR_PORT_WAIT,   /* no host port free: the start is retried */
	CTR_START_ERROR, /* the start failed for good */
	CTR_STARTING,    /* runs; its startup probe has not passed yet */
	CTR_RUNNING,     /* runs, started; ready per readiness */
	CTR_KILLING,     /* runs; killed after a failed probe */
	CTR_TERMINATING, /* runs; its pod is being stopped */
	CTR_BACKOFF,     /* exited; restarts when the back-off is over */
	CTR_EXITED,      /* exited, or stopped while waiting: stays so */
	CTR_UPDATING,    /* runs; stopped to start again with a new spec */
	CTR_NSTATES
};

enum ctr_event_type {
	CEV_SPAWNED,         /* the process started, at now */
	CEV_START_FAILED,    /* the start failed: reason, message */
	CEV_NO_PORT,         /* no host port free: message */
	CEV_PORT_RETRY,      /* the port wait is over */
	CEV_ADOPTED,         /* live restore: alive, started at started_at */
	CEV_ADOPTED_GONE,    /* live restore: died while the agent was away */
	CEV_RESTORED_EXITED, /* live restore: the status said terminated */
	CEV_STARTUP_PASSED,  /* the startup probe reached successThreshold */
	CEV_STARTUP_FAILED,  /* ... failureThreshold: kill, grace_s */
	CEV_READY,           /* the readiness probe reached successThreshold */
	CEV_UNREADY,         /* ... failureThreshold */
	CEV_LIVENESS_FAILED, /* the liveness probe failed: kill, grace_s */
	CEV_GRACE_OVER,      /* the grace period of a kill or stop is over */
	CEV_EXIT,            /* the process exited: status, signal, lost */
	CEV_BACKOFF_DONE,    /* the back-off delay is over */
	CEV_DRAIN,           /* the pod is being deleted: leave endpoints */
	CEV_STOP,            /* the pod is stopped: grace_s */
	CEV_UPDATE,          /* new image/command/args: spec_hash, grace_s */
	CEV_NTYPES
};

/* One event. Only the fields its type names are read; strings are
 * borrowed (copied if kept, except `lost`, which must be static). */
struct ctr_event {
	enum ctr_event_type type;
	const char *reason;  /* START_FAILED */
	const char *message; /* START_FAILED, NO_PORT */
	/* EXIT, ADOPTED_GONE: the wait status; RESTORED_EXITED: the exit code
	 * as recorded */
	int64_t status;
	int64_t signal;
	const char *lost; /* EXIT etc.: ctr_lost_*, or NULL */
	dtime started_at; /* ADOPTED, ADOPTED_GONE, RESTORED_EXITED */
	/* ADOPTED: what the status said before the agent restarted: the
	 * container had passed its startup probe (was_started) and was ready
	 * (was_ready); both are kept until a probe says otherwise. */
	bool was_started, was_ready;
	dtime finished_at;  /* RESTORED_EXITED */
	int64_t grace_s;    /* STARTUP_FAILED, LIVENESS_FAILED, STOP, UPDATE */
	uint64_t spec_hash; /* UPDATE: ctr_spec_hash() of the new spec */
	/* ADOPTED_GONE: the run that ended was being updated in place (the
	 * agent stopped in the middle of the update): not a crash */
	bool updating;
};

enum restart_policy { RESTART_ALWAYS, RESTART_ON_FAILURE, RESTART_NEVER };

/* What of the container's spec the machine reads. Borrowed. */
struct ctr_spec {
	enum restart_policy restart;
	bool startup_probe, readiness_probe;
	const char *name, *pod; /* for the CrashLoopBackOff message */
};

/* The record of one container: its state and what the status reports. */
struct ctr {
	enum ctr_state state;
	bool ran;     /* started at least once (Kubernetes: not "created") */
	bool started; /* the startup probe passed, or there is none */
	bool ready;   /* invariant 10: only in RUNNING */
	dtime started_at;   /* of the current or last run */
	int64_t restarts;   /* restartCount */
	int64_t backoff_ms; /* the next restart's delay; 0: immediate */
	/* the last termination, once terminated is true */
	bool terminated;
	int64_t exit_code, signal;
	dtime term_started, term_finished;
	const char *lost; /* why its exit status is unknown, or NULL */
	/* the last termination was an in-place update (InPlaceUpdate) */
	bool updated;
	/* ctr_spec_hash() of the spec the next start uses, as the last
	 * UPDATE said; 0 until one came */
	uint64_t spec_hash;
	/* while waiting: reason (static) and message (owned) */
	const char *waiting;
	char *waiting_msg;
};

/* What the runtime must do after a step, in this order. */
enum ctr_action {
	CA_CANCEL_TIMER = 1 << 0,   /* the back-off or port-retry timer */
	CA_STOP_PROBES = 1 << 1,    /* every probe and the killer timer */
	CA_STOP_STARTUP = 1 << 2,   /* the startup probe */
	CA_STOP_READINESS = 1 << 3, /* the readiness probe */
	CA_JOURNAL_EXIT = 1 << 4,   /* the journal of processes: it exited */
	CA_SIGTERM = 1 << 5,        /* to the process group */
	CA_SIGKILL = 1 << 6,        /* to the process group */
	CA_ARM_KILLER = 1 << 7,     /* GRACE_OVER after timer_ms */
	CA_ARM_BACKOFF = 1 << 8,    /* BACKOFF_DONE after timer_ms */
	CA_ARM_PORT = 1 << 9,       /* PORT_RETRY after timer_ms */
	CA_START_STARTUP = 1 << 10, /* start the startup probe */
	CA_START_PROBES = 1 << 11,  /* start readiness and liveness probes */
	CA_SPAWN = 1 << 12,         /* start the process now, and feed back
				     * SPAWNED, START_FAILED or NO_PORT */
	CA_NOTIFY = 1 << 13,        /* the pod's status changed */
};

struct ctr_out {
	unsigned actions;    /* enum ctr_action bits */
	int64_t timer_ms;    /* for CA_ARM_* */
	enum ctr_state from; /* the state before the step */
	bool ready_changed;  /* the proxy's hook: ready flipped */
};

/* A record in CREATING, restartCount 0. */
void ctr_init(struct ctr *c);
/* Frees the waiting message. The record can be ctr_init()ed again. */
void ctr_release(struct ctr *c);

/* One transition: the event ev happened to c at now. Fills *out (always
 * cleared first) and returns 0; or returns -1 and leaves c unchanged if
 * the table above has no row for (c->state, ev->type). */
int ctr_step(struct ctr *c, const struct ctr_spec *spec,
	     const struct ctr_event *ev, dtime now, struct ctr_out *out);

/* The hash of what an in-place update may change in a container:
 * image, command and args (FNV-1a, 64 bits, each string and list
 * delimited so that ["a b"] and ["a", "b"] differ). Never 0. */
uint64_t ctr_spec_hash(const struct container *c);

/* The reason of a termination that was an in-place update. */
#define CTR_REASON_INPLACE "InPlaceUpdate"

/* "CREATING", ... for logs and tests; "?" out of range. */
const char *ctr_state_name(enum ctr_state s);
const char *ctr_event_name(enum ctr_event_type t);
/* True in the states where the process runs (invariant 10). */
bool ctr_runs(enum ctr_state s);

/* restartPolicy: NULL is the default, Always; an unknown value restarts
 * nothing (validation refuses it before it gets here). */
enum restart_policy restart_policy_parse(const char *s);
/* Whether an exit with this code is restarted under the policy. */
bool restart_wanted(enum restart_policy p, int64_t exit_code);

/* The back-off of one restart: the delay before the process is started
 * again, given the next delay *next_ms (0 at first) and when the run that
 * just ended started; *next_ms becomes the delay after this one. See the
 * worked example in pod_status.c. */
int64_t backoff_delay(int64_t *next_ms, dtime started_at, dtime now);

/* Probe thresholds: counts of consecutive results, and the verdict of a
 * new result (Kubernetes: successThreshold, failureThreshold). */
enum probe_verdict { PROBE_UNDECIDED, PROBE_PASSED, PROBE_FAILED };
struct probe_tally {
	int64_t successes, failures; /* consecutive */
};
enum probe_verdict probe_tally_add(struct probe_tally *t, bool ok,
				   int64_t success_threshold,
				   int64_t failure_threshold);

/* What the status shows of one container (Kubernetes' ContainerStatus
 * minus what only the runtime knows: ids, ports, image). */
enum ctr_shown { SHOW_WAITING, SHOW_RUNNING, SHOW_TERMINATED };
struct ctr_report {
	enum ctr_shown shown;
	const char *reason; /* waiting: its reason (ContainerCreating when
			     * none); terminated: Completed, Error or
			     * ContainerStatusUnknown; static */
	bool ready;         /* running, started and ready */
	bool started;       /* running and started */
	bool last_state;    /* lastState.terminated holds the last run */
	int64_t exit_code;  /* terminated */
};
void ctr_report(const struct ctr *c, struct ctr_report *r);
/* InPlaceUpdate, Completed, Error or ContainerStatusUnknown, for the
 * last termination. */
const char *ctr_terminated_reason(const struct ctr *c);

enum pod_phase { POD_PENDING, POD_RUNNING, POD_SUCCEEDED, POD_FAILED };
const char *pod_phase_name(enum pod_phase p);
/* The phase as the kubelet's getPhase gives it (pod_status.c): Pending
 * while a container has never run, Running while one runs or all are
 * restarting, Succeeded or Failed once all have stopped for good. */
enum pod_phase pod_phase_of(const struct ctr_report *r, size_t n,
			    enum restart_policy policy);
/* ContainersReady: there are containers and each one is ready. */
bool pod_containers_ready(const struct ctr_report *r, size_t n);
/* Sets one condition to True or False. lastTransitionTime is kept when
 * the status does not change; a changed one is removed and appended with
 * now, so it moves to the end of the list (as it always has). */
void pod_condition_set(struct condition_list *l, const char *type, bool ok,
		       dtime now);
/* The phase (st->phase, replaced) and the four conditions PodScheduled,
 * Initialized, ContainersReady and Ready of a pod with restartPolicy
 * policy whose containers report r[0..n). Allocates through xalloc; st
 * owns the result. */
void pod_status_derive(struct pod_status *st, const struct ctr_report *r,
		       size_t n, enum restart_policy policy, dtime now);

#endif
