/* test_drain_pods.c - kubectl drain's pod filters (drain_pods.c), from
 * spec §10: each pod's verdict, and the grouped error and warning texts
 * kubectl prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "drain_pods.h"
#include "fixture.h"
#include "xalloc.h"

/* owner: "rs" a ReplicaSet, "ds" a DaemonSet (its name "ds-NAME"), ""
 * none; mirror; phase; deleting since (seconds before now, 0: not). */
struct tpod {
	const char *name, *owner;
	bool mirror;
	const char *phase;
	int64_t deleting_s;
};

static struct pod *
mkpod(const struct tpod *t)
{
	struct pod *p = xcalloc(1, sizeof(*p));

	p->metadata.name = xstrdup(t->name);
	p->metadata.namespace = xstrdup("default");
	p->status.phase = xstrdup(t->phase ? t->phase : "Running");
	if (*t->owner) {
		struct owner_ref *r = anylist_push(
		    (struct anylist *)&p->metadata.owner_references,
		    sizeof(*r));

		r->kind = xstrdup(!strcmp(t->owner, "ds") ? "DaemonSet"
							  : "ReplicaSet");
		r->api_version = xstrdup("apps/v1");
		r->name = xstrdup(!strcmp(t->owner, "ds") ? "agentd" : "web");
		r->uid = xstrdup("u");
		r->controller.set = r->controller.v = true;
	}
	if (t->mirror)
		strmap_set(&p->metadata.annotations,
			   "kubernetes.io/config.mirror", "x");
	if (t->deleting_s)
		p->metadata.deletion_timestamp = T0 - t->deleting_s * 1000;
	return p;
}

static bool
ds_known(void *arg, const char *ns, const char *name)
{
	(void)ns;
	(void)name;
	return *(bool *)arg;
}

static void
run(const struct drain_opts *o, bool ds_exists, const struct tpod *tp, size_t n,
    const char *want_verdicts, const char *want_errors,
    const char *want_warnings)
{
	struct pod *pods[8];
	struct drain_pods out;
	struct strbuf v = STRBUF_INIT, e = STRBUF_INIT, w = STRBUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		pods[i] = mkpod(&tp[i]);
	drain_pods_filter(o, pods, n, T0, ds_known, &ds_exists, &out);
	for (i = 0; i < n; i++)
		strbuf_addch(&v, "DSE"[out.v[i].verdict]);
	drain_pods_errors(&out, &e, NULL);
	drain_pods_warnings(&out, &w);
	assert_string_equal(v.buf, want_verdicts);
	assert_string_equal(e.buf ? e.buf : "", want_errors);
	assert_string_equal(w.buf ? w.buf : "", want_warnings);
	drain_pods_release(&out);
	for (i = 0; i < n; i++) {
		pod_release(pods[i]);
		free(pods[i]);
	}
	strbuf_release(&v);
	strbuf_release(&e);
	strbuf_release(&w);
}

static const struct tpod world[] = {
    {"a", "rs", 0, NULL, 0},      {"b", "", 0, NULL, 0},
    {"c", "ds", 0, NULL, 0},      {"d", "", 1, NULL, 0},
    {"e", "", 0, "Succeeded", 0}, {"f", "rs", 0, NULL, 120},
    {"g", "", 0, NULL, 0},
};

static void
test_defaults(void **state)
{
	struct drain_opts o = {0};

	(void)state;
	/* no --force: the naked pods and the orphaned DaemonSet pod fail */
	run(&o, false, world, 7, "DEESDDE",
	    "cannot delete Pods declare no controller (use --force to "
	    "override): default/b, default/g, cannot delete daemonsets.apps "
	    "\"agentd\" not found: default/c",
	    "");
	/* the DaemonSet exists: it must be ignored explicitly */
	run(&o, true, world + 2, 1, "E",
	    "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to "
	    "ignore): default/c",
	    "");
}

static void
test_kops_flags(void **state)
{
	struct drain_opts o = {
	    .force = true, .ignore_daemonsets = true, .delete_emptydir = true};

	(void)state;
	/* --force: naked pods go with a warning; an orphaned DaemonSet pod
	 * goes without one (a later filter said plain delete) */
	run(&o, false, world, 7, "DDDSDDD", "",
	    "deleting Pods that declare no controller: default/b, default/g");
	run(&o, true, world + 2, 1, "S", "",
	    "ignoring DaemonSet-managed Pods: default/c");
	/* deleting for longer than the skip timeout: skipped */
	o.skip_wait_s = 60;
	run(&o, false, world + 5, 1, "S", "", "");
	o.skip_wait_s = 600;
	run(&o, false, world + 5, 1, "D", "", "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_kops_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
