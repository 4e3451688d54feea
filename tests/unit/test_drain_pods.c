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
 * none; mirror; phase; deleting since (seconds before now, 0: not);
 * volumes: "e" an emptyDir, "m" an emptyDir of medium Memory, one
 * volume per letter. */
struct tpod {
	const char *name, *owner;
	bool mirror;
	const char *phase;
	int64_t deleting_s;
	const char *volumes;
};

static struct pod *
mkpod(const struct tpod *t)
{
	struct pod *p = xcalloc(1, sizeof(*p));
	size_t i;

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
	for (i = 0; t->volumes && t->volumes[i]; i++) {
		struct volume *v = anylist_push(
		    (struct anylist *)&p->spec.volumes, sizeof(*v));
		char name[16];

		snprintf(name, sizeof(name), "v%zu", i);
		v->name = xstrdup(name);
		v->empty_dir = xcalloc(1, sizeof(*v->empty_dir));
		if (t->volumes[i] == 'm')
			v->empty_dir->medium = xstrdup("Memory");
	}
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
    {"a", "rs", 0, NULL, 0, NULL},      {"b", "", 0, NULL, 0, NULL},
    {"c", "ds", 0, NULL, 0, NULL},      {"d", "", 1, NULL, 0, NULL},
    {"e", "", 0, "Succeeded", 0, NULL}, {"f", "rs", 0, NULL, 120, NULL},
    {"g", "", 0, NULL, 0, NULL},
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

/* The local-storage filter (spec §10, 4): a pod with an emptyDir
 * volume, whatever its medium, is refused without
 * --delete-emptydir-data unless it has finished, and evicted with it.
 * Its warning is always replaced by the unreplicated filter's verdict,
 * as in kubectl: plain delete for a pod with a controller, "deleting
 * Pods that declare no controller" for a naked one under --force. A
 * DaemonSet or mirror pod never reaches it. */
static const struct tpod storage[] = {
    {"s1", "rs", 0, NULL, 0, "e"},        /* 0: ReplicaSet, emptyDir */
    {"s2", "rs", 0, NULL, 0, "m"},        /* 1: medium Memory */
    {"s3", "", 0, NULL, 0, "em"},         /* 2: naked, two emptyDirs */
    {"s4", "rs", 0, "Succeeded", 0, "e"}, /* 3: finished */
    {"s5", "rs", 0, NULL, 0, NULL},       /* 4: no volume */
    {"s6", "ds", 0, NULL, 0, "e"},        /* 5: DaemonSet pod */
    {"s7", "", 1, NULL, 0, "e"},          /* 6: mirror pod */
};

static void
test_local_storage(void **state)
{
	struct drain_opts o = {0};

	(void)state;
	/* kubectl drain's defaults: the emptyDir pods are refused; the
	 * naked one stops at local storage, before unreplicated */
	run(&o, false, storage, 1, "E",
	    "cannot delete Pods with local storage (use "
	    "--delete-emptydir-data to override): default/s1",
	    "");
	run(&o, false, storage, 5, "EEEDD",
	    "cannot delete Pods with local storage (use "
	    "--delete-emptydir-data to override): default/s1, default/s2, "
	    "default/s3",
	    "");
	/* --delete-emptydir-data: evicted; the naked pod now fails on its
	 * controller instead */
	o.delete_emptydir = true;
	run(&o, false, storage, 5, "DDEDD",
	    "cannot delete Pods declare no controller (use --force to "
	    "override): default/s3",
	    "");
	/* and --force: the naked one goes with the unreplicated warning
	 * (the local-storage one is lost, as kubectl loses it) */
	o.force = true;
	run(&o, false, storage, 5, "DDDDD", "",
	    "deleting Pods that declare no controller: default/s3");
	/* --force without --delete-emptydir-data does not override it */
	o.delete_emptydir = false;
	run(&o, false, storage + 2, 1, "E",
	    "cannot delete Pods with local storage (use "
	    "--delete-emptydir-data to override): default/s3",
	    "");
	/* DaemonSet and mirror pods are decided before local storage */
	o.ignore_daemonsets = true;
	run(&o, true, storage + 5, 2, "SS", "",
	    "ignoring DaemonSet-managed Pods: default/s6");
	o.ignore_daemonsets = false;
	run(&o, true, storage + 5, 1, "E",
	    "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to "
	    "ignore): default/s6",
	    "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_kops_flags),
	    cmocka_unit_test(test_local_storage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
