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

int64_t
deploy_replicas(const struct deployment *d)
{
	return d->spec.replicas.set ? d->spec.replicas.v : 1;
}

int64_t
rs_replicas(const struct replicaset *rs)
{
	return rs->spec.replicas.set ? rs->spec.replicas.v : 1;
}

bool
deploy_is_rolling(const struct deployment *d)
{
	return d->spec.strategy.type &&
	       strcmp(d->spec.strategy.type, "RollingUpdate") == 0;
}

bool
deploy_has_progress_deadline(const struct deployment *d)
{
	return d->spec.progress_deadline_seconds.set &&
	       d->spec.progress_deadline_seconds.v != MAX_INT32;
}

bool
deploy_has_revision_history_limit(const struct deployment *d)
{
	return d->spec.revision_history_limit.set &&
	       d->spec.revision_history_limit.v != MAX_INT32;
}

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

int64_t
max_surge(const struct deployment *d)
{
	int64_t s, u;

	if (!deploy_is_rolling(d))
		return 0;
	fenceposts(d, &s, &u);
	return s;
}

int64_t
max_unavailable(const struct deployment *d)
{
	int64_t s, u;

	if (!deploy_is_rolling(d) || deploy_replicas(d) == 0)
		return 0;
	fenceposts(d, &s, &u);
	return u > deploy_replicas(d) ? deploy_replicas(d) : u;
}

int64_t
min_available(const struct deployment *d)
{
	if (!deploy_is_rolling(d))
		return 0;
	return deploy_replicas(d) - max_unavailable(d);
}

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

int64_t
new_rs_new_replicas(const struct deployment *d, struct replicaset *const *all,
		    size_t n, const struct replicaset *new_rs)
{
	const struct rolling_update *ru = d->spec.strategy.rolling_update;
	int64_t surge = 0, max_total, current, grow, cur_new;

	if (!deploy_is_rolling(d))
		return deploy_replicas(d);
	/* The plain percent rule: no fencepost adjustment here. */
	if (ru &&
	    intstr_scaled(&ru->max_surge, deploy_replicas(d), true, &surge))
		surge = 0;
	cur_new = rs_replicas(new_rs);
	max_total = deploy_replicas(d) + surge;
	current = rs_spec_sum(all, n);
	if (current >= max_total)
		return cur_new;
	grow = max_total - current;
	if (grow > deploy_replicas(d) - cur_new)
		grow = deploy_replicas(d) - cur_new;
	return cur_new + grow;
}

/* Go's strconv.ParseInt(s, 10, 64). */
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

int
rs_revision(const struct replicaset *rs, int64_t *out)
{
	const char *v = strmap_get(&rs->metadata.annotations, ANN_REVISION);

	*out = 0;
	if (v == NULL)
		return 0;
	return parse_i64(v, out);
}

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

/* ---- sort orders ---- */

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

int
rs_cmp_size_older(const void *a, const void *b)
{
	const struct replicaset *x = *(struct replicaset *const *)a;
	const struct replicaset *y = *(struct replicaset *const *)b;

	if (rs_replicas(x) != rs_replicas(y))
		return rs_replicas(x) > rs_replicas(y) ? -1 : 1;
	return cmp_creation(x, y);
}

int
rs_cmp_size_newer(const void *a, const void *b)
{
	const struct replicaset *x = *(struct replicaset *const *)a;
	const struct replicaset *y = *(struct replicaset *const *)b;

	if (rs_replicas(x) != rs_replicas(y))
		return rs_replicas(x) > rs_replicas(y) ? -1 : 1;
	return -cmp_creation(x, y);
}

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

bool
skip_copy_annotation(const char *key)
{
	return !strcmp(key, ANN_LAST_APPLIED) || !strcmp(key, ANN_REVISION) ||
	       !strcmp(key, ANN_REVISION_HISTORY) ||
	       !strcmp(key, ANN_DESIRED_REPLICAS) ||
	       !strcmp(key, ANN_MAX_REPLICAS) || !strcmp(key, ANN_ROLLBACK_TO);
}

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
 * until it fits in MAX_REV_HISTORY_CHARS (not at all if it never fits). */
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

bool
set_deployment_revision(struct deployment *d, const char *revision)
{
	const char *cur = strmap_get(&d->metadata.annotations, ANN_REVISION);

	if (cur && !strcmp(cur, revision))
		return false;
	strmap_set(&d->metadata.annotations, ANN_REVISION, revision);
	return true;
}

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

/* getReplicaSetFraction, with the 1.33 rules for a missing or zero
 * max-replicas annotation. The product is computed in 32 bits, as in Go. */
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

bool
deployment_complete(const struct deployment *d,
		    const struct deployment_status *st)
{
	return st->updated_replicas == deploy_replicas(d) &&
	       st->replicas == deploy_replicas(d) &&
	       st->available_replicas == deploy_replicas(d) &&
	       st->observed_generation >= d->metadata.generation;
}

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

bool
rs_matches_template(const struct deployment *d, const struct replicaset *rs)
{
	return tmpl_equal_ignore_hash(&d->spec.template, &rs->spec.template);
}
