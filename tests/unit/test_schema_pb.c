/* test_schema_pb.c - the protobuf field numbers of the field tables
 * (struct field.pb, schema_rows.h) are usable: within every table the
 * kind registry reaches, a number is used once (a plain number, the
 * outer number of an inline group, or an inline pair), PB_INLINE parts
 * are in range; every kind has numbered rows, metadata is 1 and
 * apiVersion/kind have none; and the per-type copies of the condition
 * rows are the rows of schema_condition. A duplicate would make the
 * protobuf decoder (src/codec/k8spb.c) read one field as another. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kinds.h"
#include "meta.h"

#define MAX_SCHEMAS 256

/* The tables reached so far, each once. */
struct seen {
	const struct schema *v[MAX_SCHEMAS];
	size_t n;
};

static void
reach(struct seen *s, const struct schema *t)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == t)
			return;
	assert_true(s->n < MAX_SCHEMAS);
	s->v[s->n++] = t;
	for (i = 0; i < t->nfields; i++)
		if (t->fields[i].sub)
			reach(s, t->fields[i].sub);
}

/* Every table of every kind, and the tables below them. */
static void
reach_all(struct seen *s)
{
	const struct kind_info *k;
	size_t i, n;

	s->n = 0;
	k = kinds_all(&n);
	for (i = 0; i < n; i++)
		reach(s, k[i].schema);
}

/* Whether row j of t uses number a as a plain one or as the outer one
 * of an inline group. */
static bool
uses_outer(const struct schema *t, size_t j, unsigned a)
{
	unsigned pb = t->fields[j].pb;

	return pb != 0 && (PB_OUTER(pb) ? PB_OUTER(pb) : pb) == a;
}

/* Rows i and j of t clash: the same plain number, the same inline pair,
 * or an inline group's outer number that is another row's number. */
static bool
clash(const struct schema *t, size_t i, size_t j)
{
	unsigned a = t->fields[i].pb, b = t->fields[j].pb;

	if (a == 0 || b == 0)
		return false;
	if (a == b)
		return true;
	if (PB_OUTER(a) && !PB_OUTER(b))
		return uses_outer(t, j, PB_OUTER(a));
	if (PB_OUTER(b) && !PB_OUTER(a))
		return uses_outer(t, i, PB_OUTER(b));
	return false;
}

static void
check_table(const struct schema *t)
{
	size_t i, j;

	for (i = 0; i < t->nfields; i++) {
		unsigned pb = t->fields[i].pb;

		if (PB_OUTER(pb) && PB_INNER(pb) == 0)
			fail_msg("%s.%s: PB_INLINE with inner number 0",
				 t->name, t->fields[i].json);
		for (j = i + 1; j < t->nfields; j++)
			if (clash(t, i, j))
				fail_msg("%s: %s and %s have the same protobuf "
					 "number",
					 t->name, t->fields[i].json,
					 t->fields[j].json);
	}
}

static void
test_numbers_unique_within_each_table(void **state)
{
	struct seen s;
	size_t i;

	(void)state;
	reach_all(&s);
	assert_true(s.n > 40);
	for (i = 0; i < s.n; i++)
		check_table(s.v[i]);
}

/* The checks above catch a clash; a table written with one catches it
 * too. */
static void
test_a_clash_is_found(void **state)
{
	static const struct field f[] = {
	    {"exec", FT_STR, 0, 0, NULL, NULL, 0, PB_INLINE(1, 1)},
	    {"handler", FT_STR, 0, 0, NULL, NULL, 0, 1},
	    {"a", FT_STR, 0, 0, NULL, NULL, 0, 2},
	    {"b", FT_STR, 0, 0, NULL, NULL, 0, 2},
	    {"c", FT_STR, 0, 0, NULL, NULL, 0, PB_INLINE(1, 2)},
	    {"d", FT_STR, 0, 0, NULL, NULL, 0, PB_INLINE(1, 2)},
	    {"e", FT_STR, 0, 0, NULL, NULL, 0, 0},
	    {"f", FT_STR, 0, 0, NULL, NULL, 0, 0},
	};
	static const struct schema t = {"t", 0, f, sizeof(f) / sizeof(f[0])};

	(void)state;
	assert_true(clash(&t, 0, 1));  /* outer 1 against plain 1 */
	assert_true(clash(&t, 1, 0));  /* either way round */
	assert_true(clash(&t, 2, 3));  /* 2 twice */
	assert_true(clash(&t, 4, 5));  /* (1, 2) twice */
	assert_false(clash(&t, 0, 4)); /* (1, 1) and (1, 2) */
	assert_false(clash(&t, 2, 4)); /* 2 and (1, 2) */
	assert_false(clash(&t, 6, 7)); /* no numbers */
}

/* Kubernetes' objects are {1 metadata, 2 spec, ...}; apiVersion and
 * kind travel in runtime.Unknown, outside the message. */
static void
test_every_kind_has_numbers(void **state)
{
	const struct kind_info *k;
	size_t i, j, n, numbered;

	(void)state;
	k = kinds_all(&n);
	for (i = 0; i < n; i++) {
		const struct schema *s = k[i].schema;

		assert_int_equal(schema_field(s, "metadata")->pb, 1);
		assert_int_equal(schema_field(s, "apiVersion")->pb, 0);
		assert_int_equal(schema_field(s, "kind")->pb, 0);
		for (numbered = 0, j = 0; j < s->nfields; j++)
			numbered += s->fields[j].pb != 0;
		if (numbered < 2)
			fail_msg("%s has %zu numbered rows", k[i].kind,
				 numbered);
	}
}

/* The rows of a status's conditions table are schema_condition's, but
 * for their numbers. */
static void
same_rows_as_condition(const struct schema *t)
{
	size_t i;

	assert_int_equal(t->nfields, schema_condition.nfields);
	for (i = 0; i < t->nfields; i++) {
		const struct field *a = &t->fields[i],
				   *b = &schema_condition.fields[i];

		assert_string_equal(a->json, b->json);
		assert_int_equal(a->type, b->type);
		assert_int_equal(a->off, b->off);
		assert_int_equal(a->flags, b->flags);
		assert_int_equal(a->patch, b->patch);
	}
}

static void
test_condition_copies_keep_the_rows(void **state)
{
	static const enum kind_id ids[] = {
	    KIND_DEPLOYMENT, KIND_REPLICASET, KIND_POD,
	    KIND_NODE,       KIND_SERVICE,    KIND_REPLICATION_CONTROLLER,
	};
	const struct schema *conds[sizeof(ids) / sizeof(ids[0])];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct schema *st =
		    kind_status_schema(kind_by_id(ids[i]));

		conds[i] = schema_field(st, "conditions")->sub;
		same_rows_as_condition(conds[i]);
	}
	/* a table per Go type: the Deployment's is not the Pod's */
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (j = 0; j < i; j++)
			if (!(ids[i] == KIND_REPLICATION_CONTROLLER &&
			      ids[j] == KIND_REPLICASET))
				assert_ptr_not_equal(conds[i], conds[j]);
	assert_int_equal(schema_field(conds[0], "lastTransitionTime")->pb, 7);
	assert_int_equal(schema_field(conds[2], "lastTransitionTime")->pb, 4);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_numbers_unique_within_each_table),
	    cmocka_unit_test(test_a_clash_is_found),
	    cmocka_unit_test(test_every_kind_has_numbers),
	    cmocka_unit_test(test_condition_copies_keep_the_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
