/* proc.h - starting service processes, and process identity for
 * re-adoption: a pid alone can be reused, a pid with its start time (clock
 * ticks since boot, /proc/PID/stat field 22) cannot. */
#ifndef DROVER_SYS_PROC_H
#define DROVER_SYS_PROC_H

#include <stdint.h>
#include <sys/types.h>

/* The start time of pid; 0, or -1 if there is no such process (or it is
 * a zombie). */
int proc_start_time(pid_t pid, uint64_t *ticks);
/* A pidfd for pid if it is alive and started at `ticks`, else -1. The
 * caller closes it; it becomes readable when the process exits. */
int proc_adopt(pid_t pid, uint64_t ticks);

struct proc_spawn {
	const char *file;  /* a path, or a name looked up in env's PATH */
	char *const *argv; /* NULL-terminated */
	char *const *env;  /* NULL-terminated */
	const char *cwd;
	int out_fd; /* becomes stdout and stderr; stdin is /dev/null */
	/* With a helper, the process started is `helper HELPER_VERB
	 * helper_arg PATH ARGV...` (PATH: file resolved), which does what
	 * posix_spawn cannot (secexec.h) and then execs PATH. It reports a
	 * failure before that exec as one line on fd 3 ("ERRNO message"),
	 * and proc_spawn waits for that exec: its result is then the
	 * helper's errno, and err (if not NULL) receives the message. */
	const char *helper;
	const char *helper_arg;
	char *err;
	size_t errlen;
};

/* The verb the helper is called with (argv[1]). */
#define PROC_HELPER_VERB "__exec"
/* The descriptor on which the helper reports a failure. */
#define PROC_HELPER_FD 3

/* Starts a process in a new session with default signal dispositions and
 * an empty signal mask. The call returns once the exec has happened
 * (posix_spawn: the child borrows the caller's memory until then, so
 * nothing is copied), and an exec failure is its result: 0 or an errno.
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
