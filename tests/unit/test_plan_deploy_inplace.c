/* test_plan_deploy_inplace.c - table tests of the InPlaceUpdate strategy
 * in the core: the budget (inplace_max_unavailable), the template rule
 * (inplace_check), the planner's choice of pods (plan_deploy_inplace.c:
 * one at a time, 25% of 10, unhealthy first, rollback, replicas 0,
 * scaling while updating) and a whole in-place rollout in the simulator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "defaults.h"
#include "deploy_util.h"
#include "fixture.h"
#include "inplace_apply.h"
#include "inplace_check.h"
#include "kinds.h"
#include "plan_rs.h"
#include "pod_status.h"
#include "sim.h"
#include "xalloc.h"

/* Turns d (from fx_deployment) into InPlaceUpdate with maxUnavailable
 * mu ("1", "25%", or NULL for the default). */
static void
fx_inplace(struct deployment *d, const char *mu)
{
	free(d->spec.strategy.type);
	d->spec.strategy.type = xstrdup("InPlaceUpdate");
	schema_release(
	    &schema_deployment,
	    &(struct deployment){.spec.strategy.rolling_update =
				     d->spec.strategy.rolling_update});
	d->spec.strategy.rolling_update = NULL;
	if (mu) {
		d->spec.strategy.in_place_update =
		    xcalloc(1, sizeof(*d->spec.strategy.in_place_update));
		d->spec.strategy.in_place_update->max_unavailable =
		    fx_intstr(mu);
	}
	defaults_deployment(d);
}

enum pstate { AVAIL, NOT_READY, PENDING, FAILED };

/* A pod of rs named `name`, created at T0 + created_s, in state st
 * (AVAIL: Running and Ready since its creation). */
static struct pod *
mkpod(const struct replicaset *rs, const char *name, int64_t created_s,
      enum pstate st)
{
	struct pod *p = xcalloc(1, sizeof(*p));
	struct condition c = {.type = "Ready",
			      .status = "True",
			      .last_transition_time =
				  T0 + DTIME_SEC(created_s)};
	char uid[64];

	rs_new_pod(rs, p);
	p->metadata.name = xstrdup(name);
	snprintf(uid, sizeof(uid), "uid-%s", name);
	p->metadata.uid = xstrdup(uid);
	p->metadata.creation_timestamp = T0 + DTIME_SEC(created_s);
	p->status.phase = xstrdup(st == PENDING  ? "Pending"
				  : st == FAILED ? "Failed"
						 : "Running");
	if (st == AVAIL)
		condition_append(&p->status.conditions, &c);
	return p;
}

/* The world of the tests: Deployment web at image v2, strategy
 * InPlaceUpdate mu, old RS web-v1 (image v1, revision 1) with `n` pods
 * web-v1-a, -b, ... created a second apart, all available unless
 * states says otherwise. */
static void
world(struct fx_world *w, int64_t replicas, const char *mu, int64_t n,
      const enum pstate *states)
{
	int64_t i, avail = 0;

	memset(w, 0, sizeof(*w));
	w->d = fx_deployment(replicas, "web:v2", NULL, NULL);
	fx_inplace(w->d, mu);
	strmap_set(&w->d->metadata.annotations, ANN_REVISION, "1");
	for (i = 0; i < n; i++)
		avail += !states || states[i] == AVAIL;
	w->rs[w->nrs++] = fx_rs(w->d, "web-v1", "web:v1", n, avail, 1, 0);
	strmap_set(&w->rs[0]->metadata.annotations, ANN_DESIRED_REPLICAS, "5");
	{
		char buf[16];

		snprintf(buf, sizeof(buf), "%lld", (long long)replicas);
		strmap_set(&w->rs[0]->metadata.annotations,
			   ANN_DESIRED_REPLICAS, buf);
	}
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "web-v1-%c", (char)('a' + i));
		w->pods[w->npods++] =
		    mkpod(w->rs[0], name, i, states ? states[i] : AVAIL);
	}
}

/* The in-place actions of a plan, "web-v1-a web-v1-c". */
static char *
inplace_names(const struct plan_deploy_out *o)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < o->actions.n; i++)
		if (o->actions.v[i].op == ACT_UPDATE_IN_PLACE) {
			assert_string_equal(o->actions.v[i].kind, "Pod");
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "",
				    o->actions.v[i].name);
		}
	return strbuf_detach(&sb);
}

static int
count_op(const struct plan_deploy_out *o, enum action_op op)
{
	size_t i;
	int n = 0;

	for (i = 0; i < o->actions.n; i++)
		n += o->actions.v[i].op == op;
	return n;
}

/* One plan over a world built by world(); returns the in-place picks. */
static char *
picks(int64_t replicas, const char *mu, int64_t n, const enum pstate *st)
{
	struct fx_world w;
	struct plan_deploy_out o;
	char *s;

	world(&w, replicas, mu, n, st);
	fx_plan(&w, &o);
	s = inplace_names(&o);
	/* The template change created the new RS at 0 (no surge). */
	assert_int_equal(count_op(&o, ACT_CREATE), 1);
	assert_int_equal(o.actions.v[0].replicas, 0);
	assert_true(o.budget.set);
	assert_int_equal(o.budget.surge, 0);
	plan_deploy_out_release(&o);
	fx_world_release(&w);
	return s;
}

static void
test_max_unavailable(void **state)
{
	static const struct {
		int64_t replicas;
		const char *mu;
		int64_t want;
	} t[] = {
	    {10, "25%", 2}, {10, NULL, 2}, {3, "25%", 1}, {5, "1%", 1},
	    {5, "7", 5},    {5, "1", 1},   {0, "25%", 0}, {8, "100%", 8},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct deployment *d =
		    fx_deployment(t[i].replicas, "x", NULL, NULL);

		assert_int_equal(inplace_max_unavailable(d), 0); /* rolling */
		fx_inplace(d, t[i].mu);
		if (inplace_max_unavailable(d) != t[i].want)
			fail_msg("case %zu: %lld, want %lld", i,
				 (long long)inplace_max_unavailable(d),
				 (long long)t[i].want);
		fx_free_deployment(d);
	}
}

static void
test_one_at_a_time(void **state)
{
	char *s = picks(5, "1", 5, NULL);

	assert_string_equal(s, "web-v1-a"); /* the oldest */
	free(s);
}

static void
test_25_percent_of_10(void **state)
{
	char *s = picks(10, "25%", 10, NULL);

	assert_string_equal(s, "web-v1-a web-v1-b");
	free(s);
}

static void
test_unready_counts_and_goes_first(void **state)
{
	static const enum pstate st[] = {AVAIL, AVAIL, AVAIL, NOT_READY, AVAIL};
	char *s = picks(5, "1", 5, st);

	/* U = 1 already: the budget is spent on the unready pod alone. */
	assert_string_equal(s, "web-v1-d");
	free(s);
}

static void
test_pending_first(void **state)
{
	static const enum pstate st[] = {AVAIL, NOT_READY, PENDING, FAILED,
					 AVAIL};
	char *s = picks(5, "3", 5, st);

	/* U 3, H 3: every unhealthy pod, Failed, Pending, not Ready. */
	assert_string_equal(s, "web-v1-d web-v1-c web-v1-b");
	free(s);
	/* they cost no availability: the budget does not hold them back */
	s = picks(5, "1", 5, st);
	assert_string_equal(s, "web-v1-d web-v1-c web-v1-b");
	free(s);
}

/* Reports on pod p a run of its container 0 with image `image` (the
 * agent's imageID, "drover-spec://<ctr_spec_hash>"). */
static void
report_run(struct pod *p, const char *image)
{
	struct container c = p->spec.containers.v[0];
	struct container_status *cs;
	char id[64];
	size_t i;

	c.image = (char *)image;
	for (i = 0; i < p->status.container_statuses.n; i++)
		schema_release(&schema_container_status,
			       &p->status.container_statuses.v[i]);
	p->status.container_statuses.n = 0;
	cs = anylist_push((struct anylist *)&p->status.container_statuses,
			  sizeof(*cs));
	cs->name = xstrdup(p->spec.containers.v[0].name);
	snprintf(id, sizeof(id), "drover-spec://%016llx",
		 (unsigned long long)ctr_spec_hash(&c));
	cs->image_id = xstrdup(id);
}

/* A pod the transaction moved to the new RS (inplace_apply) whose old
 * process still answers (Ready, imageID of v1) is in flight: not picked
 * again, not counted available (with mu 1 nothing else moves), and the
 * Deployment's status does not count it either, although its RS's
 * status does. Once it reports the v2 run and is Ready, the next pod
 * goes. */
static void
test_intent_in_flight(void **state)
{
	struct fx_world w;
	struct plan_deploy_out o;
	const struct condition *c;
	char err[256];
	char *s;

	world(&w, 5, "1", 5, NULL);
	w.rs[w.nrs++] = fx_rs(w.d, "web-v2", "web:v2", 0, 0, 2, 10);
	report_run(w.pods[0], "web:v1");
	assert_int_equal(
	    inplace_apply(w.pods[0], w.rs[0], w.rs[1], err, sizeof(err)),
	    INPLACE_OK);
	assert_int_equal(w.rs[0]->spec.replicas.v, 4);
	assert_int_equal(w.rs[1]->spec.replicas.v, 1);
	assert_string_equal(w.pods[0]->spec.containers.v[0].image, "web:v2");
	assert_true(inplace_pending(w.pods[0], w.rs[1]));
	/* the RS controller's view: web-v2 has one available pod */
	w.rs[0]->status.replicas = w.rs[0]->status.ready_replicas =
	    w.rs[0]->status.available_replicas = 4;
	w.rs[1]->status.replicas = w.rs[1]->status.ready_replicas =
	    w.rs[1]->status.available_replicas = 1;
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(o.d.status.available_replicas, 4);
	assert_int_equal(o.d.status.updated_replicas, 1);
	/* one pod mid-update is within inPlaceUpdate.maxUnavailable 1: the
	 * Deployment stays Available, as a RollingUpdate one would */
	c = condition_get(&o.d.status.conditions, "Available");
	assert_non_null(c);
	assert_string_equal(c->status, "True");
	plan_deploy_out_release(&o);
	/* one more unavailable: 3 of 5 is below 5 - 1 */
	w.rs[0]->status.available_replicas = 3;
	fx_plan(&w, &o);
	c = condition_get(&o.d.status.conditions, "Available");
	assert_non_null(c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->reason, "MinimumReplicasUnavailable");
	plan_deploy_out_release(&o);
	w.rs[0]->status.available_replicas = 4;

	report_run(w.pods[0], "web:v2");
	assert_false(inplace_pending(w.pods[0], w.rs[1]));
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "web-v1-b");
	free(s);
	assert_string_equal(o.actions.v[0].op == ACT_UPDATE_IN_PLACE
				? o.actions.v[0].target
				: "web-v2",
			    "web-v2");
	plan_deploy_out_release(&o);
	fx_world_release(&w);
}

static void
set_ready(struct pod *p)
{
	struct condition c = {.type = "Ready",
			      .status = "True",
			      .last_transition_time = T0 + DTIME_SEC(50)};

	free(p->status.phase);
	p->status.phase = xstrdup("Running");
	condition_append(&p->status.conditions, &c);
}

/* 4 replicas, mu 1, one old pod Pending for good (it fits on no node)
 * and one not Ready: both are updated at once; the Pending one never
 * becomes Ready on the new spec, and holds no slot: the not-Ready one
 * completes. Then 3 of 4 are available, the budget is spent, the two
 * available old pods wait, and the rollout times out at its deadline
 * (ProgressDeadlineExceeded). Holding a slot per unhealthy update, the
 * planner picked the Pending pod alone and waited for ever without a
 * deadline to say so, since nothing was left to try. */
static void
test_unhealthy_update_holds_no_slot(void **state)
{
	static const enum pstate st[] = {AVAIL, AVAIL, PENDING, NOT_READY};
	struct fx_world w;
	struct plan_deploy_out o;
	const struct condition *c;
	char err[256];
	char *s;

	world(&w, 4, "1", 4, st);
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "web-v1-c web-v1-d");
	free(s);
	plan_deploy_out_release(&o);

	/* both applied; d runs the new spec and is Ready, c stays Pending */
	w.rs[w.nrs++] = fx_rs(w.d, "web-v2", "web:v2", 0, 0, 2, 10);
	assert_int_equal(
	    inplace_apply(w.pods[2], w.rs[0], w.rs[1], err, sizeof(err)),
	    INPLACE_OK);
	assert_int_equal(
	    inplace_apply(w.pods[3], w.rs[0], w.rs[1], err, sizeof(err)),
	    INPLACE_OK);
	report_run(w.pods[3], "web:v2");
	set_ready(w.pods[3]);
	assert_true(inplace_pending(w.pods[2], w.rs[1]));
	assert_false(inplace_pending(w.pods[3], w.rs[1]));
	w.rs[0]->status.replicas = w.rs[0]->status.ready_replicas =
	    w.rs[0]->status.available_replicas = 2;
	w.rs[1]->status.replicas = 2;
	w.rs[1]->status.ready_replicas = w.rs[1]->status.available_replicas = 1;
	w.now = T0 + DTIME_SEC(100);
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, ""); /* 3 of 4 available: the budget is spent */
	free(s);
	c = condition_get(&o.d.status.conditions, "Progressing");
	assert_non_null(c);
	assert_string_equal(c->status, "True");
	/* the controller writes that status; nothing changes afterwards */
	schema_release(kind_status_schema(kind_by_id(KIND_DEPLOYMENT)),
		       &w.d->status);
	w.d->status = o.d.status;
	memset(&o.d.status, 0, sizeof(o.d.status));
	plan_deploy_out_release(&o);
	w.now = T0 + DTIME_SEC(100 + 600);
	fx_plan(&w, &o);
	c = condition_get(&o.d.status.conditions, "Progressing");
	assert_string_equal(c->status, "True"); /* not past it, strictly */
	plan_deploy_out_release(&o);
	w.now = T0 + DTIME_SEC(100 + 601);
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "");
	free(s);
	c = condition_get(&o.d.status.conditions, "Progressing");
	assert_non_null(c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->reason, "ProgressDeadlineExceeded");
	plan_deploy_out_release(&o);
	fx_world_release(&w);
}

static void
test_two_unhealthy_budget_two(void **state)
{
	static const enum pstate st[] = {AVAIL, AVAIL, NOT_READY, AVAIL,
					 AVAIL, AVAIL, AVAIL,     AVAIL};
	/* 8 replicas, mu 2, one unready: it plus one available pod. */
	char *s = picks(8, "2", 8, st);

	assert_string_equal(s, "web-v1-c web-v1-a");
	free(s);
}

/* The transaction is refused, nothing changed, for a pod of another RS
 * and for templates that differ in more than image/command/args. */
static void
test_apply_refused(void **state)
{
	struct fx_world w;
	char err[256];

	world(&w, 2, "1", 2, NULL);
	w.rs[w.nrs++] = fx_rs(w.d, "web-v2", "web:v2", 0, 0, 2, 10);
	assert_int_equal(
	    inplace_apply(w.pods[0], w.rs[1], w.rs[0], err, sizeof(err)),
	    INPLACE_CONFLICT);
	assert_non_null(strstr(err, "not controlled by replica set web-v2"));
	strmap_set(&w.rs[1]->spec.template.metadata.labels, "tier", "x");
	assert_int_equal(
	    inplace_apply(w.pods[0], w.rs[0], w.rs[1], err, sizeof(err)),
	    INPLACE_INVALID);
	assert_non_null(strstr(err, "spec.template.metadata.labels"));
	assert_int_equal(w.rs[0]->spec.replicas.v, 2);
	assert_int_equal(w.rs[1]->spec.replicas.v, 0);
	assert_string_equal(w.pods[0]->spec.containers.v[0].image, "web:v1");
	fx_world_release(&w);
}

static void
test_replicas_zero(void **state)
{
	struct fx_world w;
	struct plan_deploy_out o;
	char *s;

	world(&w, 0, "1", 0, NULL);
	w.rs[0]->spec.replicas.v = 0;
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "");
	assert_int_equal(o.budget.unavailable, 0);
	free(s);
	plan_deploy_out_release(&o);
	fx_world_release(&w);
}

/* Rollback: the Deployment's template is v1 again; web-v1 (revision 1,
 * scaled to 0) is found, not created, renumbered 3, and the pods of
 * web-v2 are updated back in place. */
static void
test_rollback_reuses_old_rs(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out o;
	const struct replicaset *v1;
	char *s;
	int i;

	w.d = fx_deployment(3, "web:v1", NULL, NULL);
	fx_inplace(w.d, "1");
	strmap_set(&w.d->metadata.annotations, ANN_REVISION, "2");
	w.rs[w.nrs++] = fx_rs(w.d, "web-v1", "web:v1", 0, 0, 1, 0);
	w.rs[w.nrs++] = fx_rs(w.d, "web-v2", "web:v2", 3, 3, 2, 10);
	strmap_set(&w.rs[1]->metadata.annotations, ANN_DESIRED_REPLICAS, "3");
	for (i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "web-v2-%c", 'a' + i);
		w.pods[w.npods++] = mkpod(w.rs[1], name, 10 + i, AVAIL);
	}
	fx_plan(&w, &o);
	assert_int_equal(count_op(&o, ACT_CREATE), 0);
	v1 = fx_out_rs(&o, "web-v1");
	assert_non_null(v1);
	assert_string_equal(strmap_get(&v1->metadata.annotations, ANN_REVISION),
			    "3");
	s = inplace_names(&o);
	assert_string_equal(s, "web-v2-a");
	free(s);
	plan_deploy_out_release(&o);
	fx_world_release(&w);
}

/* A paused InPlaceUpdate Deployment updates no pod (sync_scale only, as
 * for RollingUpdate); resumed, the first pod goes. */
static void
test_paused_updates_nothing(void **state)
{
	struct fx_world w;
	struct plan_deploy_out o;
	char *s;

	world(&w, 5, "1", 5, NULL);
	w.d->spec.paused = true;
	fx_plan(&w, &o);
	assert_int_equal(count_op(&o, ACT_UPDATE_IN_PLACE), 0);
	plan_deploy_out_release(&o);
	w.d->spec.paused = false;
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "web-v1-a");
	free(s);
	plan_deploy_out_release(&o);
	fx_world_release(&w);
}

/* Scaling while updating: old 3 + new 2 of 5, desired-replicas 5 on
 * both. To 7: the new RS takes the 2 more; to 2: the old RS gives 3. */
static void
test_scale_during_update(void **state)
{
	static const struct {
		int64_t to;
		const char *want;
	} t[] = {
	    {7, "status; update rs web-v1; scale rs web-v2 2->4; status"},
	    {2, "status; scale rs web-v1 3->0; update rs web-v2; status"},
	    {4, "status; scale rs web-v1 3->2; update rs web-v2; status"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct fx_world w = {0};
		struct plan_deploy_out o;
		char *s;

		w.d = fx_deployment(t[i].to, "web:v2", NULL, NULL);
		fx_inplace(w.d, "1");
		strmap_set(&w.d->metadata.annotations, ANN_REVISION, "2");
		w.rs[w.nrs++] = fx_rs(w.d, "web-v1", "web:v1", 3, 3, 1, 0);
		w.rs[w.nrs++] = fx_rs(w.d, "web-v2", "web:v2", 2, 2, 2, 10);
		free(w.rs[1]->metadata.name);
		w.rs[1]->metadata.name = NULL;
		{
			/* web-v2 must be the Deployment's new RS: give it
			 * the hash name the planner computes. */
			struct replicaset *n = w.rs[1];
			struct plan_deploy_out o0;

			fx_plan(&(struct fx_world){.d = w.d}, &o0);
			n->metadata.name = xstrdup(o0.rs[0]->metadata.name);
			plan_deploy_out_release(&o0);
		}
		strmap_set(&w.rs[0]->metadata.annotations, ANN_DESIRED_REPLICAS,
			   "5");
		strmap_set(&w.rs[1]->metadata.annotations, ANN_DESIRED_REPLICAS,
			   "5");
		fx_plan(&w, &o);
		s = fx_actions(&o);
		{
			/* Render the hash name as web-v2. */
			char *p = strstr(s, w.rs[1]->metadata.name);
			struct strbuf sb = STRBUF_INIT;

			if (p) {
				strbuf_add(&sb, s, (size_t)(p - s));
				strbuf_addstr(&sb, "web-v2");
				strbuf_addstr(
				    &sb, p + strlen(w.rs[1]->metadata.name));
				free(s);
				s = strbuf_detach(&sb);
			}
		}
		if (strcmp(s, t[i].want))
			fail_msg("to %lld: %s, want %s", (long long)t[i].to, s,
				 t[i].want);
		free(s);
		plan_deploy_out_release(&o);
		fx_world_release(&w);
	}
}

/* The whole rollout in the simulator: 5 replicas, mu 1, pods ready 1 s
 * after a restart: five waves, no pod created or deleted (peak 5), never
 * fewer than 4 available, and the old RS ends at 0. */
static void
test_simulated_rollout(void **state)
{
	struct fx_world w;
	struct sim_opts so = {.pod_ready_ms = 1000,
			      .start = T0 + DTIME_SEC(100),
			      .max_ms = DTIME_SEC(3600),
			      .max_steps = 10000};
	struct sim_result r;
	size_t i, nip = 0;

	world(&w, 5, "1", 5, NULL);
	assert_int_equal(sim_run(w.d, (const struct replicaset *const *)w.rs,
				 w.nrs, (const struct pod *const *)w.pods,
				 w.npods, &so, &r),
			 0);
	assert_int_equal(r.result, SIM_COMPLETE);
	assert_int_equal(r.peak_pods, 5);
	assert_int_equal(r.min_available, 4);
	assert_int_equal(r.duration_ms, 5000);
	for (i = 0; i < r.nsteps; i++) {
		size_t j;

		for (j = 0; j < r.steps[i].actions.n; j++) {
			const struct action *a = &r.steps[i].actions.v[j];

			nip += a->op == ACT_UPDATE_IN_PLACE;
			assert_false(!strcmp(a->kind, "Pod") &&
				     a->op != ACT_UPDATE_IN_PLACE);
		}
	}
	assert_int_equal(nip, 5);
	for (i = 0; i < r.nrs; i++)
		if (!strcmp(r.rs[i]->metadata.name, "web-v1"))
			assert_int_equal(rs_replicas(r.rs[i]), 0);
		else
			assert_int_equal(rs_replicas(r.rs[i]), 5);
	assert_int_equal(r.d.status.updated_replicas, 5);
	sim_result_release(&r);
	fx_world_release(&w);
}

/* An old RS whose template differs in env too (a rollback, a strategy
 * switched mid-rollout) cannot be reached in place: the picked pod is
 * replaced instead (old 5 -> 4, new 0 -> 1) in the same budget, with an
 * event naming the field; the simulated rollout still completes with no
 * surge. */
static void
test_impossible_in_place_replaces(void **state)
{
	struct fx_world w;
	struct plan_deploy_out o;
	struct sim_opts so = {.pod_ready_ms = 1000,
			      .start = T0 + DTIME_SEC(100),
			      .max_ms = DTIME_SEC(3600),
			      .max_steps = 10000};
	struct sim_result r;
	struct env_var *e;
	char *s;
	size_t i;
	bool seen = false;

	world(&w, 5, "1", 5, NULL);
	e = anylist_push(
	    (struct anylist *)&w.rs[0]->spec.template.spec.containers.v[0].env,
	    sizeof(*e));
	e->name = xstrdup("OLD");
	e->value = xstrdup("1");
	fx_plan(&w, &o);
	s = inplace_names(&o);
	assert_string_equal(s, "");
	free(s);
	s = fx_actions(&o);
	assert_non_null(strstr(s, "scale rs web-v1 5->4"));
	assert_non_null(strstr(s, "->1"));
	free(s);
	for (i = 0; i < o.events.n; i++)
		if (!strcmp(o.events.v[i].reason, "InPlaceUpdateImpossible")) {
			assert_non_null(
			    strstr(o.events.v[i].message,
				   "spec.template.spec.containers[0].env"));
			seen = true;
		}
	assert_true(seen);
	plan_deploy_out_release(&o);
	assert_int_equal(sim_run(w.d, (const struct replicaset *const *)w.rs,
				 w.nrs, (const struct pod *const *)w.pods,
				 w.npods, &so, &r),
			 0);
	assert_int_equal(r.result, SIM_COMPLETE);
	assert_int_equal(r.peak_pods, 5);
	assert_int_equal(r.min_available, 4);
	sim_result_release(&r);
	fx_world_release(&w);
}

/* The Deployment kind's admission: InPlaceUpdate is accepted on create
 * and on an update that changes only image/command/args; an update that
 * changes env is refused on its path. */
static void
test_api_admission(void **state)
{
	const struct kind_info *k = kind_by_id(KIND_DEPLOYMENT);
	struct deployment *d = fx_deployment(3, "web:v1", NULL, NULL);
	struct deployment *d2 = fx_deployment(3, "web:v2", NULL, NULL);
	struct fielderr_list errs = {0};
	struct strbuf m = STRBUF_INIT;
	struct env_var *e;

	fx_inplace(d, NULL);
	fx_inplace(d2, NULL);
	k->validate(d, &errs);
	k->admit(NULL, d, &errs);
	k->admit(d, d2, &errs);
	assert_int_equal(errs.n, 0);
	e = anylist_push(
	    (struct anylist *)&d2->spec.template.spec.containers.v[0].env,
	    sizeof(*e));
	e->name = xstrdup("A");
	k->admit(d, d2, &errs);
	assert_int_equal(errs.n, 1);
	fielderr_format(&errs.v[0], &m);
	assert_non_null(strstr(m.buf, "spec.template.spec.containers[0].env"));
	fielderr_list_release(&errs);
	strbuf_release(&m);
	fx_free_deployment(d);
	fx_free_deployment(d2);
}

/* ---- the template rule ---- */

enum change {
	CH_IMAGE,
	CH_COMMAND_ARGS,
	CH_ENV,
	CH_ADD,
	CH_RENAME,
	CH_LABEL,
	CH_ANNOTATION,
	CH_PORT,
	CH_RESOURCES,
	CH_PROBE,
	CH_RESTART_POLICY,
	CH_IMAGE_AND_ENV,
};

static void
apply_change(struct pod_template *t, enum change ch)
{
	struct container *c = &t->spec.containers.v[0];

	switch (ch) {
	case CH_IMAGE:
		free(c->image);
		c->image = xstrdup("web:v9");
		break;
	case CH_COMMAND_ARGS:
		strlist_push(&c->command, "--fast");
		strlist_push(&c->args, "-v");
		break;
	case CH_ENV:
	case CH_IMAGE_AND_ENV: {
		struct env_var *e =
		    anylist_push((struct anylist *)&c->env, sizeof(*e));

		e->name = xstrdup("A");
		e->value = xstrdup("1");
		if (ch == CH_IMAGE_AND_ENV) {
			free(c->image);
			c->image = xstrdup("web:v9");
		}
		break;
	}
	case CH_ADD: {
		struct container *s = anylist_push(
		    (struct anylist *)&t->spec.containers, sizeof(*s));

		s->name = xstrdup("sidecar");
		s->image = xstrdup("side:1");
		break;
	}
	case CH_RENAME:
		free(c->name);
		c->name = xstrdup("api");
		break;
	case CH_LABEL:
		strmap_set(&t->metadata.labels, "tier", "front");
		break;
	case CH_ANNOTATION:
		strmap_set(&t->metadata.annotations, ANN_RESTARTED_AT, "now");
		break;
	case CH_PORT: {
		struct container_port *p =
		    anylist_push((struct anylist *)&c->ports, sizeof(*p));

		p->container_port = 8080;
		break;
	}
	case CH_RESOURCES:
		strmap_set(&c->resources.requests, "cpu", "100m");
		break;
	case CH_PROBE:
		c->readiness_probe = xcalloc(1, sizeof(*c->readiness_probe));
		c->readiness_probe->period_seconds.set = true;
		c->readiness_probe->period_seconds.v = 5;
		break;
	case CH_RESTART_POLICY:
		free(t->spec.restart_policy);
		t->spec.restart_policy = xstrdup("Never");
		break;
	}
}

static void
test_template_rule(void **state)
{
	static const struct {
		enum change ch;
		const char *path; /* NULL: allowed */
	} t[] = {
	    {CH_IMAGE, NULL},
	    {CH_COMMAND_ARGS, NULL},
	    {CH_ENV, "spec.template.spec.containers[0].env"},
	    {CH_IMAGE_AND_ENV, "spec.template.spec.containers[0].env"},
	    {CH_ADD, "spec.template.spec.containers"},
	    {CH_RENAME, "spec.template.spec.containers[0].name"},
	    {CH_LABEL, "spec.template.metadata.labels"},
	    {CH_ANNOTATION, "spec.template.metadata.annotations"},
	    {CH_PORT, "spec.template.spec.containers[0].ports"},
	    {CH_RESOURCES,
	     "spec.template.spec.containers[0].resources.requests"},
	    {CH_PROBE, "spec.template.spec.containers[0].readinessProbe"},
	    {CH_RESTART_POLICY, "spec.template.spec.restartPolicy"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct deployment *old = fx_deployment(3, "web:v1", NULL, NULL);
		struct deployment *nw = fx_deployment(3, "web:v1", NULL, NULL);
		struct fielderr_list errs = {0};
		struct strbuf path = STRBUF_INIT;
		bool bad;

		fx_inplace(old, "1");
		fx_inplace(nw, "1");
		apply_change(&nw->spec.template, t[i].ch);
		defaults_pod_spec(&nw->spec.template.spec);
		bad = inplace_template_forbidden(&old->spec.template,
						 &nw->spec.template,
						 "spec.template", &path);
		if (bad != (t[i].path != NULL) ||
		    (bad && strcmp(path.buf, t[i].path)))
			fail_msg("case %zu: %s (%s), want %s", i,
				 bad ? "forbidden" : "allowed", path.buf,
				 t[i].path ? t[i].path : "allowed");
		validate_deployment_update(old, nw, &errs);
		assert_int_equal(errs.n, bad ? 1 : 0);
		if (bad) {
			struct strbuf m = STRBUF_INIT;

			fielderr_format(&errs.v[0], &m);
			assert_non_null(strstr(m.buf, ": Forbidden: "));
			assert_non_null(strstr(m.buf, MSG_INPLACE_ONLY));
			assert_string_equal(errs.v[0].field, t[i].path);
			strbuf_release(&m);
		}
		fielderr_list_release(&errs);
		/* Switching away from InPlaceUpdate: not checked. */
		fx_free_deployment(nw);
		nw = fx_deployment(3, "web:v1", NULL, NULL);
		apply_change(&nw->spec.template, t[i].ch);
		validate_deployment_update(old, nw, &errs);
		assert_int_equal(errs.n, 0);
		/* Switching to it: checked like InPlace -> InPlace. */
		validate_deployment_update(nw, old, &errs);
		assert_int_equal(errs.n, bad ? 1 : 0);
		fielderr_list_release(&errs);
		strbuf_release(&path);
		fx_free_deployment(old);
		fx_free_deployment(nw);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_max_unavailable),
	    cmocka_unit_test(test_one_at_a_time),
	    cmocka_unit_test(test_25_percent_of_10),
	    cmocka_unit_test(test_unready_counts_and_goes_first),
	    cmocka_unit_test(test_pending_first),
	    cmocka_unit_test(test_unhealthy_update_holds_no_slot),
	    cmocka_unit_test(test_two_unhealthy_budget_two),
	    cmocka_unit_test(test_intent_in_flight),
	    cmocka_unit_test(test_apply_refused),
	    cmocka_unit_test(test_paused_updates_nothing),
	    cmocka_unit_test(test_replicas_zero),
	    cmocka_unit_test(test_rollback_reuses_old_rs),
	    cmocka_unit_test(test_scale_during_update),
	    cmocka_unit_test(test_simulated_rollout),
	    cmocka_unit_test(test_template_rule),
	    cmocka_unit_test(test_impossible_in_place_replaces),
	    cmocka_unit_test(test_api_admission),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
