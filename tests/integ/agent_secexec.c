/* agent_secexec.c - what a container's process runs as: the container's
 * securityContext over the pod's, the default user, runAsNonRoot with the
 * kubelet's messages, capability sets (containerd's rule, within what
 * this test process holds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "secexec.h"
#include "xalloc.h"

#define NET_BIND_SERVICE ((uint64_t)1 << 10)
#define NET_RAW          ((uint64_t)1 << 13)
#define SYS_ADMIN        ((uint64_t)1 << 21)
/* containerd's default list, as bits: CHOWN 0, DAC_OVERRIDE 1, FOWNER 3,
 * FSETID 4, KILL 5, SETGID 6, SETUID 7, SETPCAP 8, NET_BIND_SERVICE 10,
 * NET_RAW 13, SYS_CHROOT 18, MKNOD 27, AUDIT_WRITE 29, SETFCAP 31 */
#define DEFAULT_CAPS ((uint64_t)0xa80425fb)

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
	char err[256];

	(void)state;
	init(&p, &c);
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.p.uid, (long long)geteuid());
	assert_false(s.p.ids || s.p.no_new_privs);
	/* a daemon with capabilities still narrows them to the default */
	assert_true(s.any == s.p.caps);
	assert_true(s.p.caps == (geteuid() == 0));
}

static void
test_container_overrides_pod(void **state)
{
	struct pod p;
	struct container c;
	struct pod_security_context ps = {0};
	struct security_context cs = {0};
	struct secspec s;
	char err[256];

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
	assert_true(s.any && s.p.ids && s.p.no_new_privs);
	assert_int_equal(s.p.uid, 4242);
	assert_int_equal(s.p.gid, 1000); /* the pod's runAsGroup */
	assert_int_equal(s.p.ngroups, 2);
	assert_int_equal(s.p.groups[0], 1000);
	assert_int_equal(s.p.groups[1], 2001);
	/* another user than root holds no capability */
	assert_true(s.p.permitted == 0);
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
	assert_true(s.p.ids);
	assert_int_equal(s.p.uid, 65534);
	assert_int_equal(s.p.gid, 65534);
	assert_true(s.p.permitted == 0);
	/* a pod that names a user is not the default's */
	cs.run_as_user = i64(0);
	c.security_context = &cs;
	assert_int_equal(secspec_resolve(&p, &c, &d, &s, err, sizeof(err)), 0);
	assert_int_equal(s.p.uid, 0);
	assert_int_equal(s.p.gid, 0);
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

/* What this process holds: the most a process it starts can get. */
static uint64_t
held_permitted(void)
{
	cap_t c = cap_get_proc();
	uint64_t m = 0;
	int i;

	for (i = 0; i < 64 && i <= (int)CAP_LAST_CAP; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(c, (cap_value_t)i, CAP_PERMITTED, &v) == 0 &&
		    v == CAP_SET)
			m |= (uint64_t)1 << i;
	}
	cap_free(c);
	return m;
}

/* One row of the capability table: what a container asks and the sets
 * its process gets, as runAsUser 0 and as 65534. */
struct caps_case {
	const char *add[3];
	const char *drop[3];
	bool privileged;
	uint64_t bounding; /* before the daemon's own limit */
};

static void
one_case(const struct caps_case *k, long long uid)
{
	struct pod p;
	struct container c;
	struct security_context cs = {0};
	struct capabilities caps = {0};
	struct secspec s;
	uint64_t have = held_permitted();
	char err[256];
	size_t i;

	init(&p, &c);
	c.security_context = &cs;
	cs.run_as_user = i64(uid);
	if (k->privileged)
		cs.privileged = yes(true);
	for (i = 0; i < 3 && k->add[i]; i++)
		strlist_push(&caps.add, k->add[i]);
	for (i = 0; i < 3 && k->drop[i]; i++)
		strlist_push(&caps.drop, k->drop[i]);
	if (caps.add.n || caps.drop.n)
		cs.capabilities = &caps;
	assert_int_equal(secspec_resolve(&p, &c, &none, &s, err, sizeof(err)),
			 0);
	if (have == 0) { /* nothing to give: nothing applied */
		assert_false(s.p.caps);
	} else {
		assert_true(s.any && s.p.caps);
		assert_true(s.p.bounding == (k->bounding & have));
		assert_true(s.p.permitted ==
			    (uid == 0 ? k->bounding & have : 0));
	}
	strlist_release(&caps.add);
	strlist_release(&caps.drop);
}

static void
test_capabilities(void **state)
{
	uint64_t all = cap_max_bits() >= 64
			   ? ~(uint64_t)0
			   : ((uint64_t)1 << cap_max_bits()) - 1;
	const struct caps_case cases[] = {
	    {{0}, {0}, false, DEFAULT_CAPS},
	    {{"NET_BIND_SERVICE"}, {0}, false, DEFAULT_CAPS},
	    {{"SYS_ADMIN"}, {0}, false, DEFAULT_CAPS | SYS_ADMIN},
	    {{0}, {"NET_RAW"}, false, DEFAULT_CAPS & ~NET_RAW},
	    {{0}, {"CAP_NET_RAW"}, false, DEFAULT_CAPS & ~NET_RAW},
	    {{"NET_BIND_SERVICE"}, {"ALL"}, false, NET_BIND_SERVICE},
	    {{0}, {"ALL"}, false, 0},
	    {{"ALL"}, {0}, false, all},
	    {{"ALL"}, {"NET_RAW"}, false, all & ~NET_RAW},
	    /* drop wins over add, ALL or not */
	    {{"ALL"}, {"ALL"}, false, 0},
	    {{"NET_RAW"}, {"NET_RAW"}, false, DEFAULT_CAPS & ~NET_RAW},
	    {{0}, {0}, true, all},
	    {{0}, {"ALL"}, true, all}, /* privileged: every one */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		one_case(&cases[i], 0);
		one_case(&cases[i], 65534);
	}
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
