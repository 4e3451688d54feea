/* test_fielderr.c - how field errors echo the values they refuse: as
 * Kubernetes prints them (strings quoted, whole) up to FIELDERR_ECHO_MAX
 * bytes, and cut past it, at a character boundary, with the whole size;
 * a 2.9 MB label value gives two errors of a few hundred bytes each. */
#define _GNU_SOURCE /* vasprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fielderr.h"
#include "labels.h"
#include "strbuf.h"
#include "xalloc.h"

static char *
repeat(const char *unit, size_t times)
{
	size_t u = strlen(unit), i;
	char *s = xmalloc(u * times + 1);

	for (i = 0; i < times; i++)
		memcpy(s + i * u, unit, u);
	s[u * times] = '\0';
	return s;
}

static char *
fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	assert_true(vasprintf(&s, f, ap) >= 0);
	va_end(ap);
	return s;
}

static char *
formatted(const struct fielderr *e)
{
	struct strbuf sb = STRBUF_INIT;

	fielderr_format(e, &sb);
	return strbuf_detach(&sb);
}

struct tcase {
	const char *what;
	const char *unit;
	size_t times;
	size_t kept; /* bytes of the value echoed; 0: the whole value */
};

static const struct tcase cases[] = {
    {"a short value: whole", "a", 64, 0},
    {"at the bound: whole", "a", FIELDERR_ECHO_MAX, 0},
    {"one past: cut", "a", FIELDERR_ECHO_MAX + 1, FIELDERR_ECHO_MAX},
    {"2.9 MB: cut", "a", 2949120, FIELDERR_ECHO_MAX},
    /* 3-byte characters: 85 of them (255 bytes), not a split one. */
    {"never a split character", "\xe2\x82\xac", 200, 255},
};

static void
test_echo_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *c = &cases[i];
		char *v = repeat(c->unit, c->times), *want, *got;
		struct fielderr_list l = {0};
		size_t n = strlen(v);

		fielderr_addf_str(&l, FE_INVALID, "metadata.labels", v,
				  "must be no more than 63 characters");
		if (c->kept == 0)
			want = fmt("metadata.labels: Invalid value: "
				   "\"%s\": must be no more than 63 "
				   "characters",
				   v);
		else
			want = fmt("metadata.labels: Invalid value: "
				   "\"%.*s\"... (%zu bytes): must be no "
				   "more than 63 characters",
				   (int)c->kept, v, n);
		got = formatted(&l.v[0]);
		if (strcmp(got, want))
			fail_msg("%s: got %.400s", c->what, got);
		free(want);
		free(got);
		free(v);
		fielderr_list_release(&l);
	}
}

static void
test_a_huge_label_value_is_not_echoed_whole(void **state)
{
	char *v = repeat("a-", 1474560); /* 2.9 MB, ends with '-' */
	struct fielderr_list l = {0};
	size_t i, total = 0;

	(void)state;
	validate_label_value(v, "metadata.labels", &l);
	/* Kubernetes' two: the length and the syntax. */
	assert_int_equal(l.n, 2);
	for (i = 0; i < l.n; i++) {
		char *s = formatted(&l.v[i]);

		assert_non_null(strstr(s, "... (2949120 bytes)"));
		total += strlen(s);
		free(s);
	}
	assert_true(total < 2000);
	fielderr_list_release(&l);
	free(v);
}

static void
test_a_rendered_value_is_cut_later(void **state)
{
	char *map = repeat("x", 4 * FIELDERR_ECHO_MAX + 10);
	char *small = repeat("y", 2 * FIELDERR_ECHO_MAX);
	struct fielderr_list l = {0};

	(void)state;
	fielderr_add(&l, FE_INVALID, "spec.selector", small, "bad");
	fielderr_add(&l, FE_INVALID, "spec.selector", map, "bad");
	assert_string_equal(l.v[0].value, small);
	assert_int_equal(strlen(l.v[1].value),
			 4 * FIELDERR_ECHO_MAX + strlen("... (1034 bytes)"));
	assert_non_null(strstr(l.v[1].value, "... (1034 bytes)"));
	fielderr_list_release(&l);
	free(map);
	free(small);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_echo_table),
	    cmocka_unit_test(test_a_huge_label_value_is_not_echoed_whole),
	    cmocka_unit_test(test_a_rendered_value_is_cut_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
