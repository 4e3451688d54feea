/* proc.c - starting services (posix_spawn, or a clone that applies their
 * rights first), /proc/PID/stat start times and pidfds. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

int
proc_start_time(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	char state;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command may hold spaces and ')' */
	if (p == NULL || sscanf(p + 2, "%c", &state) != 1 || state == 'Z' ||
	    state == 'X')
		return -1;
	p += 2;
	for (i = 3; i < 22 && p; i++) { /* skip fields 3..21 */
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p == NULL || sscanf(p, "%llu", &st) != 1)
		return -1;
	*ticks = st;
	return 0;
}

int
proc_adopt(pid_t pid, uint64_t ticks)
{
	uint64_t now;
	int fd = pidfd_open(pid, 0);

	if (fd < 0)
		return -1;
	/* Checked after opening: the pidfd pins the process we compare. */
	if (proc_start_time(pid, &now) || now != ticks) {
		close(fd);
		return -1;
	}
	return fd;
}

/* execvp's search, with the PATH of the new environment (as the process
 * would see it) rather than the caller's. */
static int
resolve(const char *file, char *const *env, char *buf, size_t len)
{
	const char *path = "/bin:/usr/bin", *p, *end;
	size_t i;
	int err = ENOENT;

	if (strchr(file, '/')) {
		snprintf(buf, len, "%s", file);
		return 0;
	}
	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], "PATH=", 5))
			path = env[i] + 5;
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)(end - p), p,
				     end > p ? "/" : "", file) >= len)
			continue;
		if (access(buf, X_OK) == 0)
			return 0;
		if (errno == EACCES)
			err = EACCES;
	}
	return err;
}

/* posix_spawn's attributes: a new session, an empty signal mask, default
 * dispositions, stdin from /dev/null, stdout and stderr to out_fd. */
static int
spawn_plain(const struct proc_spawn *o, const char *path, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID |
					  POSIX_SPAWN_SETSIGMASK |
					  POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, o->out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, o->out_fd, 2);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	r = posix_spawn(pid, path, &fa, &at, o->argv, o->env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return r;
}

/* ---- the same with rights applied (proc_sec) ----
 *
 * posix_spawn cannot change users or capabilities, so this is its own
 * small posix_spawn: clone(CLONE_VM | CLONE_VFORK) runs child_main on a
 * stack of its own while the calling thread waits for the exec (or the
 * exit). The child shares the caller's memory: it makes raw system
 * calls only, and says what failed in `struct child`, which the caller
 * reads once it resumes. It is not instrumented by AddressSanitizer,
 * whose shadow of a stack that is unmapped afterwards would stay
 * poisoned. All signals are blocked around the clone, so that no handler
 * of the daemon runs in the child before its dispositions are reset. */

#define CHILD_STACK (64 * 1024)

struct child {
	const struct proc_spawn *o;
	const char *path;
	int err;
	const char *step;
};

/* The kernel's struct sigaction, for rt_sigaction without glibc. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

__attribute__((no_sanitize_address)) static int
move_fd(int from, int to)
{
	if (from == to) /* keep it across the exec */
		return syscall(SYS_fcntl, to, F_SETFD, 0) < 0 ? -1 : 0;
	return syscall(SYS_dup3, from, to, 0) < 0 ? -1 : 0;
}

__attribute__((no_sanitize_address)) static int
child_fail(struct child *c, const char *step)
{
	c->err = errno ? errno : EPERM;
	c->step = step;
	syscall(SYS_exit, 127);
	return 127;
}

__attribute__((no_sanitize_address)) static int
child_main(void *arg)
{
	struct child *c = arg;
	const struct proc_spawn *o = c->o;
	struct ksigaction dfl = {SIG_DFL, 0, NULL, 0};
	uint64_t none = 0;
	const char *step = NULL;
	long fd;
	int sig, err;

	for (sig = 1; sig < 65; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8);
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8) < 0)
		return child_fail(c, "signal mask");
	if (syscall(SYS_setsid) < 0)
		return child_fail(c, "setsid");
	fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY, 0);
	if (fd < 0 || move_fd((int)fd, 0) ||
	    (fd != 0 && syscall(SYS_close, fd) < 0))
		return child_fail(c, "/dev/null");
	if (move_fd(o->out_fd, 1) || move_fd(o->out_fd, 2))
		return child_fail(c, "the log");
	if (o->cwd && syscall(SYS_chdir, o->cwd) < 0)
		return child_fail(c, "chdir");
	if ((err = proc_sec_apply(o->sec, &step))) {
		errno = err;
		return child_fail(c, step);
	}
	syscall(SYS_execve, c->path, o->argv, o->env);
	return child_fail(c, "exec");
}

static int
spawn_sec(const struct proc_spawn *o, const char *path, pid_t *pid)
{
	struct child c = {o, path, 0, NULL};
	sigset_t all, old;
	char *stack;
	int r = 0, st;

	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*pid = clone(child_main, stack + CHILD_STACK,
		     CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	if (*pid < 0)
		r = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, CHILD_STACK);
	if (r)
		return r;
	if (c.err) {
		/* the child has exited: collect it */
		while (waitpid(*pid, &st, 0) < 0 && errno == EINTR)
			;
		if (o->err)
			snprintf(o->err, o->errlen, "%s: %s", c.step,
				 strerror(c.err));
		return c.err;
	}
	return 0;
}

int
proc_spawn(const struct proc_spawn *o, pid_t *pid, int *pidfd)
{
	char path[4096];
	int r;

	if (o->err && o->errlen)
		o->err[0] = '\0';
	if ((r = resolve(o->file, o->env, path, sizeof(path))))
		return r;
	r = o->sec ? spawn_sec(o, path, pid) : spawn_plain(o, path, pid);
	if (r)
		return r;
	/* Not reaped until proc_reap(), so the pid is still this child. */
	*pidfd = pidfd_open(*pid, 0);
	if (*pidfd < 0) {
		r = errno;
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		return r;
	}
	return 0;
}

int
proc_reap(int pidfd, int *status, int *sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0)
		return errno;
	*status = si.si_code == CLD_EXITED ? si.si_status : 0;
	*sig = si.si_code == CLD_EXITED ? 0 : si.si_status;
	return 0;
}

int
proc_each_writing_under(const char *dir,
			void (*cb)(void *arg, pid_t pid, const char *path),
			void *arg)
{
	DIR *d;
	struct dirent *e;
	char real[4096];
	size_t dl;

	/* readlink gives the canonical path: compare with the same form */
	if (realpath(dir, real) == NULL)
		return -1;
	dir = real;
	dl = strlen(dir);
	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char link[64], path[4096];
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || pid <= 0 || getsid((pid_t)pid) != (pid_t)pid)
			continue;
		snprintf(link, sizeof(link), "/proc/%ld/fd/1", pid);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		if ((size_t)n > dl && !strncmp(path, dir, dl) &&
		    path[dl] == '/')
			cb(arg, (pid_t)pid, path);
	}
	closedir(d);
	return 0;
}
