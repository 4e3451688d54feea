/* test_rollout.c - kubectl's rollout status messages, history order and
 * undo decisions (spec/deployment.md §13.1, §15). */
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "deploy_util.h"
#include "fixture.h"
#include "rollout.h"
#include "xalloc.h"

static void
test_status_messages(void **state)
{
	static const struct {
		int64_t gen, observed, replicas, updated, total, available;
		const char *reason;
		enum rollout_state want;
		const char *msg;
	} cases[] = {
	    {2, 1, 3, 3, 3, 3, NULL, ROLLOUT_WAITING,
	     "Waiting for deployment spec update to be observed...\n"},
	    {1, 1, 3, 1, 4, 1, NULL, ROLLOUT_WAITING,
	     "Waiting for deployment \"web\" rollout to finish: 1 out of 3 "
	     "new replicas have been updated...\n"},
	    {1, 1, 3, 3, 5, 3, NULL, ROLLOUT_WAITING,
	     "Waiting for deployment \"web\" rollout to finish: 2 old "
	     "replicas are pending termination...\n"},
	    {1, 1, 3, 3, 3, 2, NULL, ROLLOUT_WAITING,
	     "Waiting for deployment \"web\" rollout to finish: 2 of 3 "
	     "updated replicas are available...\n"},
	    {1, 1, 3, 3, 3, 3, NULL, ROLLOUT_DONE,
	     "deployment \"web\" successfully rolled out\n"},
	    {1, 1, 3, 1, 4, 1, REASON_TIMED_OUT, ROLLOUT_FAILED,
	     "deployment \"web\" exceeded its progress deadline"},
	    /* success does not look at the Available condition */
	    {1, 1, 0, 0, 0, 0, NULL, ROLLOUT_DONE,
	     "deployment \"web\" successfully rolled out\n"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct deployment *d =
		    fx_deployment(cases[i].replicas, "v1", NULL, NULL);
		struct strbuf sb = STRBUF_INIT;
		enum rollout_state st;

		d->metadata.generation = cases[i].gen;
		d->status.observed_generation = cases[i].observed;
		d->status.updated_replicas = cases[i].updated;
		d->status.replicas = cases[i].total;
		d->status.available_replicas = cases[i].available;
		if (cases[i].reason)
			set_condition(&d->status.conditions, "Progressing",
				      "False", cases[i].reason, "m", T0);
		st = rollout_status(d, 0, &sb);
		if (st != cases[i].want || strcmp(sb.buf, cases[i].msg))
			fail_msg("case %zu: state %d msg %s", i, st, sb.buf);
		strbuf_release(&sb);
		fx_free_deployment(d);
	}
}

static void
test_status_revision(void **state)
{
	struct deployment *d = fx_deployment(1, "v1", NULL, NULL);
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strmap_set(&d->metadata.annotations, ANN_REVISION, "3");
	assert_int_equal(rollout_status(d, 2, &sb), ROLLOUT_FAILED);
	assert_string_equal(sb.buf, "desired revision (2) is different from "
				    "the running revision (3)");
	strbuf_release(&sb);
	fx_free_deployment(d);
}

static void
test_history_and_undo(void **state)
{
	struct deployment *d = fx_deployment(3, "v3", NULL, NULL);
	struct replicaset *rs[4];
	struct replicaset **h;
	struct undo_result r;
	size_t n;

	(void)state;
	rs[0] = fx_rs(d, "web-v3", "v3", 3, 3, 4, 30);
	rs[1] = fx_rs(d, "web-v1", "v1", 0, 0, 1, 0);
	rs[2] = fx_rs(d, "web-v2", "v2", 0, 0, 3, 10);
	rs[3] = fx_rs(d, "web-x", "vx", 0, 0, 0, 5); /* no revision */
	strmap_set(&rs[2]->metadata.annotations, ANN_CHANGE_CAUSE, "two");
	strmap_set(&d->metadata.annotations, ANN_REVISION, "4");
	strmap_set(&d->metadata.annotations, ANN_CHANGE_CAUSE, "three");
	rollout_history(rs, 4, &h, &n);
	assert_int_equal(n, 3);
	assert_string_equal(h[0]->metadata.name, "web-v1");
	assert_string_equal(h[1]->metadata.name, "web-v2");
	assert_string_equal(h[2]->metadata.name, "web-v3");
	free(h);

	/* default: the second highest revision (3, web-v2) */
	rollout_undo(d, rs, 4, 0, "deployment.apps/web", &r);
	assert_int_equal(r.kind, UNDO_PATCH);
	assert_int_equal(r.revision, 3);
	assert_string_equal(r.template.spec.containers.v[0].image, "v2");
	assert_null(
	    strmap_get(&r.template.metadata.labels, LABEL_POD_TEMPLATE_HASH));
	assert_string_equal(strmap_get(&r.annotations, ANN_CHANGE_CAUSE),
			    "two");
	assert_string_equal(strmap_get(&r.annotations, ANN_REVISION), "4");
	assert_string_equal(r.message.buf, "deployment.apps/web rolled back");
	undo_result_release(&r);

	rollout_undo(d, rs, 4, 4, "deployment.apps/web", &r);
	assert_int_equal(r.kind, UNDO_SKIPPED);
	assert_string_equal(r.message.buf,
			    "deployment.apps/web skipped rollback (current "
			    "template already matches revision 4)");
	undo_result_release(&r);

	rollout_undo(d, rs, 4, 7, "deployment.apps/web", &r);
	assert_int_equal(r.kind, UNDO_ERROR);
	assert_string_equal(r.message.buf,
			    "unable to find specified revision 7 in history");
	undo_result_release(&r);

	d->spec.paused = true;
	rollout_undo(d, rs, 4, 1, "deployment.apps/web", &r);
	assert_int_equal(r.kind, UNDO_ERROR);
	assert_non_null(strstr(r.message.buf, "paused"));
	undo_result_release(&r);

	rollout_undo(d, rs, 1, 0, "deployment.apps/web", &r);
	assert_int_equal(r.kind, UNDO_ERROR);
	assert_string_equal(r.message.buf,
			    "no rollout history found for deployment \"web\"");
	undo_result_release(&r);
	for (n = 0; n < 4; n++)
		fx_free_rs(rs[n]);
	fx_free_deployment(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_messages),
	    cmocka_unit_test(test_status_revision),
	    cmocka_unit_test(test_history_and_undo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
