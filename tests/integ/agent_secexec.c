/* agent_secexec.c - what a container's process runs as: the container's
 * securityContext over the pod's, the default user, runAsNonRoot with the
 * kubelet's messages, capability sets, and the helper's spec text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secexec.h"
#include "xalloc.h"

#define NET_BIND_SERVICE ((uint64_t)1 << 10)
#define NET_RAW          ((uint64_t)1 << 13)

static const struct secdefaults none = {-1, -1};

static void
init(struct pod *p, struct container *c)
{
	memset(p, 0, sizeof(*p));
	memset(c, 0, sizeof(*c));
	p->metadata.name = "web-1";
	p->metadata.namespace = "default";
	p->metadata.uid = "u-1";
	c->name = "app";
}

static struct opt_int
i64(int64_t v)
{
	return (struct opt_int){v, true};
}

static struct opt_bool
yes(bool v)
{
	return (struct opt_bool){v, true};
}

static void
test_nothing_asked_nothing_applied(void **state)
{
	struct pod p;
	struct container c;
	struct secspec s;
	char err[256], spec[256];

	(void)state;
	init(&p, &c);
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	assert_false(s.any);
	assert_int_equal(s.uid, (long long)geteuid());
	secspec_encode(&s, spec, sizeof(spec));
	assert_string_equal(spec, "");
}

static void
test_container_overrides_pod(void **state)
{
	struct pod p;
	struct container c;
	struct pod_security_context ps = {0};
	struct security_context cs = {0};
	struct secspec s;
	char err[256], spec[256];

	(void)state;
	init(&p, &c);
	ps.run_as_user = i64(1000);
	ps.run_as_group = i64(1000);
	intlist_push(&ps.supplemental_groups, 2001);
	cs.run_as_user = i64(4242);
	cs.allow_privilege_escalation = yes(false);
	p.spec.security_context = &ps;
	c.security_context = &cs;
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	assert_true(s.any && s.identity && s.no_new_privs);
	assert_int_equal(s.uid, 4242);
	assert_int_equal(s.gid, 1000); /* the pod's runAsGroup */
	assert_int_equal(s.ngroups, 2);
	assert_int_equal(s.groups[0], 1000);
	assert_int_equal(s.groups[1], 2001);
	assert_false(s.caps_set);
	secspec_encode(&s, spec, sizeof(spec));
	assert_string_equal(spec, "u=4242;g=1000;G=1000,2001;n;");
	free(ps.supplemental_groups.v);
}

static void
test_default_user(void **state)
{
	struct pod p;
	struct container c;
	struct security_context cs = {0};
	struct secdefaults d = {65534, 65534};
	struct secspec s;
	char err[256];

	(void)state;
	init(&p, &c);
	assert_int_equal(secspec_resolve(&p, &c, &d, &s, err, sizeof(err)), 0);
	assert_true(s.identity);
	assert_int_equal(s.uid, 65534);
	assert_int_equal(s.gid, 65534);
	/* a pod that names a user is not the default's */
	cs.run_as_user = i64(0);
	c.security_context = &cs;
	assert_int_equal(secspec_resolve(&p, &c, &d, &s, err, sizeof(err)), 0);
	assert_int_equal(s.uid, 0);
	assert_int_equal(s.gid, 0);
}

static void
test_run_as_non_root(void **state)
{
	struct pod p;
	struct container c;
	struct security_context cs = {0};
	struct secdefaults root = {0, 0}, nobody = {65534, 65534};
	struct secspec s;
	char err[256];

	(void)state;
	init(&p, &c);
	cs.run_as_non_root = yes(true);
	c.security_context = &cs;
	assert_int_equal(secspec_resolve(&p, &c, &root, &s, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "container has runAsNonRoot and image will "
				 "run as root (pod: \"web-1_default(u-1)\", "
				 "container: app)");
	cs.run_as_user = i64(0);
	assert_int_equal(secspec_resolve(&p, &c, &nobody, &s, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "container's runAsUser breaks non-root "
				 "policy (pod: \"web-1_default(u-1)\", "
				 "container: app)");
	cs.run_as_user = i64(1);
	assert_int_equal(secspec_resolve(&p, &c, &root, &s, err, sizeof(err)),
			 0);
	assert_int_equal(secspec_resolve(&p, &c, &nobody, &s, err, sizeof(err)),
			 0);
}

static void
test_capabilities(void **state)
{
	struct pod p;
	struct container c;
	struct security_context cs = {0};
	struct capabilities caps = {0};
	struct secspec s, base;
	char err[256], spec[256];

	(void)state;
	init(&p, &c);
	c.security_context = &cs;
	cs.privileged = yes(true);
	assert_int_equal(
	    secspec_resolve(&p, &c, &none, &base, err, sizeof(err)), 0);
	assert_true(base.caps_set); /* every capability the daemon has */
	cs.privileged = (struct opt_bool){0};
	cs.capabilities = &caps;
	strlist_push(&caps.drop, "ALL");
	strlist_push(&caps.add, "NET_BIND_SERVICE");
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	assert_true(s.any && s.caps_set && !s.identity);
	assert_true(s.caps == (NET_BIND_SERVICE & base.caps));
	secspec_encode(&s, spec, sizeof(spec));
	assert_string_equal(spec,
			    (base.caps & NET_BIND_SERVICE) ? "c=400;" : "c=0;");
	strlist_release(&caps.drop);
	strlist_release(&caps.add);
	strlist_push(&caps.drop, "CAP_NET_RAW"); /* the runtimes' spelling */
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	assert_true(s.caps == (base.caps & ~NET_RAW));
	strlist_release(&caps.drop);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nothing_asked_nothing_applied),
	    cmocka_unit_test(test_container_overrides_pod),
	    cmocka_unit_test(test_default_user),
	    cmocka_unit_test(test_run_as_non_root),
	    cmocka_unit_test(test_capabilities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
