/* test_pdb_validate.c - Kubernetes' PodDisruptionBudget validation
 * (policy_validate.c), table by table: each case is a budget built from a
 * few fields and validated, and the whole error list, rendered as kubectl
 * prints it, compared in order; then its table's cells. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "columns.h"
#include "fixture.h"
#include "kinds.h"
#include "validate.h"
#include "xalloc.h"

struct tcase {
	const char *what;
	const char *min, *max; /* NULL: unset; "5" a number, else a string */
	const char *sel_key;   /* NULL: no selector; "" an empty one */
	const char *policy;
	int64_t allowed;  /* status.disruptionsAllowed */
	const char *want; /* the errors joined by "\n"; "" for none */
};

static struct intstr
value(const char *s)
{
	char *end;
	long v;

	if (s == NULL)
		return (struct intstr){0};
	v = strtol(s, &end, 10);
	return *end || !*s ? intstr_str(s) : intstr_int(v);
}

static struct pod_disruption_budget *
build(const struct tcase *c)
{
	struct pod_disruption_budget *p = xcalloc(1, sizeof(*p));

	p->metadata.name = xstrdup("web");
	p->metadata.namespace = xstrdup("default");
	p->spec.min_available = value(c->min);
	p->spec.max_unavailable = value(c->max);
	if (c->sel_key) {
		p->spec.selector = xcalloc(1, sizeof(*p->spec.selector));
		if (*c->sel_key)
			strmap_set(&p->spec.selector->match_labels, c->sel_key,
				   "web");
	}
	if (c->policy)
		p->spec.unhealthy_pod_eviction_policy = xstrdup(c->policy);
	p->status.disruptions_allowed = c->allowed;
	return p;
}

static const struct tcase cases[] = {
    {"minAvailable 5", "5", NULL, "app", NULL, 0, ""},
    {"maxUnavailable 25%", NULL, "25%", "app", PDB_ALWAYS_ALLOW, 0, ""},
    {"neither, no selector (accepted, as Kubernetes does)", NULL, NULL, NULL,
     NULL, 0, ""},
    {"an empty selector: every pod of the namespace", "100%", NULL, "", NULL, 0,
     ""},
    {"both set", "2", "1", "app", NULL, 0,
     "spec: Invalid value: {\"minAvailable\":2,\"maxUnavailable\":1}: "
     "minAvailable and maxUnavailable cannot be both set"},
    {"over 100%", "150%", NULL, "app", NULL, 0,
     "spec.minAvailable: Invalid value: \"150%\": must not be greater than "
     "100%"},
    {"negative", NULL, "-1", "app", NULL, 0,
     "spec.maxUnavailable: Invalid value: -1: must be greater than or equal "
     "to 0"},
    {"not a percent", "half", NULL, "app", NULL, 0,
     "spec.minAvailable: Invalid value: \"half\": a valid percent string "
     "must be a numeric string followed by an ending '%' (e.g. '1%',  or "
     "'93%', regex used for validation is '[0-9]+%')"},
    {"an unknown policy", "1", NULL, "app", "Sometimes", 0,
     "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": "
     "supported values: \"AlwaysAllow\", \"IfHealthyBudget\""},
    {"a negative status count", "1", NULL, "app", NULL, -1,
     "status.disruptionsAllowed: Invalid value: -1: must be greater than "
     "or equal to 0"},
};

static void
test_pdb_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pod_disruption_budget *p = build(&cases[i]);
		struct fielderr_list errs = {0};
		struct strbuf sb = STRBUF_INIT;

		kind_by_id(KIND_POD_DISRUPTION_BUDGET)->defaults(p);
		kind_by_id(KIND_POD_DISRUPTION_BUDGET)->validate(p, &errs);
		kind_by_id(KIND_POD_DISRUPTION_BUDGET)
		    ->validate_status(p, &errs);
		fx_render_errors(&errs, &sb);
		if (strcmp(sb.buf ? sb.buf : "", cases[i].want))
			fail_msg("%s:\n got: %s\nwant: %s", cases[i].what,
				 sb.buf ? sb.buf : "", cases[i].want);
		strbuf_release(&sb);
		fielderr_list_release(&errs);
		pdb_release(p);
		free(p);
	}
}

/* printPodDisruptionBudget: N/A for the field not set. */
static void
test_pdb_columns(void **state)
{
	static const struct tcase c = {"", "50%", NULL, "app", NULL, 2, ""};
	struct pod_disruption_budget *p = build(&c);
	struct object o = {kind_by_id(KIND_POD_DISRUPTION_BUDGET), p};
	const struct column *cols;
	struct strbuf sb = STRBUF_INIT;
	size_t n, i;

	(void)state;
	cols = columns_of(KIND_POD_DISRUPTION_BUDGET, &n);
	assert_int_equal(n, 5);
	for (i = 1; i < 4; i++) {
		if (i > 1)
			strbuf_addch(&sb, '|');
		cols[i].cell(&o, 0, &sb);
	}
	assert_string_equal(sb.buf, "50%|N/A|2");
	assert_string_equal(cols[3].name, "Allowed Disruptions");
	strbuf_release(&sb);
	pdb_release(p);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pdb_table),
	    cmocka_unit_test(test_pdb_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
