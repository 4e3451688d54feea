/* deploy_util.c - Kubernetes' deployment formulas, one pure function each.
 *
 * Worked example for the fenceposts and the rolling step (10 replicas,
 * maxSurge 25%, maxUnavailable 25%): surge = ceil(2.5) = 3, unavailable =
 * floor(2.5) = 2, so at most 13 pods exist and at least 8 are available.
 * The new ReplicaSet may grow to min(13 - specSum, 10 - new.replicas) more;
 * old ones may shrink by specSum - 8 - (new RS pods not yet available). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "tmplhash.h"
#include "xalloc.h"

/* The InPlaceUpdate budget. There is no surge to fall back on, so the
 * fencepost rule "both zero -> unavailable 1" becomes "at least 1": a
 * percent that rounds down to 0 pods still lets one pod update at a time
 * (25% of 3 = 0.75 -> 0 -> 1). A malformed value (validation forbids it)
 * reads as 1. */
int64_t
inplace_max_unavailable(const struct deployment *d)
{
	const struct in_place_update *ip = d->spec.strategy.in_place_update;
	int64_t n = deploy_replicas(d), u = 0;

	if (!deploy_is_inplace(d) || n <= 0)
		return 0;
	if (ip == NULL || ip->max_unavailable.type == INTSTR_UNSET)
		u = n / 4; /* the 25% default, rounded down */
	else if (intstr_scaled(&ip->max_unavailable, n, false, &u))
		u = 1;
	if (u < 1)
		u = 1;
	return u > n ? n : u;
}

/* HasProgressDeadline: unset or math.MaxInt32 means "no deadline"
 * (the pre-apps/v1 default), so no Progressing condition is kept. */
bool
deploy_has_progress_deadline(const struct deployment *d)
{
	return d->spec.progress_deadline_seconds.set &&
	       d->spec.progress_deadline_seconds.v != MAX_INT32;
}

/* HasRevisionHistoryLimit: unset or MaxInt32 keeps every old RS. */
bool
deploy_has_revision_history_limit(const struct deployment *d)
{
	return d->spec.revision_history_limit.set &&
	       d->spec.revision_history_limit.v != MAX_INT32;
}

/* ResolveFenceposts (deployment_util.go): percentages are taken of the
 * desired count, surge rounded up and unavailable rounded down, so that a
 * rollout never stalls on a fraction: with 3 replicas and 25%/25%, surge =
 * ceil(0.75) = 1 and unavailable = floor(0.75) = 0: one extra pod at a
 * time, never one fewer. Both 0 (maxSurge 0 and 25% of 3 replicas =
 * floor(0.75) = 0) would deadlock, so unavailable becomes 1. */
int
resolve_fenceposts(const struct intstr *max_surge,
		   const struct intstr *max_unavailable, int64_t desired,
		   int64_t *surge, int64_t *unavailable)
{
	static const struct intstr zero = {.type = INTSTR_INT};

	if (intstr_scaled(max_surge ? max_surge : &zero, desired, true,
			  surge) ||
	    intstr_scaled(max_unavailable ? max_unavailable : &zero, desired,
			  false, unavailable))
		return -1;
	if (*surge == 0 && *unavailable == 0) {
		/* Validation ensures we can't have both zero specs, but the
		 * resolved counts can be: allow one pod to go unavailable. */
		*unavailable = 1;
	}
	return 0;
}

/* The deployment's own fenceposts. A bad percent string cannot get past
 * validation; if one does, both read 0 rather than failing the sync. */
static void
fenceposts(const struct deployment *d, int64_t *s, int64_t *u)
{
	const struct rolling_update *ru = d->spec.strategy.rolling_update;

	*s = *u = 0;
	if (resolve_fenceposts(ru ? &ru->max_surge : NULL,
			       ru ? &ru->max_unavailable : NULL,
			       deploy_replicas(d), s, u))
		*s = *u = 0; /* errors behave as 0 (validation forbids) */
}

/* MaxSurge: 0 unless RollingUpdate. Not clamped: 200% of 10 is 20, so
 * up to 30 pods may exist. */
int64_t
max_surge(const struct deployment *d)
{
	int64_t s, u;

	if (!deploy_is_rolling(d))
		return 0;
	fenceposts(d, &s, &u);
	return s;
}

/* MaxUnavailable: clamped to replicas (100% of 4 is 4, 150% of 4 is 4
 * too), and 0 when replicas is 0, so minAvailable = replicas -
 * unavailable is never negative. Example: 10 replicas, 25% -> 2. */
int64_t
max_unavailable(const struct deployment *d)
{
	int64_t s, u;

	if (!deploy_is_rolling(d) || deploy_replicas(d) == 0)
		return 0;
	fenceposts(d, &s, &u);
	return u > deploy_replicas(d) ? deploy_replicas(d) : u;
}

/* MinAvailable: replicas - maxUnavailable, 8 of 10 with 25%; 0 for
 * Recreate, which promises no availability during an update. */
int64_t
min_available(const struct deployment *d)
{
	if (!deploy_is_rolling(d))
		return 0;
	return deploy_replicas(d) - max_unavailable(d);
}

/* GetReplicaCountForReplicaSets: the desired (spec) total; together with
 * maxPods it is the surge budget. NULL entries (no new RS yet) count 0. */
int64_t
rs_spec_sum(struct replicaset *const *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			s += rs_replicas(v[i]);
	return s;
}

/* What counts against maxSurge: per ReplicaSet the larger of its
 * spec.replicas and status.replicas. Kubernetes counts spec.replicas
 * only, and so may create the new ReplicaSet's pods while an old one
 * that was just scaled down in spec still has its pods (its controller
 * has not deleted them yet): a moment with more than replicas + maxSurge
 * pods, which a controller restart between the two writes widens.
 * Counting what the old ReplicaSet's controller last saw waits for it.
 * Example: replicas 3, maxSurge 1; old spec 1 with 2 pods still (status
 * 2), new spec 2: Kubernetes counts 3 and grows new to 3, for 5 pods;
 * here 2 + 2 = 4, and new grows once the old status says 1. */
int64_t
rs_surge_sum(struct replicaset *const *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			s += rs_replicas(v[i]) > v[i]->status.replicas
				 ? rs_replicas(v[i])
				 : v[i]->status.replicas;
	return s;
}

/* GetActualReplicaCountForReplicaSets: pods that exist (status.replicas),
 * terminating ones excluded by the RS controller. */
int64_t
rs_live_sum(struct replicaset *const *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			s += v[i]->status.replicas;
	return s;
}

/* GetReadyReplicaCountForReplicaSets. */
int64_t
rs_ready_sum(struct replicaset *const *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			s += v[i]->status.ready_replicas;
	return s;
}

/* GetAvailableReplicaCountForReplicaSets: ready for minReadySeconds; the
 * only count minAvailable is checked against. */
int64_t
rs_available_sum(struct replicaset *const *v, size_t n)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			s += v[i]->status.available_replicas;
	return s;
}

/* NewRSNewReplicas (§8.2): the new RS grows until every RS's desired
 * count reaches maxPods = replicas + surge, and never beyond replicas:
 *   grow = min(maxPods - specSum, replicas - new.replicas).
 * Example: 10 replicas, surge 3; old 8 + new 3 = 11: min(13 - 11, 10 - 3)
 * = 2, the new RS goes to 5. With old 10 + new 3 = 13 it stays at 3 until
 * old pods go. Kubernetes scales maxSurge here with the plain percent rule
 * (GetScaledValueFromIntOrPercent, rounded up), not ResolveFenceposts; the
 * two differ only in unavailable, so the number is the same. Recreate: the
 * full count at once. */
int64_t
new_rs_new_replicas(const struct deployment *d, struct replicaset *const *all,
		    size_t n, const struct replicaset *new_rs)
{
	const struct rolling_update *ru = d->spec.strategy.rolling_update;
	int64_t surge = 0, max_total, current, grow, cur_new;

	if (deploy_is_inplace(d)) {
		/* InPlaceUpdate never surges: the new RS holds the pods
		 * the old ones do not (replicas - their sum), which is 0
		 * when a template change creates it beside a full old RS
		 * and grows one by one as pods move to it in place;
		 * a first rollout (no old RS) gets all the replicas. */
		int64_t others = rs_spec_sum(all, n) - rs_replicas(new_rs);
		int64_t want = deploy_replicas(d) - others;

		return want > 0 ? want : 0;
	}
	if (!deploy_is_rolling(d))
		return deploy_replicas(d);
	/* The plain percent rule: no fencepost adjustment here. */
	if (ru &&
	    intstr_scaled(&ru->max_surge, deploy_replicas(d), true, &surge))
		surge = 0;
	cur_new = rs_replicas(new_rs);
	max_total = deploy_replicas(d) + surge;
	current = rs_surge_sum(all, n);
	if (current >= max_total)
		return cur_new;
	grow = max_total - current;
	if (grow > deploy_replicas(d) - cur_new)
		grow = deploy_replicas(d) - cur_new;
	return cur_new + grow;
}

/* Go's strconv.ParseInt(s, 10, 64): an optional sign, decimal digits,
 * range checked (the check before multiplying keeps v from wrapping;
 * -9223372036854775808 is accepted through the `+ neg`). */
static int
parse_i64(const char *s, int64_t *out)
{
	const char *p = s;
	bool neg = false;
	uint64_t v = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (*p == '\0')
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Revision(): the deployment.kubernetes.io/revision annotation. A missing
 * one is revision 0 (an adopted RS that never had one); an unparseable one
 * is an error, and callers skip that RS as Kubernetes does. */
int
rs_revision(const struct replicaset *rs, int64_t *out)
{
	const char *v = strmap_get(&rs->metadata.annotations, ANN_REVISION);

	*out = 0;
	if (v == NULL)
		return 0;
	return parse_i64(v, out);
}

/* MaxRevision: the highest revision among the RSes; a new RS gets max + 1,
 * so with old RSes at 1, 2 and 4 the next one is 5 (gaps stay: a rollback
 * renumbers the RS it re-uses, leaving its old number unused). */
int64_t
max_revision(struct replicaset *const *v, size_t n)
{
	int64_t max = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] && rs_revision(v[i], &r) == 0 && r > max)
			max = r;
	return max;
}

/* LastRevision: the second highest revision, the one `rollout undo` goes
 * back to. The loop keeps max >= sec over the revisions seen so far; a
 * revision equal to max shifts max down into sec (so 3, 5, 5 gives 5,
 * like Kubernetes). Example: 3, 6, 5 -> 5. */
int64_t
last_revision(struct replicaset *const *v, size_t n)
{
	int64_t max = 0, sec = 0, r;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] == NULL || rs_revision(v[i], &r))
			continue;
		if (r >= max) {
			sec = max;
			max = r;
		} else if (r > sec) {
			sec = r;
		}
	}
	return sec;
}

/* ---- sort orders ----
 *
 * controller_utils.go's sort.Interface types as qsort comparators. Each is
 * a total order (the RS name breaks every tie, names are unique in a
 * namespace), so the unstable qsort gives the same order whatever the
 * input order: plans do not depend on how the store listed the RSes. */

static int
cmp_creation(const struct replicaset *a, const struct replicaset *b)
{
	dtime ta = a->metadata.creation_timestamp;
	dtime tb = b->metadata.creation_timestamp;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return strcmp(a->metadata.name ? a->metadata.name : "",
		      b->metadata.name ? b->metadata.name : "");
}

/* ReplicaSetsByCreationTimestamp: oldest first, then by name. */
int
rs_cmp_creation(const void *a, const void *b)
{
	return cmp_creation(*(struct replicaset *const *)a,
			    *(struct replicaset *const *)b);
}

int
rs_cmp_creation_rev(const void *a, const void *b)
{
	return -rs_cmp_creation(a, b);
}

/* ReplicaSetsBySizeOlder: biggest first, the older on a tie; the order
 * in which a scale-down spreads the pods it removes. Example: A (3,
 * oldest), B (5), C (3, newest) sort B, A, C; the next comparator sorts
 * them B, C, A. */
int
rs_cmp_size_older(const void *a, const void *b)
{
	const struct replicaset *x = *(struct replicaset *const *)a;
	const struct replicaset *y = *(struct replicaset *const *)b;

	if (rs_replicas(x) != rs_replicas(y))
		return rs_replicas(x) > rs_replicas(y) ? -1 : 1;
	return cmp_creation(x, y);
}

/* ReplicaSetsBySizeNewer: biggest first, the newer on a tie; the order in
 * which a scale-up spreads the pods it adds. */
int
rs_cmp_size_newer(const void *a, const void *b)
{
	const struct replicaset *x = *(struct replicaset *const *)a;
	const struct replicaset *y = *(struct replicaset *const *)b;

	if (rs_replicas(x) != rs_replicas(y))
		return rs_replicas(x) > rs_replicas(y) ? -1 : 1;
	return -cmp_creation(x, y);
}

/* ReplicaSetsByRevision: lowest revision first; an unparseable or equal
 * revision falls back to creation order. cleanupDeployment deletes from
 * the front. A missing revision is 0, so an adopted RS that never had
 * one sorts first and is the first candidate for deletion. */
int
rs_cmp_revision(const void *a, const void *b)
{
	const struct replicaset *x = *(struct replicaset *const *)a;
	const struct replicaset *y = *(struct replicaset *const *)b;
	int64_t rx, ry;

	if (rs_revision(x, &rx) || rs_revision(y, &ry) || rx == ry)
		return cmp_creation(x, y);
	return rx < ry ? -1 : 1;
}

/* ---- annotations ---- */

/* skipCopyAnnotation: the annotations that belong to one object and are
 * never copied between a Deployment and its RSes (revision bookkeeping,
 * the replica annotations, kubectl's last-applied configuration, the
 * legacy rollback request). */
bool
skip_copy_annotation(const char *key)
{
	return !strcmp(key, ANN_LAST_APPLIED) || !strcmp(key, ANN_REVISION) ||
	       !strcmp(key, ANN_REVISION_HISTORY) ||
	       !strcmp(key, ANN_DESIRED_REPLICAS) ||
	       !strcmp(key, ANN_MAX_REPLICAS) || !strcmp(key, ANN_ROLLBACK_TO);
}

/* copyDeploymentAnnotationsToReplicaSet: the Deployment's annotations
 * onto the RS, except the skipped ones; annotations only the RS has stay.
 * Returns true when anything changed, which makes the caller write it. */
bool
copy_deployment_annotations_to_rs(const struct deployment *d,
				  struct replicaset *rs)
{
	const struct strmap *da = &d->metadata.annotations;
	bool changed = false;
	size_t i;

	for (i = 0; i < da->n; i++) {
		const char *cur;

		if (skip_copy_annotation(da->v[i].key))
			continue;
		cur = strmap_get(&rs->metadata.annotations, da->v[i].key);
		if (cur && !strcmp(cur, da->v[i].value))
			continue;
		strmap_set(&rs->metadata.annotations, da->v[i].key,
			   da->v[i].value);
		changed = true;
	}
	return changed;
}

/* Appends old to the comma-separated history, dropping the oldest entries
 * until it fits in MAX_REV_HISTORY_CHARS (not at all if it never fits).
 * Example: history "1,3", old 5 -> "1,3,5"; had "1,3" been 1999 bytes,
 * "1" would go first. The loop keeps `total` = the length of the result
 * if the entries from `start` on were kept (each costs its length plus a
 * comma). */
static void
append_revision_history(struct replicaset *rs, const char *old)
{
	const char *hist =
	    strmap_get(&rs->metadata.annotations, ANN_REVISION_HISTORY);
	struct strlist parts = {0};
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	size_t total, start = 0, i;

	if (hist == NULL || *hist == '\0' || *hist == ',') {
		/* strings.Split's first element is empty: start afresh */
		strmap_set(&rs->metadata.annotations, ANN_REVISION_HISTORY,
			   old);
		return;
	}
	for (p = hist;;) {
		const char *comma = strchr(p, ',');
		char *part =
		    xstrndup(p, comma ? (size_t)(comma - p) : strlen(p));

		strlist_push(&parts, part);
		free(part);
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	total = strlen(hist) + strlen(old) + 1;
	while (total > MAX_REV_HISTORY_CHARS && start < parts.n) {
		total -= strlen(parts.v[start]) + 1;
		start++;
	}
	if (total <= MAX_REV_HISTORY_CHARS) {
		for (i = start; i < parts.n; i++) {
			strbuf_addstr(&sb, parts.v[i]);
			strbuf_addch(&sb, ',');
		}
		strbuf_addstr(&sb, old);
		strmap_set(&rs->metadata.annotations, ANN_REVISION_HISTORY,
			   sb.buf);
	}
	strbuf_release(&sb);
	strlist_release(&parts);
}

/* SetNewReplicaSetAnnotations (§5): copies the Deployment's annotations,
 * raises the RS's revision to new_revision when it is lower, and on a new
 * RS (exists false) sets desired-replicas and max-replicas. When an RS
 * that had a revision gets a higher one, that is a rollback re-using it
 * (or a roll-over back to an old template): its old number goes into
 * revision-history. Example: RSes at 1 (template A), 2 (B); the template
 * goes back to A: the RS of revision 1 becomes 3 with history "1". The
 * revision is never lowered, and an RS with a bad revision is left as it
 * is. */
bool
set_new_rs_annotations(const struct deployment *d, struct replicaset *rs,
		       int64_t new_revision, bool exists)
{
	bool changed = copy_deployment_annotations_to_rs(d, rs);
	const char *old = strmap_get(&rs->metadata.annotations, ANN_REVISION);
	char *old_copy = xstrdup(old);
	int64_t old_rev = 0;
	char buf[24];

	if (old && parse_i64(old, &old_rev)) {
		free(old_copy);
		return false; /* unparseable: leave the RS untouched */
	}
	if (old_rev < new_revision) {
		snprintf(buf, sizeof(buf), "%lld", (long long)new_revision);
		strmap_set(&rs->metadata.annotations, ANN_REVISION, buf);
		changed = true;
		if (old_copy) /* a rollback to this RS: keep its old number */
			append_revision_history(rs, old_copy);
	}
	free(old_copy);
	if (!exists &&
	    set_replicas_annotations(rs, deploy_replicas(d),
				     deploy_replicas(d) + max_surge(d)))
		changed = true;
	return changed;
}

/* SetReplicasAnnotations: desired-replicas = spec.replicas and
 * max-replicas = replicas + surge, the denominators of proportional
 * scaling (getProportion) the next time spec.replicas changes. */
bool
set_replicas_annotations(struct replicaset *rs, int64_t desired, int64_t max)
{
	bool changed = false;
	char buf[24];
	const char *cur;

	snprintf(buf, sizeof(buf), "%lld", (long long)desired);
	cur = strmap_get(&rs->metadata.annotations, ANN_DESIRED_REPLICAS);
	if (cur == NULL || strcmp(cur, buf)) {
		strmap_set(&rs->metadata.annotations, ANN_DESIRED_REPLICAS,
			   buf);
		changed = true;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)max);
	cur = strmap_get(&rs->metadata.annotations, ANN_MAX_REPLICAS);
	if (cur == NULL || strcmp(cur, buf)) {
		strmap_set(&rs->metadata.annotations, ANN_MAX_REPLICAS, buf);
		changed = true;
	}
	return changed;
}

/* ReplicasAnnotationsNeedUpdate: whether scaleReplicaSet must write an RS
 * whose size is already right. */
bool
replicas_annotations_need_update(const struct replicaset *rs, int64_t desired,
				 int64_t max)
{
	char buf[24];
	const char *cur;

	snprintf(buf, sizeof(buf), "%lld", (long long)desired);
	cur = strmap_get(&rs->metadata.annotations, ANN_DESIRED_REPLICAS);
	if (cur == NULL || strcmp(cur, buf))
		return true;
	snprintf(buf, sizeof(buf), "%lld", (long long)max);
	cur = strmap_get(&rs->metadata.annotations, ANN_MAX_REPLICAS);
	return cur == NULL || strcmp(cur, buf) != 0;
}

/* SetDeploymentRevision: the Deployment's revision annotation follows its
 * new RS's. */
bool
set_deployment_revision(struct deployment *d, const char *revision)
{
	const char *cur = strmap_get(&d->metadata.annotations, ANN_REVISION);

	if (cur && !strcmp(cur, revision))
		return false;
	strmap_set(&d->metadata.annotations, ANN_REVISION, revision);
	return true;
}

/* The int32 annotations (desired-replicas, max-replicas): Kubernetes
 * parses them with strconv.Atoi and treats a negative or too large value
 * like a missing one. */
bool
int_annotation(const struct strmap *ann, const char *key, int64_t *out)
{
	const char *v = strmap_get(ann, key);
	int64_t x;

	if (v == NULL || parse_i64(v, &x) || x < 0 || x > MAX_INT32)
		return false;
	*out = x;
	return true;
}

/* ---- proportional scaling ---- */

/* math.Round: halves away from zero (2.5 -> 3, -2.5 -> -3), unlike C's
 * rint() under the default rounding mode, which would give 2. */
int64_t
round_half_away(double x)
{
	int64_t t = (int64_t)x; /* toward zero */
	double frac = x - (double)t;

	if (frac >= 0.5)
		return t + 1;
	if (frac <= -0.5)
		return t - 1;
	return t;
}

/* getReplicaSetFraction: how many pods this RS gains (or loses) when the
 * Deployment's maxPods goes from the RS's max-replicas annotation to
 * replicas + surge: round(size * full / before) - size. Example: size 8,
 * annotated 13, now 15 + 3 = 18: round(11.08) - 8 = 3. With replicas 0
 * the RS loses everything. Also getReplicaSetFraction with the 1.33
 * rules for a missing or zero max-replicas annotation. The product is
 * computed in 32 bits, as in Go. */
static int64_t
rs_fraction(const struct replicaset *rs, const struct deployment *d)
{
	int64_t full, before;
	int32_t product;

	if (deploy_replicas(d) == 0)
		return -rs_replicas(rs);
	full = deploy_replicas(d) + max_surge(d);
	if (!int_annotation(&rs->metadata.annotations, ANN_MAX_REPLICAS,
			    &before) ||
	    before == 0) {
		before = d->status.replicas;
		if (before == 0)
			return 0;
	}
	product = (int32_t)((uint32_t)rs_replicas(rs) * (uint32_t)full);
	return round_half_away((double)product / (double)before) -
	       rs_replicas(rs);
}

/* getProportion (§7.3): the share of to_add this RS gets: its fraction,
 * but never more than is left (to_add - added) in the direction of
 * to_add. Example: to_add 5, added 3 so far, fraction 3: gets 2. */
int64_t
get_proportion(const struct replicaset *rs, const struct deployment *d,
	       int64_t to_add, int64_t added)
{
	int64_t f, allowed;

	if (rs == NULL || rs_replicas(rs) == 0 || to_add == 0 ||
	    to_add == added)
		return 0;
	f = rs_fraction(rs, d);
	allowed = to_add - added;
	if (to_add > 0)
		return f < allowed ? f : allowed;
	return f > allowed ? f : allowed;
}

/* IsSaturated: the RS has the full count, its desired-replicas annotation
 * says so, and all of it is available; then old RSes may go to 0 at
 * once in a scaling event. */
bool
is_saturated(const struct deployment *d, const struct replicaset *rs)
{
	int64_t desired;

	if (rs == NULL)
		return false;
	if (!int_annotation(&rs->metadata.annotations, ANN_DESIRED_REPLICAS,
			    &desired))
		return false;
	return rs_replicas(rs) == deploy_replicas(d) &&
	       desired == deploy_replicas(d) &&
	       rs->status.available_replicas == deploy_replicas(d);
}

/* ---- conditions ---- */

/* SetDeploymentCondition: the same status and reason leave the condition
 * alone (its timestamps too, which is what keeps the progress deadline
 * running); a new reason with the same status keeps lastTransitionTime;
 * a new status starts both times now. The condition moves to the end of
 * the list, as Kubernetes' filterOutCondition + append does. */
void
set_condition(struct condition_list *l, const char *type, const char *status,
	      const char *reason, const char *message, dtime now)
{
	struct condition *cur = condition_find(l, type);
	struct condition c = {
	    .type = (char *)type,
	    .status = (char *)status,
	    .reason = (char *)reason,
	    .message = (char *)message,
	    .last_update_time = now,
	    .last_transition_time = now,
	};

	if (cur && cur->status && !strcmp(cur->status, status) && cur->reason &&
	    !strcmp(cur->reason, reason))
		return;
	if (cur && cur->status && !strcmp(cur->status, status))
		c.last_transition_time = cur->last_transition_time;
	condition_remove(l, type);
	condition_append(l, &c);
}

/* DeploymentComplete (§11.3): every pod is updated, there are exactly
 * replicas of them and all are available, and the status is of the
 * current generation. 10 updated and available while one old pod is
 * still counted (replicas 11) is not complete. */
bool
deployment_complete(const struct deployment *d,
		    const struct deployment_status *st)
{
	return st->updated_replicas == deploy_replicas(d) &&
	       st->replicas == deploy_replicas(d) &&
	       st->available_replicas == deploy_replicas(d) &&
	       st->observed_generation >= d->metadata.generation;
}

/* DeploymentProgressing (§11.3): the new status has more updated, ready or
 * available pods, or fewer old ones, than the stored one. Any of these
 * refreshes the Progressing condition's lastUpdateTime, so a rollout
 * that keeps moving never hits its deadline. */
bool
deployment_progressing(const struct deployment *d,
		       const struct deployment_status *st)
{
	const struct deployment_status *old = &d->status;

	return st->updated_replicas > old->updated_replicas ||
	       (st->replicas - st->updated_replicas) <
		   (old->replicas - old->updated_replicas) ||
	       st->ready_replicas > old->ready_replicas ||
	       st->available_replicas > old->available_replicas;
}

/* DeploymentTimedOut (§11.3): lastUpdateTime + progressDeadlineSeconds
 * < now, strictly: with a 600 s deadline updated at 12:00:00, 12:10:00
 * has not timed out, 12:10:00.001 has. Never after the rollout
 * completed (NewReplicaSetAvailable); always once it was reported. */
bool
deployment_timed_out(const struct deployment *d,
		     const struct deployment_status *st, dtime now)
{
	const struct condition *c;

	if (!deploy_has_progress_deadline(d))
		return false;
	c = condition_get(&st->conditions, "Progressing");
	if (c == NULL ||
	    (c->reason && !strcmp(c->reason, REASON_NEW_RS_AVAILABLE)))
		return false;
	if (c->reason && !strcmp(c->reason, REASON_TIMED_OUT))
		return true;
	return c->last_update_time +
		   DTIME_SEC(d->spec.progress_deadline_seconds.v) <
	       now;
}

/* EqualIgnoreHash: templates equal except for the pod-template-hash
 * label, which only the RS has. This is how the new RS is found. */
bool
rs_matches_template(const struct deployment *d, const struct replicaset *rs)
{
	return tmpl_equal_ignore_hash(&d->spec.template, &rs->spec.template);
}
