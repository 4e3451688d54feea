/* proc_sec.c - the rights a new process starts with (proc.h): its
 * open-files limit, capability sets, groups and user, and no_new_privs.
 *
 * Everything applied here is a raw system call. The child of proc_spawn
 * runs it while it shares the daemon's memory, so it may take no lock
 * (malloc, stdio), and glibc's setuid family must not be used: in a
 * threaded process those signal every thread to change its ids too
 * (setxid), threads the child does not have. The kernel's own rules do
 * the rest:
 *
 *   - a change of uid from 0 to another user clears the permitted,
 *     effective and ambient sets (no PR_SET_KEEPCAPS is asked for);
 *   - at the exec, a process that is not root gets no capabilities at
 *     all, unless its file carries some (setcap) and no_new_privs is off:
 *     then the file's, within the bounding set;
 *   - root gets its permitted set again, as effective too.
 *
 * That is what containerd and runc give a Kubernetes container: the
 * bounding, permitted and effective sets are the runtime's default list
 * plus what the pod adds, less what it drops; the inheritable and ambient
 * sets are empty, so a container that runs as another user than root
 * holds nothing (kubernetes/kubernetes#56374).
 *
 * The open-files limit a daemon raises for itself (proc_nofile_raise) is
 * kept here too, for its children to get back. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc.h"

/* Capability numbers go up to 63; the loop below stops at the first one
 * the kernel does not know. */
#define CAP_NUMBERS 64

static long
raw(long r, int *err)
{
	if (r < 0)
		*err = errno;
	return r;
}

/* Drops from the bounding set every capability `keep` lacks. */
static int
narrow_bounding(uint64_t keep)
{
	int i, err = 0;

	for (i = 0; i < CAP_NUMBERS; i++) {
		long in = syscall(SYS_prctl, PR_CAPBSET_READ, i, 0, 0, 0);

		if (in < 0)
			break; /* past the last capability */
		if (in == 1 && !(keep >> i & 1) &&
		    raw(syscall(SYS_prctl, PR_CAPBSET_DROP, i, 0, 0, 0), &err))
			return err;
	}
	return 0;
}

static int
set_ids(const struct proc_sec *s, const char **step)
{
	int err = 0;

	*step = "setgroups";
	if (raw(syscall(SYS_setgroups, s->ngroups, s->groups), &err))
		return err;
	*step = "setgid";
	if (raw(syscall(SYS_setresgid, (gid_t)s->gid, (gid_t)s->gid,
			(gid_t)s->gid),
		&err))
		return err;
	*step = "setuid";
	if (raw(syscall(SYS_setresuid, (uid_t)s->uid, (uid_t)s->uid,
			(uid_t)s->uid),
		&err))
		return err;
	return 0;
}

/* Permitted and effective become `m`, inheritable and ambient empty. */
static int
set_caps(uint64_t m, const char **step)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2] = {{0}};
	int err = 0;

	*step = "clearing the ambient capabilities";
	if (raw(syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0,
			0, 0),
		&err) &&
	    err != EINVAL) /* a kernel before 4.3 has no ambient set */
		return err;
	d[0].permitted = d[0].effective = (uint32_t)m;
	d[1].permitted = d[1].effective = (uint32_t)(m >> 32);
	*step = "setting the capabilities";
	err = 0;
	if (raw(syscall(SYS_capset, &h, d), &err))
		return err;
	return 0;
}

int
proc_sec_apply(const struct proc_sec *s, const char **step)
{
	int err = 0;

	if (s->nofile) {
		struct rlimit rl = {(rlim_t)s->nofile_cur,
				    (rlim_t)s->nofile_max};

		*step = "setting the open files limit";
		if (raw(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL),
			&err))
			return err;
	}
	/* The bounding set first, while CAP_SETPCAP is still held. */
	*step = "narrowing the capability bounding set";
	if (s->caps && s->bounding_set && (err = narrow_bounding(s->bounding)))
		return err;
	if (s->ids && (err = set_ids(s, step)))
		return err;
	if (s->caps && (err = set_caps(s->permitted, step)))
		return err;
	*step = "no_new_privs";
	if (s->no_new_privs &&
	    raw(syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), &err))
		return err;
	return 0;
}

static bool nofile_raised;
static struct rlimit nofile_before;

int
proc_nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return errno;
	if (rl.rlim_cur >= rl.rlim_max)
		return 0;
	nofile_before = rl;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return errno;
	nofile_raised = true;
	return 0;
}

bool
proc_nofile_initial(uint64_t *cur, uint64_t *max)
{
	if (!nofile_raised)
		return false;
	*cur = (uint64_t)nofile_before.rlim_cur;
	*max = (uint64_t)nofile_before.rlim_max;
	return true;
}
