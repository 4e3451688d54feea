/* proc.h - starting service processes, and process identity for
 * re-adoption: a pid alone can be reused, a pid with its start time (clock
 * ticks since boot, /proc/PID/stat field 22) cannot. */
#ifndef DROVER_SYS_PROC_H
#define DROVER_SYS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The start time of pid; 0, or -1 if there is no such process (or it is
 * a zombie). */
int proc_start_time(pid_t pid, uint64_t *ticks);
/* A pidfd for pid if it is alive and started at `ticks`, else -1. The
 * caller closes it; it becomes readable when the process exits. */
int proc_adopt(pid_t pid, uint64_t ticks);

/* The rights a new process gets, applied between its creation and its
 * exec, in runc's order: the open-files limit, the capability bounding
 * set (when the caller may narrow it), supplementary groups, gid and uid,
 * then the permitted and effective capability sets (the inheritable and
 * ambient sets are emptied), then no_new_privs. */
#define PROC_MAX_GROUPS 64
struct proc_sec {
	bool nofile; /* set RLIMIT_NOFILE to nofile_cur/nofile_max */
	uint64_t nofile_cur, nofile_max;
	bool ids; /* set groups, gid and uid */
	long long uid, gid;
	gid_t groups[PROC_MAX_GROUPS];
	size_t ngroups;
	bool caps;          /* set the capability sets */
	bool bounding_set;  /* drop what `bounding` lacks from that set */
	uint64_t bounding;  /* bit n: capability n */
	uint64_t permitted; /* the permitted and effective sets */
	bool no_new_privs;
};

/* Applies s to the calling process. Only raw system calls: it runs in
 * the child of proc_spawn, which shares the caller's memory until its
 * exec. Returns 0, or an errno with *step naming
 * what failed ("setuid", ...). */
int proc_sec_apply(const struct proc_sec *s, const char **step);

/* Raises the soft open-files limit to the hard one, keeping the limits
 * the process had for proc_nofile_initial. 0 or an errno. */
int proc_nofile_raise(void);
/* The limits before proc_nofile_raise raised them, which the processes
 * a daemon starts should get back; false if nothing was raised. */
bool proc_nofile_initial(uint64_t *cur, uint64_t *max);

struct proc_spawn {
	const char *file;  /* a path, or a name looked up in env's PATH */
	char *const *argv; /* NULL-terminated */
	char *const *env;  /* NULL-terminated */
	const char *cwd;
	int out_fd; /* becomes stdout and stderr; stdin is /dev/null */
	/* If not NULL, applied before the exec; a failure is the call's
	 * result, and err (if not NULL) receives "STEP: strerror". */
	const struct proc_sec *sec;
	char *err;
	size_t errlen;
};

/* Starts a process in a new session with default signal dispositions and
 * an empty signal mask. The call returns once the exec has happened
 * (posix_spawn, or a clone(CLONE_VM | CLONE_VFORK) when o->sec is set: the
 * child borrows the caller's memory until then, so nothing is copied),
 * and an exec failure is its result: 0 or an errno.
 * *pidfd becomes readable when the process exits; then proc_reap(). */
int proc_spawn(const struct proc_spawn *o, pid_t *pid, int *pidfd);
/* Calls cb for every process that leads its own session and whose
 * standard output is a file under dir (path: that file). Returns 0, or
 * -1 if /proc cannot be read. */
int proc_each_writing_under(const char *dir,
			    void (*cb)(void *arg, pid_t pid, const char *path),
			    void *arg);
/* Collects the exit of a child whose pidfd is readable: its exit code in
 * *status, or the signal that ended it in *sig (the other is 0). 0 or an
 * errno. The caller still closes pidfd. */
int proc_reap(int pidfd, int *status, int *sig);

#endif
