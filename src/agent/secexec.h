/* secexec.h - a container's process runs with the rights its
 * securityContext asks for (pod-level fields, overridden by the
 * container's, as in Kubernetes).
 *
 * posix_spawn cannot change users, groups or capabilities, so a container
 * that asks for any of them is started through drover itself: the
 * runtime spawns `drover __exec SPEC PATH ARGV...` (proc.h, helper), which
 * applies SPEC and execs PATH. The spawn keeps its benefits (the daemon's
 * memory is not copied, an exec failure is the call's result); the cost
 * is one more exec, paid only by containers that ask for something.
 *
 * What is applied, in runc's order: the capability bounding set, then
 * setgroups/setgid/setuid (keeping the capabilities asked for: for a user
 * other than root they are made ambient, so that the program holds them
 * after its exec), then the permitted/effective/inheritable sets, then
 * no_new_privs (allowPrivilegeEscalation: false). */
#ifndef DROVER_AGENT_SECEXEC_H
#define DROVER_AGENT_SECEXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"

#define SECSPEC_MAX_GROUPS 64

struct secspec {
	bool any;           /* something to apply: start through the helper */
	bool identity;      /* set groups, gid and uid */
	long long uid, gid; /* the resolved ids (identity) */
	gid_t groups[SECSPEC_MAX_GROUPS];
	size_t ngroups;
	bool no_new_privs;
	bool caps_set; /* the capability sets become `caps` */
	uint64_t caps; /* bit n: capability n */
	/* The helper reports a failure on PROC_HELPER_FD (proc.h), else on
	 * stderr. */
	bool report;
};

/* The daemon's defaults for pods that name no user (--default-user);
 * -1: the daemon's own. */
struct secdefaults {
	long long uid, gid;
};

/* Resolves what the process of container c of pod p runs as. Returns 0,
 * or -1 when the container must not start: `err` then holds the kubelet's
 * message (reason CreateContainerConfigError), e.g. for runAsNonRoot with
 * a process that would run as root. */
int secspec_resolve(const struct pod *p, const struct container *c,
		    const struct secdefaults *d, struct secspec *out, char *err,
		    size_t errlen);
/* The spec as one argv word for the helper. */
void secspec_encode(const struct secspec *s, char *buf, size_t len);
/* `drover __exec SPEC PATH ARGV...`: applies SPEC and execs PATH (looked
 * up in the PATH of the environment it got, if it has no slash) with ARGV
 * and that environment. Returns only on failure (127), after reporting
 * it. */
int secexec_main(int argc, char **argv);

#endif
