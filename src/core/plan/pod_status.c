/* pod_status.c - the container state machine, the restart back-off and
 * the pod phase and conditions (see pod_status.h for the diagram, the
 * table of transitions and the invariants of each state).
 *
 * Worked example: a container that crashes every 5 s, restartPolicy
 * Always, no probes (t in seconds):
 *
 *   t     event        state after   restarts  timer  status shows
 *   0     SPAWNED      RUNNING       0         -      running, ready
 *   5     EXIT 1       CREATING+SPAWN 1        -      (spawned at once)
 *   5     SPAWNED      RUNNING       1         -      running
 *   10    EXIT 1       BACKOFF       1         10 s   waiting CrashLoopBackOff
 *   20    BACKOFF_DONE CREATING+SPAWN 2        -
 *   20    SPAWNED      RUNNING       2         -
 *   25    EXIT 1       BACKOFF       2         20 s
 *   45    ...                                  40 s, 80 s, 160 s, 300 s, 300 s
 *
 * The same container under restartPolicy Never stops at the first EXIT:
 * EXITED, terminated Error, exit code 1, and the pod is Failed. */
#include <stdio.h>
#include <string.h>

#include "pod_status.h"
#include "xalloc.h"

const char ctr_lost_while_down[] =
    "The container could not be located when the agent restarted";
const char ctr_lost_not_child[] =
    "The container exited while adopted by the agent; its exit status is "
    "unknown";

static const char *const state_names[CTR_NSTATES] = {
    "CREATING", "PORT_WAIT",   "START_ERROR", "STARTING", "RUNNING",
    "KILLING",  "TERMINATING", "BACKOFF",     "EXITED",   "UPDATING",
};

static const char *const event_names[CEV_NTYPES] = {
    "SPAWNED",        "START_FAILED", "NO_PORT",         "PORT_RETRY",
    "ADOPTED",        "ADOPTED_GONE", "RESTORED_EXITED", "STARTUP_PASSED",
    "STARTUP_FAILED", "READY",        "UNREADY",         "LIVENESS_FAILED",
    "GRACE_OVER",     "EXIT",         "BACKOFF_DONE",    "DRAIN",
    "STOP",           "UPDATE",
};

const char *
ctr_state_name(enum ctr_state s)
{
	return (unsigned)s < CTR_NSTATES ? state_names[s] : "?";
}

const char *
ctr_event_name(enum ctr_event_type t)
{
	return (unsigned)t < CEV_NTYPES ? event_names[t] : "?";
}

bool
ctr_runs(enum ctr_state s)
{
	return s == CTR_STARTING || s == CTR_RUNNING || s == CTR_KILLING ||
	       s == CTR_TERMINATING || s == CTR_UPDATING;
}

static uint64_t
fnv(uint64_t h, const char *s)
{
	/* the string and its NUL: "ab" + "" and "a" + "b" differ */
	do {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	} while (*s++);
	return h;
}

static uint64_t
fnv_list(uint64_t h, const struct strlist *l)
{
	size_t i;

	h = fnv(h, l->n ? "[" : "-"); /* absent and empty are equal */
	for (i = 0; i < l->n; i++)
		h = fnv(h, l->v[i] ? l->v[i] : "");
	return fnv(h, "]");
}

/* Example: {image "/srv/web-1", command ["bin/web"], args []} and the same
 * with image "/srv/web-2" hash differently; an absent args and args []
 * hash alike (Semantic.DeepEqual). */
uint64_t
ctr_spec_hash(const struct container *c)
{
	uint64_t h = 14695981039346656037ULL;

	h = fnv(h, c->image ? c->image : "");
	h = fnv_list(h, &c->command);
	h = fnv_list(h, &c->args);
	return h ? h : 1;
}

void
ctr_init(struct ctr *c)
{
	memset(c, 0, sizeof(*c));
	c->state = CTR_CREATING;
}

void
ctr_release(struct ctr *c)
{
	free(c->waiting_msg);
	c->waiting_msg = NULL;
}

enum restart_policy
restart_policy_parse(const char *s)
{
	if (s == NULL || !strcmp(s, "Always"))
		return RESTART_ALWAYS;
	if (!strcmp(s, "OnFailure"))
		return RESTART_ON_FAILURE;
	return RESTART_NEVER;
}

bool
restart_wanted(enum restart_policy p, int64_t exit_code)
{
	return p == RESTART_ALWAYS || (p == RESTART_ON_FAILURE && exit_code);
}

/* The delays of a container that keeps crashing after short runs:
 *
 *   restart   *next_ms before   delay   *next_ms after
 *   1st       0                 0       10 000
 *   2nd       10 000            10 s    20 000
 *   3rd       20 000            20 s    40 000
 *   ...       160 000           160 s   300 000 (320 000 capped)
 *   7th on    300 000           300 s   300 000
 *
 * A run of 10 min or more (now - started_at >= BACKOFF_RESET_MS) forgets
 * the history: the next restart is immediate again. A container that
 * never started (started_at 0) counts as having run long. */
int64_t
backoff_delay(int64_t *next_ms, dtime started_at, dtime now)
{
	int64_t delay;

	if (now - started_at >= BACKOFF_RESET_MS)
		*next_ms = 0;
	if (*next_ms == 0) {
		*next_ms = BACKOFF_START_MS;
		return 0;
	}
	delay = *next_ms;
	*next_ms = delay * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : delay * 2;
	return delay;
}

/* successThreshold 1, failureThreshold 3 (the defaults):
 *
 *   results   ok   ok   fail  fail  fail  fail  ok
 *   verdict   P    P    -     -     F     F     P
 *
 * A verdict repeats while the run of equal results goes on; the caller
 * acts on changes (readiness) or on the first one (startup, liveness). */
enum probe_verdict
probe_tally_add(struct probe_tally *t, bool ok, int64_t success_threshold,
		int64_t failure_threshold)
{
	if (ok) {
		t->successes++;
		t->failures = 0;
		return t->successes >= success_threshold ? PROBE_PASSED
							 : PROBE_UNDECIDED;
	}
	t->failures++;
	t->successes = 0;
	return t->failures >= failure_threshold ? PROBE_FAILED
						: PROBE_UNDECIDED;
}

static void
set_waiting(struct ctr *c, const char *reason, const char *msg)
{
	c->waiting = reason;
	free(c->waiting_msg);
	c->waiting_msg = msg ? xstrdup(msg) : NULL;
}

/* A process is up (SPAWNED at now, or ADOPTED and started at `at`):
 * STARTING with a startup probe, else straight to RUNNING, ready unless a
 * readiness probe is to decide. */
static void
to_started(struct ctr *c, const struct ctr_spec *spec, dtime at,
	   struct ctr_out *out)
{
	c->ran = true;
	c->started_at = at;
	c->ready = false;
	c->started = false;
	if (spec->startup_probe) {
		c->state = CTR_STARTING;
		out->actions |= CA_START_STARTUP;
		return;
	}
	c->state = CTR_RUNNING;
	c->started = true;
	c->ready = !spec->readiness_probe;
	out->actions |= CA_START_PROBES;
}

/* A failed startup or liveness probe: SIGTERM, or SIGKILL at once with no
 * grace; SIGKILL in any case when the killer timer fires. */
static void
to_killing(struct ctr *c, int64_t grace_s, struct ctr_out *out)
{
	c->state = CTR_KILLING;
	c->ready = false;
	out->actions |= CA_STOP_PROBES | CA_ARM_KILLER |
			(grace_s > 0 ? CA_SIGTERM : CA_SIGKILL);
	out->timer_ms = grace_s * 1000;
}

/* The process ended: record the termination (a signal shows as 128 +
 * signal, as a shell would), then restart by policy and back-off. */
static void
exited(struct ctr *c, const struct ctr_spec *spec, const struct ctr_event *ev,
       dtime now, struct ctr_out *out)
{
	bool stopping = c->state == CTR_TERMINATING;
	int64_t delay;

	c->ready = false;
	c->terminated = true;
	c->updated = false;
	c->exit_code = ev->signal ? 128 + ev->signal : ev->status;
	c->signal = ev->signal;
	c->lost = ev->lost;
	c->term_started = c->started_at;
	c->term_finished = now;
	out->actions |= CA_STOP_PROBES | CA_JOURNAL_EXIT;
	if (stopping) { /* the runtime says when the whole pod is done */
		c->state = CTR_EXITED;
		return;
	}
	out->actions |= CA_NOTIFY;
	if (!restart_wanted(spec->restart, c->exit_code)) {
		c->state = CTR_EXITED;
		return;
	}
	delay = backoff_delay(&c->backoff_ms, c->started_at, now);
	if (delay == 0) {
		c->restarts++;
		c->state = CTR_CREATING;
		out->actions |= CA_SPAWN;
	} else {
		char msg[300];

		snprintf(msg, sizeof(msg),
			 "back-off %llds restarting failed container=%s pod=%s",
			 (long long)(delay / 1000),
			 spec->name ? spec->name : "",
			 spec->pod ? spec->pod : "");
		set_waiting(c, "CrashLoopBackOff", msg);
		c->state = CTR_BACKOFF;
		out->actions |= CA_ARM_BACKOFF;
		out->timer_ms = delay;
	}
}

/* The process stopped for an in-place update ended (invariant 11): the
 * termination is recorded as InPlaceUpdate and the new spec starts at
 * once; restartCount and the back-off stay. */
static void
update_exited(struct ctr *c, const struct ctr_event *ev, dtime now,
	      struct ctr_out *out)
{
	c->ready = false;
	c->terminated = true;
	c->updated = true;
	c->exit_code = ev->signal ? 128 + ev->signal : ev->status;
	c->signal = ev->signal;
	c->lost = ev->lost;
	c->term_started = c->started_at;
	c->term_finished = now;
	c->state = CTR_CREATING;
	out->actions |= CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN;
}

/* UPDATE (see IN-PLACE UPDATE in pod_status.h). */
static int
update(struct ctr *c, const struct ctr_event *ev, struct ctr_out *out)
{
	switch (c->state) {
	case CTR_STARTING:
	case CTR_RUNNING:
		c->state = CTR_UPDATING;
		c->ready = false;
		out->actions |= CA_STOP_PROBES | CA_ARM_KILLER | CA_NOTIFY |
				(ev->grace_s > 0 ? CA_SIGTERM : CA_SIGKILL);
		out->timer_ms = ev->grace_s * 1000;
		break;
	case CTR_BACKOFF:
		out->actions |= CA_CANCEL_TIMER;
		/* fall through */
	case CTR_START_ERROR:
		c->state = CTR_CREATING;
		out->actions |= CA_SPAWN | CA_NOTIFY;
		break;
	case CTR_CREATING:
	case CTR_PORT_WAIT:
	case CTR_EXITED:
	case CTR_UPDATING:
		break;
	default:
		return -1; /* KILLING, TERMINATING */
	}
	c->spec_hash = ev->spec_hash;
	return 0;
}

/* The pod is stopped: a running process is signalled (the pod's timer
 * brings SIGKILL), a pending restart or port retry is cancelled, and
 * nothing starts again. */
static void
stopped(struct ctr *c, int64_t grace_s, struct ctr_out *out)
{
	c->ready = false;
	out->actions |= CA_STOP_PROBES;
	if (ctr_runs(c->state)) {
		c->state = CTR_TERMINATING;
		out->actions |= grace_s > 0 ? CA_SIGTERM : CA_SIGKILL;
		return;
	}
	if (c->state == CTR_BACKOFF || c->state == CTR_PORT_WAIT)
		out->actions |= CA_CANCEL_TIMER;
	c->state = CTR_EXITED;
}

/* One case per event; each first checks that the table of
 * pod_status.h has a row for the current state, so that a refused event
 * leaves the record as it was (out is cleared either way). The numbers in
 * the comments are the invariants of the header.
 *
 * Worked example, a pod deleted while its container is in back-off:
 *
 *   BACKOFF --DRAIN--> BACKOFF      CA_STOP_READINESS (nothing runs)
 *   BACKOFF --STOP---> EXITED       CA_STOP_PROBES | CA_CANCEL_TIMER
 *
 * and its status still shows "waiting: CrashLoopBackOff" (9) until the
 * runtime forgets the pod, which it does at once: nothing of it runs. */
int
ctr_step(struct ctr *c, const struct ctr_spec *spec, const struct ctr_event *ev,
	 dtime now, struct ctr_out *out)
{
	enum ctr_state s = c->state;
	bool was_ready = c->ready;

	memset(out, 0, sizeof(*out));
	out->from = s;
	switch (ev->type) {
	case CEV_SPAWNED:
		/* a start succeeded: whatever it waited for is over */
		if (s != CTR_CREATING)
			return -1;
		set_waiting(c, NULL, NULL);
		to_started(c, spec, now, out);
		break;
	case CEV_START_FAILED:
		/* 3: no retry; a restart that fails keeps its last run in
		 * lastState (terminated stays true) */
		if (s != CTR_CREATING)
			return -1;
		set_waiting(c, ev->reason, ev->message);
		c->state = CTR_START_ERROR;
		break;
	case CEV_NO_PORT:
		if (s != CTR_CREATING)
			return -1;
		set_waiting(c, "CreateContainerError", ev->message);
		c->state = CTR_PORT_WAIT;
		out->actions |= CA_ARM_PORT;
		out->timer_ms = PORT_RETRY_MS;
		break;
	case CEV_PORT_RETRY:
		/* 1: CREATING only for as long as the SPAWN asked here takes;
		 * not a restart, so restartCount stays */
		if (s != CTR_PORT_WAIT)
			return -1;
		c->state = CTR_CREATING;
		out->actions |= CA_SPAWN | CA_NOTIFY;
		break;
	case CEV_ADOPTED:
		/* A live restore takes the state the status reported: a
		 * container that was started and ready stays so, its probes
		 * run on and change that only when they fail. Resetting it
		 * to not ready (as a fresh start is) would take every pod out
		 * of its Services until the next probe: requests would fail
		 * because the agent restarted. Example: readiness every 10 s,
		 * agent killed and back in 0.5 s: the pod stays in its
		 * endpoints; a fresh start would leave them for up to 10 s. */
		if (s != CTR_CREATING)
			return -1;
		to_started(c, spec, ev->started_at, out);
		if (ev->was_started && c->state == CTR_STARTING) {
			c->state = CTR_RUNNING;
			c->started = true;
			out->actions &= ~CA_START_STARTUP;
			out->actions |= CA_START_PROBES;
		}
		if (ev->was_ready && c->state == CTR_RUNNING)
			c->ready = true;
		break;
	case CEV_ADOPTED_GONE:
		/* the run the status reported ended unseen: an exit at now of
		 * a run that started at started_at, restarted by policy */
		if (s != CTR_CREATING)
			return -1;
		c->ran = true;
		c->started_at = ev->started_at;
		if (ev->updating)
			update_exited(c, ev, now, out);
		else
			exited(c, spec, ev, now, out);
		break;
	case CEV_RESTORED_EXITED:
		/* a load, not a run: the exit code is taken as recorded
		 * (already 128 + signal for a signal) */
		if (s != CTR_CREATING)
			return -1;
		c->ran = c->terminated = true;
		c->exit_code = ev->status;
		c->signal = ev->signal;
		c->lost = ev->lost;
		c->term_started = ev->started_at;
		c->term_finished = ev->finished_at;
		c->state = CTR_EXITED;
		break;
	case CEV_STARTUP_PASSED:
		if (s != CTR_STARTING)
			return -1;
		c->state = CTR_RUNNING;
		c->started = true;
		c->ready = !spec->readiness_probe;
		out->actions |= CA_STOP_STARTUP | CA_START_PROBES | CA_NOTIFY;
		break;
	case CEV_STARTUP_FAILED:
		if (s != CTR_STARTING)
			return -1;
		to_killing(c, ev->grace_s, out);
		break;
	case CEV_READY:
	case CEV_UNREADY:
		/* a verdict repeats while results agree (probe_tally_add):
		 * only a change is news */
		if (s != CTR_RUNNING)
			return -1;
		c->ready = ev->type == CEV_READY;
		if (c->ready != was_ready)
			out->actions |= CA_NOTIFY;
		break;
	case CEV_LIVENESS_FAILED:
		/* unlike a failed startup probe, this one is reported at
		 * once (the pod was ready, maybe) */
		if (s != CTR_RUNNING)
			return -1;
		to_killing(c, ev->grace_s, out);
		out->actions |= CA_NOTIFY;
		break;
	case CEV_GRACE_OVER:
		if (s != CTR_KILLING && s != CTR_TERMINATING &&
		    s != CTR_UPDATING)
			return -1;
		out->actions |= CA_SIGKILL;
		break;
	case CEV_EXIT:
		if (!ctr_runs(s))
			return -1;
		if (s == CTR_UPDATING)
			update_exited(c, ev, now, out);
		else
			exited(c, spec, ev, now, out);
		break;
	case CEV_BACKOFF_DONE:
		if (s != CTR_BACKOFF)
			return -1;
		c->restarts++;
		c->state = CTR_CREATING;
		out->actions |= CA_SPAWN | CA_NOTIFY;
		break;
	case CEV_DRAIN:
		/* the pod leaves its endpoints before it is stopped; a
		 * liveness probe goes on until the STOP */
		c->ready = false;
		out->actions |= CA_STOP_READINESS;
		break;
	case CEV_STOP:
		if (s == CTR_TERMINATING)
			return -1; /* stopped once */
		stopped(c, ev->grace_s, out);
		break;
	case CEV_UPDATE:
		if (update(c, ev, out))
			return -1;
		break;
	default:
		return -1;
	}
	out->ready_changed = c->ready != was_ready;
	return 0;
}

const char *
ctr_terminated_reason(const struct ctr *c)
{
	return c->updated          ? CTR_REASON_INPLACE
	       : c->lost           ? CTR_REASON_UNKNOWN
	       : c->exit_code == 0 ? "Completed"
				   : "Error";
}

/* Which of the three states the status shows:
 *
 *   record                                shown        reason
 *   process runs (invariant 10)           running      -
 *   waiting reason set                    waiting      that reason
 *   never ran                             waiting      ContainerCreating
 *   otherwise (it ran and ended)          terminated   Completed/Error/...
 *
 * A container that ran and now waits (back-off, a failed restart) also
 * shows its last run in lastState. */
void
ctr_report(const struct ctr *c, struct ctr_report *r)
{
	memset(r, 0, sizeof(*r));
	if (ctr_runs(c->state)) {
		r->shown = SHOW_RUNNING;
		r->started = c->started;
		r->ready = c->ready && c->started;
	} else if (c->waiting || !c->ran) {
		r->shown = SHOW_WAITING;
		r->reason = c->waiting ? c->waiting : "ContainerCreating";
	} else {
		r->shown = SHOW_TERMINATED;
		r->reason = ctr_terminated_reason(c);
		r->exit_code = c->exit_code;
	}
	r->last_state = c->terminated && r->shown != SHOW_TERMINATED;
}

const char *
pod_phase_name(enum pod_phase p)
{
	switch (p) {
	case POD_RUNNING:
		return "Running";
	case POD_SUCCEEDED:
		return "Succeeded";
	case POD_FAILED:
		return "Failed";
	default:
		return "Pending";
	}
}

/* The kubelet's getPhase (pkg/kubelet/kubelet_pods.go), for pods without
 * init containers. Each container counts as running, stopped (terminated,
 * or waiting to restart after a run: back-off) or waiting (never run
 * yet); then:
 *
 *   any waiting                       Pending
 *   any running                       Running
 *   all stopped, restartPolicy Always Running (all are restarting)
 *   all stopped and all exited 0      Succeeded
 *   all stopped, restartPolicy Never  Failed
 *   all stopped, OnFailure            Running (the failed ones restart)
 *   no containers                     Pending
 *
 * Examples (r = running, w = never run yet, b = back-off after a run,
 * t0/t1 = terminated with exit 0/1):
 *
 *   containers  policy     phase
 *   r           any        Running
 *   r w         any        Pending     (one has not started yet)
 *   b           Always     Running     (a crash loop: restarting)
 *   r b         Always     Running
 *   t1 r        Never      Running     (one failed, the other runs)
 *   t0 t0       OnFailure  Succeeded
 *   t0 t1       Never      Failed
 *   t1          OnFailure  Running     (it restarts) */
enum pod_phase
pod_phase_of(const struct ctr_report *r, size_t n, enum restart_policy policy)
{
	size_t i, running = 0, stopped = 0, succeeded = 0, waiting = 0;

	for (i = 0; i < n; i++) {
		if (r[i].shown == SHOW_RUNNING) {
			running++;
		} else if (r[i].shown == SHOW_WAITING) {
			if (r[i].last_state)
				stopped++;
			else
				waiting++;
		} else {
			stopped++;
			if (r[i].exit_code == 0)
				succeeded++;
		}
	}
	if (waiting > 0)
		return POD_PENDING;
	if (running > 0)
		return POD_RUNNING;
	if (stopped == 0)
		return POD_PENDING;
	if (policy == RESTART_ALWAYS)
		return POD_RUNNING;
	if (stopped == succeeded)
		return POD_SUCCEEDED;
	return policy == RESTART_NEVER ? POD_FAILED : POD_RUNNING;
}

bool
pod_containers_ready(const struct ctr_report *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!r[i].ready)
			return false;
	return n > 0;
}

/* Example, with the conditions [PodScheduled, Initialized,
 * ContainersReady, Ready] all True since t0 and the readiness probe
 * failing at t1:
 *
 *   set ContainersReady False at t1  -> [PS, I, R, CR(False, t1)]
 *   set Ready False at t1            -> [PS, I, CR(False, t1), R(False, t1)]
 *   set PodScheduled True at t1      -> unchanged, still t0
 */
void
pod_condition_set(struct condition_list *l, const char *type, bool ok,
		  dtime now)
{
	struct condition *cur = condition_find(l, type);
	const char *s = ok ? "True" : "False";
	struct condition c = {.type = (char *)type,
			      .status = (char *)s,
			      .last_transition_time = now};

	if (cur && cur->status && !strcmp(cur->status, s))
		return; /* keep its transition time */
	condition_remove(l, type);
	condition_append(l, &c);
}

/* Pods run on the node they are bound to and have no init containers:
 * PodScheduled and Initialized are True. Ready is ContainersReady (no
 * readiness gates). */
void
pod_status_derive(struct pod_status *st, const struct ctr_report *r, size_t n,
		  enum restart_policy policy, dtime now)
{
	bool ready = pod_containers_ready(r, n);

	free(st->phase);
	st->phase = xstrdup(pod_phase_name(pod_phase_of(r, n, policy)));
	pod_condition_set(&st->conditions, "PodScheduled", true, now);
	pod_condition_set(&st->conditions, "Initialized", true, now);
	pod_condition_set(&st->conditions, "ContainersReady", ready, now);
	pod_condition_set(&st->conditions, "Ready", ready, now);
}
