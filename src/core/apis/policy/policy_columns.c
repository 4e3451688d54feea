/* policy_columns.c - the table of PodDisruptionBudgets (printers.go
 * printPodDisruptionBudget):
 *
 *   NAME  MIN AVAILABLE  MAX UNAVAILABLE  ALLOWED DISRUPTIONS  AGE
 *   web   5              N/A              1                    3m
 *
 * An unset minAvailable or maxUnavailable prints "N/A"; a set one as
 * IntOrString.String() ("5", "50%"). */
#include <stdio.h>

#include "policy_columns.h"

static void
intstr_or_na(const struct intstr *v, struct strbuf *out)
{
	if (v->type == INTSTR_INT)
		strbuf_addf(out, "%lld", (long long)v->ival);
	else if (v->type == INTSTR_STRING)
		strbuf_addstr(out, v->sval ? v->sval : "");
	else
		strbuf_addstr(out, "N/A");
}

static void
cell_min(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	intstr_or_na(
	    &((const struct pod_disruption_budget *)o->obj)->spec.min_available,
	    out);
}

static void
cell_max(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	intstr_or_na(&((const struct pod_disruption_budget *)o->obj)
			  ->spec.max_unavailable,
		     out);
}

static void
cell_allowed(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct pod_disruption_budget *)o->obj)
			->status.disruptions_allowed);
}

const struct column columns_pdb[] = {
    NAME_COL,
    {"Min Available", "string", "", 0,
     "The minimum number of pods that must be available.", cell_min},
    {"Max Unavailable", "string", "", 0,
     "The maximum number of pods that may be unavailable.", cell_max},
    {"Allowed Disruptions", "integer", "", 0,
     "Calculated number of pods that may be disrupted at this time.",
     cell_allowed},
    AGE_COL,
};
const size_t columns_pdb_n = COLUMNS_N(columns_pdb);
