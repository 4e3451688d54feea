/* placement.c - node filters and scores for one pod (see placement.h). */
#include <string.h>

#include "labels.h"
#include "placement.h"

static const char *
s0(const char *s)
{
	return s ? s : "";
}

bool
toleration_matches(const struct toleration *t, const struct taint *taint)
{
	const char *op = s0(t->operator);

	if (*s0(t->effect) && strcmp(t->effect, s0(taint->effect)))
		return false;
	if (*s0(t->key) && strcmp(t->key, s0(taint->key)))
		return false;
	if (!strcmp(op, "Exists"))
		return true;
	if (*op && strcmp(op, "Equal"))
		return false;
	return !strcmp(s0(t->value), s0(taint->value));
}

static bool
tolerated(const struct pod *p, const struct taint *taint)
{
	size_t i;

	for (i = 0; i < p->spec.tolerations.n; i++)
		if (toleration_matches(&p->spec.tolerations.v[i], taint))
			return true;
	return false;
}

bool
node_is_ready(const struct node *n)
{
	const struct condition *c =
	    condition_get(&n->status.conditions, "Ready");

	return c && c->status && !strcmp(c->status, "True");
}

enum why {
	WHY_NOT_READY,
	WHY_UNSCHEDULABLE,
	WHY_SELECTOR,
	WHY_TAINT,
	WHY_N,
};

const struct node *
sched_pick(const struct sched_in *in, struct strbuf *why)
{
	static const struct taint unsched = {
	    .key = "node.kubernetes.io/unschedulable", .effect = "NoSchedule"};
	const struct node *best = NULL;
	int64_t best_pref = 0, best_pods = 0;
	size_t counts[WHY_N] = {0}, i, j;
	const struct taint *first_taint = NULL;

	for (i = 0; i < in->nnodes; i++) {
		const struct node *n = in->nodes[i];
		int64_t pref = 0, pods = 0;
		const struct taint *bad = NULL;

		if (!node_is_ready(n)) {
			counts[WHY_NOT_READY]++;
			continue;
		}
		if (n->spec.unschedulable && !tolerated(in->pod, &unsched)) {
			counts[WHY_UNSCHEDULABLE]++;
			continue;
		}
		if (!labels_subset(&in->pod->spec.node_selector,
				   &n->metadata.labels)) {
			counts[WHY_SELECTOR]++;
			continue;
		}
		for (j = 0; j < n->spec.taints.n; j++) {
			const struct taint *t = &n->spec.taints.v[j];

			if (tolerated(in->pod, t))
				continue;
			if (!strcmp(s0(t->effect), "PreferNoSchedule"))
				pref++;
			else if (bad == NULL)
				bad = t;
		}
		if (bad) {
			counts[WHY_TAINT]++;
			if (first_taint == NULL)
				first_taint = bad;
			continue;
		}
		pods = in->pods_on ? in->pods_on[i] : 0;
		if (best == NULL || pref < best_pref ||
		    (pref == best_pref &&
		     (pods < best_pods ||
		      (pods == best_pods &&
		       strcmp(s0(n->metadata.name), s0(best->metadata.name)) <
			   0)))) {
			best = n;
			best_pref = pref;
			best_pods = pods;
		}
	}
	if (best || why == NULL)
		return best;
	strbuf_addf(why, "0/%zu nodes are available", in->nnodes);
	if (in->nnodes == 0) {
		strbuf_addstr(why, ": no nodes registered");
		return NULL;
	}
	strbuf_addch(why, ':');
	j = 0;
	if (counts[WHY_NOT_READY])
		strbuf_addf(why, "%s %zu node(s) were not ready",
			    j++ ? "," : "", counts[WHY_NOT_READY]);
	if (counts[WHY_UNSCHEDULABLE])
		strbuf_addf(why, "%s %zu node(s) were unschedulable",
			    j++ ? "," : "", counts[WHY_UNSCHEDULABLE]);
	if (counts[WHY_SELECTOR])
		strbuf_addf(why,
			    "%s %zu node(s) didn't match Pod's node "
			    "affinity/selector",
			    j++ ? "," : "", counts[WHY_SELECTOR]);
	if (counts[WHY_TAINT])
		strbuf_addf(why,
			    "%s %zu node(s) had untolerated taint {%s: %s}",
			    j++ ? "," : "", counts[WHY_TAINT],
			    s0(first_taint->key), s0(first_taint->value));
	strbuf_addch(why, '.');
	return NULL;
}
