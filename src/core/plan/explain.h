/* explain.h - human text for planner results: the budget with its
 * rounding spelled out, one step's actions, and a whole simulated
 * timeline. Pure: everything is appended to a strbuf. */
#ifndef DROVER_EXPLAIN_H
#define DROVER_EXPLAIN_H

#include "plan_deploy.h"
#include "sim.h"
#include "strbuf.h"

/* "maxSurge 25% of 10 → 3, rounded up" and friends, one per line, each
 * prefixed with indent. */
void explain_budget(const struct deployment *d, const char *indent,
		    struct strbuf *sb);
/* "create ReplicaSet web-abc (3 replicas)", "scale ReplicaSet x 10 → 8" */
void explain_action(const struct action *a, struct strbuf *sb);
/* The text form of `drover plan --once`. */
void explain_step(const struct deployment *d, const struct plan_deploy_out *o,
		  struct strbuf *sb);
/* The text form of `drover plan --simulate`. */
void explain_sim(const struct deployment *d, const struct sim_opts *opts,
		 const struct sim_result *r, struct strbuf *sb);
/* Seconds from milliseconds: "12s", "1.5s". */
void explain_seconds(int64_t ms, struct strbuf *sb);

#endif
