/* secexec.c - the security settings of a container's process: resolving
 * them from the pod, and the exec helper that applies them (see
 * secexec.h). */
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

extern char **environ;

static void
add_group(struct secspec *s, long long g)
{
	size_t i;

	for (i = 0; i < s->ngroups; i++)
		if (s->groups[i] == (gid_t)g)
			return;
	if (s->ngroups < SECSPEC_MAX_GROUPS)
		s->groups[s->ngroups++] = (gid_t)g;
}

/* Every capability this kernel knows. */
static uint64_t
caps_all(void)
{
	int n = (int)cap_max_bits();

	return n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
}

/* What the daemon holds, so what it can give: every capability of root,
 * none for another user. */
static uint64_t
caps_permitted(void)
{
	cap_t c = cap_get_proc();
	uint64_t m = 0;
	int i, n = (int)cap_max_bits();

	for (i = 0; c && i < n && i < 64; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(c, (cap_value_t)i, CAP_PERMITTED, &v) == 0 &&
		    v == CAP_SET)
			m |= (uint64_t)1 << i;
	}
	cap_free(c);
	return m;
}

static bool
have_effective(cap_value_t cap)
{
	cap_t c = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (c)
		cap_get_flag(c, cap, CAP_EFFECTIVE, &v);
	cap_free(c);
	return v == CAP_SET;
}

static uint64_t
caps_apply(uint64_t m, const struct strlist *l, bool add)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		int v = validate_capability(l->v[i]);

		if (v == CAPABILITY_ALL)
			m = add ? caps_permitted() : 0;
		else if (v >= 0 && v < 64)
			m = add ? m | ((uint64_t)1 << v)
				: m & ~((uint64_t)1 << v);
	}
	return m & caps_all();
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
	const struct passwd *pw;
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
	out->uid = user.set      ? user.v
		   : d->uid >= 0 ? d->uid
				 : (long long)geteuid();
	pw = getpwuid((uid_t)out->uid);
	/* Its group: runAsGroup, else its passwd entry's (the runtimes read
	 * the image's /etc/passwd), else 0 as in Kubernetes. */
	out->gid = group.set     ? group.v
		   : user.set    ? (pw ? (long long)pw->pw_gid : 0)
		   : d->uid >= 0 ? d->gid
				 : (long long)getegid();
	if (nonroot.set && nonroot.v && out->uid == 0) {
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
	out->identity = user.set || group.set || d->uid >= 0 ||
			(ps && (ps->supplemental_groups.n || ps->fs_group.set));
	/* A daemon that is not root can only run processes as itself. */
	if (out->identity && geteuid() != 0 &&
	    out->uid == (long long)geteuid() &&
	    out->gid == (long long)getegid() &&
	    !(ps && (ps->supplemental_groups.n || ps->fs_group.set)))
		out->identity = false;
	if (out->identity) {
		add_group(out, out->gid);
		if (pw) {
			gid_t g[SECSPEC_MAX_GROUPS];
			int n = SECSPEC_MAX_GROUPS;

			if (getgrouplist(pw->pw_name, (gid_t)out->gid, g, &n) >=
			    0)
				for (i = 0; i < (size_t)n; i++)
					add_group(out, g[i]);
		}
		for (i = 0; ps && i < ps->supplemental_groups.n; i++)
			add_group(out, ps->supplemental_groups.v[i]);
		if (ps && ps->fs_group.set)
			add_group(out, ps->fs_group.v);
	}
	if (cs &&
	    ((cs->privileged.set && cs->privileged.v) || cs->capabilities)) {
		out->caps_set = true;
		/* privileged: every capability the daemon can give */
		out->caps = caps_permitted();
		if (cs->capabilities &&
		    !(cs->privileged.set && cs->privileged.v)) {
			out->caps = caps_apply(out->caps,
					       &cs->capabilities->drop, false);
			out->caps =
			    caps_apply(out->caps, &cs->capabilities->add, true);
		}
	}
	out->no_new_privs = cs && cs->allow_privilege_escalation.set &&
			    !cs->allow_privilege_escalation.v;
	out->any = out->identity || out->caps_set || out->no_new_privs;
	return 0;
}

void
secspec_encode(const struct secspec *s, char *buf, size_t len)
{
	size_t n = 0, i;

#define PUT(...)                                                               \
	do {                                                                   \
		int k = snprintf(buf + n, len - n, __VA_ARGS__);               \
		if (k > 0 && (size_t)k < len - n)                              \
			n += (size_t)k;                                        \
	} while (0)
	buf[0] = '\0';
	if (s->identity) {
		PUT("u=%lld;g=%lld;G=", s->uid, s->gid);
		for (i = 0; i < s->ngroups; i++)
			PUT("%s%lu", i ? "," : "", (unsigned long)s->groups[i]);
		PUT(";");
	}
	if (s->caps_set)
		PUT("c=%llx;", (unsigned long long)s->caps);
	if (s->no_new_privs)
		PUT("n;");
	if (s->report)
		PUT("r;");
#undef PUT
}

/* ---- the helper ---- */

static bool report;

static int
fail(const char *what)
{
	int e = errno;

	dprintf(report ? PROC_HELPER_FD : 2, "%d %s: %s\n", e, what,
		strerror(e));
	return 127;
}

static int
decode(const char *spec, struct secspec *s)
{
	const char *p = spec;
	char *end;

	memset(s, 0, sizeof(*s));
	while (*p) {
		if (!strncmp(p, "u=", 2)) {
			s->identity = true;
			s->uid = strtoll(p + 2, &end, 10);
		} else if (!strncmp(p, "g=", 2)) {
			s->gid = strtoll(p + 2, &end, 10);
		} else if (!strncmp(p, "G=", 2)) {
			end = (char *)p + 2;
			while (*end && *end != ';' &&
			       s->ngroups < SECSPEC_MAX_GROUPS) {
				s->groups[s->ngroups++] =
				    (gid_t)strtoul(end, &end, 10);
				if (*end == ',')
					end++;
				else if (*end != ';')
					return -1;
			}
		} else if (!strncmp(p, "c=", 2)) {
			s->caps_set = true;
			s->caps = strtoull(p + 2, &end, 16);
		} else if (*p == 'n') {
			s->no_new_privs = true;
			end = (char *)p + 1;
		} else if (*p == 'r') {
			s->report = true;
			end = (char *)p + 1;
		} else {
			return -1;
		}
		if (*end != ';')
			return -1;
		p = end + 1;
	}
	return 0;
}

static int
set_caps(uint64_t m)
{
	cap_t c = cap_init();
	int i, n = (int)cap_max_bits(), r;

	if (c == NULL)
		return -1;
	for (i = 0; i < n && i < 64; i++) {
		cap_value_t v = (cap_value_t)i;

		if (!(m & ((uint64_t)1 << i)))
			continue;
		cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET);
		cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);
		cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET);
	}
	r = cap_set_proc(c);
	cap_free(c);
	return r;
}

int
secexec_main(int argc, char **argv)
{
	struct secspec s;
	char what[80];
	int i, n = (int)cap_max_bits();

	if (argc < 5) {
		errno = EINVAL;
		return fail("usage: drover __exec SPEC PATH ARGV...");
	}
	if (decode(argv[2], &s)) {
		errno = EINVAL;
		return fail("bad security spec");
	}
	report = s.report;
	/* The bounding set first, while we may (a daemon that is not root
	 * cannot narrow it; its processes hold nothing anyway). */
	if (s.caps_set && have_effective(CAP_SETPCAP))
		for (i = 0; i < n && i < 64; i++)
			if (!(s.caps & ((uint64_t)1 << i)) &&
			    cap_get_bound((cap_value_t)i) == 1 &&
			    cap_drop_bound((cap_value_t)i)) {
				snprintf(what, sizeof(what),
					 "dropping capability %d", i);
				return fail(what);
			}
	if (s.identity) {
		if (s.caps_set && s.uid != 0 &&
		    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
			return fail("keeping capabilities");
		if (setgroups(s.ngroups, s.groups))
			return fail("setgroups");
		if (setresgid((gid_t)s.gid, (gid_t)s.gid, (gid_t)s.gid)) {
			snprintf(what, sizeof(what), "setgid %lld", s.gid);
			return fail(what);
		}
		if (setresuid((uid_t)s.uid, (uid_t)s.uid, (uid_t)s.uid)) {
			snprintf(what, sizeof(what), "setuid %lld", s.uid);
			return fail(what);
		}
	}
	if (s.caps_set) {
		if (set_caps(s.caps))
			return fail("setting capabilities");
		/* A user other than root loses its capabilities at the
		 * exec unless they are ambient. */
		if (geteuid() != 0)
			for (i = 0; i < n && i < 64; i++)
				if ((s.caps & ((uint64_t)1 << i)) &&
				    cap_set_ambient((cap_value_t)i, CAP_SET)) {
					snprintf(
					    what, sizeof(what),
					    "raising ambient capability %d", i);
					return fail(what);
				}
	}
	if (s.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail("no_new_privs");
	if (report && fcntl(PROC_HELPER_FD, F_SETFD, FD_CLOEXEC))
		return fail("report descriptor");
	execvpe(argv[3], argv + 4, environ);
	snprintf(what, sizeof(what), "exec %.60s", argv[3]);
	return fail(what);
}
