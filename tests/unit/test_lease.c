/* test_lease.c - coordination.k8s.io/v1 Lease: its validation
 * (ValidateLeaseSpec) and metav1.MicroTime's six fractional digits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"
#include "kinds.h"
#include "validate.h"
#include "xalloc.h"

static void
test_validation(void **state)
{
	struct lease l = {0};
	struct fielderr_list e = {0};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	l.metadata.name = xstrdup("node-1");
	l.metadata.namespace = xstrdup("kube-node-lease");
	kind_by_id(KIND_LEASE)->validate(&l, &e);
	assert_int_equal(e.n, 0); /* every field optional */
	l.spec.lease_duration_seconds = (struct opt_int){.set = true, .v = 0};
	l.spec.lease_transitions = (struct opt_int){.set = true, .v = -1};
	kind_by_id(KIND_LEASE)->validate(&l, &e);
	fx_render_errors(&e, &sb);
	assert_string_equal(
	    sb.buf, "spec.leaseDurationSeconds: Invalid value: 0: must be "
		    "greater than 0\nspec.leaseTransitions: Invalid value: -1: "
		    "must be greater than or equal to 0");
	strbuf_release(&sb);
	fielderr_list_release(&e);
	lease_release(&l);
}

static void
test_micro_time(void **state)
{
	char buf[32];

	(void)state;
	dtime_format_micro(T0 + 1234, buf);
	assert_string_equal(buf, "2026-01-01T00:00:01.234000Z");
	dtime_format_micro(T0, buf);
	assert_string_equal(buf, "2026-01-01T00:00:00.000000Z");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validation),
	    cmocka_unit_test(test_micro_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
