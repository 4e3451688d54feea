/* ctl_controllers.c - the --controllers list, kube-controller-manager's
 * rules: the first entry naming a controller wins ("name" runs it,
 * "-name" does not), else "*" runs it, else it does not run; an unknown
 * name is refused with Kubernetes' message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl.h"

static void
test_enabled(void **state)
{
	(void)state;
	assert_true(ctl_controller_enabled(NULL, "disruption"));
	assert_true(ctl_controller_enabled("*", "deployment"));
	assert_false(ctl_controller_enabled("*,-disruption", "disruption"));
	assert_true(ctl_controller_enabled("*,-disruption", "deployment"));
	assert_false(
	    ctl_controller_enabled("deployment,replicaset", "disruption"));
	assert_true(
	    ctl_controller_enabled("deployment,replicaset", "replicaset"));
	/* the first entry that names it wins */
	assert_false(
	    ctl_controller_enabled("-deployment,deployment,*", "deployment"));
	assert_true(
	    ctl_controller_enabled("deployment,-deployment", "deployment"));
	assert_false(ctl_controller_enabled("", "deployment"));
	/* a prefix of a name is not the name */
	assert_false(ctl_controller_enabled("deploy", "deployment"));
}

static void
test_check(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(
	    ctl_controllers_check("*,-disruption", err, sizeof(err)), 0);
	assert_int_equal(ctl_controllers_check("deployment,endpointslice,"
					       "garbagecollector",
					       err, sizeof(err)),
			 0);
	assert_int_equal(
	    ctl_controllers_check("deployment,foo", err, sizeof(err)), -1);
	assert_string_equal(err,
			    "\"foo\" is not in the list of known controllers");
	assert_int_equal(ctl_controllers_check("-bar", err, sizeof(err)), -1);
	assert_string_equal(err,
			    "\"bar\" is not in the list of known controllers");
	assert_int_equal(
	    ctl_controllers_check("deployment,-*", err, sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_enabled),
	    cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
