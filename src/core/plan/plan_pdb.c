/* plan_pdb.c - the disruption controller's sync of one budget, pure
 * (plan_pdb.h). The Go functions mirrored (pkg/controller/disruption/
 * disruption.go, Kubernetes 1.28): getPodsForPdb, getExpectedPodCount,
 * getExpectedScale with the finders getPodReplicationController,
 * getPodDeployment and getPodReplicaSet, buildDisruptedPodMap,
 * countHealthyPods, updatePdbStatus, failSafe; and pdbhelper's
 * UpdateDisruptionAllowedCondition and ConditionsAreUpToDate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intstr.h"
#include "labels.h"
#include "plan_pdb.h"
#include "plan_rs.h"
#include "xalloc.h"

size_t
pdb_selected_pods(const struct pdb_world *w, struct pod ***out)
{
	const struct label_selector *sel = w->pdb->spec.selector;
	const char *ns = w->pdb->metadata.namespace;
	size_t i, n = 0;

	*out = xcalloc(w->npods ? w->npods : 1, sizeof(**out));
	if (sel == NULL) /* LabelSelectorAsSelector(nil): Nothing() */
		return 0;
	for (i = 0; i < w->npods; i++) {
		const struct pod *p = w->pods[i];

		if (strcmp(p->metadata.namespace ? p->metadata.namespace : "",
			   ns ? ns : ""))
			continue;
		if (selector_matches(sel, &p->metadata.labels))
			(*out)[n++] = (struct pod *)p;
	}
	return n;
}

/* ---- SCALE_SUM: the finders ---- */

static bool
same_kind(const struct owner_ref *r, const char *kind, const char *group)
{
	const char *av = r->api_version ? r->api_version : "";
	const char *slash = strchr(av, '/');
	size_t gl = slash ? (size_t)(slash - av) : 0;

	/* verifyGroupKind: the kind, and the group of apiVersion among the
	 * accepted ones ("apps" or "extensions"; "" the core group) */
	if (!r->kind || strcmp(r->kind, kind))
		return false;
	if (*group == '\0')
		return slash == NULL;
	return slash && ((gl == strlen(group) && !strncmp(av, group, gl)) ||
			 (gl == 10 && !strncmp(av, "extensions", 10)));
}

static const struct replicaset *
find_rs(const struct pdb_world *w, const char *name, const char *uid)
{
	size_t i;

	for (i = 0; i < w->nrs; i++) {
		const struct replicaset *rs = w->rses[i];

		if (rs->metadata.name && !strcmp(rs->metadata.name, name))
			return rs->metadata.uid && uid &&
				       !strcmp(rs->metadata.uid, uid)
				   ? rs
				   : NULL;
	}
	return NULL;
}

/* The controller of pod ref and its scale, the finders in Kubernetes'
 * order: a ReplicationController; a Deployment through its ReplicaSet; a
 * ReplicaSet that no Deployment controls. false: none found. A finder
 * that finds the object by name but with another uid finds nothing. */
static bool
find_scale(const struct pdb_world *w, const struct owner_ref *ref,
	   const char **uid, int64_t *scale)
{
	const struct replicaset *rs;
	const struct owner_ref *rref;
	size_t i;

	if (same_kind(ref, "ReplicationController", "")) {
		for (i = 0; i < w->nrcs; i++) {
			const struct replication_controller *rc = w->rcs[i];

			if (rc->metadata.name && ref->name &&
			    !strcmp(rc->metadata.name, ref->name)) {
				if (!rc->metadata.uid || !ref->uid ||
				    strcmp(rc->metadata.uid, ref->uid))
					return false;
				*uid = rc->metadata.uid;
				*scale = rc->spec.replicas.set
					     ? rc->spec.replicas.v
					     : 1;
				return true;
			}
		}
		return false;
	}
	if (!same_kind(ref, "ReplicaSet", "apps") || ref->name == NULL ||
	    (rs = find_rs(w, ref->name, ref->uid)) == NULL)
		return false;
	rref = meta_controller_ref(&rs->metadata);
	if (rref && rref->kind && !strcmp(rref->kind, "Deployment")) {
		if (!same_kind(rref, "Deployment", "apps"))
			return false;
		for (i = 0; i < w->ndeps; i++) {
			const struct deployment *d = w->deps[i];

			if (d->metadata.name && rref->name &&
			    !strcmp(d->metadata.name, rref->name)) {
				if (!d->metadata.uid || !rref->uid ||
				    strcmp(d->metadata.uid, rref->uid))
					return false;
				*uid = d->metadata.uid;
				*scale = deploy_replicas(d);
				return true;
			}
		}
		return false;
	}
	*uid = rs->metadata.uid;
	*scale = rs_replicas(rs);
	return true;
}

/* getExpectedScale: the sum of the distinct controllers' scales;
 * unmanaged pods listed in out; -1 with out->error when a pod's
 * controller is found by none of the finders. */
static int
expected_scale(const struct pdb_world *w, struct pod *const *pods, size_t n,
	       int64_t *sum, struct pdb_plan *out)
{
	const char **seen = xcalloc(n ? n : 1, sizeof(*seen));
	size_t i, j, nseen = 0;

	*sum = 0;
	for (i = 0; i < n; i++) {
		const struct owner_ref *ref =
		    meta_controller_ref(&pods[i]->metadata);
		const char *uid;
		int64_t scale;

		if (ref == NULL) {
			strlist_push(&out->unmanaged,
				     pods[i]->metadata.name
					 ? pods[i]->metadata.name
					 : "");
			continue;
		}
		if (!find_scale(w, ref, &uid, &scale)) {
			char msg[600];

			snprintf(msg, sizeof(msg),
				 "found no controllers for pod \"%s\"",
				 pods[i]->metadata.name ? pods[i]->metadata.name
							: "");
			out->error = xstrdup(msg);
			free(seen);
			return -1;
		}
		for (j = 0; j < nseen && strcmp(seen[j], uid); j++)
			;
		if (j == nseen) { /* controllerScale[uid] = scale, once */
			seen[nseen++] = uid;
			*sum += scale;
		}
	}
	free(seen);
	return 0;
}

/* getExpectedPodCount: expected and desired healthy pods. */
static int
expected_count(const struct pdb_world *w, struct pod *const *pods, size_t n,
	       int64_t *expected, int64_t *desired, struct pdb_plan *out)
{
	const struct pdb_spec *s = &w->pdb->spec;
	int64_t v;

	*expected = *desired = 0;
	if (s->max_unavailable.type != INTSTR_UNSET) {
		if (expected_scale(w, pods, n, expected, out))
			return -1;
		if (intstr_scaled(&s->max_unavailable, *expected, true, &v))
			goto bad;
		*desired = *expected - v < 0 ? 0 : *expected - v;
	} else if (s->min_available.type == INTSTR_INT) {
		*desired = s->min_available.ival;
		*expected = (int64_t)n;
	} else if (s->min_available.type == INTSTR_STRING) {
		if (expected_scale(w, pods, n, expected, out))
			return -1;
		if (intstr_scaled(&s->min_available, *expected, true, &v))
			goto bad;
		*desired = v;
	}
	return 0;
bad:
	out->error = xstrdup("invalid value for IntOrString: invalid type: "
			     "string is not a percentage");
	return -1;
}

/* ---- disruptedPods ---- */

static dtime
entry_time(const char *text)
{
	dtime t;

	return text && dtime_parse(text, &t) == 0 ? t : 0;
}

/* buildDisruptedPodMap: the entries of pods that exist, are not being
 * deleted and whose 2 minutes have not passed; the expired ones are
 * reported (NotDeleted); the earliest expiry to come sets the recheck. */
static void
disrupted_map(const struct pdb_world *w, struct pod *const *pods, size_t n,
	      struct pdb_plan *out)
{
	const struct strmap *old = &w->pdb->status.disrupted_pods;
	dtime recheck = 0;
	size_t i;

	out->recheck_ms = -1;
	if (old->n == 0)
		return;
	for (i = 0; i < n; i++) {
		const char *name = pods[i]->metadata.name;
		const char *at;
		dtime due;

		if (pods[i]->metadata.deletion_timestamp || name == NULL ||
		    (at = strmap_get(old, name)) == NULL)
			continue;
		due = entry_time(at) + PDB_DELETION_TIMEOUT_MS;
		if (due < w->now) {
			strlist_push(&out->not_deleted, name);
		} else {
			if (recheck == 0 || due < recheck)
				recheck = due;
			strmap_set(&out->status.disrupted_pods, name, at);
		}
	}
	if (recheck)
		out->recheck_ms = recheck - w->now;
}

/* countHealthyPods */
static int64_t
healthy(struct pod *const *pods, size_t n, const struct strmap *disrupted,
	dtime now)
{
	int64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *at;

		if (pods[i]->metadata.deletion_timestamp)
			continue;
		at = pods[i]->metadata.name
			 ? strmap_get(disrupted, pods[i]->metadata.name)
			 : NULL;
		if (at && entry_time(at) + PDB_DELETION_TIMEOUT_MS > now)
			continue;
		c += pod_is_ready(pods[i]);
	}
	return c;
}

/* ---- the DisruptionAllowed condition ---- */

/* apimeta.SetStatusCondition: a new condition gets now as its
 * lastTransitionTime, a changed status a new one; reason, message and
 * observedGeneration are set. */
static void
set_condition(struct condition_list *l, const char *status, const char *reason,
	      const char *message, int64_t gen, dtime now)
{
	struct condition *c =
	    condition_find(l, PDB_CONDITION_DISRUPTION_ALLOWED);

	if (c == NULL) {
		struct condition n = {
		    .type = (char *)PDB_CONDITION_DISRUPTION_ALLOWED,
		    .status = (char *)status,
		    .reason = (char *)reason,
		    .message = (char *)message,
		    .observed_generation = gen,
		    .last_transition_time = now,
		};

		condition_append(l, &n);
		return;
	}
	if (strcmp(c->status ? c->status : "", status)) {
		free(c->status);
		c->status = xstrdup(status);
		c->last_transition_time = now;
	}
	free(c->reason);
	c->reason = xstrdup(reason);
	free(c->message);
	c->message = xstrdup(message);
	c->observed_generation = gen;
}

/* ConditionsAreUpToDate */
static bool
conditions_up_to_date(const struct pod_disruption_budget *p)
{
	const struct condition *c = condition_get(
	    &p->status.conditions, PDB_CONDITION_DISRUPTION_ALLOWED);
	bool allowed = p->status.disruptions_allowed > 0;

	if (c == NULL ||
	    p->status.observed_generation != p->metadata.generation)
		return false;
	return !strcmp(c->status ? c->status : "",
		       allowed ? "True" : "False") &&
	       !strcmp(c->reason ? c->reason : "",
		       allowed ? PDB_REASON_SUFFICIENT_PODS
			       : PDB_REASON_INSUFFICIENT_PODS);
}

/* ---- the sync ---- */

static int
fail_safe(const struct pdb_world *w, struct pdb_plan *out)
{
	pdb_status_copy(&out->status, &w->pdb->status);
	out->status.disruptions_allowed = 0;
	set_condition(&out->status.conditions, "False", PDB_REASON_SYNC_FAILED,
		      out->error, out->status.observed_generation, w->now);
	out->write = true;
	out->recheck_ms = -1;
	return -1;
}

int
plan_pdb(const struct pdb_world *w, struct pdb_plan *out)
{
	const struct pod_disruption_budget *p = w->pdb;
	const struct pdb_status *st = &p->status;
	struct pod **pods;
	size_t n = pdb_selected_pods(w, &pods);
	int64_t expected, desired, current, allowed;

	memset(out, 0, sizeof(*out));
	out->recheck_ms = -1;
	out->no_pods = n == 0;
	if (expected_count(w, pods, n, &expected, &desired, out)) {
		free(pods);
		return fail_safe(w, out);
	}
	disrupted_map(w, pods, n, out);
	current = healthy(pods, n, &out->status.disrupted_pods, w->now);
	free(pods);
	allowed = current - desired;
	if (expected <= 0 || allowed <= 0)
		allowed = 0;
	if (st->current_healthy == current && st->desired_healthy == desired &&
	    st->expected_pods == expected &&
	    st->disruptions_allowed == allowed &&
	    strmap_equal(&st->disrupted_pods, &out->status.disrupted_pods) &&
	    st->observed_generation == p->metadata.generation &&
	    conditions_up_to_date(p)) {
		strmap_release(&out->status.disrupted_pods);
		pdb_status_copy(&out->status, st);
		return 0;
	}
	out->write = true;
	out->status.current_healthy = current;
	out->status.desired_healthy = desired;
	out->status.expected_pods = expected;
	out->status.disruptions_allowed = allowed;
	out->status.observed_generation = p->metadata.generation;
	for (size_t i = 0; i < st->conditions.n; i++)
		condition_append(&out->status.conditions, &st->conditions.v[i]);
	if (allowed > 0)
		set_condition(&out->status.conditions, "True",
			      PDB_REASON_SUFFICIENT_PODS, "",
			      out->status.observed_generation, w->now);
	else
		set_condition(&out->status.conditions, "False",
			      PDB_REASON_INSUFFICIENT_PODS, "",
			      out->status.observed_generation, w->now);
	return 0;
}

void
plan_pdb_release(struct pdb_plan *out)
{
	pdb_status_release(&out->status);
	free(out->error);
	strlist_release(&out->unmanaged);
	strlist_release(&out->not_deleted);
	memset(out, 0, sizeof(*out));
}

/* ---- the UnmanagedPods Event ---- */

/* %v of a *metav1.LabelSelector: its generated String(),
 * "&LabelSelector{MatchLabels:map[string]string{app: web,},
 * MatchExpressions:[]LabelSelectorRequirement{},}"; nil "nil". */
static void
go_selector(const struct label_selector *s, struct strbuf *sb)
{
	size_t i, j;

	if (s == NULL) {
		strbuf_addstr(sb, "nil");
		return;
	}
	strbuf_addstr(sb, "&LabelSelector{MatchLabels:map[string]string{");
	for (i = 0; i < s->match_labels.n; i++)
		strbuf_addf(sb, "%s: %s,", s->match_labels.v[i].key,
			    s->match_labels.v[i].value);
	strbuf_addstr(sb, "},MatchExpressions:[]LabelSelectorRequirement{");
	for (i = 0; i < s->match_expressions.n; i++) {
		const struct selector_req *r = &s->match_expressions.v[i];

		strbuf_addf(sb, "LabelSelectorRequirement{Key:%s,Operator:%s,"
				"Values:[",
			    r->key ? r->key : "",
			    r->operator? r->operator: "");
		for (j = 0; j < r->values.n; j++)
			strbuf_addf(sb, "%s%s", j ? " " : "", r->values.v[j]);
		strbuf_addstr(sb, "],},");
	}
	strbuf_addstr(sb, "},}");
}

void
pdb_unmanaged_message(const struct pod_disruption_budget *pdb,
		      struct strbuf *sb)
{
	strbuf_addstr(sb, "Pods selected by this PodDisruptionBudget "
			  "(selector: ");
	go_selector(pdb->spec.selector, sb);
	strbuf_addstr(
	    sb, ") were found to be unmanaged. As a result, the status of "
		"the PDB cannot be calculated correctly, which may result in "
		"undefined behavior. To account for these pods please set "
		"\".spec.minAvailable\" field of the PDB to an integer value.");
}

/* ---- a stale DisruptionTarget condition ---- */

bool
pdb_stale_disruption(const struct pod *p, dtime now, int64_t *wait_ms)
{
	const struct condition *c =
	    condition_get(&p->status.conditions, "DisruptionTarget");
	const char *ph = p->status.phase ? p->status.phase : "";
	int64_t w;

	*wait_ms = 0;
	if (p->metadata.deletion_timestamp || c == NULL || !c->status ||
	    strcmp(c->status, "True") ||
	    (c->reason && !strcmp(c->reason, "TerminationByKubelet")) ||
	    !strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"))
		return false;
	w = PDB_STALE_DISRUPTION_MS - (now - c->last_transition_time);
	*wait_ms = w < 0 ? 0 : w;
	return true;
}
