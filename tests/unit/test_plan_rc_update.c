/* test_plan_rc_update.c - the ReplicationController rolling-update
 * planner: one table of worlds (OLD and NEXT as stored, the available
 * pods) and the step each must give; the maxSurge 1 / maxUnavailable 0
 * bounds over whole rollouts with slow pods; the --dry-run preview. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_rc_update.h"
#include "strbuf.h"
#include "xalloc.h"

#define H "abc12"      /* the next controller's hash */
#define G "old99-orig" /* the old controller's label value */

/* An RC "name" of `replicas`, settled (its controller saw it and has
 * its pods). keyed: selector and template carry deployment=value. */
static struct replication_controller *
mkrc(const char *name, const char *uid, int64_t replicas, const char *value)
{
	struct replication_controller *rc = xcalloc(1, sizeof(*rc));
	struct container *c;

	rc->metadata.name = xstrdup(name);
	rc->metadata.namespace = xstrdup("default");
	if (uid)
		rc->metadata.uid = xstrdup(uid);
	rc->metadata.generation = 1;
	rc->spec.replicas.set = true;
	rc->spec.replicas.v = replicas;
	strmap_set(&rc->spec.selector, "app", "foo");
	strmap_set(&rc->spec.template.metadata.labels, "app", "foo");
	if (value) {
		strmap_set(&rc->spec.selector, "deployment", value);
		strmap_set(&rc->spec.template.metadata.labels, "deployment",
			   value);
	}
	c = anylist_push((struct anylist *)&rc->spec.template.spec.containers,
			 sizeof(*c));
	c->name = xstrdup("web");
	c->image = xstrdup("web:1");
	rc->status.observed_generation = 1;
	rc->status.replicas = replicas;
	return rc;
}

static void
freerc(struct replication_controller *rc)
{
	if (rc) {
		rc_release(rc);
		free(rc);
	}
}

static void
ann(struct replication_controller *rc, const char *k, const char *v)
{
	strmap_set(&rc->metadata.annotations, k, v);
}

/* OLD foo prepared for the update (annotations, label) and NEXT foo-H
 * created by it, sizes o and n. */
static void
pair(struct replication_controller **old, struct replication_controller **nx,
     int64_t o, int64_t n)
{
	*old = mkrc("foo", "u-foo", o, G);
	ann(*old, ANN_RCU_PARTNER, "foo-" H);
	ann(*old, ANN_RCU_ORIGINAL, "3");
	*nx = mkrc("foo-" H, "u-next", n, H);
	ann(*nx, ANN_RCU_SOURCE, "foo:u-foo");
	ann(*nx, ANN_RCU_PARTNER, "foo");
	ann(*nx, ANN_RCU_DESIRED, "3");
}

static void
base_in(struct plan_rcu_in *in, const struct replication_controller *proto)
{
	memset(in, 0, sizeof(*in));
	in->old_name = "foo";
	in->next_name = "foo-" H;
	in->rename = true;
	in->proto = proto;
	in->label_key = "deployment";
	in->label_value = H;
	in->old_label_value = G;
	in->desired = -1;
}

static void
test_init_and_prepare(void **state)
{
	struct replication_controller *proto = mkrc("foo-" H, NULL, 3, H);
	struct replication_controller *old = mkrc("foo", "u-foo", 3, NULL);
	struct plan_rcu_in in;
	struct plan_rcu_step s;
	const char *pods[] = {"foo-a", "foo-b"};

	(void)state;
	base_in(&in, proto);
	/* neither exists */
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_string_equal(s.message,
			    "replicationcontrollers \"foo\" not found");
	plan_rcu_step_release(&s);

	/* only OLD, untouched: template label and pointers first */
	in.old = old;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_UPDATE);
	assert_string_equal(s.name, "relabel-old");
	assert_string_equal(
	    strmap_get(&s.obj.spec.template.metadata.labels, "deployment"), G);
	assert_null(strmap_get(&s.obj.spec.selector, "deployment"));
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_PARTNER), "foo-" H);
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_ORIGINAL), "3");
	/* the written object is what the next read returns */
	rc_release(old);
	rc_copy(old, &s.obj);
	plan_rcu_step_release(&s);

	/* its pods lack the label: they get it before the selector */
	in.old_unlabeled = pods;
	in.nold_unlabeled = 2;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_LABEL_PODS);
	assert_int_equal(s.pods.n, 2);
	assert_string_equal(s.label_value, G);
	assert_string_equal(s.pods.v[1], "foo-b");
	plan_rcu_step_release(&s);

	in.nold_unlabeled = 0;
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "select-old");
	assert_string_equal(strmap_get(&s.obj.spec.selector, "deployment"), G);
	rc_release(old);
	rc_copy(old, &s.obj);
	plan_rcu_step_release(&s);

	/* then NEXT: 0 replicas, desired 3, pointing at OLD's uid */
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_CREATE);
	assert_string_equal(s.name, "create-next");
	assert_string_equal(s.target, "foo-" H);
	assert_int_equal(s.obj.spec.replicas.v, 0);
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_DESIRED), "3");
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_SOURCE),
	    "foo:u-foo");
	assert_string_equal(strmap_get(&s.obj.spec.selector, "deployment"), H);
	plan_rcu_step_release(&s);

	/* an OLD that is the result of this very update: done */
	strmap_set(&old->spec.selector, "deployment", H);
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DONE);
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(proto);
}

/* The rollout table: sizes, NEXT's available pods → the step. */
static void
test_rollout_table(void **state)
{
	static const struct {
		int64_t o, n, avail;
		enum rcu_op op;
		const char *name;
		int64_t to;
	} cases[] = {
	    {3, 0, 0, RCU_SCALE, "scale-next", 1},
	    {3, 1, 0, RCU_WAIT, NULL, 0},
	    {3, 1, 1, RCU_SCALE, "scale-old", 2},
	    {2, 1, 1, RCU_SCALE, "scale-next", 2},
	    {2, 2, 1, RCU_WAIT, NULL, 0},
	    {2, 2, 2, RCU_SCALE, "scale-old", 1},
	    {1, 3, 2, RCU_WAIT, NULL, 0}, /* 2 new + 1 old: all needed */
	    {1, 3, 3, RCU_SCALE, "scale-old", 0},
	    {0, 2, 2, RCU_SCALE, "scale-next", 3}, /* old empty: jump */
	    {0, 3, 3, RCU_DELETE, "delete-old", 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct replication_controller *old, *nx;
		struct plan_rcu_in in;
		struct plan_rcu_step s;

		pair(&old, &nx, cases[i].o, cases[i].n);
		base_in(&in, NULL);
		in.old = old;
		in.next = nx;
		in.next_available = cases[i].avail;
		plan_rcu(&in, &s);
		if (s.op != cases[i].op)
			fail_msg("case %zu: op %d, want %d (%s)", i, s.op,
				 cases[i].op, s.message);
		if (cases[i].name)
			assert_string_equal(s.name, cases[i].name);
		if (s.op == RCU_SCALE)
			assert_int_equal(s.to, cases[i].to);
		assert_non_null(strstr(s.summary, "keep 3 pods available, "
						  "don't exceed 4 pods"));
		plan_rcu_step_release(&s);
		freerc(old);
		freerc(nx);
	}
}

/* A scaled controller that has not caught up is waited for. */
static void
test_wait_for_size(void **state)
{
	struct replication_controller *old, *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	pair(&old, &nx, 3, 1);
	nx->status.replicas = 0;
	base_in(&in, NULL);
	in.old = old;
	in.next = nx;
	in.next_available = 1;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_WAIT);
	assert_non_null(strstr(s.message, "foo-" H " to have 1 pods"));
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

/* Whole rollouts where a new pod becomes available `lag` plans after it
 * is asked for: never more than desired + 1 pods, never fewer than
 * desired available (old pods count as available), and it ends. */
static void
test_bounds_property(void **state)
{
	int64_t desired, lag;

	(void)state;
	for (desired = 0; desired <= 6; desired++)
		for (lag = 0; lag <= 3; lag++) {
			struct replication_controller *old, *nx;
			struct plan_rcu_in in;
			int64_t age[16] = {0}, steps = 0;
			char d[16];
			bool done = false;

			pair(&old, &nx, desired, 0);
			snprintf(d, sizeof(d), "%lld", (long long)desired);
			ann(nx, ANN_RCU_DESIRED, d);
			base_in(&in, NULL);
			in.old = old;
			in.next = nx;
			while (!done && steps++ < 200) {
				struct plan_rcu_step s;
				int64_t i, avail = 0, n = nx->spec.replicas.v;

				for (i = 0; i < n; i++)
					if (age[i]++ >= lag)
						avail++;
				in.next_available = avail;
				assert_true(old->spec.replicas.v + n <=
					    desired + 1);
				assert_true(old->spec.replicas.v + avail >=
					    desired);
				plan_rcu(&in, &s);
				if (s.op == RCU_SCALE) {
					struct replication_controller *t =
					    !strcmp(s.target, "foo") ? old : nx;
					if (t == nx)
						for (i = n; i < s.to; i++)
							age[i] = 0;
					t->spec.replicas.v = s.to;
					t->status.replicas = s.to;
				} else if (s.op == RCU_DELETE) {
					assert_int_equal(nx->spec.replicas.v,
							 desired);
					done = true;
				} else {
					assert_int_equal(s.op, RCU_WAIT);
				}
				plan_rcu_step_release(&s);
			}
			assert_true(done);
			freerc(old);
			freerc(nx);
		}
}

/* The rename: NEXT held, released of its pods, OLD re-created from it,
 * NEXT let go; every state in between is recognised. */
static void
test_rename(void **state)
{
	struct replication_controller *old, *nx, *fin;
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	pair(&old, &nx, 0, 3);
	freerc(old);
	base_in(&in, NULL);
	in.next = nx;
	/* OLD deleted (a crash right after): hold NEXT */
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "hold-next");
	assert_int_equal(s.obj.metadata.finalizers.n, 1);
	assert_string_equal(s.obj.metadata.finalizers.v[0], FINALIZER_RCU);
	rc_release(nx);
	rc_copy(nx, &s.obj);
	plan_rcu_step_release(&s);

	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DELETE_ORPHAN);
	assert_string_equal(s.target, "foo-" H);
	plan_rcu_step_release(&s);

	/* being deleted, the garbage collector not done yet */
	nx->metadata.deletion_timestamp = 1;
	strlist_push(&nx->metadata.finalizers, "orphan");
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_WAIT);
	plan_rcu_step_release(&s);
	free(nx->metadata.finalizers.v[1]);
	nx->metadata.finalizers.n = 1;

	/* the pods released: OLD again, same selector, full size */
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_CREATE);
	assert_string_equal(s.name, "create-final");
	assert_string_equal(s.target, "foo");
	assert_null(s.obj.metadata.uid);
	assert_int_equal(s.obj.spec.replicas.v, 3);
	assert_int_equal(s.obj.metadata.finalizers.n, 0);
	assert_null(strmap_get(&s.obj.metadata.annotations, ANN_RCU_SOURCE));
	assert_null(strmap_get(&s.obj.metadata.annotations, ANN_RCU_DESIRED));
	assert_string_equal(strmap_get(&s.obj.spec.selector, "deployment"), H);
	fin = xcalloc(1, sizeof(*fin));
	rc_copy(fin, &s.obj);
	plan_rcu_step_release(&s);

	in.old = fin;
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "release-next");
	assert_int_equal(s.obj.metadata.finalizers.n, 0);
	plan_rcu_step_release(&s);

	/* NEXT gone: a re-run finds OLD at the target template */
	in.next = NULL;
	in.proto = fin;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DONE);
	plan_rcu_step_release(&s);
	freerc(fin);
	freerc(nx);
}

/* NEXT named: OLD deleted, then NEXT's annotations dropped. */
static void
test_named_end(void **state)
{
	struct replication_controller *old, *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	pair(&old, &nx, 0, 3);
	base_in(&in, NULL);
	in.rename = false;
	in.old = old;
	in.next = nx;
	in.next_available = 3;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DELETE);
	assert_string_equal(s.target, "foo");
	plan_rcu_step_release(&s);
	in.old = NULL;
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "clean-next");
	assert_null(strmap_get(&s.obj.metadata.annotations, ANN_RCU_SOURCE));
	rc_release(nx);
	rc_copy(nx, &s.obj);
	plan_rcu_step_release(&s);
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DONE);
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

/* Refusals: a stale partner, a partner of someone else, an update to
 * another template in progress; a missing desired-replicas is filled. */
static void
test_partner_checks(void **state)
{
	struct replication_controller *old, *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	pair(&old, &nx, 3, 1);
	base_in(&in, NULL);
	in.old = old;
	in.next = nx;
	ann(nx, ANN_RCU_SOURCE, "foo:u-earlier");
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "stale"));
	assert_non_null(strstr(s.message, "u-earlier"));
	plan_rcu_step_release(&s);

	ann(nx, ANN_RCU_SOURCE, "bar:u-bar");
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "not of \"foo\""));
	plan_rcu_step_release(&s);

	/* the seed's pointer alone, to another controller */
	strmap_del(&nx->metadata.annotations, ANN_RCU_SOURCE);
	ann(nx, ANN_RCU_PARTNER, "bar");
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "partner of \"bar\""));
	plan_rcu_step_release(&s);
	ann(nx, ANN_RCU_PARTNER, "foo");
	ann(nx, ANN_RCU_SOURCE, "foo:u-foo");

	strmap_del(&nx->metadata.annotations, ANN_RCU_DESIRED);
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "annotate-next");
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_DESIRED), "3");
	plan_rcu_step_release(&s);

	ann(nx, ANN_RCU_DESIRED, "3");
	in.label_value = "zzz99";
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "--rollback"));
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

/* --rollback: roles swapped by the caller; the original takes back its
 * original size and points at the in-flight controller, then grows while
 * the in-flight one shrinks; at the end the in-flight one is deleted. */
static void
test_rollback(void **state)
{
	struct replication_controller *old, *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	pair(&old, &nx, 1, 2); /* foo 1, foo-H 2: mid-rollout */
	base_in(&in, NULL);
	in.rollback = true;
	in.rename = false;
	in.old_name = "foo-" H;
	in.next_name = "foo";
	in.old = nx; /* the in-flight controller is OLD now */
	in.next = old;
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "point-back");
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_SOURCE),
	    "foo-" H ":u-next");
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_DESIRED), "3");
	rc_release(old);
	rc_copy(old, &s.obj);
	plan_rcu_step_release(&s);
	in.next_available = 1;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_SCALE);
	assert_string_equal(s.target, "foo");
	assert_int_equal(s.to, 2);
	plan_rcu_step_release(&s);
	/* nothing to roll back to */
	in.next = NULL;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "nothing to roll back"));
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

static void
test_preview(void **state)
{
	struct replication_controller *proto = mkrc("foo-" H, NULL, 3, H);
	struct replication_controller *old = mkrc("foo", "u-foo", 3, NULL);
	struct plan_rcu_in in;
	struct strbuf sb = STRBUF_INIT;
	const char *pods[] = {"foo-a", "foo-b", "foo-c"};

	(void)state;
	base_in(&in, proto);
	in.old = old;
	in.old_unlabeled = pods;
	in.nold_unlabeled = 3;
	assert_int_equal(plan_rcu_preview(&in, &sb), 0);
	assert_non_null(strstr(sb.buf, "Labelling 3 pods of foo"));
	assert_non_null(strstr(sb.buf, "Scaling up foo-" H " from 0 to 3, "
				       "scaling down foo from 3 to 0 (keep "
				       "3 pods available, don't exceed 4 "
				       "pods)\n"));
	assert_non_null(strstr(sb.buf, "Scaling foo-" H " up to 1\n"
				       "Scaling foo down to 2\n"));
	assert_non_null(strstr(sb.buf, "Renaming foo-" H " to foo"));
	assert_non_null(strstr(sb.buf, "Update complete: foo\n"));
	strbuf_release(&sb);
	/* the same input, the same bytes */
	{
		struct strbuf again = STRBUF_INIT, first = STRBUF_INIT;

		plan_rcu_preview(&in, &first);
		plan_rcu_preview(&in, &again);
		assert_string_equal(first.buf, again.buf);
		strbuf_release(&first);
		strbuf_release(&again);
	}
	freerc(old);
	freerc(proto);
}

/* Issue 33.3: the seed's names are written (desired-replicas and
 * update-partner under kubernetes.io/, the label kubernetes.io/deployment
 * by default), and the later kubectl's are read: an update a real
 * kubectl began (next-controller-id, kubectl.kubernetes.io/desired-
 * replicas) resumes, and the renamed controller carries neither. */
static void
test_seed_names(void **state)
{
	struct replication_controller *proto = mkrc("foo-" H, NULL, 3, NULL);
	struct replication_controller *old = mkrc("foo", "u-foo", 3, NULL);
	struct replication_controller *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;
	int64_t v;

	(void)state;
	assert_string_equal(RCU_LABEL_KEY_DEF, "kubernetes.io/deployment");
	assert_string_equal(ANN_RCU_DESIRED, "kubernetes.io/desired-replicas");
	assert_string_equal(ANN_RCU_PARTNER, "kubernetes.io/update-partner");
	strmap_set(&proto->spec.selector, RCU_LABEL_KEY_DEF, H);
	strmap_set(&proto->spec.template.metadata.labels, RCU_LABEL_KEY_DEF, H);
	base_in(&in, proto);
	in.label_key = RCU_LABEL_KEY_DEF;
	in.old = old;
	/* relabel-old, select-old, then create-next: read back each */
	while (plan_rcu(&in, &s), s.op == RCU_UPDATE) {
		rc_release(old);
		rc_copy(old, &s.obj);
		plan_rcu_step_release(&s);
	}
	assert_string_equal(s.name, "create-next");
	assert_string_equal(
	    strmap_get(&old->spec.selector, "kubernetes.io/deployment"), G);
	assert_string_equal(
	    strmap_get(&old->metadata.annotations, ANN_RCU_PARTNER), "foo-" H);
	assert_null(strmap_get(&old->metadata.annotations, ANN_KUBECTL_NEXT));
	assert_null(strmap_get(&old->metadata.annotations, ANN_RCU_DESIRED));
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_DESIRED), "3");
	assert_string_equal(
	    strmap_get(&s.obj.metadata.annotations, ANN_RCU_PARTNER), "foo");
	assert_null(
	    strmap_get(&s.obj.metadata.annotations, ANN_KUBECTL_DESIRED));
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(proto);

	/* a kubectl 1.17 update, killed mid-rollout, under its names */
	old = mkrc("foo", "u-foo", 2, G);
	ann(old, ANN_KUBECTL_NEXT, "foo-" H);
	ann(old, ANN_RCU_ORIGINAL, "3");
	nx = mkrc("foo-" H, "u-next", 1, H);
	ann(nx, ANN_RCU_SOURCE, "foo:u-foo");
	ann(nx, ANN_KUBECTL_DESIRED, "3");
	assert_string_equal(rcu_next_of(old), "foo-" H);
	assert_int_equal(rcu_desired(nx, &v), 0);
	assert_int_equal(v, 3);
	/* its label key is kubectl's, and the run goes on with it */
	assert_string_equal(rcu_key_in_progress(nx, RCU_LABEL_KEY_DEF),
			    "deployment");
	assert_string_equal(rcu_key_in_progress(nx, "track"), "deployment");
	strmap_set(&nx->spec.selector, "track", "v2");
	assert_string_equal(rcu_key_in_progress(nx, "track"), "track");
	strmap_del(&nx->spec.selector, "track");
	base_in(&in, NULL);
	in.old = old;
	in.next = nx;
	in.next_available = 1;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_SCALE);
	assert_string_equal(s.target, "foo-" H);
	assert_int_equal(s.to, 2);
	assert_non_null(strstr(s.summary, "from 1 to 3"));
	plan_rcu_step_release(&s);
	/* the rename's controller drops both namings */
	in.old = NULL;
	nx->metadata.deletion_timestamp = 1;
	strlist_push(&nx->metadata.finalizers, FINALIZER_RCU);
	ann(nx, ANN_RCU_PARTNER, "foo");
	plan_rcu(&in, &s);
	assert_string_equal(s.name, "create-final");
	assert_int_equal(s.obj.metadata.annotations.n, 0);
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

/* Issue 33.4: --rollback when the in-flight controller does not exist is
 * an error (the seed's "exit and indicate ... a new rollout with the old
 * version"), not "bar already replaced bar-v2"; and a controller that
 * merely has NEW's name is not rolled back. */
static void
test_rollback_without_next(void **state)
{
	struct replication_controller *bar = mkrc("bar", "u-bar", 3, NULL);
	struct replication_controller *other = mkrc("bar-v2", "u-v2", 1, H);
	struct plan_rcu_in in;
	struct plan_rcu_step s;

	(void)state;
	base_in(&in, NULL);
	in.rollback = true;
	in.rename = false;
	in.label_key = NULL;
	in.old_name = "bar-v2"; /* roles swapped: OLD is the in-flight */
	in.next_name = "bar";
	in.next = bar;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_string_equal(s.message,
			    "replicationcontrollers \"bar-v2\" not found: "
			    "nothing to roll back; you may want to simply do "
			    "a new rollout with the old version");
	plan_rcu_step_release(&s);
	/* the same state after this run's rollback deleted bar-v2 and
	 * cleaned bar: the end */
	in.acted = true;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_DONE);
	plan_rcu_step_release(&s);
	in.acted = false;
	/* bar prepared for an update to bar-v2 that was never created */
	ann(bar, ANN_RCU_PARTNER, "bar-v2");
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "nothing to roll back"));
	plan_rcu_step_release(&s);
	/* bar-v2 exists but is no part of an update of bar */
	in.old = other;
	plan_rcu(&in, &s);
	assert_int_equal(s.op, RCU_ERROR);
	assert_non_null(strstr(s.message, "\"bar-v2\" is not the next "
					  "controller of an update of "
					  "\"bar\""));
	plan_rcu_step_release(&s);
	freerc(bar);
	freerc(other);
}

/* Issue 33.5: NEXT without desired-replicas after an interrupted rollout
 * (OLD already down to 2 of 3) gets OLD's recorded original size, not
 * its current one; without the record, the current size (the seed). */
static void
test_desired_from_original(void **state)
{
	static const struct {
		const char *original; /* OLD's original-replicas, or NULL */
		int64_t desired_flag; /* in->desired (-f's count), or -1 */
		const char *want;
	} cases[] = {
	    {"3", -1, "3"},
	    {NULL, -1, "2"},
	    {"3", 5, "5"},
	    {"x", -1, "2"}, /* unreadable: as absent */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct replication_controller *old, *nx;
		struct plan_rcu_in in;
		struct plan_rcu_step s;

		pair(&old, &nx, 2, 2);
		strmap_del(&old->metadata.annotations, ANN_RCU_ORIGINAL);
		if (cases[i].original)
			ann(old, ANN_RCU_ORIGINAL, cases[i].original);
		strmap_del(&nx->metadata.annotations, ANN_RCU_DESIRED);
		base_in(&in, NULL);
		in.old = old;
		in.next = nx;
		in.desired = cases[i].desired_flag;
		plan_rcu(&in, &s);
		assert_int_equal(s.op, RCU_UPDATE);
		assert_string_equal(s.name, "annotate-next");
		if (strcmp(strmap_get(&s.obj.metadata.annotations,
				      ANN_RCU_DESIRED),
			   cases[i].want))
			fail_msg("case %zu: desired %s, want %s", i,
				 strmap_get(&s.obj.metadata.annotations,
					    ANN_RCU_DESIRED),
				 cases[i].want);
		plan_rcu_step_release(&s);
		freerc(old);
		freerc(nx);
	}
}

/* Issue 33.6: a NEXT that exists without partner annotations is a
 * partial rollout when the two fit (selectors apart, NEXT's containers
 * those asked for): OLD then NEXT are annotated and the rollout goes
 * on; otherwise a refusal that says what to do. */
static void
test_adopt_bare_next(void **state)
{
	static const struct {
		const char *next_track; /* NEXT's selector track=, or NULL */
		const char *next_image;
		enum rcu_op op;
		const char *name, *msg;
	} cases[] = {
	    {"v2", "web:2", RCU_UPDATE, "adopt-old", NULL},
	    {NULL, "web:2", RCU_ERROR, NULL,
	     "its selector (app=foo) does not keep its pods apart from "
	     "those of \"foo\" (app=foo,track=v1)"},
	    {"v2", "web:3", RCU_ERROR, NULL,
	     "its container web runs web:3, not web:2. Update to what it "
	     "runs instead, delete it, or choose another name"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct replication_controller *old, *nx, *proto;
		struct plan_rcu_in in;
		struct plan_rcu_step s;

		old = mkrc("foo", "u-foo", 2, NULL);
		strmap_set(&old->spec.selector, "track", "v1");
		nx = mkrc("foo-next", "u-next", 1, NULL);
		if (cases[i].next_track)
			strmap_set(&nx->spec.selector, "track",
				   cases[i].next_track);
		free(nx->spec.template.spec.containers.v[0].image);
		nx->spec.template.spec.containers.v[0].image =
		    xstrdup(cases[i].next_image);
		proto = mkrc("foo-next", NULL, 2, NULL);
		free(proto->spec.template.spec.containers.v[0].image);
		proto->spec.template.spec.containers.v[0].image =
		    xstrdup("web:2");
		base_in(&in, proto);
		in.next_name = "foo-next";
		in.rename = false;
		in.label_key = NULL;
		in.old = old;
		in.next = nx;
		plan_rcu(&in, &s);
		if (s.op != cases[i].op)
			fail_msg("case %zu: op %d (%s)", i, s.op, s.message);
		if (cases[i].msg && !strstr(s.message, cases[i].msg))
			fail_msg("case %zu: %s", i, s.message);
		if (cases[i].op == RCU_UPDATE) {
			assert_string_equal(s.name, cases[i].name);
			assert_string_equal(
			    strmap_get(&s.obj.metadata.annotations,
				       ANN_RCU_ORIGINAL),
			    "2");
			rc_release(old);
			rc_copy(old, &s.obj);
			plan_rcu_step_release(&s);
			/* then NEXT, pointed at OLD's uid, desired 2 */
			plan_rcu(&in, &s);
			assert_string_equal(s.name, "adopt-next");
			assert_string_equal(
			    strmap_get(&s.obj.metadata.annotations,
				       ANN_RCU_SOURCE),
			    "foo:u-foo");
			assert_string_equal(
			    strmap_get(&s.obj.metadata.annotations,
				       ANN_RCU_DESIRED),
			    "2");
			rc_release(nx);
			rc_copy(nx, &s.obj);
			plan_rcu_step_release(&s);
			/* a partner now: the rollout goes on (2 + 1 pods
			 * = desired + 1, the one new pod not available) */
			plan_rcu(&in, &s);
			assert_int_equal(s.op, RCU_WAIT);
			assert_true(plan_rcu_resumes(&in, &s));
		}
		plan_rcu_step_release(&s);
		freerc(old);
		freerc(nx);
		freerc(proto);
	}
}

/* Issue 33.7: a run that finds NEXT says so first, named or not; the
 * preview does too. */
static void
test_resume_line(void **state)
{
	struct replication_controller *old, *nx;
	struct plan_rcu_in in;
	struct plan_rcu_step s;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	pair(&old, &nx, 2, 1);
	base_in(&in, NULL);
	in.old = old;
	in.next = nx;
	in.next_available = 1;
	plan_rcu(&in, &s);
	assert_true(plan_rcu_resumes(&in, &s));
	plan_rcu_step_release(&s);
	assert_int_equal(plan_rcu_preview(&in, &sb), 0);
	assert_non_null(strstr(sb.buf, "Continuing update with existing "
				       "controller foo-" H ".\nScaling up"));
	assert_ptr_equal(strstr(sb.buf, "Continuing"), sb.buf);
	strbuf_release(&sb);
	in.next = NULL;
	plan_rcu(&in, &s);
	assert_false(plan_rcu_resumes(&in, &s));
	plan_rcu_step_release(&s);
	freerc(old);
	freerc(nx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_and_prepare),
	    cmocka_unit_test(test_rollout_table),
	    cmocka_unit_test(test_wait_for_size),
	    cmocka_unit_test(test_bounds_property),
	    cmocka_unit_test(test_rename),
	    cmocka_unit_test(test_named_end),
	    cmocka_unit_test(test_partner_checks),
	    cmocka_unit_test(test_rollback),
	    cmocka_unit_test(test_preview),
	    cmocka_unit_test(test_seed_names),
	    cmocka_unit_test(test_rollback_without_next),
	    cmocka_unit_test(test_desired_from_original),
	    cmocka_unit_test(test_adopt_bare_next),
	    cmocka_unit_test(test_resume_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
