/* runtime_volumes.c - a pod's emptyDir volumes (core.h): a directory
 * per volume, made when the runtime takes the pod on and removed when
 * the pod is deleted, as the kubelet makes and tears down an emptyDir.
 *
 * drover runs a pod's processes on the host without a mount namespace,
 * so nothing is mounted at a volumeMount's mountPath: a container finds
 * the directory of each volume it mounts in VOLUME_<NAME> (the volume's
 * name upper-cased, '-' as '_': "cache-dir" gives VOLUME_CACHE_DIR), as
 * it finds its host ports in PORT and PORT_<NAME> (rt_build_env).
 * medium "Memory" is the same plain directory (no tmpfs is mounted:
 * the agent need not be root), and sizeLimit is not enforced.
 *
 * The directories are DIR/pods/volumes/<pod uid>/<volume name>, mode
 * 0700 and owned by the pod's user (its securityContext.runAsUser, else
 * the daemon's --default-user) when the daemon runs as root; with
 * fsGroup set, the group is fsGroup and the mode 2770 (group-writable,
 * new files keep the group), so containers that run as other users of
 * that group share them. A daemon that is not root leaves them its own.
 *
 * Live restore takes a pod back with rt_new_pod, which finds its
 * directories already there and leaves their contents alone; a pod
 * deleted while no agent ran leaves its directory behind. */
#define _GNU_SOURCE /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "runtime_int.h"

/* A uid the API handed out names one directory: nothing that could
 * climb out of DIR/pods/volumes. */
static bool
uid_usable(const char *uid)
{
	return uid && *uid && *uid != '.' && strchr(uid, '/') == NULL;
}

/* Absolute, also under a relative --data-dir: the process runs in its
 * own working directory. */
int
rt_volume_path(const struct runtime *rt, const struct pod *pod,
	       const char *name, char *out, size_t len)
{
	char cwd[600] = "";
	int n;

	if (!uid_usable(pod->metadata.uid) || name == NULL || !*name ||
	    *name == '.' || strchr(name, '/'))
		return -1;
	if (rt->cfg.log_dir[0] != '/' && getcwd(cwd, sizeof(cwd) - 1))
		strcat(cwd, "/");
	n = snprintf(out, len, "%s%s/volumes/%s/%s", cwd, rt->cfg.log_dir,
		     pod->metadata.uid, name);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int
mkdir_mode(const char *path, mode_t mode)
{
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -1;
}

/* Who owns the pod's volumes, and their mode (see the top). */
static void
volume_owner(const struct rpod *p, uid_t *uid, gid_t *gid, mode_t *mode,
	     bool *chown_them)
{
	const struct pod_security_context *ps = p->pod.spec.security_context;
	const struct secdefaults *d = &p->rt->cfg.sec;

	*chown_them = geteuid() == 0;
	*uid = ps && ps->run_as_user.set ? (uid_t)ps->run_as_user.v
	       : d->uid >= 0             ? (uid_t)d->uid
					 : geteuid();
	*gid = ps && ps->fs_group.set       ? (gid_t)ps->fs_group.v
	       : ps && ps->run_as_group.set ? (gid_t)ps->run_as_group.v
	       : d->uid >= 0                ? (gid_t)d->gid
					    : getegid();
	*mode = ps && ps->fs_group.set ? 02770 : 0700;
}

int
rt_make_volumes(struct rpod *p)
{
	const struct volume_list *vols = &p->pod.spec.volumes;
	char path[1200];
	uid_t uid;
	gid_t gid;
	mode_t mode;
	bool own;
	size_t i;
	int rc = 0;

	if (vols->n == 0)
		return 0;
	volume_owner(p, &uid, &gid, &mode, &own);
	snprintf(path, sizeof(path), "%s/volumes", p->rt->cfg.log_dir);
	if (mkdir_mode(path, 0755) ||
	    rt_volume_path(p->rt, &p->pod, "x", path, sizeof(path)))
		rc = -1;
	else {
		/* DIR/pods/volumes/<uid>: the daemon's, searchable by the
		 * pod's users */
		*strrchr(path, '/') = '\0';
		if (mkdir_mode(path, 0755))
			rc = -1;
	}
	for (i = 0; rc == 0 && i < vols->n; i++) {
		if (vols->v[i].empty_dir == NULL)
			continue;
		if (rt_volume_path(p->rt, &p->pod, vols->v[i].name, path,
				   sizeof(path)) ||
		    mkdir_mode(path, mode)) {
			rc = -1;
			break;
		}
		/* mkdir's mode is masked by the umask; the setgid bit
		 * needs chmod */
		if ((own && chown(path, uid, gid)) || chmod(path, mode))
			log_warn("agent: cannot give %s to %lu:%lu: %s", path,
				 (unsigned long)uid, (unsigned long)gid,
				 strerror(errno));
	}
	if (rc)
		log_warn("agent: %s/%s: cannot make its volume %s: %s",
			 p->pod.metadata.namespace, p->pod.metadata.name, path,
			 strerror(errno));
	return rc;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		log_warn("agent: cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Depth first, never following a symbolic link (FTW_PHYS: a link the
 * pod made to elsewhere is removed, not what it points to), nor
 * crossing into another file system (FTW_MOUNT). On the loop: the
 * directories of a pod are expected to be small. */
void
rt_remove_volumes(struct rpod *p)
{
	char path[1200];

	if (p->pod.spec.volumes.n == 0 ||
	    rt_volume_path(p->rt, &p->pod, "x", path, sizeof(path)))
		return;
	*strrchr(path, '/') = '\0';
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) &&
	    errno != ENOENT)
		log_warn("agent: cannot remove %s: %s", path, strerror(errno));
}
