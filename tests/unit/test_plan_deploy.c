/* test_plan_deploy.c - scenario tests of the Deployment planner: the
 * worked traces of spec/deployment.md §8.5 and the seeds, Recreate,
 * proportional scaling (§7), revisions and rollback (§5, §13), history
 * cleanup (§14), pause (§12), conditions and the deadline (§11), claiming
 * and hash collisions (§4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "deploy_util.h"
#include "fixture.h"
#include "sim.h"
#include "xalloc.h"

/* Runs a simulation and renders its non-status steps as
 * "t=0 create rs 3; scale rs web-v1 10->8 | t=0 ..." with the new RS's
 * name replaced by NEW. */
static char *
trace(struct deployment *d, struct replicaset **rs, size_t nrs,
      int64_t ready_ms, struct sim_result *r)
{
	struct sim_opts o = {.pod_ready_ms = ready_ms,
			     .start = T0,
			     .max_ms = DTIME_SEC(3600),
			     .max_steps = 10000};
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;

	assert_int_equal(sim_run(d, (const struct replicaset *const *)rs, nrs,
				 NULL, 0, &o, r),
			 0);
	for (i = 0; i < r->nsteps; i++) {
		const struct sim_step *s = &r->steps[i];
		bool any = false;

		for (j = 0; j < s->actions.n; j++) {
			const struct action *a = &s->actions.v[j];
			const char *name = a->name;

			if (a->op == ACT_STATUS)
				continue;
			if (strncmp(name, "web-", 4) == 0 &&
			    strcmp(name, "web-v1") && strcmp(name, "web-v2") &&
			    strcmp(name, "web-v3"))
				name = "NEW";
			strbuf_addstr(&sb, any ? "; " : (sb.len ? " | " : ""));
			if (!any)
				strbuf_addf(&sb, "t=%lld ",
					    (long long)(s->t_ms / 1000));
			any = true;
			if (a->op == ACT_CREATE)
				strbuf_addf(&sb, "create %lld",
					    (long long)a->replicas);
			else if (a->op == ACT_SCALE)
				strbuf_addf(&sb, "%s %lld->%lld", name,
					    (long long)a->from,
					    (long long)a->to);
			else
				strbuf_addf(&sb, "%s %s", action_op_name(a->op),
					    name);
		}
	}
	return strbuf_detach(&sb);
}

static void
check_trace(int64_t replicas, const char *surge, const char *unavail,
	    int64_t ready_ms, const char *want, enum sim_result_kind result,
	    int64_t want_peak, int64_t want_min)
{
	struct deployment *d = fx_deployment(replicas, "v2", surge, unavail);
	struct replicaset *old =
	    fx_rs(d, "web-v1", "v1", replicas, replicas, 1, 0);
	struct sim_result r;
	char *got = trace(d, &old, 1, ready_ms, &r);

	if (strcmp(got, want))
		fail_msg("%lld replicas %s/%s:\n got: %s\nwant: %s",
			 (long long)replicas, surge, unavail, got, want);
	if (r.result != result || r.peak_pods != want_peak ||
	    r.min_available != want_min)
		fail_msg("result %s peak %lld min %lld",
			 sim_result_name(r.result), (long long)r.peak_pods,
			 (long long)r.min_available);
	free(got);
	sim_result_release(&r);
	fx_free_rs(old);
	fx_free_deployment(d);
}

/* §8.5: 10 replicas, 25%/25%: at most 13 pods, at least 8 available. */
static void
test_trace_10_replicas(void **state)
{
	(void)state;
	check_trace(10, "25%", "25%", 1000,
		    "t=0 create 3; web-v1 10->8 | t=0 NEW 3->5 | "
		    "t=1 web-v1 8->3 | t=1 NEW 5->10 | t=2 web-v1 3->0",
		    SIM_COMPLETE, 13, 8);
}

/* §8.5 and the seed: 5 replicas, maxSurge 1, maxUnavailable 25% (= 1). */
static void
test_trace_5_replicas(void **state)
{
	(void)state;
	check_trace(5, "1", "25%", 1000,
		    "t=0 create 1; web-v1 5->4 | t=0 NEW 1->2 | "
		    "t=1 web-v1 4->2 | t=1 NEW 2->4 | t=2 web-v1 2->0 | "
		    "t=2 NEW 4->5",
		    SIM_COMPLETE, 6, 4);
}

/* The seed of workload-upgrade-policies: 4 replicas with the 25%
 * defaults: at most 5 pods, at least 3 available, a step of 1. */
static void
test_trace_4_replicas_defaults(void **state)
{
	(void)state;
	check_trace(4, NULL, NULL, 1000,
		    "t=0 create 1; web-v1 4->3 | t=0 NEW 1->2 | "
		    "t=1 web-v1 3->1 | t=1 NEW 2->4 | t=2 web-v1 1->0",
		    SIM_COMPLETE, 5, 3);
}

/* 2 replicas, 25%/25%: surge ceil(0.5) = 1, unavailable floor(0.5) = 0,
 * so two pods stay available throughout, one new pod at a time. */
static void
test_trace_2_replicas_defaults(void **state)
{
	(void)state;
	check_trace(2, NULL, NULL, 1000,
		    "t=0 create 1 | t=1 web-v1 2->1 | t=1 NEW 1->2 | "
		    "t=2 web-v1 1->0",
		    SIM_COMPLETE, 3, 2);
}

/* §8.5: the new pods never become ready. */
static void
test_trace_never_ready(void **state)
{
	(void)state;
	check_trace(10, "25%", "25%", -1,
		    "t=0 create 3; web-v1 10->8 | t=0 NEW 3->5",
		    SIM_DEADLINE_EXCEEDED, 13, 8);
	check_trace(5, "1", "25%", -1,
		    "t=0 create 1; web-v1 5->4 | t=0 NEW 1->2",
		    SIM_DEADLINE_EXCEEDED, 6, 4);
}

/* The deadline: 600 s after the last progress, detected at the requeue
 * one second later. */
static void
test_deadline_time(void **state)
{
	struct deployment *d = fx_deployment(10, "v2", NULL, NULL);
	struct replicaset *old = fx_rs(d, "web-v1", "v1", 10, 10, 1, 0);
	struct sim_result r;
	char *got = trace(d, &old, 1, -1, &r);
	const struct condition *c =
	    condition_get(&r.d.status.conditions, "Progressing");

	(void)state;
	assert_int_equal(r.result, SIM_DEADLINE_EXCEEDED);
	assert_int_equal(r.duration_ms, DTIME_SEC(601));
	assert_non_null(c);
	assert_string_equal(c->status, "False");
	assert_string_equal(c->reason, REASON_TIMED_OUT);
	assert_non_null(strstr(c->message, "has timed out progressing."));
	free(got);
	sim_result_release(&r);
	fx_free_rs(old);
	fx_free_deployment(d);
}

/* §9: Recreate scales old to 0, waits for the pods to go, then creates
 * the new RS at full size. */
static void
test_recreate(void **state)
{
	struct deployment *d = fx_deployment(3, "v2", NULL, NULL);
	struct replicaset *old;
	struct sim_result r;
	char *got;

	(void)state;
	fx_recreate(d);
	old = fx_rs(d, "web-v1", "v1", 3, 3, 1, 0);
	got = trace(d, &old, 1, 1000, &r);
	assert_string_equal(got, "t=0 web-v1 3->0 | t=0 create 3");
	assert_int_equal(r.result, SIM_COMPLETE);
	assert_int_equal(r.peak_pods, 3);
	assert_int_equal(r.min_available, 0);
	assert_false(r.budget.set);
	free(got);
	sim_result_release(&r);
	fx_free_rs(old);
	fx_free_deployment(d);
}

/* Recreate waits while an old pod is still terminating. */
static void
test_recreate_waits_for_terminating(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	struct pod *p = xcalloc(1, sizeof(*p));
	struct owner_ref *ref;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v2", NULL, NULL);
	fx_recreate(w.d);
	w.rs[w.nrs++] = fx_rs(w.d, "web-v1", "v1", 0, 0, 1, 0);
	w.rs[0]->status.replicas = 0;
	p->metadata.name = xstrdup("web-v1-abcde");
	p->metadata.deletion_timestamp = T0 + 5;
	strmap_set(&p->metadata.labels, "app", "web");
	p->status.phase = xstrdup("Running");
	ref = anylist_push((struct anylist *)&p->metadata.owner_references,
			   sizeof(*ref));
	ref->kind = xstrdup("ReplicaSet");
	ref->name = xstrdup("web-v1");
	ref->uid = xstrdup("uid-web-v1");
	ref->controller.set = ref->controller.v = true;
	w.pods[w.npods++] = p;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_null(strstr(acts, "create"));
	free(acts);
	plan_deploy_out_release(&out);
	/* Once the pod has failed, the new RS is created at full size. */
	free(p->status.phase);
	p->status.phase = xstrdup("Failed");
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_non_null(strstr(acts, "create rs 3"));
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §7.3: "proportional scaling: 7 -> 10" with surge 0. */
static void
test_proportional_7_to_10(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	const char *names[] = {"web-v1", "web-v2", "web-v3"};
	int64_t sizes[] = {2, 3, 2}, want[] = {3, 4, 3};
	size_t i;

	(void)state;
	w.d = fx_deployment(10, "v3", "0", "1");
	for (i = 0; i < 3; i++) {
		w.rs[i] =
		    fx_rs(w.d, names[i], i == 2 ? "v3" : names[i] + 4, sizes[i],
			  sizes[i], (int64_t)i + 1, (int64_t)i * 10);
		strmap_set(&w.rs[i]->metadata.annotations, ANN_DESIRED_REPLICAS,
			   "7");
		strmap_set(&w.rs[i]->metadata.annotations, ANN_MAX_REPLICAS,
			   "7");
	}
	w.nrs = 3;
	fx_plan(&w, &out);
	for (i = 0; i < 3; i++) {
		const struct replicaset *rs = fx_out_rs(&out, names[i]);

		assert_non_null(rs);
		if (rs_replicas(rs) != want[i])
			fail_msg("%s: %lld want %lld", names[i],
				 (long long)rs_replicas(rs),
				 (long long)want[i]);
		assert_string_equal(
		    strmap_get(&rs->metadata.annotations, ANN_DESIRED_REPLICAS),
		    "10");
		assert_string_equal(
		    strmap_get(&rs->metadata.annotations, ANN_MAX_REPLICAS),
		    "10");
	}
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §7.3 leftovers: three RSes of 1 (max 3); 3 -> 4 gives the +1 to the
 * newest, 3 -> 2 takes the -1 from the oldest. */
static void
test_proportional_leftover(void **state)
{
	int64_t target[] = {4, 2};
	const char *who[] = {"web-v3", "web-v1"};
	int64_t want[] = {2, 0};
	size_t k, i;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct fx_world w = {0};
		struct plan_deploy_out out;
		const char *names[] = {"web-v1", "web-v2", "web-v3"};

		w.d = fx_deployment(target[k], "v3", "0", "1");
		for (i = 0; i < 3; i++) {
			w.rs[i] =
			    fx_rs(w.d, names[i], i == 2 ? "v3" : names[i] + 4,
				  1, 1, (int64_t)i + 1, (int64_t)i * 10);
			strmap_set(&w.rs[i]->metadata.annotations,
				   ANN_DESIRED_REPLICAS, "3");
			strmap_set(&w.rs[i]->metadata.annotations,
				   ANN_MAX_REPLICAS, "3");
		}
		w.nrs = 3;
		fx_plan(&w, &out);
		for (i = 0; i < 3; i++) {
			const struct replicaset *rs = fx_out_rs(&out, names[i]);
			int64_t exp = strcmp(names[i], who[k]) ? 1 : want[k];

			if (rs_replicas(rs) != exp)
				fail_msg("3->%lld: %s has %lld, want %lld",
					 (long long)target[k], names[i],
					 (long long)rs_replicas(rs),
					 (long long)exp);
		}
		plan_deploy_out_release(&out);
		fx_world_release(&w);
	}
}

/* §7.1: "saturated but broken new replica set does not affect old pods":
 * a full-size new RS whose pods are not available is not saturated. */
static void
test_saturated_but_broken(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;

	(void)state;
	w.d = fx_deployment(2, "v2", "1", "1");
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 1, 1, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 2, 0, 2, 10);
	strmap_set(&w.rs[1]->metadata.annotations, ANN_DESIRED_REPLICAS, "2");
	strmap_set(&w.rs[0]->metadata.annotations, ANN_DESIRED_REPLICAS, "3");
	w.nrs = 2;
	w.d->spec.paused = true; /* the scale() path */
	fx_plan(&w, &out);
	assert_int_equal(rs_replicas(fx_out_rs(&out, "web-v1")), 1);
	plan_deploy_out_release(&out);
	/* Saturated and available: old RSes go to 0. */
	w.rs[1]->status.available_replicas = 2;
	fx_plan(&w, &out);
	assert_int_equal(rs_replicas(fx_out_rs(&out, "web-v1")), 0);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §5/§13: r1, r2, r3 (current); a template back to r2's re-uses r2,
 * which becomes revision 4 with revision-history "2"; no RS is created. */
static void
test_rollback_renumbers(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	const struct replicaset *r2;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v2", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 0, 0, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 0, 0, 2, 10);
	w.rs[2] = fx_rs(w.d, "web-v3", "v3", 3, 3, 3, 20);
	w.nrs = 3;
	strmap_set(&w.d->metadata.annotations, ANN_REVISION, "3");
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_null(strstr(acts, "create"));
	r2 = fx_out_rs(&out, "web-v2");
	assert_string_equal(strmap_get(&r2->metadata.annotations, ANN_REVISION),
			    "4");
	assert_string_equal(
	    strmap_get(&r2->metadata.annotations, ANN_REVISION_HISTORY), "2");
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* Deleted RSes free their numbers: the next RS reuses the highest. */
static void
test_new_revision_is_max_plus_one(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	size_t i;

	(void)state;
	w.d = fx_deployment(3, "v9", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 3, 3, 5, 0);
	w.nrs = 1;
	fx_plan(&w, &out);
	for (i = 0; i < out.nrs; i++)
		if (strcmp(out.rs[i]->metadata.name, "web-v1"))
			assert_string_equal(
			    strmap_get(&out.rs[i]->metadata.annotations,
				       ANN_REVISION),
			    "6");
	assert_string_equal(
	    strmap_get(&out.d.metadata.annotations, ANN_REVISION), "6");
	assert_int_equal(out.nrs, 2);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §14: limit 1 with old revisions 1 (has pods), 2, 3: only 2 goes. */
static void
test_history_cleanup_window(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v4", NULL, NULL);
	w.d->spec.revision_history_limit.v = 1;
	w.d->spec.paused = true;
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 1, 1, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 0, 0, 2, 10);
	w.rs[2] = fx_rs(w.d, "web-v3", "v3", 0, 0, 3, 20);
	w.rs[3] = fx_rs(w.d, "web-v4", "v4", 2, 2, 4, 30);
	w.nrs = 4;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_non_null(strstr(acts, "delete rs web-v2"));
	assert_null(strstr(acts, "delete rs web-v3"));
	assert_null(strstr(acts, "delete rs web-v1"));
	assert_null(fx_out_rs(&out, "web-v2"));
	assert_non_null(fx_out_rs(&out, "web-v3"));
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* History cleanup after a rollout needs the stored status to say
 * complete; limit 0 deletes every empty old RS. */
static void
test_history_after_complete(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v3", NULL, NULL);
	w.d->spec.revision_history_limit.v = 0;
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 0, 0, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 0, 0, 2, 10);
	w.rs[2] = fx_rs(w.d, "web-v3", "v3", 3, 3, 3, 20);
	w.nrs = 3;
	fx_plan(&w, &out); /* stored status not complete yet */
	acts = fx_actions(&out);
	assert_null(strstr(acts, "delete"));
	free(acts);
	plan_deploy_out_release(&out);
	w.d->status.replicas = w.d->status.updated_replicas = 3;
	w.d->status.available_replicas = 3;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_non_null(strstr(acts, "delete rs web-v1; delete rs web-v2"));
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §12: paused: no new RS, a DeploymentPaused condition; resuming sets
 * DeploymentResumed. */
static void
test_pause_resume(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	const struct condition *c;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v2", NULL, NULL);
	w.d->spec.paused = true;
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 3, 3, 1, 0);
	w.nrs = 1;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_null(strstr(acts, "create"));
	c = condition_get(&out.d.status.conditions, "Progressing");
	assert_string_equal(c->status, "Unknown");
	assert_string_equal(c->reason, REASON_PAUSED);
	free(acts);
	/* resume from the paused result */
	deployment_release(w.d);
	deployment_copy(w.d, &out.d);
	plan_deploy_out_release(&out);
	w.d->spec.paused = false;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_non_null(strstr(acts, "create rs 1"));
	c = condition_get(&out.d.status.conditions, "Progressing");
	/* Resumed, then the new RS was created in the same sync. */
	assert_string_equal(c->reason, REASON_NEW_RS_CREATED);
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §11.5: a stuck rollout is requeued for its deadline. */
static void
test_requeue_for_deadline(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;

	(void)state;
	w.d = fx_deployment(10, "v2", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 8, 8, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 5, 0, 2, 10);
	strmap_set(&w.rs[1]->metadata.annotations, ANN_DESIRED_REPLICAS, "10");
	strmap_set(&w.rs[0]->metadata.annotations, ANN_DESIRED_REPLICAS, "10");
	w.nrs = 2;
	strmap_set(&w.d->metadata.annotations, ANN_REVISION, "2");
	w.d->status.replicas = 13;
	w.d->status.updated_replicas = 5;
	w.d->status.ready_replicas = 8;
	w.d->status.available_replicas = 8;
	w.d->status.unavailable_replicas = 5;
	set_condition(&w.d->status.conditions, "Available", "True",
		      REASON_MIN_AVAILABLE,
		      "Deployment has minimum availability.", T0);
	set_condition(&w.d->status.conditions, "Progressing", "True",
		      REASON_RS_UPDATED,
		      "ReplicaSet \"web-v2\" is progressing.", T0);
	w.now = T0 + DTIME_SEC(100);
	fx_plan(&w, &out);
	assert_int_equal(out.actions.n, 0);
	assert_int_equal(out.requeue_after_ms, DTIME_SEC(501));
	plan_deploy_out_release(&out);
	/* Less than a second left: at once (requeueStuckDeployment's
	 * `after < time.Second`), measured to the millisecond; from one
	 * second on: after + 1 s. */
	{
		static const struct {
			int64_t left_ms, want_ms;
		} cases[] = {
		    {1500, 2500}, {1001, 2001}, {1000, 2000}, {999, 0},
		    {500, 0},     {1, 0},       {0, 0},
		};
		size_t i;

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			w.now = T0 + DTIME_SEC(600) - cases[i].left_ms;
			fx_plan(&w, &out);
			if (out.requeue_after_ms != cases[i].want_ms)
				fail_msg("%lld ms left: requeue %lld, want "
					 "%lld",
					 (long long)cases[i].left_ms,
					 (long long)out.requeue_after_ms,
					 (long long)cases[i].want_ms);
			assert_int_equal(out.actions.n, 0);
			plan_deploy_out_release(&out);
		}
	}
	/* now a nanosecond past 18:49:59 against a deadline at 18:50:00:
	 * 0.999999999 s left, under a second: at once (--now keeps the
	 * precision the comparison needs, dtime_parse_now) */
	{
		dtime last, now;

		assert_int_equal(dtime_parse("2017-02-15T18:40:00Z", &last), 0);
		assert_int_equal(
		    dtime_parse_now("2017-02-15T18:49:59.000000001Z", &now), 0);
		((struct condition *)condition_get(&w.d->status.conditions,
						   "Progressing"))
		    ->last_update_time = last;
		w.now = now;
		fx_plan(&w, &out);
		assert_int_equal(out.requeue_after_ms, 0);
		plan_deploy_out_release(&out);
		assert_int_equal(dtime_parse_now("2017-02-15T18:49:59Z", &now),
				 0);
		w.now = now; /* a whole second: after + 1 s */
		fx_plan(&w, &out);
		assert_int_equal(out.requeue_after_ms, 2000);
		plan_deploy_out_release(&out);
	}
	/* a lastUpdateTime with a fraction: 0.3 s left */
	((struct condition *)condition_get(&w.d->status.conditions,
					   "Progressing"))
	    ->last_update_time = T0 + 700;
	w.now = T0 + DTIME_SEC(600) + 400;
	fx_plan(&w, &out);
	assert_int_equal(out.requeue_after_ms, 0);
	plan_deploy_out_release(&out);
	w.now = T0 + DTIME_SEC(599) + 400; /* 1.3 s left */
	fx_plan(&w, &out);
	assert_int_equal(out.requeue_after_ms, 2300);
	plan_deploy_out_release(&out);
	((struct condition *)condition_get(&w.d->status.conditions,
					   "Progressing"))
	    ->last_update_time = T0;
	w.now = T0 + DTIME_SEC(601);
	fx_plan(&w, &out);
	assert_string_equal(
	    condition_get(&out.d.status.conditions, "Progressing")->reason,
	    REASON_TIMED_OUT);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §10: unavailableReplicas comes from desired RS sizes. */
static void
test_status_fields(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;

	(void)state;
	w.d = fx_deployment(10, "v2", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 8, 8, 1, 0);
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 5, 1, 2, 10);
	w.rs[1]->status.replicas = 4; /* one pod still being created */
	strmap_set(&w.rs[1]->metadata.annotations, ANN_DESIRED_REPLICAS, "10");
	strmap_set(&w.rs[0]->metadata.annotations, ANN_DESIRED_REPLICAS, "10");
	w.nrs = 2;
	fx_plan(&w, &out);
	assert_int_equal(out.d.status.replicas, 12);
	assert_int_equal(out.d.status.updated_replicas, 4);
	assert_int_equal(out.d.status.available_replicas, 9);
	assert_int_equal(out.d.status.unavailable_replicas, 13 - 9);
	assert_int_equal(out.d.status.observed_generation, 1);
	assert_string_equal(
	    condition_get(&out.d.status.conditions, "Available")->status,
	    "True");
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §4: an orphan RS matching the selector is adopted; one of ours whose
 * labels no longer match is released; a hash collision bumps
 * collisionCount. */
static void
test_claim_and_collision(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	const struct replicaset *rs;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v1", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 3, 3, 1, 0);
	meta_remove_owner_refs(&w.rs[0]->metadata, "Deployment", "uid-web",
			       "web");
	w.rs[1] = fx_rs(w.d, "web-other", "v0", 0, 0, 0, 0);
	strmap_set(&w.rs[1]->metadata.labels, "app", "other");
	w.nrs = 2;
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	assert_non_null(strstr(acts, "update rs web-v1"));
	assert_non_null(strstr(acts, "update rs web-other"));
	rs = fx_out_rs(&out, "web-v1");
	assert_non_null(meta_controller_ref(&rs->metadata));
	assert_null(
	    meta_controller_ref(&((const struct replicaset *)plan_deploy_object(
				      &out, "ReplicaSet", "web-other"))
				     ->metadata));
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);

	/* Collision: the hash name is taken by a different template. */
	w.d = fx_deployment(3, "v2", NULL, NULL);
	fx_plan(&w, &out);
	assert_int_equal(out.nrs, 1);
	w.rs[0] = fx_rs(w.d, out.rs[0]->metadata.name, "v-other", 0, 0, 0, 0);
	meta_remove_owner_refs(&w.rs[0]->metadata, "Deployment", "uid-web",
			       "web");
	strmap_set(&w.rs[0]->metadata.labels, "app", "elsewhere");
	w.nrs = 1;
	plan_deploy_out_release(&out);
	fx_plan(&w, &out);
	assert_non_null(out.error);
	assert_true(out.d.status.collision_count.set);
	assert_int_equal(out.d.status.collision_count.v, 1);
	plan_deploy_out_release(&out);
	/* With the bumped count the next sync picks another name. */
	w.d->status.collision_count = (struct opt_int){.set = true, .v = 1};
	fx_plan(&w, &out);
	assert_null(out.error);
	assert_int_equal(out.nrs, 1);
	assert_string_not_equal(out.rs[0]->metadata.name,
				w.rs[0]->metadata.name);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* §13.2: the legacy rollbackTo annotation restores the template of the
 * revision and is removed; nothing is scaled in that sync. */
static void
test_legacy_rollback(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;
	char *acts;

	(void)state;
	w.d = fx_deployment(3, "v2", NULL, NULL);
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 0, 0, 1, 0);
	strmap_set(&w.rs[0]->metadata.annotations, ANN_CHANGE_CAUSE, "first");
	w.rs[1] = fx_rs(w.d, "web-v2", "v2", 3, 3, 2, 10);
	w.nrs = 2;
	strmap_set(&w.d->metadata.annotations, ANN_ROLLBACK_TO, "0");
	fx_plan(&w, &out);
	acts = fx_actions(&out);
	/* The revision sync of the new RS writes status first (§4). */
	assert_string_equal(acts, "status; update deploy web");
	assert_null(strmap_get(&out.d.metadata.annotations, ANN_ROLLBACK_TO));
	assert_string_equal(
	    strmap_get(&out.d.metadata.annotations, ANN_CHANGE_CAUSE), "first");
	assert_string_equal(out.d.spec.template.spec.containers.v[0].image,
			    "v1");
	assert_null(strmap_get(&out.d.spec.template.metadata.labels,
			       LABEL_POD_TEMPLATE_HASH));
	assert_string_equal(out.events.v[out.events.n - 1].reason,
			    "DeploymentRollback");
	free(acts);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* minReadySeconds is kept equal on the new RS. */
static void
test_min_ready_propagates(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;

	(void)state;
	w.d = fx_deployment(3, "v1", NULL, NULL);
	w.d->spec.min_ready_seconds = 7;
	w.rs[0] = fx_rs(w.d, "web-v1", "v1", 3, 3, 1, 0);
	w.nrs = 1;
	fx_plan(&w, &out);
	assert_int_equal(fx_out_rs(&out, "web-v1")->spec.min_ready_seconds, 7);
	assert_int_equal(out.actions.v[0].op, ACT_UPDATE);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

/* Empty selector: a warning event, nothing else. */
static void
test_selecting_all(void **state)
{
	struct fx_world w = {0};
	struct plan_deploy_out out;

	(void)state;
	w.d = fx_deployment(3, "v1", NULL, NULL);
	strmap_release(&w.d->spec.selector->match_labels);
	w.d->metadata.generation = 2;
	fx_plan(&w, &out);
	assert_int_equal(out.events.n, 1);
	assert_string_equal(out.events.v[0].reason, "SelectingAll");
	assert_int_equal(out.d.status.observed_generation, 2);
	assert_int_equal(out.nrs, 0);
	plan_deploy_out_release(&out);
	fx_world_release(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trace_10_replicas),
	    cmocka_unit_test(test_trace_5_replicas),
	    cmocka_unit_test(test_trace_4_replicas_defaults),
	    cmocka_unit_test(test_trace_2_replicas_defaults),
	    cmocka_unit_test(test_trace_never_ready),
	    cmocka_unit_test(test_deadline_time),
	    cmocka_unit_test(test_recreate),
	    cmocka_unit_test(test_recreate_waits_for_terminating),
	    cmocka_unit_test(test_proportional_7_to_10),
	    cmocka_unit_test(test_proportional_leftover),
	    cmocka_unit_test(test_saturated_but_broken),
	    cmocka_unit_test(test_rollback_renumbers),
	    cmocka_unit_test(test_new_revision_is_max_plus_one),
	    cmocka_unit_test(test_history_cleanup_window),
	    cmocka_unit_test(test_history_after_complete),
	    cmocka_unit_test(test_pause_resume),
	    cmocka_unit_test(test_requeue_for_deadline),
	    cmocka_unit_test(test_status_fields),
	    cmocka_unit_test(test_claim_and_collision),
	    cmocka_unit_test(test_legacy_rollback),
	    cmocka_unit_test(test_min_ready_propagates),
	    cmocka_unit_test(test_selecting_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
