/* rollout.c - kubectl's rollout status / history / undo logic. */
#include <stdlib.h>
#include <string.h>

#include "deploy_util.h"
#include "rollout.h"
#include "tmplhash.h"
#include "xalloc.h"

enum rollout_state
rollout_status(const struct deployment *d, int64_t revision, struct strbuf *msg)
{
	const char *name = d->metadata.name ? d->metadata.name : "";
	const struct deployment_status *st = &d->status;
	const struct condition *c;

	if (revision > 0) {
		const char *cur =
		    strmap_get(&d->metadata.annotations, ANN_REVISION);

		if (cur == NULL || strtoll(cur, NULL, 10) != revision) {
			strbuf_addf(msg,
				    "desired revision (%lld) is different from "
				    "the running revision (%s)",
				    (long long)revision, cur ? cur : "");
			return ROLLOUT_FAILED;
		}
	}
	if (d->metadata.generation > st->observed_generation) {
		strbuf_addstr(msg, "Waiting for deployment spec update to be "
				   "observed...\n");
		return ROLLOUT_WAITING;
	}
	c = condition_get(&st->conditions, "Progressing");
	if (c && c->reason && !strcmp(c->reason, REASON_TIMED_OUT)) {
		strbuf_addf(msg,
			    "deployment \"%s\" exceeded its progress "
			    "deadline",
			    name);
		return ROLLOUT_FAILED;
	}
	if (d->spec.replicas.set && st->updated_replicas < d->spec.replicas.v) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld out of %lld new replicas have been "
			    "updated...\n",
			    name, (long long)st->updated_replicas,
			    (long long)d->spec.replicas.v);
		return ROLLOUT_WAITING;
	}
	if (st->replicas > st->updated_replicas) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld old replicas are pending termination...\n",
			    name,
			    (long long)(st->replicas - st->updated_replicas));
		return ROLLOUT_WAITING;
	}
	if (st->available_replicas < st->updated_replicas) {
		strbuf_addf(msg,
			    "Waiting for deployment \"%s\" rollout to finish: "
			    "%lld of %lld updated replicas are available...\n",
			    name, (long long)st->available_replicas,
			    (long long)st->updated_replicas);
		return ROLLOUT_WAITING;
	}
	strbuf_addf(msg, "deployment \"%s\" successfully rolled out\n", name);
	return ROLLOUT_DONE;
}

static int
cmp_rev(const void *a, const void *b)
{
	int64_t x, y;

	rs_revision(*(struct replicaset *const *)a, &x);
	rs_revision(*(struct replicaset *const *)b, &y);
	return x < y ? -1 : x > y;
}

void
rollout_history(struct replicaset *const *rs, size_t nrs,
		struct replicaset ***out, size_t *n)
{
	size_t i;
	int64_t r;

	*out = xcalloc(nrs + 1, sizeof(**out));
	*n = 0;
	for (i = 0; i < nrs; i++)
		if (rs_revision(rs[i], &r) == 0 && r > 0)
			(*out)[(*n)++] = rs[i];
	xqsort(*out, *n, sizeof(**out), cmp_rev);
}

void
rollout_undo(const struct deployment *d, struct replicaset *const *rs,
	     size_t nrs, int64_t to_revision, const char *kind_name,
	     struct undo_result *r)
{
	const struct replicaset *target = NULL;
	int64_t rev, max = 0, second = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->message);
	if (to_revision < 0) {
		r->kind = UNDO_ERROR;
		strbuf_addf(&r->message,
			    "unable to find specified revision %lld in history",
			    (long long)to_revision);
		return;
	}
	if (to_revision > 0) {
		for (i = 0; i < nrs; i++)
			if (rs_revision(rs[i], &rev) == 0 && rev == to_revision)
				target = rs[i];
		if (target == NULL) {
			r->kind = UNDO_ERROR;
			strbuf_addf(&r->message,
				    "unable to find specified revision %lld in "
				    "history",
				    (long long)to_revision);
			return;
		}
	} else {
		const struct replicaset *tmax = NULL;

		for (i = 0; i < nrs; i++) {
			if (rs_revision(rs[i], &rev) || rev <= 0)
				continue;
			if (rev > max) {
				second = max;
				target = tmax;
				max = rev;
				tmax = rs[i];
			} else if (rev > second) {
				second = rev;
				target = rs[i];
			}
		}
		if (second == 0 || target == NULL) {
			r->kind = UNDO_ERROR;
			strbuf_addf(&r->message,
				    "no rollout history found for deployment "
				    "\"%s\"",
				    d->metadata.name);
			return;
		}
	}
	rs_revision(target, &r->revision);
	if (d->spec.paused) {
		r->kind = UNDO_ERROR;
		strbuf_addstr(&r->message,
			      "you cannot rollback a paused deployment; resume "
			      "it first with 'kubectl rollout resume' and try "
			      "again");
		return;
	}
	if (tmpl_equal_ignore_hash(&d->spec.template, &target->spec.template)) {
		r->kind = UNDO_SKIPPED;
		strbuf_addf(&r->message,
			    "%s skipped rollback (current template already "
			    "matches revision %lld)",
			    kind_name, (long long)r->revision);
		return;
	}
	r->kind = UNDO_PATCH;
	pod_template_copy(&r->template, &target->spec.template);
	strmap_del(&r->template.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	for (i = 0; i < d->metadata.annotations.n; i++)
		if (skip_copy_annotation(d->metadata.annotations.v[i].key))
			strmap_set(&r->annotations,
				   d->metadata.annotations.v[i].key,
				   d->metadata.annotations.v[i].value);
	for (i = 0; i < target->metadata.annotations.n; i++)
		if (!skip_copy_annotation(
			target->metadata.annotations.v[i].key))
			strmap_set(&r->annotations,
				   target->metadata.annotations.v[i].key,
				   target->metadata.annotations.v[i].value);
	strbuf_addf(&r->message, "%s rolled back", kind_name);
}

void
undo_result_release(struct undo_result *r)
{
	strbuf_release(&r->message);
	pod_template_release(&r->template);
	strmap_release(&r->annotations);
}
