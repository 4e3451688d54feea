/* plan_rs.c - Kubernetes' ReplicaSet controller (manageReplicas and
 * calculateStatus) as a pure function, with the ActivePodsWithRanks victim
 * order, LogarithmicScaleDown included (on by default since 1.22).
 *
 * One step (replica_set.go, syncReplicaSet):
 *  1. sort the namespace's active pods into mine (controller ref to this
 *     RS) and orphans the selector matches (adopted, then counted mine);
 *     a pod of mine whose labels no longer match the selector is
 *     released (ClaimPods: its controller reference is removed) and not
 *     counted, unless the RS is being deleted;
 *  2. diff = len(mine) - spec.replicas; a deleting RS does neither;
 *  3. diff < 0: create min(-diff, burstReplicas = 500) pods. The caller
 *     creates them in slowStartBatch rounds (1, 2, 4, 8, ... pods, see
 *     ctl/rs.c), stopping at the first failure, so a bad template costs
 *     one failed create, not 500;
 *  4. diff > 0: delete the first min(diff, 500) of mine in the victim
 *     order (ranked_pod_cmp), computed with a partial heap sort;
 *  5. the status from mine as they were before this step (Kubernetes'
 *     calculateStatus also runs on the pre-step pod list), and a requeue
 *     for the moment the next ready pod becomes available.
 * Example: spec 4, pods a (Running, ready 10 min), b (Pending), c
 * (Running, not ready), d (Running, ready 5 s), all on one node; spec
 * lowered to 2: diff 2, victims b (Pending sorts before Running) then c
 * (not ready before ready); a and d stay.
 * Release example: spec 3, pods a, b, c; `kubectl label pod c app=debug
 * --overwrite` (the selector says app=web): c is released and runs on
 * without an owner, and one pod is created in its place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds.h"
#include "labels.h"
#include "plan_deploy.h"
#include "plan_rs.h"
#include "pod_facts.h"
#include "strmap.h"
#include "xalloc.h"

/* IsPodActive (controller_utils.go): not Succeeded, not Failed, not being
 * deleted. Only active pods count towards an RS's size, so a terminating
 * pod is replaced at once (its replacement may run beside it). */
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

/* IsPodReady: the Ready condition is True. */
bool
pod_is_ready(const struct pod *p)
{
	const struct condition *c = ready_cond(p);

	return c && c->status && !strcmp(c->status, "True");
}

/* When the pod last became ready (or not): the Ready condition's
 * lastTransitionTime, the start of minReadySeconds. */
dtime
pod_ready_time(const struct pod *p)
{
	const struct condition *c = ready_cond(p);

	return c ? c->last_transition_time : DTIME_UNSET;
}

/* IsPodAvailable: ready, and for longer than minReadySeconds, strictly:
 * with minReadySeconds 5 and Ready since 12:00:00, available from just
 * after 12:00:05 (12:00:05.000 itself is not). */
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

/* floor(log2(now - t)) in nanoseconds, -1 if not in the past: the
 * bucket LogarithmicScaleDown compares instead of the raw time, so that
 * pods of about the same age tie and fall through to the uid, spreading
 * deletions randomly among them instead of always taking the newest.
 * Example: ready 600 s and 1000 s ago are both in bucket 39 (2^39 ns is
 * about 550 s, 2^40 ns about 1100 s); 1500 s ago is bucket 40. dtime is
 * in milliseconds, hence the * 1000000. A time not in the past (a clock
 * behind the pod's) ranks -1, below every real bucket, as in
 * Kubernetes' logarithmicRankDiff. */
static int64_t
log_rank(dtime t, dtime now)
{
	int64_t d = (now - t) * 1000000;

	if (d <= 0)
		return -1;
	return 63 - __builtin_clzll((unsigned long long)d);
}

/* afterOrZero: a zero time sorts first, then the later one (the newer
 * pod is deleted first). Ready at 12:00 and 12:05: the 12:05 one first;
 * never ready (zero) and 12:05: the zero one first. Only called with
 * two different times (ranked_pod_cmp tests that first): for two equal
 * ones it would answer -1 both ways. */
static int
after_or_zero(dtime a, dtime b)
{
	if (a == DTIME_UNSET || b == DTIME_UNSET)
		return a == DTIME_UNSET ? -1 : 1;
	return a > b ? -1 : 1;
}

/* Compares two times by logarithmic bucket, then uid (LogarithmicScaleDown).
 * Without a reference time (x->now unset, as in tests that rank without
 * a clock) it is afterOrZero on the raw times. Kubernetes' comparator
 * is the same: the higher bucket (older) sorts later. */
static int
cmp_time_log(const struct ranked_pod *x, const struct ranked_pod *y, dtime ti,
	     dtime tj)
{
	int64_t diff;

	if (x->now == DTIME_UNSET || ti == DTIME_UNSET || tj == DTIME_UNSET)
		return after_or_zero(ti, tj);
	diff = log_rank(ti, x->now) - log_rank(tj, x->now);
	if (diff == 0)
		return strcmp(x->uid, y->uid);
	return diff < 0 ? -1 : 1;
}

/* A victim candidate from its facts; `rank` is the number of related
 * active pods on its node (getPodsRankedByRelatedPods). The caller owns
 * the facts, which must outlive rp (rp->uid points into them). */
void
ranked_pod_from_facts(struct ranked_pod *rp, const struct pod_facts *f,
		      int64_t rank, dtime now)
{
	rp->pod = f->pod;
	rp->rank = rank;
	rp->now = now;
	rp->unassigned = f->unassigned;
	rp->phase = f->phase;
	rp->ready = f->ready;
	rp->cost = f->cost;
	rp->ready_time = f->ready_time;
	rp->restarts = f->restarts;
	rp->created = f->created;
	rp->uid = pod_facts_uid(f);
}

/* The same from a pod (tests and callers without facts). */
void
ranked_pod_init(struct ranked_pod *rp, const struct pod *p, int64_t rank,
		dtime now)
{
	struct pod_facts f;

	pod_facts_init(&f, p);
	ranked_pod_from_facts(rp, &f, rank, now);
	/* f is gone: point at the pod's own uid */
	rp->uid = p->metadata.uid ? p->metadata.uid : "";
}

/* ActivePodsWithRanks.Less (controller_utils.go): the pod that sorts first
 * is deleted first. Each rule is a tie-break of the one before; rule 5
 * spreads pods over nodes (a node running 3 of them loses one before a
 * node running 1); rules 6 and 8 use the log buckets above. A total
 * order: the final tie-break by name makes the victims independent of
 * the order pods were listed in. */
int
ranked_pod_cmp(const void *a, const void *b)
{
	const struct ranked_pod *x = a, *y = b;
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
	/* 5. doubled up (more related pods on the node) first. Example:
	 * a and b alike so far, a's node runs 3 of the owner's pods and
	 * b's node 1: a goes first, leaving 2 and 1. */
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* 6. ready for less time first */
	if (x->ready && y->ready && x->ready_time != y->ready_time) {
		c = cmp_time_log(x, y, x->ready_time, y->ready_time);
		if (c)
			return c;
	}
	/* 7. more restarts first */
	if (x->restarts != y->restarts)
		return x->restarts > y->restarts ? -1 : 1;
	/* 8. newer first (zero time first) */
	if (x->created != y->created) {
		c = cmp_time_log(x, y, x->created, y->created);
		if (c)
			return c;
	}
	/* Kubernetes leaves the rest to an unstable sort; drover is
	 * deterministic: by name. */
	return strcmp(x->pod->metadata.name ? x->pod->metadata.name : "",
		      y->pod->metadata.name ? y->pod->metadata.name : "");
}

/* Max-heap of ranked_pod_cmp: h[0] is the pod that would be deleted
 * last among the k kept so far, so it is the one a better candidate
 * replaces. */
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
	/* Invariant: rp[0..k) holds the k first (in ranked_pod_cmp's
	 * order) of rp[0..i), the last of them at rp[0]; a later pod
	 * that sorts before rp[0] takes its place. */
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
 * of every pod. Unscheduled pods all have the node "" and count
 * together, as in Kubernetes' podsOnNode map keyed by spec.nodeName. */
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
count_nodes(const struct pod_facts *const *fs, size_t n,
	    struct node_count **out)
{
	struct node_count *v = NULL;
	size_t nv = 0, i, at = 0;
	const char *last = NULL;
	bool hit;

	/* Pods tend to come grouped by node, so `last` (the node of the
	 * previous active pod, v[at]) lets a run of one node's pods cost
	 * one strcmp each instead of a binary search. */
	for (i = 0; i < n; i++) {
		const char *node;

		if (!fs[i]->active)
			continue;
		node = pod_facts_node(fs[i]);
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

/* owner_ref_is(controller ref, "ReplicaSet", rs), from the facts: the
 * uid kept inline, the pod read only when a uid is missing (a reference
 * by name). */
static bool
owns(const struct replicaset *rs, const struct pod_facts *f)
{
	const char *uid = pod_facts_controller(f);
	const char *kind = rs_owner_kind(rs);
	bool is_rc = !strcmp(kind, "ReplicationController");

	if (!f->has_controller ||
	    !(is_rc ? f->controller_kind_rc : f->controller_kind_rs))
		return false;
	if (*uid && rs->metadata.uid && *rs->metadata.uid)
		return strcmp(uid, rs->metadata.uid) == 0;
	return owner_ref_is(meta_controller_ref(&f->pod->metadata), kind,
			    &rs->metadata);
}

/* Facts derived here, for callers that keep none. */
struct own_facts {
	struct pod_facts *v;           /* the facts */
	const struct pod_facts **list; /* pointers to them */
};

/* The facts of pods: `given` itself, or derived into *own (released by
 * own_facts_release). */
static const struct pod_facts *const *
facts_of(const struct pod *const *pods, size_t n,
	 const struct pod_facts *const *given, struct own_facts *own)
{
	size_t i;

	memset(own, 0, sizeof(*own));
	if (given)
		return given;
	own->v = xmalloc((n + 1) * sizeof(*own->v));
	own->list = xmalloc((n + 1) * sizeof(*own->list));
	for (i = 0; i < n; i++) {
		pod_facts_init(&own->v[i], pods[i]);
		own->list[i] = &own->v[i];
	}
	return own->list;
}

static void
own_facts_release(struct own_facts *own)
{
	free(own->v);
	free(own->list);
}

/* The victims: the diff first of mine in ranked_pod_cmp's order, ranked
 * by related active pods on the same node (getPodsRankedByRelatedPods). */
static void
pick_victims(const struct plan_rs_in *in, const struct pod_facts *const *fs,
	     const struct pod_facts **mine, size_t nmine, size_t diff,
	     struct plan_rs_out *out)
{
	const struct pod_facts *const *rel = fs;
	size_t nrel = in->npods, nn, i;
	struct own_facts rel_own = {0};
	struct node_count *nodes;
	struct ranked_pod *rp;

	if (in->related) {
		rel = facts_of(in->related, in->nrelated, NULL, &rel_own);
		nrel = in->nrelated;
	}
	nn = count_nodes(rel, nrel, &nodes);
	rp = xmalloc((nmine + 1) * sizeof(*rp));
	for (i = 0; i < nmine; i++)
		ranked_pod_from_facts(
		    &rp[i], mine[i],
		    count_on_node(nodes, nn, pod_facts_node(mine[i])), in->now);
	if (diff < nmine)
		smallest_first(rp, nmine, diff);
	out->victims = xmalloc((diff + 1) * sizeof(*out->victims));
	for (i = 0; i < diff; i++)
		out->victims[i] = rp[i].pod;
	out->nvictims = diff;
	free(rp);
	free(nodes);
	own_facts_release(&rel_own);
}

void
plan_rs(const struct plan_rs_in *in, struct plan_rs_out *out)
{
	const struct replicaset *rs = in->rs;
	const struct pod_facts *const *fs;
	const struct pod_facts **mine;
	struct own_facts own;
	size_t nmine = 0, i;
	int64_t want, diff, fully = 0, ready = 0, avail = 0;
	uint64_t tmpl_fp =
	    labels_fingerprint(&rs->spec.template.metadata.labels);
	/* Validation makes the template match the selector; a pod with
	 * exactly the template's labels then needs no selector check. */
	bool tmpl_matches = selector_matches(
	    rs->spec.selector, &rs->spec.template.metadata.labels);
	bool deleting = rs->metadata.deletion_timestamp != DTIME_UNSET;
	dtime next = 0;

	memset(out, 0, sizeof(*out));
	out->requeue_after_ms = -1;
	fs = facts_of(in->pods, in->npods, in->facts, &own);
	mine = xmalloc((in->npods + 1) * sizeof(*mine));
	for (i = 0; i < in->npods; i++) {
		const struct pod_facts *f = fs[i];

		/* Claiming (ClaimPods): a pod this RS controls is counted
		 * while its labels match the selector; once they do not, it
		 * is released (not while the RS is being deleted: then it is
		 * only left out); an orphan is adopted when the selector
		 * matches and the RS is not being deleted; another
		 * controller's pod is never touched, even when the selector
		 * matches it. */
		if (!f->active)
			continue;
		if (owns(rs, f)) {
			if ((tmpl_matches && f->labels_fp == tmpl_fp) ||
			    selector_matches(rs->spec.selector,
					     &f->pod->metadata.labels)) {
				mine[nmine++] = f;
			} else if (!deleting) {
				out->release = xrealloc(
				    out->release, (out->nrelease + 1) *
						      sizeof(*out->release));
				out->release[out->nrelease++] = f->pod;
			}
		} else if (!f->has_controller && !deleting &&
			   selector_matches(rs->spec.selector,
					    &f->pod->metadata.labels)) {
			out->adopt =
			    xrealloc(out->adopt,
				     (out->nadopt + 1) * sizeof(*out->adopt));
			out->adopt[out->nadopt++] = f->pod;
			mine[nmine++] = f;
		}
	}
	/* manageReplicas: the diff is capped at burstReplicas either way;
	 * the rest waits for the next step (the world changed by then). */
	want = rs->spec.replicas.set ? rs->spec.replicas.v : 1;
	diff = (int64_t)nmine - want;
	if (deleting)
		diff = 0;
	if (diff < 0)
		out->create =
		    -diff > RS_BURST_REPLICAS ? RS_BURST_REPLICAS : -diff;
	else if (diff > 0)
		pick_victims(in, fs, mine, nmine,
			     diff > RS_BURST_REPLICAS ? RS_BURST_REPLICAS
						      : (size_t)diff,
			     out);
	/* calculateStatus over the live pods (before this step's changes,
	 * as Kubernetes does). A pod made from the template carries exactly
	 * its labels: equal fingerprints answer "fully labeled" without
	 * reading the pod. */
	for (i = 0; i < nmine; i++) {
		const struct pod_facts *f = mine[i];

		if (f->labels_fp == tmpl_fp ||
		    labels_subset(&rs->spec.template.metadata.labels,
				  &f->pod->metadata.labels))
			fully++;
		if (f->ready) {
			ready++;
			/* available: ready for > minReadySeconds; else
			 * requeue 1 ms after it will be (the earliest of
			 * them), as Kubernetes' AddAfter(minReadySeconds)
			 * does, so availability shows without an event. */
			if (rs->spec.min_ready_seconds == 0 ||
			    (f->ready_time != DTIME_UNSET &&
			     f->ready_time +
				     DTIME_SEC(rs->spec.min_ready_seconds) <
				 in->now)) {
				avail++;
			} else {
				/* minReadySeconds 5, Ready at 12:00:00, now
				 * 12:00:02: at is 12:00:05.001, requeue after
				 * 3001 ms, the first instant it is available */
				dtime at =
				    f->ready_time +
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
	out->status_changed =
	    !schema_equal(kind_status_schema(kind_by_id(KIND_REPLICASET)),
			  &rs->status, &out->status);
	if (next)
		out->requeue_after_ms = next - in->now;
	free(mine);
	own_facts_release(&own);
}

void
plan_rs_out_release(struct plan_rs_out *out)
{
	free(out->victims);
	free(out->adopt);
	free(out->release);
	schema_release(kind_status_schema(kind_by_id(KIND_REPLICASET)),
		       &out->status);
	memset(out, 0, sizeof(*out));
}

/* "ReplicationController" for the view rc_as_replicaset() makes, else
 * "ReplicaSet" (a ReplicaSet read from anywhere, kind set or not). */
const char *
rs_owner_kind(const struct replicaset *rs)
{
	return rs->kind && !strcmp(rs->kind, "ReplicationController")
		   ? "ReplicationController"
		   : "ReplicaSet";
}

void
rs_controller_ref(const struct replicaset *rs, struct owner_ref *ref)
{
	bool is_rc = !strcmp(rs_owner_kind(rs), "ReplicationController");

	ref->api_version = xstrdup(is_rc ? "v1" : "apps/v1");
	ref->kind = xstrdup(rs_owner_kind(rs));
	ref->name = xstrdup(rs->metadata.name);
	ref->uid = xstrdup(rs->metadata.uid ? rs->metadata.uid : "");
	ref->controller.set = ref->controller.v = true;
	ref->block_owner_deletion.set = ref->block_owner_deletion.v = true;
}

/* Example: RS web-6d9f (namespace default, template labels {app: web,
 * pod-template-hash: 6d9f}) gives generateName "web-6d9f-", the same
 * labels, and an ownerReference apps/v1 ReplicaSet web-6d9f with
 * controller and blockOwnerDeletion true; the API server then names it
 * web-6d9f-<5 random characters>. */
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
