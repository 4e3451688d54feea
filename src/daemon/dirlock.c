/* dirlock.c - the lock of a data directory or socket (dirlock.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include "dirlock.h"

int
dirlock_file(const char *who, const char *path, const char *what,
	     const char *name)
{
	char pid[32];
	int fd;
	ssize_t n;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "error: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno, tries;

		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\r\n")] = '\0';
		/* The daemon that wrote its pid is gone, yet the lock is held:
		 * by a child it was starting when it died, between the fork
		 * and the exec that closes the descriptor. That takes
		 * microseconds; wait for it (up to 5 s). */
		for (tries = 0;
		     e == EWOULDBLOCK && atol(pid) > 0 &&
		     kill((pid_t)atol(pid), 0) && errno == ESRCH && tries < 500;
		     tries++) {
			usleep(10000);
			if (flock(fd, LOCK_EX | LOCK_NB) == 0)
				goto locked;
		}
		if (e == EWOULDBLOCK)
			fprintf(stderr,
				"%s: %s %s is in use by another %s (pid %s)\n",
				who, what, name, who, *pid ? pid : "unknown");
		else
			fprintf(stderr, "error: %s: %s\n", path, strerror(e));
		close(fd);
		return -1;
	}
locked:
	/* For the message above; on a full disk it may stay empty. */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the lock holds all the same */
	}
	return fd;
}

int
dirlock_mkdir_p(const char *path)
{
	char buf[512], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	return 0;
}
