/* test_drain.c - the drain handshake's decision (core/drain.h), table by
 * table: a pod may get its SIGTERM once every node's proxy has seen it
 * leave (observed >= the resourceVersion it left at) and has nothing
 * open to it; the kill delay is what is left of the grace period. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drain.h"

#define KEY "default/web-1/u1"

static void
test_acked(void **state)
{
	static const char *const none[] = {NULL};
	static const char *const mine[] = {"default/web-2/u2", KEY};
	static const char *const other[] = {"default/web-2/u2"};
	const struct {
		int64_t since;
		struct drain_ack acks[2];
		size_t n;
		bool want;
	} cases[] = {
	    /* no proxy anywhere: nothing can route to it */
	    {812, {{0}}, 0, true},
	    /* one proxy behind the pod's leaving: wait */
	    {812, {{809, none, 0}}, 1, false},
	    /* it has seen it, a request is still open: wait */
	    {812, {{812, mine, 2}}, 1, false},
	    /* seen, busy with another pod only: go */
	    {812, {{815, other, 1}}, 1, true},
	    /* two nodes: both must have seen it */
	    {812, {{815, none, 0}, {811, none, 0}}, 2, false},
	    {812, {{815, none, 0}, {812, other, 1}}, 2, true},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(
		    drain_acked(KEY, cases[i].since, cases[i].acks, cases[i].n),
		    cases[i].want);
}

static void
test_kill_after(void **state)
{
	(void)state;
	/* deleted at 100 s with 30 s of grace: deletionTimestamp 130 s */
	assert_int_equal(drain_kill_after(130000, 104000), 26);
	assert_int_equal(drain_kill_after(130000, 104200), 26); /* up */
	assert_int_equal(drain_kill_after(130000, 129000), DRAIN_MIN_KILL_S);
	assert_int_equal(drain_kill_after(130000, 140000), DRAIN_MIN_KILL_S);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_acked),
	    cmocka_unit_test(test_kill_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
