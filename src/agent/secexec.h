/* secexec.h - a container's process runs with the rights its
 * securityContext asks for (pod-level fields, overridden by the
 * container's, as in Kubernetes), and never more.
 *
 * secspec_resolve turns a pod and container into a struct proc_sec
 * (proc.h), which proc_spawn applies in the child before its exec, for
 * the container's process and for its exec probes.
 *
 * Capabilities are containerd's and runc's for a Kubernetes container
 * (the daemon running as root):
 *
 *   S = the runtime's default list (CHOWN, DAC_OVERRIDE, FSETID, FOWNER,
 *       MKNOD, NET_RAW, SETGID, SETUID, SETFCAP, SETPCAP,
 *       NET_BIND_SERVICE, SYS_CHROOT, KILL, AUDIT_WRITE);
 *       privileged, or add: [ALL]: every capability; drop: [ALL]: none;
 *       then each capability added is added, then each dropped is
 *       dropped (so drop wins over add for the same name);
 *   bounding = S; permitted = effective = S for uid 0, none for another
 *   user; inheritable and ambient are always empty.
 *
 * So `runAsUser: 65534` with `add: [NET_BIND_SERVICE]` holds nothing
 * (CapEff 0) and can gain only NET_BIND_SERVICE, from a file that
 * carries it (setcap), unless allowPrivilegeEscalation is false, which
 * sets no_new_privs. Nothing is ever more than the daemon holds: a daemon
 * that is not root gives no capabilities, and cannot narrow the bounding
 * set. Every process also gets the open-files limit the daemon started
 * with (the daemon raises its own). */
#ifndef DROVER_AGENT_SECEXEC_H
#define DROVER_AGENT_SECEXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"
#include "proc.h"

struct secspec {
	bool any;          /* something to apply */
	struct proc_sec p; /* what */
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
#endif
