/* plan_rs.c - Kubernetes' ReplicaSet controller (manageReplicas and
 * calculateStatus) as a pure function, with the ActivePodsWithRanks victim
 * order, LogarithmicScaleDown included (on by default since 1.22). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "plan_deploy.h"
#include "plan_rs.h"
#include "strmap.h"
#include "xalloc.h"

bool
pod_is_active(const struct pod *p)
{
	const char *ph = p->status.phase ? p->status.phase : "";

	return strcmp(ph, "Succeeded") && strcmp(ph, "Failed") &&
	       p->metadata.deletion_timestamp == DTIME_UNSET;
}

static const struct condition *
ready_cond(const struct pod *p)
{
	return condition_get(&p->status.conditions, "Ready");
}

bool
pod_is_ready(const struct pod *p)
{
	const struct condition *c = ready_cond(p);

	return c && c->status && !strcmp(c->status, "True");
}

dtime
pod_ready_time(const struct pod *p)
{
	const struct condition *c = ready_cond(p);

	return c ? c->last_transition_time : DTIME_UNSET;
}

bool
pod_is_available(const struct pod *p, int64_t min_ready_seconds, dtime now)
{
	dtime t;

	if (!pod_is_ready(p))
		return false;
	if (min_ready_seconds == 0)
		return true;
	t = pod_ready_time(p);
	return t != DTIME_UNSET && t + DTIME_SEC(min_ready_seconds) < now;
}

static int
phase_ordinal(const struct pod *p)
{
	const char *ph = p->status.phase ? p->status.phase : "";

	if (!strcmp(ph, "Unknown"))
		return 1;
	if (!strcmp(ph, "Running"))
		return 2;
	return 0; /* Pending and anything else */
}

static int64_t
deletion_cost(const struct pod *p)
{
	const char *v = strmap_get(&p->metadata.annotations, ANN_DELETION_COST);
	char *end;
	long long x;

	if (v == NULL)
		return 0;
	x = strtoll(v, &end, 10);
	if (*end || x < -2147483648LL || x > 2147483647LL)
		return 0;
	return x;
}

static int64_t
max_restarts(const struct pod *p)
{
	int64_t m = 0;
	size_t i;

	for (i = 0; i < p->status.container_statuses.n; i++)
		if (p->status.container_statuses.v[i].restart_count > m)
			m = p->status.container_statuses.v[i].restart_count;
	return m;
}

/* floor(log2(now - t)) in nanoseconds, -1 if not in the past. */
static int64_t
log_rank(dtime t, dtime now)
{
	int64_t d = (now - t) * 1000000;

	if (d <= 0)
		return -1;
	return 63 - __builtin_clzll((unsigned long long)d);
}

/* afterOrZero: a zero time sorts first, then the later one. */
static int
after_or_zero(dtime a, dtime b)
{
	if (a == DTIME_UNSET || b == DTIME_UNSET)
		return a == DTIME_UNSET ? -1 : 1;
	return a > b ? -1 : 1;
}

static const char *
uid_of(const struct pod *p)
{
	return p->metadata.uid ? p->metadata.uid : "";
}

/* Compares two times by logarithmic bucket, then uid (LogarithmicScaleDown). */
static int
cmp_time_log(const struct pod *pi, const struct pod *pj, dtime ti, dtime tj,
	     dtime now)
{
	int64_t diff;

	if (now == DTIME_UNSET || ti == DTIME_UNSET || tj == DTIME_UNSET)
		return after_or_zero(ti, tj);
	diff = log_rank(ti, now) - log_rank(tj, now);
	if (diff == 0) {
		int c = strcmp(uid_of(pi), uid_of(pj));

		return c;
	}
	return diff < 0 ? -1 : 1;
}

void
ranked_pod_init(struct ranked_pod *rp, const struct pod *p, int64_t rank,
		dtime now)
{
	rp->pod = p;
	rp->rank = rank;
	rp->now = now;
	rp->unassigned = p->spec.node_name == NULL || !*p->spec.node_name;
	rp->phase = phase_ordinal(p);
	rp->ready = pod_is_ready(p);
	rp->cost = deletion_cost(p);
	rp->ready_time = pod_ready_time(p);
	rp->restarts = max_restarts(p);
}

int
ranked_pod_cmp(const void *a, const void *b)
{
	const struct ranked_pod *x = a, *y = b;
	const struct pod *pi = x->pod, *pj = y->pod;
	int c;

	/* 1. unassigned < assigned */
	if (x->unassigned != y->unassigned)
		return x->unassigned ? -1 : 1;
	/* 2. Pending < Unknown < Running */
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	/* 3. not ready < ready */
	if (x->ready != y->ready)
		return !x->ready ? -1 : 1;
	/* 4. lower pod-deletion-cost first */
	if (x->cost != y->cost)
		return x->cost < y->cost ? -1 : 1;
	/* 5. doubled up (more related pods on the node) first */
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* 6. ready for less time first */
	if (x->ready && y->ready && x->ready_time != y->ready_time) {
		c = cmp_time_log(pi, pj, x->ready_time, y->ready_time, x->now);
		if (c)
			return c;
	}
	/* 7. more restarts first */
	if (x->restarts != y->restarts)
		return x->restarts > y->restarts ? -1 : 1;
	/* 8. newer first (zero time first) */
	if (pi->metadata.creation_timestamp !=
	    pj->metadata.creation_timestamp) {
		c = cmp_time_log(pi, pj, pi->metadata.creation_timestamp,
				 pj->metadata.creation_timestamp, x->now);
		if (c)
			return c;
	}
	/* Kubernetes leaves the rest to an unstable sort; drover is
	 * deterministic: by name. */
	return strcmp(pi->metadata.name ? pi->metadata.name : "",
		      pj->metadata.name ? pj->metadata.name : "");
}

static void
sift_down(struct ranked_pod *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, top = i;
		struct ranked_pod t;

		if (l < n && ranked_pod_cmp(&h[l], &h[top]) > 0)
			top = l;
		if (r < n && ranked_pod_cmp(&h[r], &h[top]) > 0)
			top = r;
		if (top == i)
			return;
		t = h[i];
		h[i] = h[top];
		h[top] = t;
		i = top;
	}
}

/* Puts the k first of rp[0..n) in ranked_pod_cmp's order (a total
 * order) at its front, sorted: what a full sort would put there, in
 * O(n log k) instead of O(n log n), with a max-heap of the k best so far.
 * A burst of 500 victims out of 100,000 pods ranks 100,000 pods, not
 * sorts them. */
static void
smallest_first(struct ranked_pod *rp, size_t n, size_t k)
{
	size_t i;

	if (k == 0)
		return;
	for (i = k / 2; i-- > 0;)
		sift_down(rp, k, i);
	for (i = k; i < n; i++)
		if (ranked_pod_cmp(&rp[i], &rp[0]) < 0) {
			struct ranked_pod t = rp[0];

			rp[0] = rp[i];
			rp[i] = t;
			sift_down(rp, k, 0);
		}
	xqsort(rp, k, sizeof(*rp), ranked_pod_cmp);
}

/* Related active pods per node: the distinct node names, sorted, with
 * their counts. Nodes are few beside pods (one, on a single host), so
 * each pod costs a binary search among the nodes, not a place in a sort
 * of every pod. */
struct node_count {
	const char *node;
	int64_t n;
};

static size_t
node_find(const struct node_count *v, size_t n, const char *node, bool *hit)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = (a + b) / 2;
		int c = strcmp(v[m].node, node);

		if (c == 0) {
			*hit = true;
			return m;
		}
		if (c < 0)
			a = m + 1;
		else
			b = m;
	}
	*hit = false;
	return a;
}

static size_t
count_nodes(const struct pod *const *pods, size_t n, struct node_count **out)
{
	struct node_count *v = NULL;
	size_t nv = 0, i, at = 0;
	const char *last = NULL;
	bool hit;

	for (i = 0; i < n; i++) {
		const char *node;

		if (!pod_is_active(pods[i]))
			continue;
		node = pods[i]->spec.node_name ? pods[i]->spec.node_name : "";
		if (last && !strcmp(last, node)) { /* runs of the same node */
			v[at].n++;
			continue;
		}
		at = node_find(v, nv, node, &hit);
		if (!hit) {
			v = xrealloc(v, (nv + 1) * sizeof(*v));
			memmove(&v[at + 1], &v[at], (nv - at) * sizeof(*v));
			v[at].node = node;
			v[at].n = 0;
			nv++;
		}
		v[at].n++;
		last = v[at].node;
	}
	*out = v;
	return nv;
}

static int64_t
count_on_node(const struct node_count *v, size_t n, const char *node)
{
	bool hit;
	size_t at = node_find(v, n, node, &hit);

	return hit ? v[at].n : 0;
}

static bool
owns(const struct replicaset *rs, const struct pod *p)
{
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	return ref && owner_ref_is(ref, "ReplicaSet", &rs->metadata);
}

void
plan_rs(const struct plan_rs_in *in, struct plan_rs_out *out)
{
	const struct replicaset *rs = in->rs;
	const struct pod **mine;
	size_t nmine = 0, i;
	int64_t want, diff, fully = 0, ready = 0, avail = 0;
	dtime next = 0;

	memset(out, 0, sizeof(*out));
	out->requeue_after_ms = -1;
	mine = xmalloc((in->npods + 1) * sizeof(*mine));
	for (i = 0; i < in->npods; i++) {
		const struct pod *p = in->pods[i];

		if (!pod_is_active(p))
			continue;
		if (owns(rs, p)) {
			mine[nmine++] = p;
		} else if (!meta_controller_ref(&p->metadata) &&
			   rs->metadata.deletion_timestamp == DTIME_UNSET &&
			   selector_matches(rs->spec.selector,
					    &p->metadata.labels)) {
			out->adopt =
			    xrealloc(out->adopt,
				     (out->nadopt + 1) * sizeof(*out->adopt));
			out->adopt[out->nadopt++] = p;
			mine[nmine++] = p;
		}
	}
	want = rs->spec.replicas.set ? rs->spec.replicas.v : 1;
	diff = (int64_t)nmine - want;
	if (rs->metadata.deletion_timestamp != DTIME_UNSET)
		diff = 0;
	if (diff < 0) {
		out->create =
		    -diff > RS_BURST_REPLICAS ? RS_BURST_REPLICAS : -diff;
	} else if (diff > 0) {
		struct ranked_pod *rp;
		const struct pod *const *rel =
		    in->related ? in->related : in->pods;
		size_t nrel = in->related ? in->nrelated : in->npods;
		struct node_count *nodes;
		size_t nn = count_nodes(rel, nrel, &nodes);

		if (diff > RS_BURST_REPLICAS)
			diff = RS_BURST_REPLICAS;
		rp = xmalloc((nmine + 1) * sizeof(*rp));
		for (i = 0; i < nmine; i++)
			ranked_pod_init(
			    &rp[i], mine[i],
			    count_on_node(nodes, nn,
					  mine[i]->spec.node_name
					      ? mine[i]->spec.node_name
					      : ""),
			    in->now);
		if ((size_t)diff < nmine)
			smallest_first(rp, nmine, (size_t)diff);
		out->victims = xmalloc((size_t)diff * sizeof(*out->victims));
		for (i = 0; i < (size_t)diff; i++)
			out->victims[i] = rp[i].pod;
		out->nvictims = (size_t)diff;
		free(rp);
		free(nodes);
	}
	/* calculateStatus over the live pods (before this step's changes,
	 * as Kubernetes does). */
	for (i = 0; i < nmine; i++) {
		const struct pod *p = mine[i];

		if (labels_subset(&rs->spec.template.metadata.labels,
				  &p->metadata.labels))
			fully++;
		if (pod_is_ready(p)) {
			ready++;
			if (pod_is_available(p, rs->spec.min_ready_seconds,
					     in->now)) {
				avail++;
			} else if (rs->spec.min_ready_seconds > 0) {
				dtime at =
				    pod_ready_time(p) +
				    DTIME_SEC(rs->spec.min_ready_seconds) + 1;

				if (next == 0 || at < next)
					next = at;
			}
		}
	}
	out->status.replicas = (int64_t)nmine;
	out->status.fully_labeled_replicas = fully;
	out->status.ready_replicas = ready;
	out->status.available_replicas = avail;
	out->status.observed_generation = rs->metadata.generation;
	for (i = 0; i < rs->status.conditions.n; i++)
		condition_append(&out->status.conditions,
				 &rs->status.conditions.v[i]);
	out->status_changed = !schema_equal(schema_replicaset.fields[4].sub,
					    &rs->status, &out->status);
	if (next)
		out->requeue_after_ms = next - in->now;
	free(mine);
}

void
plan_rs_out_release(struct plan_rs_out *out)
{
	free(out->victims);
	free(out->adopt);
	schema_release(schema_replicaset.fields[4].sub, &out->status);
	memset(out, 0, sizeof(*out));
}

void
rs_controller_ref(const struct replicaset *rs, struct owner_ref *ref)
{
	ref->api_version = xstrdup("apps/v1");
	ref->kind = xstrdup("ReplicaSet");
	ref->name = xstrdup(rs->metadata.name);
	ref->uid = xstrdup(rs->metadata.uid ? rs->metadata.uid : "");
	ref->controller.set = ref->controller.v = true;
	ref->block_owner_deletion.set = ref->block_owner_deletion.v = true;
}

void
rs_new_pod(const struct replicaset *rs, struct pod *p)
{
	struct owner_ref *ref;
	char gen[300];

	p->api_version = xstrdup("v1");
	p->kind = xstrdup("Pod");
	snprintf(gen, sizeof(gen), "%s-", rs->metadata.name);
	p->metadata.generate_name = xstrdup(gen);
	p->metadata.namespace = xstrdup(rs->metadata.namespace);
	strmap_copy(&p->metadata.labels, &rs->spec.template.metadata.labels);
	strmap_copy(&p->metadata.annotations,
		    &rs->spec.template.metadata.annotations);
	ref = anylist_push((struct anylist *)&p->metadata.owner_references,
			   sizeof(*ref));
	rs_controller_ref(rs, ref);
	schema_copy(&schema_pod_spec, &p->spec, &rs->spec.template.spec);
}
