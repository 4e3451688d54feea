/* test_quantity.c - resource.Quantity strings to integers: the suffixes,
 * fractions, exponents, rounding up, syntax errors and overflow; the
 * --allocatable flag's parser; Quantity.String() and sums as kubectl's
 * describe prints them. */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fit.h"
#include "quantity.h"
#include "strbuf.h"

static void
test_parse_table(void **state)
{
	static const struct {
		const char *s;
		enum qty_scale scale;
		enum qty_err err;
		int64_t want;
	} cases[] = {
	    {"500m", QTY_MILLI, QTY_OK, 500},
	    {"2", QTY_MILLI, QTY_OK, 2000},
	    {"0.5", QTY_MILLI, QTY_OK, 500},
	    {".5", QTY_MILLI, QTY_OK, 500},
	    {"1.", QTY_MILLI, QTY_OK, 1000},
	    {"+2", QTY_MILLI, QTY_OK, 2000},
	    {"0.1m", QTY_MILLI, QTY_OK, 1}, /* rounded up */
	    {"1n", QTY_MILLI, QTY_OK, 1},
	    {"1500u", QTY_MILLI, QTY_OK, 2}, /* 1.5m up to 2m */
	    {"128Mi", QTY_UNIT, QTY_OK, 134217728},
	    {"1Ki", QTY_UNIT, QTY_OK, 1024},
	    {"1.5Ki", QTY_UNIT, QTY_OK, 1536},
	    {"1Gi", QTY_UNIT, QTY_OK, 1073741824},
	    {"1G", QTY_UNIT, QTY_OK, 1000000000},
	    {"1k", QTY_UNIT, QTY_OK, 1000},
	    {"1e3", QTY_UNIT, QTY_OK, 1000},
	    {"2.5E3", QTY_UNIT, QTY_OK, 2500},
	    {"1e-3", QTY_MILLI, QTY_OK, 1},
	    {"1E", QTY_UNIT, QTY_OK, 1000000000000000000}, /* exa */
	    {"7Ei", QTY_UNIT, QTY_OK, 7LL << 60},
	    {"8Ei", QTY_UNIT, QTY_OVERFLOW, 0},
	    {"9223372036854775807", QTY_UNIT, QTY_OK, INT64_MAX},
	    {"9223372036854775808", QTY_UNIT, QTY_OVERFLOW, 0},
	    {"-9223372036854775808", QTY_UNIT, QTY_OVERFLOW, 0},
	    {"10E", QTY_MILLI, QTY_OVERFLOW, 0},
	    {"-1", QTY_MILLI, QTY_OK, -1000},
	    {"-1.5m", QTY_MILLI, QTY_OK, -1}, /* towards +infinity */
	    {"0", QTY_UNIT, QTY_OK, 0},
	    {"0e99999", QTY_UNIT, QTY_OK, 0},
	    {"1e-30", QTY_UNIT, QTY_OK, 1},
	    {"", QTY_UNIT, QTY_SYNTAX, 0},
	    {".", QTY_UNIT, QTY_SYNTAX, 0},
	    {"m", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1Gb", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1.2.3", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1e", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1e+", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1 ", QTY_UNIT, QTY_SYNTAX, 0},
	    {"1mi", QTY_UNIT, QTY_SYNTAX, 0},
	    {"K", QTY_UNIT, QTY_SYNTAX, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t v = -42;
		enum qty_err e = quantity_parse(cases[i].s, cases[i].scale, &v);

		if (e != cases[i].err)
			fail_msg("\"%s\": error %d, want %d", cases[i].s, e,
				 cases[i].err);
		if (e == QTY_OK && v != cases[i].want)
			fail_msg("\"%s\": %lld, want %lld", cases[i].s,
				 (long long)v, (long long)cases[i].want);
		if (e != QTY_OK && v != -42)
			fail_msg("\"%s\": out written on error", cases[i].s);
	}
	assert_int_equal(quantity_parse(NULL, QTY_UNIT, &(int64_t){0}),
			 QTY_SYNTAX);
}

static void
test_allocatable_flag(void **state)
{
	static const struct {
		const char *s;
		const char *err; /* NULL: accepted */
	} cases[] = {
	    {"cpu=4,memory=8Gi,pods=110", NULL},
	    {"cpu=500m", NULL},
	    {"pods=0", NULL},
	    {"", "expected cpu=N,memory=N,pods=N"},
	    {"cpu", "\"cpu\": expected NAME=QUANTITY"},
	    {"gpu=1", "\"gpu\": not one of cpu, memory, pods"},
	    {"cpu=1,cpu=2", "cpu: given twice"},
	    {"memory=1Gb", "memory: \"1Gb\": expected a quantity such as 4, "
			   "500m, 8Gi, at least 0"},
	    {"cpu=-1", "cpu: \"-1\": expected a quantity such as 4, 500m, "
		       "8Gi, at least 0"},
	    {"pods=1.5", "pods: \"1.5\": expected a whole number"},
	    {"cpu=1,", "\"\": expected NAME=QUANTITY"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strmap m = {0};
		struct strbuf err = STRBUF_INIT;
		int r = fit_parse_allocatable(cases[i].s, &m, &err);

		if (cases[i].err == NULL && r != 0)
			fail_msg("\"%s\": refused: %s", cases[i].s, err.buf);
		if (cases[i].err && (r == 0 || strcmp(err.buf, cases[i].err)))
			fail_msg("\"%s\": got %d \"%s\"", cases[i].s, r,
				 err.buf);
		strmap_release(&m);
		strbuf_release(&err);
	}
}

static void
test_allocatable_values(void **state)
{
	struct strmap m = {0};
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(
	    fit_parse_allocatable("cpu=2,memory=1Gi,pods=110", &m, &err), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(strmap_get(&m, "cpu"), "2");
	assert_string_equal(strmap_get(&m, "memory"), "1Gi");
	assert_string_equal(strmap_get(&m, "pods"), "110");
	strmap_release(&m);
	strbuf_release(&err);
}

/* Quantity.String() of one parsed value, as kubectl prints it (the
 * cases checked against kubectl describe node). */
static void
test_string_table(void **state)
{
	static const struct {
		const char *s, *want;
	} cases[] = {
	    {"1000000", "1M"},
	    {"24684096Ki", "24684096Ki"},
	    {"2048Ki", "2Mi"},
	    {"1Ki", "1Ki"},
	    {"1.5Ki", "1536"},
	    {"0.5Gi", "512Mi"},
	    {"1.5", "1500m"},
	    {"0.5", "500m"},
	    {"100m", "100m"},
	    {"3500m", "3500m"},
	    {"1000m", "1"},
	    {"+1", "+1"},
	    {"+1000", "1k"},
	    {"1000", "1k"},
	    {"110", "110"},
	    {"0", "0"},
	    {"0Ki", "0"},
	    {"1e3", "1e3"},
	    {"1e1", "10"},
	    {"10e3", "10e3"},
	    {"0.1n", "1n"},
	    {"1500u", "1500u"},
	    {"100M", "100M"},
	    {"1E", "1E"},
	    {"8Gi", "8Gi"},
	    {"1024Mi", "1Gi"},
	    {"128974848", "128974848"},
	};
	size_t i;
	char buf[64];

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct qty q = {0};

		if (qty_parse(cases[i].s, &q) != QTY_OK)
			fail_msg("\"%s\": refused", cases[i].s);
		qty_string(&q, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("\"%s\": \"%s\", want \"%s\"", cases[i].s, buf,
				 cases[i].want);
	}
}

/* Sums as kubectl's describe node adds requests: the first term is
 * copied (its string kept), a second clears it, the format is the
 * first non-zero term's. */
static void
test_sum(void **state)
{
	static const struct {
		const char *a, *b, *want; /* b NULL: a alone */
	} cases[] = {
	    {"250m", "0.1", "350m"},    {"64Mi", "100M", "167108864"},
	    {"128Mi", "1Gi", "1152Mi"}, {"1", "1.5", "2500m"},
	    {"+1", NULL, "+1"},         {"+1", "0", "1"},
	    {"0", "64Mi", "64Mi"},      {"512Mi", "512Mi", "1Gi"},
	};
	size_t i;
	char buf[64];

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct qty sum = {0}, q;

		assert_int_equal(qty_parse(cases[i].a, &q), QTY_OK);
		qty_add(&sum, &q);
		if (cases[i].b) {
			assert_int_equal(qty_parse(cases[i].b, &q), QTY_OK);
			qty_add(&sum, &q);
		}
		qty_string(&sum, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("%s + %s: \"%s\", want \"%s\"", cases[i].a,
				 cases[i].b ? cases[i].b : "-", buf,
				 cases[i].want);
	}
	{
		struct qty none = {0}, q;

		qty_string(&none, buf, sizeof(buf));
		assert_string_equal(buf, "0");
		assert_int_equal(qty_value(&none, QTY_MILLI), 0);
		assert_int_equal(qty_parse("0.1m", &q), QTY_OK);
		assert_int_equal(qty_value(&q, QTY_MILLI), 1);
		assert_int_equal(qty_parse("1.5", &q), QTY_OK);
		assert_int_equal(qty_value(&q, QTY_UNIT), 2);
		assert_int_equal(qty_value(&q, QTY_MILLI), 1500);
		assert_int_equal(qty_parse("1Gb", &q), QTY_SYNTAX);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_table),
	    cmocka_unit_test(test_allocatable_flag),
	    cmocka_unit_test(test_allocatable_values),
	    cmocka_unit_test(test_string_table),
	    cmocka_unit_test(test_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
