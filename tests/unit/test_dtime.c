/* test_dtime.c - Go-style durations (--resync-period): what parses, to
 * how many milliseconds, and what is refused, including the forms strtod
 * alone would take (a sign, hex, an exponent, nan, inf); the current time
 * rounded up to the millisecond, a stored time truncated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "dtime.h"

static void
test_parse_duration(void **state)
{
	static const struct {
		const char *in;
		int64_t ms; /* -1: refused */
	} cases[] = {
	    {"5s", 5000},
	    {"1m30s", 90000},
	    {"250ms", 250},
	    {"1.5h", 5400000},
	    {"0", 0},
	    {"30", 30000}, /* a bare number is seconds */
	    {"0.5s", 500},
	    {"", -1},
	    {"nan", -1},
	    {"inf", -1},
	    {"-5s", -1},
	    {"+5s", -1},
	    {"0x10s", -1},
	    {"1e3s", -1},
	    {"5x", -1},
	    {"1..2s", -1},
	    {"1.2.3s", -1},
	    {"s", -1},
	    {"99999999999999h", -1},
	    {"999999999999h999999999999h999999999999h", -1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t got = dtime_parse_duration(cases[i].in);

		if (got != cases[i].ms)
			fail_msg("\"%s\": %lld, want %lld", cases[i].in,
				 (long long)got, (long long)cases[i].ms);
	}
}

static void
test_parse_now_rounds_up(void **state)
{
	static const struct {
		const char *in;
		int64_t stored, now; /* ms past 2017-02-15T18:49:59Z */
	} cases[] = {
	    {"2017-02-15T18:49:59Z", 0, 0},
	    {"2017-02-15T18:49:59.000000001Z", 0, 1},
	    {"2017-02-15T18:49:59.000000000Z", 0, 0},
	    {"2017-02-15T18:49:59.001Z", 1, 1},
	    {"2017-02-15T18:49:59.001000Z", 1, 1},
	    {"2017-02-15T18:49:59.0015Z", 1, 2},
	    {"2017-02-15T18:49:59.999999999Z", 999, 1000},
	};
	dtime base, t;
	size_t i;

	(void)state;
	assert_int_equal(dtime_parse("2017-02-15T18:49:59Z", &base), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(dtime_parse(cases[i].in, &t), 0);
		if (t - base != cases[i].stored)
			fail_msg("%s: %lld", cases[i].in,
				 (long long)(t - base));
		assert_int_equal(dtime_parse_now(cases[i].in, &t), 0);
		if (t - base != cases[i].now)
			fail_msg("%s now: %lld", cases[i].in,
				 (long long)(t - base));
	}
	assert_int_equal(dtime_parse_now("2017-02-15T18:49:59.5", &t), -1);
	assert_true(dtime_from_timespec(10, 0) == 10000);
	assert_true(dtime_from_timespec(10, 1) == 10001);
	assert_true(dtime_from_timespec(10, 999999) == 10001);
	assert_true(dtime_from_timespec(10, 1000000) == 10001);
	assert_true(dtime_from_timespec(10, 1000001) == 10002);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_duration),
	    cmocka_unit_test(test_parse_now_rounds_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
