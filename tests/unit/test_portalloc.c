/* test_portalloc.c - host port allocation: distinct ports, round-robin,
 * the quarantine of released ports, held and busy ports skipped,
 * exhaustion, and the range syntax. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "portalloc.h"

#define T0 DTIME_SEC(1000000)

static void
test_distinct_until_exhausted(void **state)
{
	struct portalloc pa;
	int seen[10] = {0}, i, p;

	(void)state;
	assert_int_equal(portalloc_init(&pa, 100, 109, DTIME_SEC(60)), 0);
	for (i = 0; i < 10; i++) {
		p = portalloc_get(&pa, T0, NULL, NULL);
		assert_true(p >= 100 && p <= 109);
		assert_int_equal(seen[p - 100], 0);
		seen[p - 100] = 1;
	}
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 0);
	assert_int_equal(portalloc_held(&pa), 10);
	assert_int_equal(portalloc_available(&pa, T0), 0);
	portalloc_release(&pa);
}

static void
test_round_robin_and_quarantine(void **state)
{
	struct portalloc pa;

	(void)state;
	portalloc_init(&pa, 100, 102, DTIME_SEC(60));
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 100);
	portalloc_put(&pa, 100, T0);
	/* round-robin: the port just released is not the next one */
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 101);
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 102);
	/* 100 is free but quarantined for a minute */
	assert_int_equal(portalloc_get(&pa, T0 + DTIME_SEC(59), NULL, NULL), 0);
	assert_int_equal(portalloc_available(&pa, T0 + DTIME_SEC(59)), 0);
	assert_int_equal(portalloc_get(&pa, T0 + DTIME_SEC(60), NULL, NULL),
			 100);
	portalloc_release(&pa);
}

static void
test_held_ports_are_skipped(void **state)
{
	struct portalloc pa;

	(void)state;
	portalloc_init(&pa, 100, 104, DTIME_SEC(60));
	/* rebuilt from the pods before anything is allocated */
	assert_true(portalloc_hold(&pa, 100));
	assert_true(portalloc_hold(&pa, 102));
	assert_false(portalloc_hold(&pa, 102)); /* twice: a conflict */
	assert_true(portalloc_hold(&pa, 8080)); /* outside: not tracked */
	portalloc_quarantine(&pa, 103, T0);     /* from the journal */
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 101);
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 104);
	assert_int_equal(portalloc_get(&pa, T0, NULL, NULL), 0);
	portalloc_put(&pa, 8080, T0); /* outside: ignored */
	assert_int_equal(portalloc_held(&pa), 4);
	portalloc_release(&pa);
}

static bool
busy_101(void *arg, int port)
{
	int *calls = arg;

	(*calls)++;
	return port == 101;
}

static void
test_busy_ports_are_skipped_and_not_retried_at_once(void **state)
{
	struct portalloc pa;
	int calls = 0;

	(void)state;
	portalloc_init(&pa, 100, 102, DTIME_SEC(60));
	assert_int_equal(portalloc_get(&pa, T0, busy_101, &calls), 100);
	assert_int_equal(portalloc_get(&pa, T0, busy_101, &calls), 102);
	assert_int_equal(calls, 3);
	assert_int_equal(portalloc_get(&pa, T0, busy_101, &calls), 0);
	assert_int_equal(calls, 3); /* 101 quarantined: not asked again */
	portalloc_release(&pa);
}

static void
test_parse_range(void **state)
{
	int lo = 0, hi = 0;

	(void)state;
	assert_int_equal(portalloc_parse_range("30000-32767", &lo, &hi), 0);
	assert_int_equal(lo, 30000);
	assert_int_equal(hi, 32767);
	assert_int_equal(portalloc_parse_range("5-5", &lo, &hi), 0);
	assert_int_equal(portalloc_parse_range("0-10", &lo, &hi), -1);
	assert_int_equal(portalloc_parse_range("10-9", &lo, &hi), -1);
	assert_int_equal(portalloc_parse_range("1-65536", &lo, &hi), -1);
	assert_int_equal(portalloc_parse_range("1-2x", &lo, &hi), -1);
	assert_int_equal(portalloc_parse_range("30000", &lo, &hi), -1);
	{
		struct portalloc pa;

		assert_int_equal(portalloc_init(&pa, 0, 10, 0), -1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distinct_until_exhausted),
	    cmocka_unit_test(test_round_robin_and_quarantine),
	    cmocka_unit_test(test_held_ports_are_skipped),
	    cmocka_unit_test(
		test_busy_ports_are_skipped_and_not_retried_at_once),
	    cmocka_unit_test(test_parse_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
