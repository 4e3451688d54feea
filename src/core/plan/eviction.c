/* eviction.c - the eviction subresource's decision for one pod, pure
 * (eviction.h): EvictionREST.Create's canIgnorePDB,
 * shouldEnforceResourceVersion, getPodDisruptionBudgets, the unhealthy
 * pod policy and checkAndDecrement, with Kubernetes' codes and
 * messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eviction.h"
#include "labels.h"
#include "plan_rs.h"
#include "xalloc.h"

static bool
phase_is(const struct pod *p, const char *phase)
{
	return p->status.phase && !strcmp(p->status.phase, phase);
}

/* canIgnorePDB: the pod has disrupted already, or never ran. */
static bool
can_ignore_pdb(const struct pod *p)
{
	return phase_is(p, "Succeeded") || phase_is(p, "Failed") ||
	       phase_is(p, "Pending") || p->metadata.deletion_timestamp;
}

/* shouldEnforceResourceVersion: not for a terminal or deleting pod. */
static bool
enforce_rv(const struct pod *p)
{
	return !(phase_is(p, "Succeeded") || phase_is(p, "Failed") ||
		 p->metadata.deletion_timestamp);
}

/* A nil or empty selector matches nothing here ("should match nothing,
 * not everything"), unlike the disruption controller's. */
static bool
matches(const struct pod_disruption_budget *b, const struct pod *p)
{
	const struct label_selector *s = b->spec.selector;

	if (strcmp(b->metadata.namespace ? b->metadata.namespace : "",
		   p->metadata.namespace ? p->metadata.namespace : ""))
		return false;
	return s && !selector_is_empty(s) &&
	       selector_matches(s, &p->metadata.labels);
}

static void
refuse(struct eviction_out *out, int code, const char *reason,
       const char *message)
{
	out->verdict = EVICT_REFUSE;
	out->code = code;
	out->reason = reason;
	free(out->message);
	out->message = xstrdup(message);
}

void
eviction_too_many_requests(const char *pdb_name, struct eviction_out *out)
{
	char cause[600];

	refuse(out, 429, "TooManyRequests",
	       "Cannot evict pod as it would violate the pod's disruption "
	       "budget.");
	snprintf(cause, sizeof(cause),
		 "The disruption budget %s is still being processed by the "
		 "server.",
		 pdb_name);
	free(out->cause);
	out->cause = xstrdup(cause);
	out->retry_after = 10;
}

/* NewForbidden(policy.Resource("poddisruptionbudget"), name, err). */
static void
forbidden(struct eviction_out *out, const char *name, const char *why)
{
	char msg[700];

	snprintf(msg, sizeof(msg),
		 "poddisruptionbudget.policy \"%s\" is forbidden: %s", name,
		 why);
	refuse(out, 403, "Forbidden", msg);
}

/* UpdateDisruptionAllowedCondition once allowed reaches 0. */
static void
insufficient(struct pdb_status *st, dtime now)
{
	struct condition *c =
	    condition_find(&st->conditions, PDB_CONDITION_DISRUPTION_ALLOWED);

	if (c == NULL) {
		condition_append(
		    &st->conditions,
		    &(struct condition){
			.type = (char *)PDB_CONDITION_DISRUPTION_ALLOWED,
			.status = (char *)"False",
			.reason = (char *)PDB_REASON_INSUFFICIENT_PODS,
			.message = (char *)"",
			.observed_generation = st->observed_generation,
			.last_transition_time = now});
		return;
	}
	if (strcmp(c->status ? c->status : "", "False")) {
		free(c->status);
		c->status = xstrdup("False");
		c->last_transition_time = now;
	}
	free(c->reason);
	c->reason = xstrdup(PDB_REASON_INSUFFICIENT_PODS);
	free(c->message);
	c->message = xstrdup("");
	c->observed_generation = st->observed_generation;
}

/* checkAndDecrement */
static void
check_and_decrement(const struct eviction_in *in,
		    const struct pod_disruption_budget *b,
		    struct eviction_out *out)
{
	const struct pdb_status *st = &b->status;
	const char *name = b->metadata.name ? b->metadata.name : "";
	char cause[600], t[32];

	if (st->observed_generation < b->metadata.generation) {
		eviction_too_many_requests(name, out);
		return;
	}
	if (st->disruptions_allowed < 0) {
		forbidden(out, name, "pdb disruptions allowed is negative");
		return;
	}
	if (st->disrupted_pods.n > EVICTION_MAX_DISRUPTED) {
		forbidden(out, name,
			  "DisruptedPods map too big - too many evictions not "
			  "confirmed by PDB controller");
		return;
	}
	if (st->disruptions_allowed == 0) {
		refuse(out, 429, "TooManyRequests",
		       "Cannot evict pod as it would violate the pod's "
		       "disruption budget.");
		snprintf(cause, sizeof(cause),
			 "The disruption budget %s needs %lld healthy pods and "
			 "has %lld currently",
			 name, (long long)st->desired_healthy,
			 (long long)st->current_healthy);
		free(out->cause);
		out->cause = xstrdup(cause);
		out->retry_after = 0;
		return;
	}
	out->verdict = EVICT_DECREMENT;
	pdb_status_copy(&out->status, st);
	out->status.disruptions_allowed--;
	if (out->status.disruptions_allowed == 0)
		insufficient(&out->status, in->now);
	if (in->dry_run)
		return;
	/* metav1.Time: whole seconds */
	dtime_format(in->now - in->now % 1000, t);
	strmap_set(&out->status.disrupted_pods,
		   in->pod->metadata.name ? in->pod->metadata.name : "", t);
	out->status_write = true;
}

void
eviction_decide(const struct eviction_in *in, struct eviction_out *out)
{
	const struct pod *p = in->pod;
	const struct pod_disruption_budget *b = NULL;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	out->verdict = EVICT_DELETE;
	if (can_ignore_pdb(p)) {
		out->precondition = enforce_rv(p);
		return;
	}
	for (i = 0; i < in->npdbs; i++)
		if (matches(in->pdbs[i], p)) {
			b = in->pdbs[i];
			n++;
		}
	if (n > 1) {
		refuse(out, 500, "",
		       "This pod has more than one PodDisruptionBudget, which "
		       "the eviction subresource does not support.");
		return;
	}
	if (n == 0)
		return;
	out->pdb = b;
	if (!pod_is_ready(p)) {
		const char *pol = b->spec.unhealthy_pod_eviction_policy;

		if ((pol && !strcmp(pol, PDB_ALWAYS_ALLOW)) ||
		    (b->status.current_healthy >= b->status.desired_healthy &&
		     b->status.desired_healthy > 0)) {
			out->precondition = true;
			return;
		}
	}
	check_and_decrement(in, b, out);
}

void
eviction_release(struct eviction_out *out)
{
	pdb_status_release(&out->status);
	free(out->message);
	free(out->cause);
	memset(out, 0, sizeof(*out));
}

void
eviction_mark_pod(struct pod *p, dtime now)
{
	struct condition *c =
	    condition_find(&p->status.conditions, "DisruptionTarget");

	if (c == NULL) {
		condition_append(
		    &p->status.conditions,
		    &(struct condition){
			.type = (char *)"DisruptionTarget",
			.status = (char *)"True",
			.reason = (char *)"EvictionByEvictionAPI",
			.message = (char *)"Eviction API: evicting",
			.last_transition_time = now});
		return;
	}
	if (strcmp(c->status ? c->status : "", "True"))
		c->last_transition_time = now;
	free(c->status);
	c->status = xstrdup("True");
	free(c->reason);
	c->reason = xstrdup("EvictionByEvictionAPI");
	free(c->message);
	c->message = xstrdup("Eviction API: evicting");
}
