/* explain.c - planner results as readable text: the `-o text` forms of
 * `drover plan --once` and `--simulate` (README, "drover plan"). The
 * figures come from the same functions the planners use (max_surge,
 * max_unavailable, intstr_scaled), never recomputed here, so the text
 * cannot disagree with the plan it explains. Output is deterministic:
 * no clock, no locale; the golden tests compare it byte for byte. */
#include <stdbool.h>
#include <string.h>

#include "deploy_util.h"
#include "explain.h"

/* Milliseconds as seconds: 2000 -> "2s", 610001 -> "610.001s", 250 ->
 * "0.250s". For durations and offsets from the start, which are never
 * negative. A fraction always has three digits (1500 -> "1.500s", not
 * "1.5s"), so the text never depends on a float's formatting. */
void
explain_seconds(int64_t ms, struct strbuf *sb)
{
	if (ms % 1000 == 0)
		strbuf_addf(sb, "%llds", (long long)(ms / 1000));
	else
		strbuf_addf(sb, "%lld.%03llds", (long long)(ms / 1000),
			    (long long)(ms % 1000));
}

/* "<what> <raw> → <result>": "maxSurge 3 → 3", "maxSurge 25% of 10 → 3,
 * rounded up", or "unset → 0" when the field is absent. */
static void
explain_one(const char *what, const struct intstr *v, int64_t total,
	    int64_t result, bool up, const char *indent, struct strbuf *sb)
{
	strbuf_addf(sb, "%s%s ", indent, what);
	if (v == NULL || v->type == INTSTR_UNSET)
		strbuf_addf(sb, "unset → %lld", (long long)result);
	else if (v->type == INTSTR_INT)
		strbuf_addf(sb, "%lld → %lld", (long long)v->ival,
			    (long long)result);
	else
		strbuf_addf(sb, "%s of %lld → %lld, rounded %s", v->sval,
			    (long long)total, (long long)result,
			    up ? "up" : "down");
	strbuf_addch(sb, '\n');
}

/* The budget lines of the header, e.g. for 10 replicas at 25% / 25%:
 *
 *   maxSurge 25% of 10 → 3, rounded up
 *   maxUnavailable 25% of 10 → 2, rounded down
 *   so at most 13 pods and at least 8 available
 *
 * The per-field lines show the raw resolution (intstr_scaled); the last
 * line uses the clamped values (ResolveFenceposts: both 0 makes
 * unavailable 1; unavailable above replicas is capped), with a line
 * saying which adjustment applied. For 1 replica at 10% / 10%: surge
 * 10% of 1 → 1 (up), unavailable 10% of 1 → 0 (down): 2 pods at most,
 * 1 available at least. */
void
explain_budget(const struct deployment *d, const char *indent,
	       struct strbuf *sb)
{
	const struct rolling_update *ru = d->spec.strategy.rolling_update;
	int64_t r = deploy_replicas(d), s = max_surge(d),
		u = max_unavailable(d);
	int64_t rs = 0, ru_ = 0;

	/* InPlaceUpdate: the field's own resolution, then the budget the
	 * planner uses (inplace_max_unavailable), which differs when it is
	 * raised to 1 (25% of 3 -> 0, budget 1), capped at replicas (7 of 5
	 * -> 5) or defaulted: an unset field reads "unset -> 0" on the
	 * first line and 25% on the second (10 replicas: 2 pods). */
	if (deploy_is_inplace(d)) {
		const struct in_place_update *ip =
		    d->spec.strategy.in_place_update;
		int64_t raw = 0;

		if (ip)
			intstr_scaled(&ip->max_unavailable, r, false, &raw);
		explain_one("maxUnavailable", ip ? &ip->max_unavailable : NULL,
			    r, raw, false, indent, sb);
		strbuf_addf(sb,
			    "%sInPlaceUpdate: no surge; at most %lld pod(s) "
			    "unavailable, each updated in place\n",
			    indent, (long long)inplace_max_unavailable(d));
		return;
	}
	if (!deploy_is_rolling(d)) {
		strbuf_addf(sb,
			    "%sRecreate: every old pod is stopped before any "
			    "new pod starts\n",
			    indent);
		return;
	}
	if (ru) {
		intstr_scaled(&ru->max_surge, r, true, &rs);
		intstr_scaled(&ru->max_unavailable, r, false, &ru_);
	}
	explain_one("maxSurge", ru ? &ru->max_surge : NULL, r, rs, true, indent,
		    sb);
	explain_one("maxUnavailable", ru ? &ru->max_unavailable : NULL, r, ru_,
		    false, indent, sb);
	/* The adjustment lines, then the summary from max_surge and
	 * max_unavailable. Examples: 10 replicas, maxSurge 0 and
	 * maxUnavailable 5%: both resolve to 0, the line says so, and the
	 * summary is "at most 10 pods and at least 9 available". 4 replicas,
	 * maxSurge 0, maxUnavailable 6: capped at 4, "at most 4 pods and at
	 * least 0 available". With 0 replicas the both-zero line still
	 * prints, but max_unavailable is 0 then (nothing to make
	 * unavailable): "at most 0 pods and at least 0 available". */
	if (rs == 0 && ru_ == 0)
		strbuf_addf(sb,
			    "%sboth resolve to 0, so maxUnavailable becomes "
			    "1\n",
			    indent);
	else if (ru_ > r)
		strbuf_addf(sb, "%smaxUnavailable is capped at %lld replicas\n",
			    indent, (long long)r);
	strbuf_addf(sb, "%sso at most %lld pods and at least %lld available\n",
		    indent, (long long)(r + s), (long long)(r - u));
}

/* One action as the timeline's "actions" column shows it, e.g.
 * "scale ReplicaSet web-v1 10 → 8" (the arrow is UTF-8). Only a
 * ReplicaSet's create shows its size: "create ReplicaSet
 * web-f4d48c756 (3)"; the other kinds' creates and every update,
 * delete and status write show the kind and name alone. */
void
explain_action(const struct action *a, struct strbuf *sb)
{
	switch (a->op) {
	case ACT_CREATE:
		if (!strcmp(a->kind, "ReplicaSet"))
			strbuf_addf(sb, "create %s %s (%lld)", a->kind, a->name,
				    (long long)a->replicas);
		else
			strbuf_addf(sb, "create %s %s", a->kind, a->name);
		break;
	case ACT_SCALE:
		strbuf_addf(sb, "scale %s %s %lld → %lld", a->kind, a->name,
			    (long long)a->from, (long long)a->to);
		break;
	case ACT_UPDATE:
		strbuf_addf(sb, "update %s %s", a->kind, a->name);
		break;
	case ACT_DELETE:
		strbuf_addf(sb, "delete %s %s", a->kind, a->name);
		break;
	case ACT_STATUS:
		strbuf_addf(sb, "status %s %s", a->kind, a->name);
		break;
	case ACT_UPDATE_IN_PLACE:
		strbuf_addf(sb, "update in place %s %s", a->kind, a->name);
		break;
	}
}

/* "Deployment web: RollingUpdate, 10 replicas" and the budget. */
static void
header(const struct deployment *d, struct strbuf *sb)
{
	strbuf_addf(sb, "Deployment %s: %s, %lld replicas\n", d->metadata.name,
		    d->spec.strategy.type ? d->spec.strategy.type : "?",
		    (long long)deploy_replicas(d));
	explain_budget(d, "  ", sb);
}

/* `drover plan --once -o text`: header, the ordered actions, the events
 * (type, reason, message), the collision error if any, and the requeue
 * ("none", or the delay; "0s" is "now, with back-off"). Example: a
 * stalled rollout (nothing to do, status unchanged) with a 600 s
 * progress deadline, its Progressing condition last updated 100 s ago,
 * prints "requeue: 501s": the 500 s left plus the second that
 * requeue_after adds. */
void
explain_step(const struct deployment *d, const struct plan_deploy_out *o,
	     struct strbuf *sb)
{
	size_t i;

	header(d, sb);
	strbuf_addstr(sb, "actions:\n");
	if (o->actions.n == 0)
		strbuf_addstr(sb, "  none\n");
	for (i = 0; i < o->actions.n; i++) {
		strbuf_addstr(sb, "  ");
		explain_action(&o->actions.v[i], sb);
		strbuf_addch(sb, '\n');
	}
	if (o->events.n) {
		strbuf_addstr(sb, "events:\n");
		for (i = 0; i < o->events.n; i++)
			strbuf_addf(sb, "  %s %s: %s\n", o->events.v[i].type,
				    o->events.v[i].reason,
				    o->events.v[i].message);
	}
	if (o->error)
		strbuf_addf(sb, "error: %s\n", o->error);
	strbuf_addstr(sb, "requeue: ");
	if (o->requeue_after_ms < 0)
		strbuf_addstr(sb, "none");
	else
		explain_seconds(o->requeue_after_ms, sb);
	strbuf_addch(sb, '\n');
}

/* `drover plan --simulate -o text`: header, the readiness assumption,
 * then one row per step that changed pods, with the pod counts sampled
 * after the ReplicaSet controller reacted (sim.c), and the result line.
 * Example row: "        1s     8      8     3     5  scale ReplicaSet
 * web-v1 8 → 3". The columns are t (offset from the start), pods,
 * avail, old, new. The result line's peak and minimum are over every
 * sample of the run, the moments between rows included, so they can
 * be more extreme than any row shows. */
void
explain_sim(const struct deployment *d, const struct sim_opts *opts,
	    const struct sim_result *r, struct strbuf *sb)
{
	size_t i, j;

	header(d, sb);
	if (opts->pod_ready_ms < 0) {
		strbuf_addstr(sb, "  new pods never become ready\n");
	} else {
		strbuf_addstr(sb, "  pods become ready ");
		explain_seconds(opts->pod_ready_ms, sb);
		strbuf_addstr(sb, deploy_is_inplace(d)
				      ? " after they are created or restarted "
					"in place\n"
				      : " after they are created\n");
	}
	if (d->spec.min_ready_seconds)
		strbuf_addf(sb,
			    "  and available %llds after that "
			    "(minReadySeconds)\n",
			    (long long)d->spec.min_ready_seconds);
	strbuf_addf(sb, "\n%10s %5s %6s %5s %5s  %s\n", "t", "pods", "avail",
		    "old", "new", "actions");
	for (i = 0; i < r->nsteps; i++) {
		const struct sim_step *s = &r->steps[i];
		struct strbuf t = STRBUF_INIT;
		bool first = true;

		/* Status writes are in the JSON form; the timeline shows
		 * what changes pods. */
		for (j = 0; j < s->actions.n; j++)
			if (s->actions.v[j].op != ACT_STATUS)
				break;
		if (j == s->actions.n)
			continue;
		explain_seconds(s->t_ms, &t);
		strbuf_addf(sb, "%10s %5lld %6lld %5lld %5lld  ", t.buf,
			    (long long)s->pods.total,
			    (long long)s->pods.available,
			    (long long)s->pods.old, (long long)s->pods.new_);
		strbuf_release(&t);
		for (j = 0; j < s->actions.n; j++) {
			if (s->actions.v[j].op == ACT_STATUS)
				continue;
			if (!first)
				strbuf_addstr(sb, "; ");
			explain_action(&s->actions.v[j], sb);
			first = false;
		}
		strbuf_addch(sb, '\n');
	}
	strbuf_addf(sb, "\nresult: %s after ", sim_result_name(r->result));
	explain_seconds(r->duration_ms, sb);
	strbuf_addf(sb, "; peak %lld pods; at least %lld available\n",
		    (long long)r->peak_pods, (long long)r->min_available);
}
