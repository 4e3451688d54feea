/* test_pod_status.c - the container state machine, table by table: the
 * back-off sequence and its reset, every transition of pod_status.h's
 * table (and the refusal of every pair outside it), the probe thresholds,
 * and the pod phase and conditions for a table of pod situations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "pod_status.h"

#define T0 DTIME_SEC(1000000)

/* ---- back-off ---- */

static void
test_backoff_sequence(void **state)
{
	/* A container that crashes 1 s after each start. */
	static const int64_t want[] = {0,      10000,  20000,  40000, 80000,
				       160000, 300000, 300000, 300000};
	int64_t next = 0;
	dtime start = T0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int64_t d = backoff_delay(&next, start, start + 1000);

		if (d != want[i])
			fail_msg("restart %zu: delay %lld, want %lld", i + 1,
				 (long long)d, (long long)want[i]);
		start += 1000 + d;
	}
}

static void
test_backoff_reset(void **state)
{
	static const struct {
		const char *name;
		int64_t next;  /* before */
		dtime ran;     /* how long the run lasted */
		int64_t delay; /* want */
		int64_t after; /* want *next */
	} cases[] = {
	    {"first exit", 0, 1000, 0, 10000},
	    {"second exit", 10000, 1000, 10000, 20000},
	    {"capped", 160000, 1000, 160000, 300000},
	    {"at the cap", 300000, 1000, 300000, 300000},
	    {"ran 9m59.999s: kept", 300000, 599999, 300000, 300000},
	    {"ran 10m: reset", 300000, 600000, 0, 10000},
	    {"ran an hour: reset", 40000, 3600000, 0, 10000},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t next = cases[i].next;
		int64_t d = backoff_delay(&next, T0, T0 + cases[i].ran);

		if (d != cases[i].delay || next != cases[i].after)
			fail_msg("%s: delay %lld next %lld, want %lld %lld",
				 cases[i].name, (long long)d, (long long)next,
				 (long long)cases[i].delay,
				 (long long)cases[i].after);
	}
}

static void
test_restart_policy(void **state)
{
	(void)state;
	assert_int_equal(restart_policy_parse(NULL), RESTART_ALWAYS);
	assert_int_equal(restart_policy_parse("Always"), RESTART_ALWAYS);
	assert_int_equal(restart_policy_parse("OnFailure"), RESTART_ON_FAILURE);
	assert_int_equal(restart_policy_parse("Never"), RESTART_NEVER);
	assert_int_equal(restart_policy_parse("Sometimes"), RESTART_NEVER);
	assert_true(restart_wanted(RESTART_ALWAYS, 0));
	assert_true(restart_wanted(RESTART_ALWAYS, 1));
	assert_false(restart_wanted(RESTART_ON_FAILURE, 0));
	assert_true(restart_wanted(RESTART_ON_FAILURE, 137));
	assert_false(restart_wanted(RESTART_NEVER, 1));
}

static void
test_probe_tally(void **state)
{
	static const struct {
		const char *results; /* o ok, x fail */
		int64_t st, ft;
		const char *want; /* . undecided, P passed, F failed */
	} cases[] = {
	    {"ooxxxxo", 1, 3, "PP..FFP"},
	    {"oooxo", 3, 1, "..PF."},
	    {"xoxoxo", 1, 2, ".P.P.P"},
	    {"xxoxx", 2, 2, ".F..F"},
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe_tally t = {0};

		for (k = 0; cases[i].results[k]; k++) {
			enum probe_verdict v =
			    probe_tally_add(&t, cases[i].results[k] == 'o',
					    cases[i].st, cases[i].ft);
			char got = v == PROBE_PASSED   ? 'P'
				   : v == PROBE_FAILED ? 'F'
						       : '.';

			if (got != cases[i].want[k])
				fail_msg("%s (%lld/%lld) result %zu: %c, want "
					 "%c",
					 cases[i].results,
					 (long long)cases[i].st,
					 (long long)cases[i].ft, k, got,
					 cases[i].want[k]);
		}
	}
}

/* ---- the transitions ---- */

/* Specs: A = Always, no probes; S = Always with startup and readiness
 * probes; R = Always with a readiness probe; N = Never; F = OnFailure. */
static const struct ctr_spec spec_a = {RESTART_ALWAYS, false, false, "c", "p"};
static const struct ctr_spec spec_s = {RESTART_ALWAYS, true, true, "c", "p"};
static const struct ctr_spec spec_r = {RESTART_ALWAYS, false, true, "c", "p"};
static const struct ctr_spec spec_n = {RESTART_NEVER, false, false, "c", "p"};
static const struct ctr_spec spec_f = {RESTART_ON_FAILURE, false, false, "c",
				       "p"};

static void
step_ok(struct ctr *c, const struct ctr_spec *sp, enum ctr_event_type t,
	dtime now)
{
	struct ctr_event ev = {.type = t,
			       .reason = "RunContainerError",
			       .status = 1,
			       .grace_s = 30};
	struct ctr_out out;

	if (ctr_step(c, sp, &ev, now, &out))
		fail_msg("setup: %s refused in %s", ctr_event_name(t),
			 ctr_state_name(c->state));
}

/* Drives a fresh record into state s under spec sp (a run started at
 * T0; a back-off reached by two quick exits). */
static void
put_in(struct ctr *c, const struct ctr_spec *sp, enum ctr_state s)
{
	ctr_init(c);
	switch (s) {
	case CTR_CREATING:
		break;
	case CTR_PORT_WAIT:
		step_ok(c, sp, CEV_NO_PORT, T0);
		break;
	case CTR_START_ERROR:
		step_ok(c, sp, CEV_START_FAILED, T0);
		break;
	case CTR_STARTING:
		step_ok(c, &spec_s, CEV_SPAWNED, T0);
		break;
	case CTR_RUNNING:
		step_ok(c, sp, CEV_SPAWNED, T0);
		if (s == CTR_RUNNING && c->state == CTR_STARTING)
			step_ok(c, sp, CEV_STARTUP_PASSED, T0);
		break;
	case CTR_KILLING:
		put_in(c, sp, CTR_RUNNING);
		step_ok(c, sp, CEV_LIVENESS_FAILED, T0);
		break;
	case CTR_TERMINATING:
		put_in(c, sp, CTR_RUNNING);
		step_ok(c, sp, CEV_STOP, T0);
		break;
	case CTR_BACKOFF:
		put_in(c, &spec_a, CTR_RUNNING);
		step_ok(c, &spec_a, CEV_EXIT, T0 + 1000);
		step_ok(c, &spec_a, CEV_SPAWNED, T0 + 1000);
		step_ok(c, &spec_a, CEV_EXIT, T0 + 2000);
		break;
	case CTR_EXITED:
		put_in(c, &spec_n, CTR_RUNNING);
		step_ok(c, &spec_n, CEV_EXIT, T0 + 1000);
		break;
	case CTR_UPDATING:
		put_in(c, sp, CTR_RUNNING);
		step_ok(c, sp, CEV_UPDATE, T0);
		break;
	default:
		fail_msg("no way into state %d", s);
	}
	assert_int_equal(c->state, s);
}

#define S(x)     CTR_##x
#define E(x)     CEV_##x
#define NO_TIMER (-1)

static const struct row {
	const char *name;
	enum ctr_state from;
	enum ctr_event_type ev;
	const struct ctr_spec *spec;
	int64_t status, signal, grace_s; /* of the event */
	enum ctr_state to;
	unsigned actions;
	int64_t timer_ms; /* NO_TIMER: not checked (0) */
	bool ready;       /* after */
	bool ready_changed;
	const char *waiting; /* reason after, or NULL */
} rows[] = {
    {"spawned, no probes", S(CREATING), E(SPAWNED), &spec_a, 0, 0, 0,
     S(RUNNING), CA_START_PROBES, NO_TIMER, true, true, NULL},
    {"spawned, readiness probe", S(CREATING), E(SPAWNED), &spec_r, 0, 0, 0,
     S(RUNNING), CA_START_PROBES, NO_TIMER, false, false, NULL},
    {"spawned, startup probe", S(CREATING), E(SPAWNED), &spec_s, 0, 0, 0,
     S(STARTING), CA_START_STARTUP, NO_TIMER, false, false, NULL},
    {"start failed", S(CREATING), E(START_FAILED), &spec_a, 0, 0, 0,
     S(START_ERROR), 0, NO_TIMER, false, false, "RunContainerError"},
    {"no host port", S(CREATING), E(NO_PORT), &spec_a, 0, 0, 0, S(PORT_WAIT),
     CA_ARM_PORT, PORT_RETRY_MS, false, false, "CreateContainerError"},
    {"port retry", S(PORT_WAIT), E(PORT_RETRY), &spec_a, 0, 0, 0, S(CREATING),
     CA_SPAWN | CA_NOTIFY, NO_TIMER, false, false, "CreateContainerError"},
    {"adopted, no probes", S(CREATING), E(ADOPTED), &spec_a, 0, 0, 0,
     S(RUNNING), CA_START_PROBES, NO_TIMER, true, true, NULL},
    {"adopted, startup probe", S(CREATING), E(ADOPTED), &spec_s, 0, 0, 0,
     S(STARTING), CA_START_STARTUP, NO_TIMER, false, false, NULL},
    {"adopted but gone, Always", S(CREATING), E(ADOPTED_GONE), &spec_a, 137, 0,
     0, S(CREATING), CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN,
     NO_TIMER, false, false, NULL},
    {"adopted but gone, Never", S(CREATING), E(ADOPTED_GONE), &spec_n, 137, 0,
     0, S(EXITED), CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY, NO_TIMER,
     false, false, NULL},
    {"restored exited", S(CREATING), E(RESTORED_EXITED), &spec_n, 1, 0, 0,
     S(EXITED), 0, NO_TIMER, false, false, NULL},
    {"startup passed", S(STARTING), E(STARTUP_PASSED), &spec_s, 0, 0, 0,
     S(RUNNING), CA_STOP_STARTUP | CA_START_PROBES | CA_NOTIFY, NO_TIMER, false,
     false, NULL},
    {"startup failed", S(STARTING), E(STARTUP_FAILED), &spec_s, 0, 0, 30,
     S(KILLING), CA_STOP_PROBES | CA_SIGTERM | CA_ARM_KILLER, 30000, false,
     false, NULL},
    {"startup failed, no grace", S(STARTING), E(STARTUP_FAILED), &spec_s, 0, 0,
     0, S(KILLING), CA_STOP_PROBES | CA_SIGKILL | CA_ARM_KILLER, 0, false,
     false, NULL},
    {"ready", S(RUNNING), E(READY), &spec_r, 0, 0, 0, S(RUNNING), CA_NOTIFY,
     NO_TIMER, true, true, NULL},
    {"ready again: nothing to say", S(RUNNING), E(READY), &spec_a, 0, 0, 0,
     S(RUNNING), 0, NO_TIMER, true, false, NULL},
    {"unready", S(RUNNING), E(UNREADY), &spec_a, 0, 0, 0, S(RUNNING), CA_NOTIFY,
     NO_TIMER, false, true, NULL},
    {"unready again", S(RUNNING), E(UNREADY), &spec_r, 0, 0, 0, S(RUNNING), 0,
     NO_TIMER, false, false, NULL},
    {"liveness failed", S(RUNNING), E(LIVENESS_FAILED), &spec_a, 0, 0, 5,
     S(KILLING), CA_STOP_PROBES | CA_SIGTERM | CA_ARM_KILLER | CA_NOTIFY, 5000,
     false, true, NULL},
    {"kill grace over", S(KILLING), E(GRACE_OVER), &spec_a, 0, 0, 0, S(KILLING),
     CA_SIGKILL, NO_TIMER, false, false, NULL},
    {"stop grace over", S(TERMINATING), E(GRACE_OVER), &spec_a, 0, 0, 0,
     S(TERMINATING), CA_SIGKILL, NO_TIMER, false, false, NULL},
    {"exit, Always, first: at once", S(RUNNING), E(EXIT), &spec_a, 1, 0, 0,
     S(CREATING), CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN,
     NO_TIMER, false, true, NULL},
    {"exit while starting", S(STARTING), E(EXIT), &spec_s, 1, 0, 0, S(CREATING),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN, NO_TIMER, false,
     false, NULL},
    {"exit after a kill", S(KILLING), E(EXIT), &spec_a, 0, 15, 0, S(CREATING),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN, NO_TIMER, false,
     false, NULL},
    {"exit 0, OnFailure", S(RUNNING), E(EXIT), &spec_f, 0, 0, 0, S(EXITED),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY, NO_TIMER, false, true, NULL},
    {"exit 1, OnFailure", S(RUNNING), E(EXIT), &spec_f, 1, 0, 0, S(CREATING),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN, NO_TIMER, false,
     true, NULL},
    {"exit 1, Never", S(RUNNING), E(EXIT), &spec_n, 1, 0, 0, S(EXITED),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY, NO_TIMER, false, true, NULL},
    {"exit of a stopping pod", S(TERMINATING), E(EXIT), &spec_a, 0, 15, 0,
     S(EXITED), CA_STOP_PROBES | CA_JOURNAL_EXIT, NO_TIMER, false, false, NULL},
    {"back-off over", S(BACKOFF), E(BACKOFF_DONE), &spec_a, 0, 0, 0,
     S(CREATING), CA_SPAWN | CA_NOTIFY, NO_TIMER, false, false,
     "CrashLoopBackOff"},
    {"drain running", S(RUNNING), E(DRAIN), &spec_a, 0, 0, 0, S(RUNNING),
     CA_STOP_READINESS, NO_TIMER, false, true, NULL},
    {"drain waiting", S(BACKOFF), E(DRAIN), &spec_a, 0, 0, 0, S(BACKOFF),
     CA_STOP_READINESS, NO_TIMER, false, false, "CrashLoopBackOff"},
    {"stop running", S(RUNNING), E(STOP), &spec_a, 0, 0, 30, S(TERMINATING),
     CA_STOP_PROBES | CA_SIGTERM, NO_TIMER, false, true, NULL},
    {"stop running, no grace", S(RUNNING), E(STOP), &spec_a, 0, 0, 0,
     S(TERMINATING), CA_STOP_PROBES | CA_SIGKILL, NO_TIMER, false, true, NULL},
    {"stop starting", S(STARTING), E(STOP), &spec_s, 0, 0, 30, S(TERMINATING),
     CA_STOP_PROBES | CA_SIGTERM, NO_TIMER, false, false, NULL},
    {"stop killing", S(KILLING), E(STOP), &spec_a, 0, 0, 30, S(TERMINATING),
     CA_STOP_PROBES | CA_SIGTERM, NO_TIMER, false, false, NULL},
    {"stop in back-off", S(BACKOFF), E(STOP), &spec_a, 0, 0, 30, S(EXITED),
     CA_STOP_PROBES | CA_CANCEL_TIMER, NO_TIMER, false, false,
     "CrashLoopBackOff"},
    {"stop waiting for a port", S(PORT_WAIT), E(STOP), &spec_a, 0, 0, 30,
     S(EXITED), CA_STOP_PROBES | CA_CANCEL_TIMER, NO_TIMER, false, false,
     "CreateContainerError"},
    {"stop before the start", S(CREATING), E(STOP), &spec_a, 0, 0, 30,
     S(EXITED), CA_STOP_PROBES, NO_TIMER, false, false, NULL},
    {"stop after a failed start", S(START_ERROR), E(STOP), &spec_a, 0, 0, 30,
     S(EXITED), CA_STOP_PROBES, NO_TIMER, false, false, "RunContainerError"},
    {"stop exited", S(EXITED), E(STOP), &spec_n, 0, 0, 30, S(EXITED),
     CA_STOP_PROBES, NO_TIMER, false, false, NULL},
    /* in-place updates (pod_status.h, IN-PLACE UPDATE) */
    {"update running", S(RUNNING), E(UPDATE), &spec_a, 0, 0, 30, S(UPDATING),
     CA_STOP_PROBES | CA_SIGTERM | CA_ARM_KILLER | CA_NOTIFY, 30000, false,
     true, NULL},
    {"update running, no grace", S(RUNNING), E(UPDATE), &spec_a, 0, 0, 0,
     S(UPDATING), CA_STOP_PROBES | CA_SIGKILL | CA_ARM_KILLER | CA_NOTIFY, 0,
     false, true, NULL},
    {"update starting", S(STARTING), E(UPDATE), &spec_s, 0, 0, 10, S(UPDATING),
     CA_STOP_PROBES | CA_SIGTERM | CA_ARM_KILLER | CA_NOTIFY, 10000, false,
     false, NULL},
    {"update in back-off: start now", S(BACKOFF), E(UPDATE), &spec_a, 0, 0, 30,
     S(CREATING), CA_CANCEL_TIMER | CA_SPAWN | CA_NOTIFY, NO_TIMER, false,
     false, "CrashLoopBackOff"},
    {"update after a failed start: a new try", S(START_ERROR), E(UPDATE),
     &spec_a, 0, 0, 30, S(CREATING), CA_SPAWN | CA_NOTIFY, NO_TIMER, false,
     false, "RunContainerError"},
    {"update before the start", S(CREATING), E(UPDATE), &spec_a, 0, 0, 30,
     S(CREATING), 0, NO_TIMER, false, false, NULL},
    {"update waiting for a port", S(PORT_WAIT), E(UPDATE), &spec_a, 0, 0, 30,
     S(PORT_WAIT), 0, NO_TIMER, false, false, "CreateContainerError"},
    {"update exited: no start", S(EXITED), E(UPDATE), &spec_n, 0, 0, 30,
     S(EXITED), 0, NO_TIMER, false, false, NULL},
    {"update while updating", S(UPDATING), E(UPDATE), &spec_a, 0, 0, 30,
     S(UPDATING), 0, NO_TIMER, false, false, NULL},
    {"update grace over", S(UPDATING), E(GRACE_OVER), &spec_a, 0, 0, 0,
     S(UPDATING), CA_SIGKILL, NO_TIMER, false, false, NULL},
    {"exit of an update: start again", S(UPDATING), E(EXIT), &spec_a, 0, 15, 0,
     S(CREATING), CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN,
     NO_TIMER, false, false, NULL},
    {"exit of an update, Never: still starts", S(UPDATING), E(EXIT), &spec_n, 0,
     15, 0, S(CREATING),
     CA_STOP_PROBES | CA_JOURNAL_EXIT | CA_NOTIFY | CA_SPAWN, NO_TIMER, false,
     false, NULL},
    {"stop updating", S(UPDATING), E(STOP), &spec_a, 0, 0, 30, S(TERMINATING),
     CA_STOP_PROBES | CA_SIGTERM, NO_TIMER, false, false, NULL},
};

/* The from states and events of the rows: what is allowed. */
static bool
in_table(enum ctr_state s, enum ctr_event_type e)
{
	size_t i;

	if (e == CEV_DRAIN)
		return true; /* any state */
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].from == s && rows[i].ev == e)
			return true;
	return false;
}

static void
test_transitions(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct ctr c;
		struct ctr_event ev = {.type = r->ev,
				       .reason = "RunContainerError",
				       .message = "m",
				       .status = r->status,
				       .signal = r->signal,
				       .grace_s = r->grace_s,
				       .started_at = T0};
		struct ctr_out out;

		put_in(&c, r->spec, r->from);
		if (r->ev == CEV_READY && r->spec == &spec_a)
			assert_true(c.ready); /* "again" rows start ready */
		if (ctr_step(&c, r->spec, &ev, T0 + 1000, &out))
			fail_msg("%s: refused", r->name);
		if (c.state != r->to)
			fail_msg("%s: to %s, want %s", r->name,
				 ctr_state_name(c.state),
				 ctr_state_name(r->to));
		if (out.actions != r->actions)
			fail_msg("%s: actions %#x, want %#x", r->name,
				 out.actions, r->actions);
		if (r->timer_ms != NO_TIMER && out.timer_ms != r->timer_ms)
			fail_msg("%s: timer %lld, want %lld", r->name,
				 (long long)out.timer_ms,
				 (long long)r->timer_ms);
		if (c.ready != r->ready ||
		    out.ready_changed != r->ready_changed)
			fail_msg("%s: ready %d changed %d, want %d %d", r->name,
				 c.ready, out.ready_changed, r->ready,
				 r->ready_changed);
		if (out.from != r->from)
			fail_msg("%s: from %s", r->name,
				 ctr_state_name(out.from));
		if ((c.waiting == NULL) != (r->waiting == NULL) ||
		    (c.waiting && strcmp(c.waiting, r->waiting)))
			fail_msg("%s: waiting %s, want %s", r->name,
				 c.waiting ? c.waiting : "(none)",
				 r->waiting ? r->waiting : "(none)");
		/* invariant 10 */
		if (c.ready && c.state != CTR_RUNNING)
			fail_msg("%s: ready in %s", r->name,
				 ctr_state_name(c.state));
		ctr_release(&c);
	}
}

/* Every (state, event) pair outside the table is refused and changes
 * nothing. */
static void
test_refused(void **state)
{
	int s, e;

	(void)state;
	for (s = 0; s < CTR_NSTATES; s++)
		for (e = 0; e < CEV_NTYPES; e++) {
			struct ctr c, before;
			struct ctr_event ev = {.type = e, .grace_s = 1};
			struct ctr_out out;

			if (in_table(s, e))
				continue;
			put_in(&c, &spec_a, s);
			before = c;
			if (ctr_step(&c, &spec_a, &ev, T0 + 5000, &out) != -1)
				fail_msg("%s in %s: accepted",
					 ctr_event_name(e), ctr_state_name(s));
			if (memcmp(&c, &before, sizeof(c)) || out.actions)
				fail_msg("%s in %s: changed the record",
					 ctr_event_name(e), ctr_state_name(s));
			ctr_release(&c);
		}
}

/* The worked example of IN-PLACE UPDATE (pod_status.h): a ready
 * container drained, updated, exited and started again is not a crash. */
static void
test_inplace_update(void **state)
{
	struct ctr c;
	struct ctr_out out;
	struct ctr_report r;
	struct ctr_event ev = {.type = CEV_SPAWNED};

	(void)state;
	ctr_init(&c);
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0, &out), 0);
	ev.type = CEV_READY;
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 1000, &out), 0);
	assert_true(c.ready);
	ev.type = CEV_DRAIN;
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 2000, &out), 0);
	assert_false(c.ready);
	ev = (struct ctr_event){
	    .type = CEV_UPDATE, .grace_s = 30, .spec_hash = 42};
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 3000, &out), 0);
	assert_int_equal(c.state, CTR_UPDATING);
	assert_int_equal(c.spec_hash, 42);
	ctr_report(&c, &r);
	assert_int_equal(r.shown, SHOW_RUNNING); /* the old run, not ready */
	assert_false(r.ready);
	ev = (struct ctr_event){.type = CEV_EXIT, .signal = 15};
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 4000, &out), 0);
	assert_int_equal(c.state, CTR_CREATING);
	assert_true(out.actions & CA_SPAWN);
	assert_int_equal(c.restarts, 0);
	assert_int_equal(c.backoff_ms, 0);
	assert_string_equal(ctr_terminated_reason(&c), "InPlaceUpdate");
	assert_int_equal(c.exit_code, 143);
	assert_int_equal(c.term_started, T0);
	assert_int_equal(c.term_finished, T0 + 4000);
	ev = (struct ctr_event){.type = CEV_SPAWNED};
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 4001, &out), 0);
	assert_int_equal(c.state, CTR_RUNNING);
	assert_true(out.actions & CA_START_PROBES); /* readiness again */
	assert_false(c.ready);
	ctr_report(&c, &r);
	assert_true(r.last_state); /* lastState.terminated: InPlaceUpdate */
	/* a crash afterwards is one, with its own reason */
	ev = (struct ctr_event){.type = CEV_EXIT, .status = 1};
	assert_int_equal(ctr_step(&c, &spec_r, &ev, T0 + 9000, &out), 0);
	assert_int_equal(c.restarts, 1);
	assert_string_equal(ctr_terminated_reason(&c), "Error");
	ctr_release(&c);

	/* the agent died after the SIGTERM; the process is gone at the
	 * live restore: the update ends, no restart counted */
	ctr_init(&c);
	ev = (struct ctr_event){.type = CEV_ADOPTED_GONE,
				.status = CTR_EXIT_UNKNOWN,
				.lost = ctr_lost_while_down,
				.started_at = T0,
				.updating = true};
	assert_int_equal(ctr_step(&c, &spec_n, &ev, T0 + 5000, &out), 0);
	assert_int_equal(c.state, CTR_CREATING);
	assert_int_equal(out.actions, CA_STOP_PROBES | CA_JOURNAL_EXIT |
					  CA_NOTIFY | CA_SPAWN);
	assert_int_equal(c.restarts, 0);
	assert_string_equal(ctr_terminated_reason(&c), "InPlaceUpdate");
	ctr_release(&c);

	/* KILLING is on its way to a restart already; TERMINATING stops */
	put_in(&c, &spec_a, CTR_KILLING);
	ev = (struct ctr_event){.type = CEV_UPDATE, .spec_hash = 7};
	assert_int_equal(ctr_step(&c, &spec_a, &ev, T0 + 5000, &out), -1);
	assert_int_equal(c.spec_hash, 0);
	ctr_release(&c);
}

/* What ctr_spec_hash() tells apart. */
static void
test_spec_hash(void **state)
{
	char *ab[] = {"a b"}, *a_b[] = {"a", "b"}, *bin[] = {"bin/web"};
	struct container x = {.image = "/srv/web-1",
			      .command = {bin, 1, 1},
			      .args = {ab, 1, 1}},
			 y = x;
	uint64_t h = ctr_spec_hash(&x);

	(void)state;
	assert_int_not_equal(h, 0);
	assert_int_equal(ctr_spec_hash(&y), h);
	y.image = "/srv/web-2";
	assert_int_not_equal(ctr_spec_hash(&y), h);
	y = x;
	y.args = (struct strlist){a_b, 2, 2};
	assert_int_not_equal(ctr_spec_hash(&y), h);
	y = x; /* the argument moved from args to command */
	y.command = (struct strlist){ab, 1, 1};
	y.args = (struct strlist){bin, 1, 1};
	assert_int_not_equal(ctr_spec_hash(&y), h);
	y = x; /* absent and empty are equal */
	y.args = (struct strlist){0};
	x.args = (struct strlist){ab, 0, 1};
	assert_int_equal(ctr_spec_hash(&y), ctr_spec_hash(&x));
	y.name = "other"; /* only image, command and args count */
	assert_int_equal(ctr_spec_hash(&y), ctr_spec_hash(&x));
}

/* The worked example of pod_status.c: restarts, delays and messages of
 * a container that crashes 5 s after each start. */
static void
test_crash_loop(void **state)
{
	static const int64_t delays[] = {0, 10, 20, 40, 80, 160, 300, 300};
	struct ctr c;
	struct ctr_out out;
	struct ctr_event spawned = {.type = CEV_SPAWNED};
	struct ctr_event exit1 = {.type = CEV_EXIT, .status = 1};
	struct ctr_event done = {.type = CEV_BACKOFF_DONE};
	dtime now = T0;
	size_t i;

	(void)state;
	ctr_init(&c);
	assert_int_equal(ctr_step(&c, &spec_a, &spawned, now, &out), 0);
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
		char msg[100];

		now += 5000;
		assert_int_equal(ctr_step(&c, &spec_a, &exit1, now, &out), 0);
		assert_int_equal(c.term_started, now - 5000);
		assert_int_equal(c.term_finished, now);
		if (delays[i] == 0) {
			assert_int_equal(c.state, CTR_CREATING);
			assert_true(out.actions & CA_SPAWN);
		} else {
			assert_int_equal(c.state, CTR_BACKOFF);
			assert_int_equal(out.timer_ms, delays[i] * 1000);
			snprintf(msg, sizeof(msg),
				 "back-off %llds restarting failed container=c "
				 "pod=p",
				 (long long)delays[i]);
			assert_string_equal(c.waiting_msg, msg);
			now += delays[i] * 1000;
			assert_int_equal(
			    ctr_step(&c, &spec_a, &done, now, &out), 0);
		}
		assert_int_equal(c.restarts, (int64_t)i + 1);
		assert_int_equal(ctr_step(&c, &spec_a, &spawned, now, &out), 0);
		assert_null(c.waiting);
		assert_null(c.waiting_msg);
	}
	/* a run of 10 minutes: the next restart is immediate again */
	now += BACKOFF_RESET_MS;
	assert_int_equal(ctr_step(&c, &spec_a, &exit1, now, &out), 0);
	assert_int_equal(c.state, CTR_CREATING);
	ctr_release(&c);
}

/* A signal shows as 128 + signal; an unseen end as the agent's reason. */
static void
test_termination(void **state)
{
	struct ctr c;
	struct ctr_out out;
	struct ctr_event ev = {.type = CEV_EXIT, .status = 0, .signal = 9};
	struct ctr_report r;

	(void)state;
	put_in(&c, &spec_n, CTR_RUNNING);
	assert_int_equal(ctr_step(&c, &spec_n, &ev, T0 + 1, &out), 0);
	ctr_report(&c, &r);
	assert_int_equal(r.shown, SHOW_TERMINATED);
	assert_int_equal(r.exit_code, 137);
	assert_string_equal(r.reason, "Error");
	ctr_release(&c);

	ctr_init(&c);
	ev = (struct ctr_event){.type = CEV_RESTORED_EXITED,
				.status = 137,
				.lost = ctr_lost_while_down};
	assert_int_equal(ctr_step(&c, &spec_n, &ev, T0, &out), 0);
	ctr_report(&c, &r);
	assert_string_equal(r.reason, CTR_REASON_UNKNOWN);
	assert_false(r.last_state);
	ctr_release(&c);
}

/* ---- phase and conditions ---- */

/* condition_remove frees the type it is given: remove by a copy. */
static void
release_conditions(struct pod_status *st)
{
	char type[64];

	while (st->conditions.n) {
		snprintf(type, sizeof(type), "%s", st->conditions.v[0].type);
		condition_remove(&st->conditions, type);
	}
	free(st->conditions.v);
}

/* One container of a pod situation. */
enum who {
	RUN_READY,   /* running, ready */
	RUN_UNREADY, /* running, its readiness probe failing */
	STARTING,    /* running, startup probe pending */
	CREATING,    /* not started yet */
	BACKOFF,     /* crash loop */
	DONE_0,      /* exited 0, not restarted (OnFailure or Never) */
	DONE_1,      /* exited 1, not restarted (Never) */
	KILLED,      /* liveness killed, still running */
	NONE = -1,
};

static void
make(struct ctr *c, enum who w)
{
	struct ctr_event unready = {.type = CEV_UNREADY};
	struct ctr_event exit0 = {.type = CEV_EXIT, .status = 0};
	struct ctr_out out;

	switch (w) {
	case RUN_READY:
		put_in(c, &spec_a, CTR_RUNNING);
		break;
	case RUN_UNREADY:
		put_in(c, &spec_a, CTR_RUNNING);
		ctr_step(c, &spec_r, &unready, T0, &out);
		break;
	case STARTING:
		put_in(c, &spec_s, CTR_STARTING);
		break;
	case CREATING:
		put_in(c, &spec_a, CTR_CREATING);
		break;
	case BACKOFF:
		put_in(c, &spec_a, CTR_BACKOFF);
		break;
	case DONE_0:
		put_in(c, &spec_f, CTR_RUNNING);
		ctr_step(c, &spec_f, &exit0, T0 + 1000, &out);
		assert_int_equal(c->state, CTR_EXITED);
		break;
	case DONE_1:
		put_in(c, &spec_n, CTR_EXITED);
		break;
	case KILLED:
		put_in(c, &spec_a, CTR_KILLING);
		break;
	default:
		break;
	}
}

static void
test_phase_and_conditions(void **state)
{
	static const struct {
		const char *name;
		enum who c[3];
		enum restart_policy policy;
		const char *phase;
		bool ready;
	} cases[] = {
	    {"one ready", {RUN_READY, NONE}, RESTART_ALWAYS, "Running", true},
	    {"two ready",
	     {RUN_READY, RUN_READY, NONE},
	     RESTART_ALWAYS,
	     "Running",
	     true},
	    {"readiness failing",
	     {RUN_UNREADY, NONE},
	     RESTART_ALWAYS,
	     "Running",
	     false},
	    {"one of two not ready",
	     {RUN_READY, RUN_UNREADY, NONE},
	     RESTART_ALWAYS,
	     "Running",
	     false},
	    {"startup pending",
	     {STARTING, NONE},
	     RESTART_ALWAYS,
	     "Running",
	     false},
	    {"being killed", {KILLED, NONE}, RESTART_ALWAYS, "Running", false},
	    {"not started yet",
	     {CREATING, NONE},
	     RESTART_ALWAYS,
	     "Pending",
	     false},
	    /* the kubelet: every container is restarting */
	    {"crash loop", {BACKOFF, NONE}, RESTART_ALWAYS, "Running", false},
	    {"crash loop beside a ready one",
	     {BACKOFF, RUN_READY, NONE},
	     RESTART_ALWAYS,
	     "Running",
	     false},
	    /* the kubelet: a container that has not started yet */
	    {"one runs, one not started yet",
	     {RUN_READY, CREATING, NONE},
	     RESTART_ALWAYS,
	     "Pending",
	     false},
	    {"OnFailure, exit 0",
	     {DONE_0, NONE},
	     RESTART_ON_FAILURE,
	     "Succeeded",
	     false},
	    {"OnFailure, exit 1: restarting",
	     {DONE_1, NONE},
	     RESTART_ON_FAILURE,
	     "Running",
	     false},
	    {"Never, exit 1", {DONE_1, NONE}, RESTART_NEVER, "Failed", false},
	    {"Never, one failed, one ok",
	     {DONE_0, DONE_1, NONE},
	     RESTART_NEVER,
	     "Failed",
	     false},
	    {"Never, one failed, one runs",
	     {DONE_1, RUN_READY, NONE},
	     RESTART_NEVER,
	     "Running",
	     false},
	    {"one done, one waiting",
	     {DONE_0, CREATING, NONE},
	     RESTART_ON_FAILURE,
	     "Pending",
	     false},
	    {"no containers", {NONE}, RESTART_ALWAYS, "Pending", false},
	};
	size_t i, k, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ctr c[3];
		struct ctr_report r[3];
		struct pod_status st = {0};
		const char *types[] = {"PodScheduled", "Initialized",
				       "ContainersReady", "Ready"};

		for (n = 0; n < 3 && cases[i].c[n] != NONE; n++) {
			make(&c[n], cases[i].c[n]);
			ctr_report(&c[n], &r[n]);
		}
		pod_status_derive(&st, r, n, cases[i].policy, T0);
		if (strcmp(st.phase, cases[i].phase))
			fail_msg("%s: phase %s, want %s", cases[i].name,
				 st.phase, cases[i].phase);
		assert_int_equal(st.conditions.n, 4);
		for (k = 0; k < 4; k++) {
			const struct condition *cd =
			    condition_get(&st.conditions, types[k]);
			bool want = k < 2 || cases[i].ready;

			if (cd == NULL ||
			    strcmp(cd->status, want ? "True" : "False"))
				fail_msg("%s: %s %s, want %s", cases[i].name,
					 types[k], cd ? cd->status : "absent",
					 want ? "True" : "False");
		}
		for (k = 0; k < n; k++)
			ctr_release(&c[k]);
		free(st.phase);
		release_conditions(&st);
	}
}

/* lastTransitionTime changes only with the status; a changed condition
 * moves to the end of the list. */
static void
test_transition_times(void **state)
{
	struct ctr c;
	struct ctr_report r;
	struct pod_status st = {0};
	struct ctr_event unready = {.type = CEV_UNREADY};
	struct ctr_out out;
	const struct condition *cd;

	(void)state;
	put_in(&c, &spec_a, CTR_RUNNING);
	ctr_report(&c, &r);
	pod_status_derive(&st, &r, 1, RESTART_ALWAYS, T0);
	pod_status_derive(&st, &r, 1, RESTART_ALWAYS,
			  T0 + 5000); /* unchanged */
	cd = condition_get(&st.conditions, "Ready");
	assert_string_equal(cd->status, "True");
	assert_int_equal(cd->last_transition_time, T0);
	assert_string_equal(st.conditions.v[3].type, "Ready");

	assert_int_equal(ctr_step(&c, &spec_r, &unready, T0, &out), 0);
	ctr_report(&c, &r);
	pod_status_derive(&st, &r, 1, RESTART_ALWAYS, T0 + 9000);
	cd = condition_get(&st.conditions, "Ready");
	assert_string_equal(cd->status, "False");
	assert_int_equal(cd->last_transition_time, T0 + 9000);
	cd = condition_get(&st.conditions, "PodScheduled");
	assert_int_equal(cd->last_transition_time, T0);
	/* ContainersReady then Ready were re-appended, in that order */
	assert_string_equal(st.conditions.v[2].type, "ContainersReady");
	assert_string_equal(st.conditions.v[3].type, "Ready");
	assert_string_equal(st.phase, "Running");

	pod_condition_set(&st.conditions, "ContainersReady", true, T0 + 10000);
	assert_string_equal(st.conditions.v[3].type, "ContainersReady");
	assert_string_equal(st.conditions.v[2].type, "Ready");

	ctr_release(&c);
	free(st.phase);
	release_conditions(&st);
}

/* A live restore keeps what the status said: a container that was
 * started and ready stays ready (its pod stays in its Services' endpoints
 * while the agent restarts); one that was not stays as a fresh start. */
static void
test_adopted_keeps_readiness(void **state)
{
	const struct {
		const struct ctr_spec *spec;
		bool was_started, was_ready;
		enum ctr_state to;
		bool ready, ready_changed;
		unsigned actions;
	} cases[] = {
	    /* readiness probe, was ready: ready at once, probes go on */
	    {&spec_r, true, true, CTR_RUNNING, true, true, CA_START_PROBES},
	    /* readiness probe, was not ready: the probe decides */
	    {&spec_r, true, false, CTR_RUNNING, false, false, CA_START_PROBES},
	    /* startup probe passed before: no startup probe again */
	    {&spec_s, true, true, CTR_RUNNING, true, true, CA_START_PROBES},
	    /* startup probe not passed yet: it runs again */
	    {&spec_s, false, false, CTR_STARTING, false, false,
	     CA_START_STARTUP},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ctr c;
		struct ctr_out out = {0};
		struct ctr_event ev = {.type = CEV_ADOPTED,
				       .started_at = T0,
				       .was_started = cases[i].was_started,
				       .was_ready = cases[i].was_ready};

		ctr_init(&c);
		assert_int_equal(
		    ctr_step(&c, cases[i].spec, &ev, T0 + 500, &out), 0);
		assert_int_equal(c.state, cases[i].to);
		assert_int_equal(c.ready, cases[i].ready);
		assert_int_equal(out.ready_changed, cases[i].ready_changed);
		assert_int_equal(out.actions, cases[i].actions);
		ctr_release(&c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backoff_sequence),
	    cmocka_unit_test(test_backoff_reset),
	    cmocka_unit_test(test_restart_policy),
	    cmocka_unit_test(test_probe_tally),
	    cmocka_unit_test(test_transitions),
	    cmocka_unit_test(test_adopted_keeps_readiness),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_inplace_update),
	    cmocka_unit_test(test_spec_hash),
	    cmocka_unit_test(test_crash_loop),
	    cmocka_unit_test(test_termination),
	    cmocka_unit_test(test_phase_and_conditions),
	    cmocka_unit_test(test_transition_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
