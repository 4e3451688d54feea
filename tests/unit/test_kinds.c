/* test_kinds.c - the kind registry is consistent: every entry is found
 * by its id, its resource and its apiVersion/kind; its names are unique;
 * its subresources have what they need (a status field, spec.replicas);
 * field selector labels; and the merge keys of the schemas are the ones
 * Kubernetes declares; a Pod update may change only its containers'
 * image, command and args. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "inplace_check.h"
#include "kinds.h"
#include "xalloc.h"

static void
test_every_kind_is_found_by_each_of_its_keys(void **state)
{
	const struct kind_info *k;
	size_t n, i;
	char gv[128];

	(void)state;
	k = kinds_all(&n);
	assert_true(n >= 4);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(kind_by_id(k[i].id), &k[i]);
		assert_ptr_equal(
		    kind_by_resource(k[i].group, k[i].version, k[i].plural),
		    &k[i]);
		assert_ptr_equal(kind_lookup(k[i].api_version, k[i].kind),
				 &k[i]);
		snprintf(gv, sizeof(gv), "%s%s%s", k[i].group,
			 *k[i].group ? "/" : "", k[i].version);
		assert_string_equal(gv, k[i].api_version);
		assert_non_null(kind_by_id(k[i].id)->schema);
		assert_non_null(k[i].defaults);
		assert_non_null(k[i].validate);
	}
	assert_null(kind_by_resource("apps", "v1", "pods"));
	assert_null(kind_lookup("v1", "Deployment"));
}

static void
test_names_are_unique(void **state)
{
	const struct kind_info *k;
	size_t n, i, j, a, b;

	(void)state;
	k = kinds_all(&n);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			assert_string_not_equal(k[i].plural, k[j].plural);
			assert_string_not_equal(k[i].kind, k[j].kind);
			for (a = 0;
			     a < KIND_MAX_SHORT_NAMES && k[i].short_names[a];
			     a++)
				for (b = 0; b < KIND_MAX_SHORT_NAMES &&
					    k[j].short_names[b];
				     b++)
					assert_string_not_equal(
					    k[i].short_names[a],
					    k[j].short_names[b]);
		}
}

static void
test_subresources_have_what_they_serve(void **state)
{
	const struct kind_info *k;
	size_t n, i;

	(void)state;
	k = kinds_all(&n);
	for (i = 0; i < n; i++) {
		if (k[i].subresources & KIND_SUB_STATUS) {
			assert_non_null(kind_status_field(&k[i]));
			assert_non_null(kind_status_schema(&k[i]));
		}
		/* /scale reads and writes spec.replicas */
		assert_int_equal(!!(k[i].subresources & KIND_SUB_SCALE),
				 k[i].replicas != NULL);
	}
	k = kind_by_id(KIND_DEPLOYMENT);
	{
		struct deployment d = {0};

		assert_ptr_equal(k->replicas(&d), &d.spec.replicas);
		assert_ptr_equal(kind_status(k, &d), &d.status);
		assert_true(k->rules & KIND_GEN_ANNOTATIONS);
	}
	k = kind_by_id(KIND_POD);
	assert_true(k->subresources & KIND_SUB_LOG);
	assert_true(k->subresources & KIND_SUB_BINDING);
	assert_false(kind_by_id(KIND_NODE)->namespaced);
	assert_true(kind_by_id(KIND_NODE)->rules & KIND_CREATE_WITH_STATUS);
	/* Services: a status of Kubernetes' shape (loadBalancer {}, no
	 * load balancer is made) behind services/NAME/status */
	k = kind_by_resource("", "v1", "services");
	assert_non_null(k);
	assert_int_equal(k->id, KIND_SERVICE);
	assert_string_equal(k->short_names[0], "svc");
	assert_true(k->namespaced);
	assert_int_equal(k->subresources, KIND_SUB_STATUS);
	assert_non_null(kind_status_field(k));
	{
		struct service svc = {0};

		assert_ptr_equal(kind_status(k, &svc), &svc.status);
	}
	k = kind_lookup("discovery.k8s.io/v1", "EndpointSlice");
	assert_non_null(k);
	assert_string_equal(k->plural, "endpointslices");
	assert_null(k->short_names[0]);
	assert_ptr_equal(
	    kind_by_resource("discovery.k8s.io", "v1", "endpointslices"), k);
	k = kind_by_id(KIND_ENDPOINTS);
	assert_string_equal(k->short_names[0], "ep");
	assert_string_equal(k->singular, "endpoints");
}

static void
test_field_labels(void **state)
{
	(void)state;
	assert_true(kind_field_label(kind_by_id(KIND_POD), "spec.nodeName"));
	assert_true(
	    kind_field_label(kind_by_id(KIND_DEPLOYMENT), "metadata.name"));
	assert_false(
	    kind_field_label(kind_by_id(KIND_DEPLOYMENT), "spec.nodeName"));
	assert_true(
	    kind_field_label(kind_by_id(KIND_REPLICASET), "status.replicas"));
	assert_true(
	    kind_field_label(kind_by_id(KIND_NODE), "spec.unschedulable"));
	assert_false(kind_field_label(kind_by_id(KIND_NODE), "status.phase"));
	assert_true(kind_field_label(kind_by_id(KIND_SERVICE), "spec.type"));
}

static void
test_pod_grace_period(void **state)
{
	const struct kind_info *k = kind_by_id(KIND_POD);
	struct pod p = {0};
	char node[] = "n1";
	int64_t g = -7;

	(void)state;
	assert_false(k->grace_period(&p, -1, &g)); /* no node: at once */
	p.spec.node_name = node;
	assert_true(k->grace_period(&p, -1, &g));
	assert_int_equal(g, 30);
	p.spec.termination_grace_period_seconds.set = true;
	p.spec.termination_grace_period_seconds.v = 5;
	assert_true(k->grace_period(&p, -1, &g));
	assert_int_equal(g, 5);
	assert_true(k->grace_period(&p, 2, &g));
	assert_int_equal(g, 2);
	assert_null(kind_by_id(KIND_DEPLOYMENT)->grace_period);
}

/* The merge key of the list at path (members separated by '.', each a
 * struct, pointer or list level) under kind k's schema. */
static const char *
merge_key(enum kind_id id, const char *path)
{
	const struct schema *s = kind_by_id(id)->schema;
	const struct field *f = NULL;
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok;
	     tok = strtok_r(NULL, ".", &save)) {
		assert_non_null(s);
		f = schema_field(s, tok);
		assert_non_null(f);
		s = f->sub;
	}
	return f->merge_key;
}

static void
test_merge_keys_are_kubernetes(void **state)
{
	(void)state;
	assert_string_equal(
	    merge_key(KIND_DEPLOYMENT, "spec.template.spec.containers"),
	    "name");
	assert_string_equal(merge_key(KIND_POD, "spec.containers.ports"),
			    "containerPort");
	assert_string_equal(merge_key(KIND_POD, "spec.containers.env"), "name");
	assert_string_equal(merge_key(KIND_POD, "spec.volumes"), "name");
	assert_string_equal(merge_key(KIND_DEPLOYMENT,
				      "spec.template.spec.containers."
				      "volumeMounts"),
			    "mountPath");
	assert_string_equal(merge_key(KIND_POD, "status.conditions"), "type");
	assert_string_equal(merge_key(KIND_POD, "metadata.ownerReferences"),
			    "uid");
	assert_string_equal(merge_key(KIND_NODE, "status.addresses"), "type");
	assert_null(merge_key(KIND_POD, "spec.tolerations"));
	assert_null(
	    merge_key(KIND_DEPLOYMENT, "spec.selector.matchExpressions"));
}

/* The Pod's admission on UPDATE (ValidatePodUpdate, drover's list):
 * image, command, args and metadata may change; env, nodeName or a
 * container added are Forbidden on their path. */
static void
test_pod_update_rule(void **state)
{
	const struct kind_info *k = kind_by_id(KIND_POD);
	struct pod old = {0}, nw;
	struct container *c;
	struct env_var *e;
	struct fielderr_list errs = {0};

	(void)state;
	old.spec.node_name = xstrdup("n1");
	c = anylist_push((struct anylist *)&old.spec.containers, sizeof(*c));
	c->name = xstrdup("web");
	c->image = xstrdup("web:1");
	strlist_push(&c->command, "bin/web");
	k->admit(NULL, &old, &errs); /* a create: nothing to compare */
	assert_int_equal(errs.n, 0);

	pod_copy(&nw, &old);
	c = &nw.spec.containers.v[0];
	free(c->image);
	c->image = xstrdup("web:2");
	strlist_push(&c->command, "--fast");
	strlist_push(&c->args, "--version-string");
	strmap_set(&nw.metadata.labels, "track", "canary");
	k->admit(&old, &nw, &errs);
	assert_int_equal(errs.n, 0);

	e = anylist_push((struct anylist *)&c->env, sizeof(*e));
	e->name = xstrdup("VERSION");
	e->value = xstrdup("v2");
	k->admit(&old, &nw, &errs);
	assert_int_equal(errs.n, 1);
	assert_int_equal(errs.v[0].type, FE_FORBIDDEN);
	assert_string_equal(errs.v[0].field, "spec.containers[0].env");
	assert_string_equal(errs.v[0].detail, MSG_POD_UPDATE);
	fielderr_list_release(&errs);
	pod_release(&nw);

	pod_copy(&nw, &old);
	free(nw.spec.node_name);
	nw.spec.node_name = xstrdup("n2");
	k->admit(&old, &nw, &errs);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.v[0].field, "spec.nodeName");
	fielderr_list_release(&errs);
	pod_release(&nw);

	pod_copy(&nw, &old);
	c = anylist_push((struct anylist *)&nw.spec.containers, sizeof(*c));
	c->name = xstrdup("sidecar");
	k->admit(&old, &nw, &errs);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.v[0].field, "spec.containers");
	fielderr_list_release(&errs);
	pod_release(&nw);
	pod_release(&old);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_kind_is_found_by_each_of_its_keys),
	    cmocka_unit_test(test_names_are_unique),
	    cmocka_unit_test(test_subresources_have_what_they_serve),
	    cmocka_unit_test(test_field_labels),
	    cmocka_unit_test(test_pod_grace_period),
	    cmocka_unit_test(test_merge_keys_are_kubernetes),
	    cmocka_unit_test(test_pod_update_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
