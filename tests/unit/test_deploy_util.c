/* test_deploy_util.c - table tests of the deployment formulas
 * (spec/deployment.md §2, §3, §7, §8.2, §11), including Kubernetes' own
 * tables (TestResolveFenceposts, TestNewRSNewReplicas) and the seeds'
 * examples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "deploy_util.h"
#include "fixture.h"
#include "intstr.h"
#include "tmplhash.h"
#include "xalloc.h"

static void
test_intstr_scaled(void **state)
{
	static const struct {
		const char *v;
		int64_t total;
		bool up;
		int64_t want;
		int err;
	} cases[] = {
	    {"25%", 10, true, 3, 0},   {"25%", 10, false, 2, 0},
	    {"25%", 4, true, 1, 0},    {"25%", 4, false, 1, 0},
	    {"25%", 2, true, 1, 0},    {"25%", 2, false, 0, 0},
	    {"99%", 2, false, 1, 0}, /* seed: 1.98 rounds down to 1 */
	    {"25%", 5, false, 1, 0}, /* seed: 1.25 rounds down to 1 */
	    {"1%", 1, true, 1, 0},     {"1%", 1, false, 0, 0},
	    {"0%", 10, true, 0, 0},    {"150%", 10, true, 15, 0},
	    {"7", 3, true, 7, 0}, /* integers are not clamped */
	    {"oops", 10, true, 0, -1}, {"10", 10, false, 10, 0},
	    {"%", 10, true, 0, -1},    {"-10%", 10, false, -1, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct intstr v = fx_intstr(cases[i].v);
		int64_t got = -99;
		int err = intstr_scaled(&v, cases[i].total, cases[i].up, &got);

		if (err != cases[i].err || (err == 0 && got != cases[i].want))
			fail_msg(
			    "case %zu (%s of %lld, up=%d): got %lld err %d", i,
			    cases[i].v, (long long)cases[i].total, cases[i].up,
			    (long long)got, err);
		intstr_release(&v);
	}
}

static void
test_percent_syntax(void **state)
{
	(void)state;
	assert_true(intstr_is_percent("25%"));
	assert_true(intstr_is_percent("0%"));
	assert_false(intstr_is_percent("%"));
	assert_false(intstr_is_percent("-1%"));
	assert_false(intstr_is_percent("1.5%"));
	assert_false(intstr_is_percent("25"));
	assert_false(intstr_is_percent("25 %"));
}

/* Kubernetes' TestResolveFenceposts plus the spec's examples. */
static void
test_resolve_fenceposts(void **state)
{
	static const struct {
		const char *surge, *unavail;
		int64_t desired, want_s, want_u;
		int err;
	} cases[] = {
	    {"0%", "0%", 0, 0, 1, 0},      {"39%", "39%", 10, 4, 3, 0},
	    {"oops", "39%", 10, 0, 0, -1}, {"55%", "urg", 10, 0, 0, -1},
	    {NULL, "39%", 10, 0, 3, 0},    {"39%", NULL, 10, 4, 0, 0},
	    {NULL, NULL, 10, 0, 1, 0},     {"25%", "25%", 10, 3, 2, 0},
	    {"0%", "5%", 10, 0, 1, 0}, /* resolved both 0 -> unavailable 1 */
	    {"1", "25%", 5, 1, 1, 0},      {"25%", "25%", 2, 1, 0, 0},
	    {"25%", "25%", 4, 1, 1, 0},    {"1", "99%", 2, 1, 1, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct intstr s = {0}, u = {0};
		int64_t gs = -1, gu = -1;
		int err;

		if (cases[i].surge)
			s = fx_intstr(cases[i].surge);
		if (cases[i].unavail)
			u = fx_intstr(cases[i].unavail);
		err = resolve_fenceposts(cases[i].surge ? &s : NULL,
					 cases[i].unavail ? &u : NULL,
					 cases[i].desired, &gs, &gu);
		if (err != cases[i].err ||
		    (!err && (gs != cases[i].want_s || gu != cases[i].want_u)))
			fail_msg("case %zu: got surge %lld unavail %lld err %d",
				 i, (long long)gs, (long long)gu, err);
		intstr_release(&s);
		intstr_release(&u);
	}
}

static void
test_max_unavailable(void **state)
{
	static const struct {
		int64_t replicas;
		const char *surge, *unavail;
		bool recreate;
		int64_t want_u, want_s, want_min;
	} cases[] = {
	    {10, "0", "5", false, 5, 0, 5},
	    {5, "0", "10", false, 5, 0, 0}, /* clamped to replicas */
	    {0, "1", "1", false, 0, 1, 0},  /* 0 replicas: 0 */
	    {10, "1", "1", true, 0, 0, 0},  /* Recreate: all 0 */
	    {10, "25%", "25%", false, 2, 3, 8},
	    {5, "1", "25%", false, 1, 1, 4},
	    {2, "25%", "25%", false, 0, 1, 2},
	    {4, "25%", "25%", false, 1, 1, 3},
	    {10, "300%", "0", false, 0, 30, 10}, /* surge not clamped */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct deployment *d = fx_deployment(
		    cases[i].replicas, "v1", cases[i].surge, cases[i].unavail);

		if (cases[i].recreate) {
			free(d->spec.strategy.type);
			d->spec.strategy.type = xstrdup("Recreate");
		}
		if (max_unavailable(d) != cases[i].want_u ||
		    max_surge(d) != cases[i].want_s ||
		    min_available(d) != cases[i].want_min)
			fail_msg("case %zu: unavail %lld surge %lld min %lld",
				 i, (long long)max_unavailable(d),
				 (long long)max_surge(d),
				 (long long)min_available(d));
		fx_free_deployment(d);
	}
}

/* Kubernetes' TestNewRSNewReplicas, and sizes from desired counts. */
static void
test_new_rs_new_replicas(void **state)
{
	static const struct {
		const char *name;
		bool recreate;
		int64_t dep, new_rs, surge, old;
		int64_t want;
	} cases[] = {
	    {"can not scale up - to newRSReplicas", false, 1, 5, 1, 0, 5},
	    {"scale up - to depReplicas", false, 6, 2, 10, 0, 6},
	    {"recreate - to depReplicas", true, 3, 1, 1, 0, 3},
	    {"10 replicas: new grows to 3 beside 10 old", false, 10, 0, 3, 10,
	     3},
	    {"after old 10->8: new 3->5", false, 10, 3, 3, 8, 5},
	    {"never past replicas", false, 10, 8, 3, 0, 10},
	    {"desired sizes, not pods", false, 5, 1, 1, 5, 1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char surge[16];
		struct deployment *d;
		struct replicaset *n, *o, *all[2];
		int64_t got;

		snprintf(surge, sizeof(surge), "%lld",
			 (long long)cases[i].surge);
		d = fx_deployment(cases[i].dep, "v2", surge, "0");
		if (cases[i].recreate) {
			free(d->spec.strategy.type);
			d->spec.strategy.type = xstrdup("Recreate");
		}
		n = fx_rs(d, "new", "v2", cases[i].new_rs, 0, 2, 10);
		o = fx_rs(d, "old", "v1", cases[i].old, cases[i].old, 1, 0);
		all[0] = o;
		all[1] = n;
		got = new_rs_new_replicas(d, all, 2, n);
		if (got != cases[i].want)
			fail_msg("%s: got %lld want %lld", cases[i].name,
				 (long long)got, (long long)cases[i].want);
		fx_free_rs(n);
		fx_free_rs(o);
		fx_free_deployment(d);
	}
}

static void
test_round_half_away(void **state)
{
	(void)state;
	assert_int_equal(round_half_away(2.5), 3);
	assert_int_equal(round_half_away(-2.5), -3);
	assert_int_equal(round_half_away(2.4999), 2);
	assert_int_equal(round_half_away(-0.4), 0);
	assert_int_equal(round_half_away(4.0 / 3.0), 1);
	assert_int_equal(round_half_away(20.0 / 7.0), 3);
}

static void
test_sort_orders(void **state)
{
	struct deployment *d = fx_deployment(3, "v1", NULL, NULL);
	struct replicaset *a = fx_rs(d, "a", "v1", 2, 2, 3, 10);
	struct replicaset *b = fx_rs(d, "b", "v1", 2, 2, 1, 10);
	struct replicaset *c = fx_rs(d, "c", "v1", 5, 5, 2, 5);
	struct replicaset *z = fx_rs(d, "z", "v1", 2, 2, 0, 0);
	struct replicaset *v[4];

	(void)state;
	z->metadata.creation_timestamp = 0; /* zero time: oldest */
	v[0] = a, v[1] = b, v[2] = c, v[3] = z;
	qsort(v, 4, sizeof(*v), rs_cmp_creation);
	assert_string_equal(v[0]->metadata.name, "z");
	assert_string_equal(v[1]->metadata.name, "c");
	assert_string_equal(v[2]->metadata.name, "a"); /* tie: by name */
	assert_string_equal(v[3]->metadata.name, "b");
	qsort(v, 4, sizeof(*v), rs_cmp_size_older);
	assert_string_equal(v[0]->metadata.name, "c");
	assert_string_equal(v[1]->metadata.name, "z");
	assert_string_equal(v[2]->metadata.name, "a");
	qsort(v, 4, sizeof(*v), rs_cmp_size_newer);
	assert_string_equal(v[0]->metadata.name, "c");
	assert_string_equal(v[1]->metadata.name, "b"); /* newer, larger name */
	assert_string_equal(v[2]->metadata.name, "a");
	assert_string_equal(v[3]->metadata.name, "z");
	qsort(v, 4, sizeof(*v), rs_cmp_revision);
	assert_string_equal(v[0]->metadata.name, "z"); /* missing = 0 */
	assert_string_equal(v[1]->metadata.name, "b");
	assert_string_equal(v[2]->metadata.name, "c");
	assert_string_equal(v[3]->metadata.name, "a");
	assert_int_equal(max_revision(v, 4), 3);
	assert_int_equal(last_revision(v, 4), 2);
	fx_free_rs(a);
	fx_free_rs(b);
	fx_free_rs(c);
	fx_free_rs(z);
	fx_free_deployment(d);
}

static void
test_revision_annotations(void **state)
{
	struct deployment *d = fx_deployment(3, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "r2", "v1", 0, 0, 2, 0);

	(void)state;
	strmap_set(&d->metadata.annotations, ANN_CHANGE_CAUSE, "undo");
	strmap_set(&d->metadata.annotations, ANN_LAST_APPLIED, "{}");
	/* A rollback to r2: revision 4, history "2". */
	assert_true(set_new_rs_annotations(d, rs, 4, true));
	assert_string_equal(strmap_get(&rs->metadata.annotations, ANN_REVISION),
			    "4");
	assert_string_equal(
	    strmap_get(&rs->metadata.annotations, ANN_REVISION_HISTORY), "2");
	assert_string_equal(
	    strmap_get(&rs->metadata.annotations, ANN_CHANGE_CAUSE), "undo");
	assert_null(strmap_get(&rs->metadata.annotations, ANN_LAST_APPLIED));
	/* Again: no change. Then another rollback appends. */
	assert_false(set_new_rs_annotations(d, rs, 4, true));
	assert_true(set_new_rs_annotations(d, rs, 7, true));
	assert_string_equal(
	    strmap_get(&rs->metadata.annotations, ANN_REVISION_HISTORY), "2,4");
	/* An unparseable revision is left alone, even the copy. */
	strmap_set(&rs->metadata.annotations, ANN_REVISION, "x");
	strmap_set(&d->metadata.annotations, "team", "a");
	assert_false(set_new_rs_annotations(d, rs, 9, true));
	fx_free_rs(rs);
	fx_free_deployment(d);
}

static void
test_revision_history_bound(void **state)
{
	struct deployment *d = fx_deployment(3, "v1", NULL, NULL);
	struct replicaset *rs = fx_rs(d, "r", "v1", 0, 0, 1000, 0);
	const char *h;
	int64_t rev = 1000;

	(void)state;
	while (rev < 1700)
		set_new_rs_annotations(d, rs, ++rev, true);
	h = strmap_get(&rs->metadata.annotations, ANN_REVISION_HISTORY);
	assert_non_null(h);
	assert_true(strlen(h) <= MAX_REV_HISTORY_CHARS);
	assert_true(strlen(h) > MAX_REV_HISTORY_CHARS - 6);
	/* The newest entry is kept, the oldest dropped. */
	assert_non_null(strstr(h, "1699"));
	assert_null(strstr(h, "1000,"));
	fx_free_rs(rs);
	fx_free_deployment(d);
}

static void
test_conditions(void **state)
{
	struct condition_list l = {0};
	const struct condition *c;

	(void)state;
	set_condition(&l, "Progressing", "True", "A", "m", 1000);
	set_condition(&l, "Available", "True", "X", "m", 1000);
	/* same status and reason: nothing changes, not even the time */
	set_condition(&l, "Progressing", "True", "A", "m2", 2000);
	c = condition_get(&l, "Progressing");
	assert_int_equal(c->last_update_time, 1000);
	assert_string_equal(c->message, "m");
	/* same status, new reason: transition time kept, moved to the end */
	set_condition(&l, "Progressing", "True", "B", "m3", 3000);
	assert_string_equal(l.v[1].type, "Progressing");
	assert_int_equal(l.v[1].last_update_time, 3000);
	assert_int_equal(l.v[1].last_transition_time, 1000);
	/* new status: both times move */
	set_condition(&l, "Progressing", "False", "C", "m4", 4000);
	c = condition_get(&l, "Progressing");
	assert_int_equal(c->last_transition_time, 4000);
	schema_release(&schema_deployment,
		       &(struct deployment){.status.conditions = l});
}

static void
test_timed_out(void **state)
{
	struct deployment *d = fx_deployment(3, "v1", NULL, NULL);
	dtime t = T0 + DTIME_SEC(50);

	(void)state;
	set_condition(&d->status.conditions, "Progressing", "True",
		      REASON_RS_UPDATED, "m", t);
	/* strictly before now */
	assert_false(deployment_timed_out(d, &d->status, t + DTIME_SEC(600)));
	assert_true(
	    deployment_timed_out(d, &d->status, t + DTIME_SEC(600) + 1));
	d->spec.progress_deadline_seconds.v = MAX_INT32;
	assert_false(deployment_timed_out(d, &d->status, t + DTIME_SEC(9999)));
	d->spec.progress_deadline_seconds.v = 600;
	set_condition(&d->status.conditions, "Progressing", "True",
		      REASON_NEW_RS_AVAILABLE, "m", t);
	assert_false(deployment_timed_out(d, &d->status, t + DTIME_SEC(9999)));
	fx_free_deployment(d);
}

static void
test_progressing(void **state)
{
	struct deployment *d = fx_deployment(10, "v1", NULL, NULL);
	struct deployment_status ns = {0};

	(void)state;
	d->status.replicas = 10;
	d->status.updated_replicas = 3;
	d->status.ready_replicas = 8;
	d->status.available_replicas = 8;
	ns = d->status;
	ns.conditions = (struct condition_list){0};
	assert_false(deployment_progressing(d, &ns));
	ns.updated_replicas = 2; /* fewer new pods: not progress */
	assert_false(deployment_progressing(d, &ns));
	ns.updated_replicas = 3;
	ns.replicas = 9; /* fewer old pods: progress */
	assert_true(deployment_progressing(d, &ns));
	ns.replicas = 10;
	ns.available_replicas = 9;
	assert_true(deployment_progressing(d, &ns));
	fx_free_deployment(d);
}

/* pod-template-hash: stable, short, from the alphabet, changed by the
 * collision count and by any template change; the hash label itself is
 * ignored when templates are compared. */
static void
test_template_hash(void **state)
{
	struct deployment *a = fx_deployment(3, "v1", NULL, NULL);
	struct deployment *b = fx_deployment(9, "v1", NULL, NULL);
	struct opt_int cc = {.set = true, .v = 1};
	char h1[16], h2[16], h3[16], h4[16];
	size_t i;

	(void)state;
	tmplhash_compute(&a->spec.template, NULL, h1);
	tmplhash_compute(&b->spec.template, NULL, h2);
	assert_string_equal(h1, h2); /* replicas are not in the template */
	assert_true(strlen(h1) >= 1 && strlen(h1) <= 10);
	for (i = 0; h1[i]; i++)
		assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", h1[i]));
	tmplhash_compute(&a->spec.template, &cc, h3);
	assert_string_not_equal(h1, h3);
	free(b->spec.template.spec.containers.v[0].image);
	b->spec.template.spec.containers.v[0].image = xstrdup("v2");
	tmplhash_compute(&b->spec.template, NULL, h4);
	assert_string_not_equal(h1, h4);
	assert_false(
	    tmpl_equal_ignore_hash(&a->spec.template, &b->spec.template));
	free(b->spec.template.spec.containers.v[0].image);
	b->spec.template.spec.containers.v[0].image = xstrdup("v1");
	strmap_set(&b->spec.template.metadata.labels, LABEL_POD_TEMPLATE_HASH,
		   h1);
	assert_true(
	    tmpl_equal_ignore_hash(&a->spec.template, &b->spec.template));
	/* FNV-1a test vectors */
	assert_int_equal(fnv1a32(2166136261u, "", 0), 0x811c9dc5u);
	assert_int_equal(fnv1a32(2166136261u, "a", 1), 0xe40c292cu);
	assert_int_equal(fnv1a32(2166136261u, "foobar", 6), 0xbf9cf968u);
	fx_free_deployment(a);
	fx_free_deployment(b);
}

/* volumes and volumeMounts came after pod-template-hashes were in use
 * (FF_HASHNEW): a template without them dumps the text it dumped before
 * they existed, so its hash and its ReplicaSet's name stay; one with a
 * volume, or a mount, hashes differently, and so does a change of the
 * volume. The pinned hash is the fixture's before volumes were
 * modelled, computed by the tree before them (the golden plans pin
 * others: web-f4d48c756). */
#define PINNED_FIXTURE_HASH "66889c9bd6"

static void
test_template_hash_volumes(void **state)
{
	struct deployment *a = fx_deployment(3, "v1", NULL, NULL);
	struct pod_template *t = &a->spec.template;
	struct strbuf sb = STRBUF_INIT;
	struct volume *v;
	struct volume_mount *m;
	char h0[16], h1[16], h2[16], h3[16];

	(void)state;
	schema_dump(&schema_pod_template, t, &sb);
	assert_null(strstr(sb.buf, "volumes="));
	assert_null(strstr(sb.buf, "volumeMounts="));
	tmplhash_compute(t, NULL, h0);
	assert_string_equal(h0, PINNED_FIXTURE_HASH);

	v = anylist_push((struct anylist *)&t->spec.volumes, sizeof(*v));
	v->name = xstrdup("cache");
	v->empty_dir = xcalloc(1, sizeof(*v->empty_dir));
	tmplhash_compute(t, NULL, h1);
	assert_string_not_equal(h0, h1);
	v->empty_dir->medium = xstrdup("Memory");
	tmplhash_compute(t, NULL, h2);
	assert_string_not_equal(h1, h2);
	m = anylist_push(
	    (struct anylist *)&t->spec.containers.v[0].volume_mounts,
	    sizeof(*m));
	m->name = xstrdup("cache");
	m->mount_path = xstrdup("/cache");
	tmplhash_compute(t, NULL, h3);
	assert_string_not_equal(h2, h3);
	strbuf_release(&sb);
	fx_free_deployment(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intstr_scaled),
	    cmocka_unit_test(test_percent_syntax),
	    cmocka_unit_test(test_resolve_fenceposts),
	    cmocka_unit_test(test_max_unavailable),
	    cmocka_unit_test(test_new_rs_new_replicas),
	    cmocka_unit_test(test_round_half_away),
	    cmocka_unit_test(test_sort_orders),
	    cmocka_unit_test(test_revision_annotations),
	    cmocka_unit_test(test_revision_history_bound),
	    cmocka_unit_test(test_conditions),
	    cmocka_unit_test(test_timed_out),
	    cmocka_unit_test(test_progressing),
	    cmocka_unit_test(test_template_hash),
	    cmocka_unit_test(test_template_hash_volumes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
