/* plan.c - planner benchmark: one sync of big worlds, a whole simulation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "defaults.h"
#include "fixture.h"
#include "plan_deploy.h"
#include "plan_rs.h"
#include "pod_facts.h"
#include "sim.h"
#include "xalloc.h"

#define NOW (T0 + DTIME_SEC(3600))

#define SYNC_PODS      100000 /* pods in the plan_deploy worlds */
#define SYNC_OLD_RS    10     /* old ReplicaSets they are spread over */
#define SIM_REPLICAS   10000  /* replicas of the simulated rollout */
#define RS_PODS        10000  /* pods of the plan_rs world */
#define RS_SCALE_DOWN  500    /* and how many it loses */
#define RS_BIG_PODS    100000 /* pods of the daemon-like plan_rs world */
#define SYNC_TARGET_MS 5.0    /* targets, printed next to the figures */
#define SIM_TARGET_MS  1000.0
/* What tests/e2e/test_huge_scale.py allows one loop turn of the daemon,
 * a plan of 100,000 pods included. */
#define TURN_BOUND_MS 100.0

/* A world: one Deployment, its ReplicaSets and their pods. */
struct world {
	struct deployment *d;
	struct replicaset *rs[SYNC_OLD_RS + 1];
	size_t nrs;
	struct pod **pods;
	size_t npods;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Pod number i of rs, Running and Ready since a time that varies with i,
 * on one of 100 nodes, so that the victim ranking has work to do. */
static struct pod *
pod_new(const struct replicaset *rs, size_t i)
{
	struct pod *p = xcalloc(1, sizeof(*p));
	struct condition c = {.type = "Ready", .status = "True"};
	char buf[128];

	rs_new_pod(rs, p);
	snprintf(buf, sizeof(buf), "%s-%06zu", rs->metadata.name, i);
	p->metadata.name = xstrdup(buf);
	snprintf(buf, sizeof(buf), "uid-%s-%zu", rs->metadata.name, i);
	p->metadata.uid = xstrdup(buf);
	p->metadata.creation_timestamp = rs->metadata.creation_timestamp;
	snprintf(buf, sizeof(buf), "node-%zu", i % 100);
	p->spec.node_name = xstrdup(buf);
	p->status.phase = xstrdup("Running");
	c.last_transition_time =
	    rs->metadata.creation_timestamp + DTIME_SEC((int64_t)(i % 977));
	condition_append(&p->status.conditions, &c);
	return p;
}

static void
world_add_pods(struct world *w, const struct replicaset *rs, size_t n)
{
	size_t i;

	w->pods = xrealloc(w->pods, (w->npods + n) * sizeof(*w->pods));
	for (i = 0; i < n; i++)
		w->pods[w->npods++] = pod_new(rs, i);
}

/* The Deployment with SYNC_PODS pods spread over SYNC_OLD_RS old
 * ReplicaSets (image web:v0..v9) and a new template nobody runs yet.
 * With `drained`, the old ReplicaSets are at 0 and the pods belong to the
 * current ReplicaSet instead (a steady Recreate Deployment). */
static void
world_init(struct world *w, const char *strategy, bool drained)
{
	int64_t per = SYNC_PODS / SYNC_OLD_RS;
	size_t i;

	memset(w, 0, sizeof(*w));
	/* template web:new, 25%/25%, at its second generation */
	w->d = fx_deployment(SYNC_PODS, "web:new", NULL, NULL);
	w->d->metadata.generation = 2;
	if (!strcmp(strategy, "Recreate"))
		fx_recreate(w->d);
	for (i = 0; i < SYNC_OLD_RS; i++) {
		char name[32], image[32];
		struct replicaset *rs;

		snprintf(name, sizeof(name), "web-old%zu", i);
		snprintf(image, sizeof(image), "web:v%zu", i);
		rs = fx_rs(w->d, name, image, drained ? 0 : per,
			   drained ? 0 : per, (int64_t)i + 1, (int64_t)i * 60);
		w->rs[w->nrs++] = rs;
		if (!drained)
			world_add_pods(w, rs, (size_t)per);
	}
	if (drained) {
		struct replicaset *cur =
		    fx_rs(w->d, "web-new", "web:new", SYNC_PODS, SYNC_PODS,
			  SYNC_OLD_RS + 1, SYNC_OLD_RS * 60);

		w->rs[w->nrs++] = cur;
		world_add_pods(w, cur, SYNC_PODS);
	}
}

static void
world_release(struct world *w)
{
	size_t i;

	fx_free_deployment(w->d);
	for (i = 0; i < w->nrs; i++) {
		replicaset_release(w->rs[i]);
		free(w->rs[i]);
	}
	for (i = 0; i < w->npods; i++) {
		pod_release(w->pods[i]);
		free(w->pods[i]);
	}
	free(w->pods);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct timing {
	double median, p99, max;
	size_t n;
};

/* Sorts the samples and takes the median and the 99th percentile. */
static struct timing
timing_of(double *ms, size_t n)
{
	struct timing t = {0};

	qsort(ms, n, sizeof(*ms), cmp_double);
	t.n = n;
	t.median = ms[n / 2];
	t.p99 = ms[(n * 99 + 99) / 100 - 1];
	t.max = ms[n - 1];
	return t;
}

static void
print_sync(const char *what, struct timing t, double target_ms)
{
	printf("%-44s median %8.3f ms  p99 %8.3f ms  (n=%zu)  "
	       "target <= %.0f ms  %s\n",
	       what, t.median, t.p99, t.n, target_ms,
	       t.p99 <= target_ms ? "ok" : "OVER");
}

/* Times plan_deploy over w: the input is never modified, so every
 * iteration plans the same sync. Runs at least min_iter times and for
 * about budget_ms. */
static struct timing
time_plan_deploy(struct world *w, const char *first_action)
{
	enum { MAX_ITER = 2000, MIN_ITER = 50 };
	static double ms[MAX_ITER];
	struct plan_deploy_in in = {
	    .d = w->d,
	    .rs = (const struct replicaset *const *)w->rs,
	    .nrs = w->nrs,
	    .pods = (const struct pod *const *)w->pods,
	    .npods = w->npods,
	    .now = NOW,
	};
	double start = now_ms();
	size_t n = 0;

	while (n < MAX_ITER && (n < MIN_ITER || now_ms() - start < 2000)) {
		struct plan_deploy_out out;
		double t0 = now_ms();

		plan_deploy(&in, &out);
		ms[n++] = now_ms() - t0;
		if (n == 1 && out.actions.n > 0 && first_action)
			printf("  (%s: %zu actions, first: %s %s %s)\n",
			       first_action, out.actions.n,
			       action_op_name(out.actions.v[0].op),
			       out.actions.v[0].kind,
			       out.actions.v[0].name ? out.actions.v[0].name
						     : "");
		plan_deploy_out_release(&out);
	}
	return timing_of(ms, n);
}

static void
bench_deploy(const char *strategy, bool drained, const char *label)
{
	struct world w;
	double t0 = now_ms();
	struct timing t;

	world_init(&w, strategy, drained);
	printf("  (built %zu pods, %zu ReplicaSets in %.0f ms)\n", w.npods,
	       w.nrs, now_ms() - t0);
	t = time_plan_deploy(&w, label);
	print_sync(label, t, SYNC_TARGET_MS);
	world_release(&w);
}

static void
bench_sim(void)
{
	struct deployment *d;
	struct replicaset *old;
	struct sim_opts o = {
	    .pod_ready_ms = 1000,
	    .start = NOW,
	    .max_ms = DTIME_SEC(30LL * 24 * 3600),
	    .max_steps = 1000000,
	};
	struct sim_result r;
	double t0, ms;

	d = fx_deployment(SIM_REPLICAS, "web:new", NULL, NULL);
	d->metadata.generation = 2;
	old = fx_rs(d, "web-old", "web:old", SIM_REPLICAS, SIM_REPLICAS, 1, 0);
	t0 = now_ms();
	if (sim_run(d, (const struct replicaset *const *)&old, 1, NULL, 0, &o,
		    &r) != 0) {
		fprintf(stderr, "bench: sim_run refused the world\n");
		exit(1);
	}
	ms = now_ms() - t0;
	printf("%-44s %8.1f ms wall  (%zu steps, %s, %.0f s virtual)  "
	       "target <= %.0f ms  %s\n",
	       "sim_run 10000 replicas 25%/25%, ready 1 s", ms, r.nsteps,
	       sim_result_name(r.result), (double)r.duration_ms / 1e3,
	       SIM_TARGET_MS, ms <= SIM_TARGET_MS ? "ok" : "OVER");
	sim_result_release(&r);
	fx_free_rs(old);
	fx_free_deployment(d);
}

static void
bench_rs(void)
{
	enum { ITER = 200 };
	static double ms[ITER];
	struct deployment *d;
	struct replicaset *rs;
	struct world w = {0};
	struct plan_rs_in in;
	size_t i, victims = 0;
	struct timing t;

	d = fx_deployment(RS_PODS, "web:new", NULL, NULL);
	rs = fx_rs(d, "web-a", "web:new", RS_PODS, RS_PODS, 1, 0);
	world_add_pods(&w, rs, RS_PODS);
	rs->spec.replicas.v = RS_PODS - RS_SCALE_DOWN;
	in = (struct plan_rs_in){
	    .rs = rs,
	    .pods = (const struct pod *const *)w.pods,
	    .npods = w.npods,
	    .now = NOW,
	};
	for (i = 0; i < ITER; i++) {
		struct plan_rs_out out;
		double t0 = now_ms();

		plan_rs(&in, &out);
		ms[i] = now_ms() - t0;
		victims = out.nvictims;
		plan_rs_out_release(&out);
	}
	t = timing_of(ms, ITER);
	printf("%-44s median %8.3f ms  p99 %8.3f ms  (n=%zu, %zu victims)  "
	       "target <= %.0f ms  %s\n",
	       "plan_rs 10000 pods, scale down by 500", t.median, t.p99, t.n,
	       victims, SYNC_TARGET_MS,
	       t.p99 <= SYNC_TARGET_MS ? "ok" : "OVER");
	for (i = 0; i < w.npods; i++) {
		pod_release(w.pods[i]);
		free(w.pods[i]);
	}
	free(w.pods);
	fx_free_rs(rs);
	fx_free_deployment(d);
}

/* One plan_rs sync as the ReplicaSet controller makes it in the daemon:
 * RS_BIG_PODS pods, their facts derived once and each allocated beside its
 * pod (as the pod cache keeps them), the ReplicaSet's spec `delta` away
 * from its pod count (-500: 500 victims to rank; +500: 500 to create).
 * What a loop turn holds while the ReplicaSet of a Deployment scaled to
 * 100,000 plans (tests/e2e/test_huge_scale.py). */
static void
bench_rs_cached(int64_t delta, const char *label)
{
	enum { ITER = 30 };
	static double ms[ITER];
	struct deployment *d;
	struct replicaset *rs;
	struct world w = {0};
	struct pod_facts **facts;
	struct plan_rs_in in;
	size_t i, victims = 0;
	int64_t create = 0;
	struct timing t;

	d = fx_deployment(RS_BIG_PODS, "web:new", NULL, NULL);
	rs = fx_rs(d, "web-a", "web:new", RS_BIG_PODS, RS_BIG_PODS, 1, 0);
	facts = xmalloc(RS_BIG_PODS * sizeof(*facts));
	w.pods = xmalloc(RS_BIG_PODS * sizeof(*w.pods));
	for (i = 0; i < RS_BIG_PODS; i++) {
		w.pods[w.npods++] = pod_new(rs, i);
		facts[i] = xmalloc(sizeof(**facts));
		pod_facts_init(facts[i], w.pods[i]);
	}
	rs->spec.replicas.v = RS_BIG_PODS + delta;
	in = (struct plan_rs_in){
	    .rs = rs,
	    .pods = (const struct pod *const *)w.pods,
	    .facts = (const struct pod_facts *const *)facts,
	    .npods = w.npods,
	    .now = NOW,
	};
	for (i = 0; i < ITER; i++) {
		struct plan_rs_out out;
		double t0 = now_ms();

		plan_rs(&in, &out);
		ms[i] = now_ms() - t0;
		victims = out.nvictims;
		create = out.create;
		plan_rs_out_release(&out);
	}
	t = timing_of(ms, ITER);
	printf("%-44s median %8.3f ms  p99 %8.3f ms  (n=%zu, %zu victims, "
	       "%lld to create)  loop turn <= %.0f ms\n",
	       label, t.median, t.p99, t.n, victims, (long long)create,
	       TURN_BOUND_MS);
	for (i = 0; i < w.npods; i++) {
		pod_release(w.pods[i]);
		free(w.pods[i]);
		free(facts[i]);
	}
	free(facts);
	free(w.pods);
	fx_free_rs(rs);
	fx_free_deployment(d);
}

/* The cases whose label holds the first argument, or all of them. */
static const char *only;

static bool
wanted(const char *label)
{
	return only == NULL || strstr(label, only) != NULL;
}

int
main(int argc, char **argv)
{
	struct rusage ru;

	only = argc > 1 ? argv[1] : NULL;
	printf("drover planner benchmark (times per call, wall clock)\n");
	if (wanted("plan_deploy RollingUpdate, 100k pods/10 RS"))
		bench_deploy("RollingUpdate", false,
			     "plan_deploy RollingUpdate, 100k pods/10 RS");
	if (wanted("plan_deploy Recreate, 100k pods/10 RS"))
		bench_deploy("Recreate", false,
			     "plan_deploy Recreate, 100k pods/10 RS");
	if (wanted("plan_deploy Recreate steady, 100k pod scan"))
		bench_deploy("Recreate", true,
			     "plan_deploy Recreate steady, 100k pod scan");
	if (wanted("sim_run 10000 replicas 25%/25%, ready 1 s"))
		bench_sim();
	if (wanted("plan_rs 10000 pods, scale down by 500"))
		bench_rs();
	if (wanted("plan_rs 100k pods, cached facts, down 500"))
		bench_rs_cached(-RS_SCALE_DOWN,
				"plan_rs 100k pods, cached facts, down 500");
	if (wanted("plan_rs 100k pods, cached facts, up 500"))
		bench_rs_cached(RS_SCALE_DOWN,
				"plan_rs 100k pods, cached facts, up 500");
	getrusage(RUSAGE_SELF, &ru);
	printf("%-44s %8.1f MiB\n", "peak RSS (getrusage ru_maxrss)",
	       (double)ru.ru_maxrss / 1024.0);
	return 0;
}
