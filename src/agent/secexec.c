/* secexec.c - the security settings of a container's process, resolved
 * from its pod and container (see secexec.h). */
#define _GNU_SOURCE /* getgrouplist */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "proc.h"
#include "secexec.h"
#include "validate.h"

static void
add_group(struct proc_sec *s, long long g)
{
	size_t i;

	for (i = 0; i < s->ngroups; i++)
		if (s->groups[i] == (gid_t)g)
			return;
	if (s->ngroups < PROC_MAX_GROUPS)
		s->groups[s->ngroups++] = (gid_t)g;
}

#define BIT(n) ((uint64_t)1 << (n))

/* containerd's defaultUnixCaps: what a container gets when it asks for
 * nothing. */
static const uint64_t default_caps =
    BIT(CAP_CHOWN) | BIT(CAP_DAC_OVERRIDE) | BIT(CAP_FSETID) | BIT(CAP_FOWNER) |
    BIT(CAP_MKNOD) | BIT(CAP_NET_RAW) | BIT(CAP_SETGID) | BIT(CAP_SETUID) |
    BIT(CAP_SETFCAP) | BIT(CAP_SETPCAP) | BIT(CAP_NET_BIND_SERVICE) |
    BIT(CAP_SYS_CHROOT) | BIT(CAP_KILL) | BIT(CAP_AUDIT_WRITE);

/* Every capability this kernel knows. */
static uint64_t
caps_all(void)
{
	int n = (int)cap_max_bits();

	return n >= 64 ? ~(uint64_t)0 : (BIT(n) - 1);
}

/* What the daemon holds, so what it can give. */
struct held {
	uint64_t permitted, bounding;
	bool any;     /* anything in a set a child could inherit */
	bool setpcap; /* it may narrow the bounding set */
};

static uint64_t
cap_mask(cap_t c, cap_flag_t flag)
{
	uint64_t m = 0;
	int i, n = (int)cap_max_bits();

	for (i = 0; c && i < n && i < 64; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(c, (cap_value_t)i, flag, &v) == 0 &&
		    v == CAP_SET)
			m |= BIT(i);
	}
	return m;
}

/* Read once: a process's capabilities do not change under it, and a
 * read is some 80 system calls, at every start and exec probe
 * otherwise. The loop thread is the only caller. */
static struct held
held(void)
{
	static struct held h;
	static bool known;
	cap_t c;
	int i, n = (int)cap_max_bits();

	if (known)
		return h;
	known = true;
	c = cap_get_proc();
	h.permitted = cap_mask(c, CAP_PERMITTED);
	h.setpcap = cap_mask(c, CAP_EFFECTIVE) & BIT(CAP_SETPCAP);
	h.any = h.permitted || cap_mask(c, CAP_INHERITABLE);
	cap_free(c);
	for (i = 0; i < n && i < 64; i++) {
		if (cap_get_bound((cap_value_t)i) == 1)
			h.bounding |= BIT(i);
		if (cap_get_ambient((cap_value_t)i) == 1)
			h.any = true;
	}
	return h;
}

static bool
has_all(const struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (validate_capability(l->v[i]) == CAPABILITY_ALL)
			return true;
	return false;
}

static uint64_t
caps_each(uint64_t m, const struct strlist *l, bool add)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		int v = validate_capability(l->v[i]);

		if (v >= 0 && v < 64)
			m = add ? m | BIT(v) : m & ~BIT(v);
	}
	return m;
}

/* The set S of secexec.h, in containerd's order (WithCapabilities): add
 * ALL, drop ALL, then each add, then each drop. */
static uint64_t
caps_of(const struct security_context *cs)
{
	const struct capabilities *k = cs ? cs->capabilities : NULL;
	uint64_t m = default_caps;

	if (cs && cs->privileged.set && cs->privileged.v)
		return caps_all();
	if (k == NULL)
		return m;
	if (has_all(&k->add))
		m = caps_all();
	if (has_all(&k->drop))
		m = 0;
	m = caps_each(m, &k->add, true);
	m = caps_each(m, &k->drop, false);
	return m & caps_all();
}

/* The capability sets of a process that runs as uid. */
static void
resolve_caps(const struct security_context *cs, long long uid,
	     struct proc_sec *out)
{
	struct held h = held();
	uint64_t s;

	if (!h.any && !h.setpcap)
		return; /* the daemon has nothing to give or to take */
	s = caps_of(cs) & h.bounding;
	out->caps = true;
	out->bounding_set = h.setpcap;
	out->bounding = s;
	out->permitted = uid == 0 ? s & h.permitted : 0;
}

int
secspec_resolve(const struct pod *p, const struct container *c,
		const struct secdefaults *d, struct secspec *out, char *err,
		size_t errlen)
{
	const struct pod_security_context *ps = p->spec.security_context;
	const struct security_context *cs = c->security_context;
	struct opt_int user = {0}, group = {0};
	struct opt_bool nonroot = {0};
	struct proc_sec *o = &out->p;
	const struct passwd *pw;
	uint64_t cur, max;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (ps) {
		user = ps->run_as_user;
		group = ps->run_as_group;
		nonroot = ps->run_as_non_root;
	}
	if (cs && cs->run_as_user.set)
		user = cs->run_as_user;
	if (cs && cs->run_as_group.set)
		group = cs->run_as_group;
	if (cs && cs->run_as_non_root.set)
		nonroot = cs->run_as_non_root;
	/* The user: runAsUser, else the daemon's default user, else the
	 * daemon's own (what "the image" runs as, for a process). */
	o->uid = user.set      ? user.v
		 : d->uid >= 0 ? d->uid
			       : (long long)geteuid();
	pw = getpwuid((uid_t)o->uid);
	/* Its group: runAsGroup, else its passwd entry's (the runtimes read
	 * the image's /etc/passwd), else 0 as in Kubernetes. */
	o->gid = group.set     ? group.v
		 : user.set    ? (pw ? (long long)pw->pw_gid : 0)
		 : d->uid >= 0 ? d->gid
			       : (long long)getegid();
	if (nonroot.set && nonroot.v && o->uid == 0) {
		if (user.set)
			snprintf(err, errlen,
				 "container's runAsUser breaks non-root policy "
				 "(pod: \"%s_%s(%s)\", container: %s)",
				 p->metadata.name, p->metadata.namespace,
				 p->metadata.uid, c->name);
		else
			snprintf(
			    err, errlen,
			    "container has runAsNonRoot and image will run "
			    "as root (pod: \"%s_%s(%s)\", container: %s)",
			    p->metadata.name, p->metadata.namespace,
			    p->metadata.uid, c->name);
		return -1;
	}
	o->ids = user.set || group.set || d->uid >= 0 ||
		 (ps && (ps->supplemental_groups.n || ps->fs_group.set));
	/* A daemon that is not root can only run processes as itself. */
	if (o->ids && geteuid() != 0 && o->uid == (long long)geteuid() &&
	    o->gid == (long long)getegid() &&
	    !(ps && (ps->supplemental_groups.n || ps->fs_group.set)))
		o->ids = false;
	if (o->ids) {
		add_group(o, o->gid);
		if (pw) {
			gid_t g[PROC_MAX_GROUPS];
			int n = PROC_MAX_GROUPS;

			if (getgrouplist(pw->pw_name, (gid_t)o->gid, g, &n) >=
			    0)
				for (i = 0; i < (size_t)n; i++)
					add_group(o, g[i]);
		}
		for (i = 0; ps && i < ps->supplemental_groups.n; i++)
			add_group(o, ps->supplemental_groups.v[i]);
		if (ps && ps->fs_group.set)
			add_group(o, ps->fs_group.v);
	}
	resolve_caps(cs, o->uid, o);
	if (proc_nofile_initial(&cur, &max)) {
		o->nofile = true;
		o->nofile_cur = cur;
		o->nofile_max = max;
	}
	o->no_new_privs = cs && cs->allow_privilege_escalation.set &&
			  !cs->allow_privilege_escalation.v;
	out->any = o->ids || o->caps || o->no_new_privs || o->nofile;
	return 0;
}
