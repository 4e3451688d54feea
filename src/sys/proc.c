/* proc.c - posix_spawn of services, /proc/PID/stat start times and
 * pidfds. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
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

/* The helper's report: nothing (EOF) once it exec'd the program, else
 * "ERRNO message". Returns 0 or that errno. */
static int
helper_result(int fd, const struct proc_spawn *o)
{
	char buf[512];
	ssize_t n, got = 0;
	char *end;
	long e;

	while ((n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0 && (got += n) >= (ssize_t)sizeof(buf) - 1)
			break;
	if (got == 0)
		return 0;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	e = strtol(buf, &end, 10);
	if (o->err)
		snprintf(o->err, o->errlen, "%s", *end == ' ' ? end + 1 : buf);
	return e > 0 ? (int)e : EPERM;
}

int
proc_spawn(const struct proc_spawn *o, pid_t *pid, int *pidfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	char path[4096];
	char **hargv = NULL;
	char *const *argv = o->argv;
	int r, rep[2] = {-1, -1};
	size_t n;

	if (o->err && o->errlen)
		o->err[0] = '\0';
	if ((r = resolve(o->file, o->env, path, sizeof(path))))
		return r;
	if (o->helper) {
		for (n = 0; o->argv[n]; n++)
			;
		hargv = calloc(n + 5, sizeof(*hargv));
		if (hargv == NULL || pipe2(rep, O_CLOEXEC)) {
			free(hargv);
			return errno;
		}
		hargv[0] = (char *)"drover";
		hargv[1] = (char *)PROC_HELPER_VERB;
		hargv[2] = (char *)o->helper_arg;
		hargv[3] = path;
		memcpy(hargv + 4, o->argv, n * sizeof(*hargv));
		argv = hargv;
	}
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
	if (o->helper) /* dup2 clears close-on-exec on the copy */
		posix_spawn_file_actions_adddup2(&fa, rep[1], PROC_HELPER_FD);
	r = posix_spawn(pid, o->helper ? o->helper : path, &fa, &at, argv,
			o->env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(hargv);
	if (o->helper) {
		close(rep[1]);
		if (r == 0 && (r = helper_result(rep[0], o)) != 0)
			waitpid(*pid, NULL, 0);
		close(rep[0]);
	}
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
