/* prop_plan_deploy.c - property tests of the Deployment planner on seeded
 * random worlds (Nomad's reconciler property tests, in C).
 *
 * Each world: a Deployment of 0-40 replicas with random maxSurge and
 * maxUnavailable (integers or percents, never both zero), a fully
 * available old ReplicaSet, 0-12 empty older revisions, a random history
 * limit, pods ready 0-3 s after creation. Properties, checked on every
 * simulated step:
 *   P1 pods never exceed replicas + maxSurge;
 *   P2 the planner's own scale-downs never leave fewer than
 *      replicas - maxUnavailable available (minReadySeconds 0);
 *   P3 the rollout completes when pods become ready;
 *   P4 at the end at most revisionHistoryLimit old ReplicaSets remain;
 *   P5 the same world simulates to the same steps (determinism).
 * The seed of a failing world is printed; rerun one world with
 * PROP_SEED=<seed>. PROP_ITERATIONS sets the number of worlds. */
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
#include "rng.h"
#include "sim.h"
#include "xalloc.h"

struct world {
	struct deployment *d;
	struct replicaset *rs[16];
	size_t nrs;
	int64_t ready_ms;
};

static const char *
random_bound(struct rng *r, char *buf, size_t len)
{
	if (rng_range(r, 0, 1))
		snprintf(buf, len, "%lld", (long long)rng_range(r, 0, 5));
	else
		snprintf(buf, len, "%lld%%", (long long)rng_range(r, 0, 100));
	return buf;
}

static void
build_world(uint64_t seed, struct world *w)
{
	struct rng r;
	char sb[16], ub[16], name[32], image[32];
	int64_t replicas, old, i;

	rng_seed(&r, seed);
	memset(w, 0, sizeof(*w));
	replicas = rng_range(&r, 0, 40);
	random_bound(&r, sb, sizeof(sb));
	do {
		random_bound(&r, ub, sizeof(ub));
	} while (atoi(sb) == 0 && atoi(ub) == 0);
	w->d = fx_deployment(replicas, "new", sb, ub);
	w->d->spec.revision_history_limit.v = rng_range(&r, 0, 5);
	old = rng_range(&r, 0, 12);
	for (i = 0; i < old; i++) {
		snprintf(name, sizeof(name), "web-r%lld", (long long)i + 1);
		snprintf(image, sizeof(image), "img-%lld", (long long)i + 1);
		w->rs[w->nrs++] =
		    fx_rs(w->d, name, image, 0, 0, i + 1, (int64_t)i * 10);
	}
	snprintf(name, sizeof(name), "web-r%lld", (long long)old + 1);
	w->rs[w->nrs++] = fx_rs(w->d, name, "current", replicas, replicas,
				old + 1, old * 10 + 5);
	strmap_set(&w->rs[w->nrs - 1]->metadata.annotations,
		   ANN_DESIRED_REPLICAS, "x"); /* no scaling event */
	strmap_del(&w->rs[w->nrs - 1]->metadata.annotations,
		   ANN_DESIRED_REPLICAS);
	w->ready_ms = rng_range(&r, 0, 3) * 1000;
	w->d->status.replicas = w->d->status.updated_replicas = replicas;
	w->d->status.available_replicas = w->d->status.ready_replicas =
	    replicas;
}

static void
free_world(struct world *w)
{
	size_t i;

	for (i = 0; i < w->nrs; i++)
		fx_free_rs(w->rs[i]);
	fx_free_deployment(w->d);
}

static bool
same_steps(const struct sim_result *a, const struct sim_result *b)
{
	size_t i, j;

	if (a->nsteps != b->nsteps || a->duration_ms != b->duration_ms)
		return false;
	for (i = 0; i < a->nsteps; i++) {
		const struct sim_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->t_ms != y->t_ms || x->actions.n != y->actions.n ||
		    memcmp(&x->pods, &y->pods, sizeof(x->pods)))
			return false;
		for (j = 0; j < x->actions.n; j++)
			if (x->actions.v[j].op != y->actions.v[j].op ||
			    strcmp(x->actions.v[j].name,
				   y->actions.v[j].name) ||
			    x->actions.v[j].to != y->actions.v[j].to)
				return false;
	}
	return true;
}

static void
check_world(uint64_t seed)
{
	struct world w;
	struct sim_opts o = {
	    .start = T0, .max_ms = DTIME_SEC(7200), .max_steps = 20000};
	struct sim_result r, r2;
	int64_t replicas, surge, unavail;
	size_t i, old_left = 0;

	build_world(seed, &w);
	o.pod_ready_ms = w.ready_ms;
	replicas = deploy_replicas(w.d);
	surge = max_surge(w.d);
	unavail = max_unavailable(w.d);
	assert_int_equal(sim_run(w.d, (const struct replicaset *const *)w.rs,
				 w.nrs, NULL, 0, &o, &r),
			 0);
	for (i = 0; i < r.nsteps; i++)
		if (r.steps[i].pods.total > replicas + surge)
			fail_msg("seed %llu: P1 step %zu has %lld pods > %lld",
				 (unsigned long long)seed, i,
				 (long long)r.steps[i].pods.total,
				 (long long)(replicas + surge));
	if (r.min_available_after_scale_down != INT64_MAX &&
	    r.min_available_after_scale_down < replicas - unavail)
		fail_msg("seed %llu: P2 %lld available after a scale-down < "
			 "%lld",
			 (unsigned long long)seed,
			 (long long)r.min_available_after_scale_down,
			 (long long)(replicas - unavail));
	if (r.result != SIM_COMPLETE)
		fail_msg("seed %llu: P3 result %s after %lld ms",
			 (unsigned long long)seed, sim_result_name(r.result),
			 (long long)r.duration_ms);
	for (i = 0; i < r.nrs; i++)
		if (!rs_matches_template(&r.d, r.rs[i]))
			old_left++;
	if ((int64_t)old_left > w.d->spec.revision_history_limit.v)
		fail_msg("seed %llu: P4 %zu old ReplicaSets left, limit %lld",
			 (unsigned long long)seed, old_left,
			 (long long)w.d->spec.revision_history_limit.v);
	assert_int_equal(sim_run(w.d, (const struct replicaset *const *)w.rs,
				 w.nrs, NULL, 0, &o, &r2),
			 0);
	if (!same_steps(&r, &r2))
		fail_msg("seed %llu: P5 two runs differ",
			 (unsigned long long)seed);
	sim_result_release(&r);
	sim_result_release(&r2);
	free_world(&w);
}

static void
test_random_worlds(void **state)
{
	const char *one = getenv("PROP_SEED");
	const char *iters = getenv("PROP_ITERATIONS");
	uint64_t n = iters ? strtoull(iters, NULL, 10) : 300, i;

	(void)state;
	if (one) {
		check_world(strtoull(one, NULL, 10));
		return;
	}
	for (i = 1; i <= n; i++)
		check_world(i * 7919);
}

/* Scaling during a rollout keeps the bounds of the new size. */
static void
test_scale_mid_rollout(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 50; seed++) {
		struct world w;
		struct sim_opts o = {.start = T0,
				     .pod_ready_ms = -1,
				     .max_ms = DTIME_SEC(10),
				     .max_steps = 1000};
		struct sim_result r, r2;
		struct replicaset *mid[16];
		size_t i;
		struct rng g;

		build_world(seed, &w);
		rng_seed(&g, seed);
		w.d->spec.progress_deadline_seconds.v = 5;
		/* run until stuck (new pods never ready), then resize */
		assert_int_equal(sim_run(w.d,
					 (const struct replicaset *const *)w.rs,
					 w.nrs, NULL, 0, &o, &r),
				 0);
		for (i = 0; i < r.nrs; i++)
			mid[i] = r.rs[i];
		r.d.spec.replicas.v = rng_range(&g, 0, 50);
		o.pod_ready_ms = 1000;
		o.start = T0 + r.duration_ms;
		o.max_ms = DTIME_SEC(7200);
		r.d.spec.progress_deadline_seconds.v = 600;
		assert_int_equal(sim_run(&r.d,
					 (const struct replicaset *const *)mid,
					 r.nrs, NULL, 0, &o, &r2),
				 0);
		for (i = 0; i < r2.nsteps; i++)
			if (r2.steps[i].pods.total >
			    deploy_replicas(&r.d) + max_surge(&r.d) +
				deploy_replicas(w.d) + max_surge(w.d))
				fail_msg("seed %llu: too many pods",
					 (unsigned long long)seed);
		if (r2.result != SIM_COMPLETE && getenv("PROP_DEBUG")) {
			for (i = 0; i < r2.nsteps; i++) {
				size_t j;

				fprintf(stderr,
					"t=%lld pods %lld avail %lld old %lld "
					"new %lld:",
					(long long)r2.steps[i].t_ms,
					(long long)r2.steps[i].pods.total,
					(long long)r2.steps[i].pods.available,
					(long long)r2.steps[i].pods.old,
					(long long)r2.steps[i].pods.new_);
				for (j = 0; j < r2.steps[i].actions.n; j++)
					fprintf(
					    stderr, " %s %s %lld->%lld",
					    action_op_name(
						r2.steps[i].actions.v[j].op),
					    r2.steps[i].actions.v[j].name,
					    (long long)r2.steps[i]
						.actions.v[j]
						.from,
					    (long long)r2.steps[i]
						.actions.v[j]
						.to);
				fprintf(stderr, "\n");
			}
			fprintf(stderr, "replicas %lld -> %lld\n",
				(long long)deploy_replicas(w.d),
				(long long)deploy_replicas(&r.d));
			for (i = 0; i < r2.nrs; i++)
				fprintf(
				    stderr,
				    "rs %s spec %lld status %lld avail %lld\n",
				    r2.rs[i]->metadata.name,
				    (long long)rs_replicas(r2.rs[i]),
				    (long long)r2.rs[i]->status.replicas,
				    (long long)r2.rs[i]
					->status.available_replicas);
		}
		if (r2.result != SIM_COMPLETE)
			fail_msg("seed %llu: resized rollout: %s",
				 (unsigned long long)seed,
				 sim_result_name(r2.result));
		sim_result_release(&r2);
		sim_result_release(&r);
		free_world(&w);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_worlds),
	    cmocka_unit_test(test_scale_mid_rollout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
