/* logpool.c - unnamed log files made by a thread, named on the loop (see
 * logpool.h).
 *
 * The ready descriptors are a ring under one mutex, the oldest taken
 * first. The thread sleeps on the condition variable while the ring is
 * full and is woken when a file is taken (or to stop); it makes files
 * outside the mutex. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "logpool.h"
#include "xalloc.h"

/* After a failure that may pass (no descriptor or no space left), the
 * thread tries again this much later. */
#define RETRY_SEC 1

struct logpool {
	char *dir; /* set before the thread starts, then only read */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the thread's: a file was taken, or stop */
	/* Under lock: the ready files, n of them from fds[head] round a ring
	 * of cap (want + 1: room for one given back). */
	int *fds;
	size_t head, n, want, cap;
	bool stop;     /* logpool_free: the thread ends */
	bool off;      /* unnamed files refused: every open is a plain one */
	int off_errno; /* why */
	bool told;     /* off was logged */
};

/* Errors of open(O_TMPFILE) that may pass: the thread waits and tries
 * again. Any other (EOPNOTSUPP, EISDIR or EINVAL where the filesystem or
 * the kernel has no O_TMPFILE, EACCES, ...) turns the pool off. */
static bool
passing(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOSPC || e == EDQUOT ||
	       e == ENOMEM || e == EINTR || e == EAGAIN;
}

static void
wait_retry(struct logpool *lp)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += RETRY_SEC;
	pthread_cond_timedwait(&lp->wake, &lp->lock, &until);
}

static void *
fill(void *arg)
{
	struct logpool *lp = arg;

	pthread_mutex_lock(&lp->lock);
	while (!lp->stop) {
		int fd, e, extra = -1;

		if (lp->n >= lp->want) {
			pthread_cond_wait(&lp->wake, &lp->lock);
			continue;
		}
		pthread_mutex_unlock(&lp->lock);
		fd = open(lp->dir, O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC,
			  0600);
		e = errno;
		pthread_mutex_lock(&lp->lock);
		if (fd >= 0 && lp->n < lp->want)
			lp->fds[(lp->head + lp->n++) % lp->cap] = fd;
		else if (fd >= 0)
			extra = fd; /* a file given back filled the place */
		else if (passing(e))
			wait_retry(lp);
		else {
			lp->off = true;
			lp->off_errno = e;
			break;
		}
		if (extra >= 0) {
			pthread_mutex_unlock(&lp->lock);
			close(extra);
			pthread_mutex_lock(&lp->lock);
		}
	}
	pthread_mutex_unlock(&lp->lock);
	return NULL;
}

struct logpool *
logpool_new(const char *dir, size_t want)
{
	struct logpool *lp;
	pthread_condattr_t ca;
	sigset_t all, old;
	int r;

	if (dir == NULL || want == 0) {
		errno = EINVAL;
		return NULL;
	}
	lp = xcalloc(1, sizeof(*lp));
	lp->dir = xstrdup(dir);
	lp->want = want;
	lp->cap = want + 1;
	lp->fds = xcalloc(lp->cap, sizeof(*lp->fds));
	pthread_mutex_init(&lp->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&lp->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* The process's signals are the loop's business: the thread starts
	 * with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&lp->thread, NULL, fill, lp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		pthread_cond_destroy(&lp->wake);
		pthread_mutex_destroy(&lp->lock);
		free(lp->fds);
		free(lp->dir);
		free(lp);
		errno = r;
		return NULL;
	}
	return lp;
}

void
logpool_free(struct logpool *lp)
{
	size_t i;

	if (lp == NULL)
		return;
	pthread_mutex_lock(&lp->lock);
	lp->stop = true;
	pthread_cond_signal(&lp->wake);
	pthread_mutex_unlock(&lp->lock);
	pthread_join(lp->thread, NULL);
	for (i = 0; i < lp->n; i++)
		close(lp->fds[(lp->head + i) % lp->cap]);
	pthread_cond_destroy(&lp->wake);
	pthread_mutex_destroy(&lp->lock);
	free(lp->fds);
	free(lp->dir);
	free(lp);
}

size_t
logpool_ready(struct logpool *lp)
{
	size_t n;

	if (lp == NULL)
		return 0;
	pthread_mutex_lock(&lp->lock);
	n = lp->n;
	pthread_mutex_unlock(&lp->lock);
	return n;
}

/* A ready file, or -1; the thread is woken to make another. */
static int
take(struct logpool *lp)
{
	bool tell = false;
	int fd = -1, e = 0;

	pthread_mutex_lock(&lp->lock);
	if (lp->n > 0) {
		fd = lp->fds[lp->head];
		lp->head = (lp->head + 1) % lp->cap;
		lp->n--;
		pthread_cond_signal(&lp->wake);
	} else if (lp->off && !lp->told) {
		tell = lp->told = true;
		e = lp->off_errno;
	}
	pthread_mutex_unlock(&lp->lock);
	if (tell)
		log_warn("agent: %s: no unnamed files (%s): log files are "
			 "created on the loop",
			 lp->dir, strerror(e));
	return fd;
}

/* A file taken but not linked goes back first in line. The thread may
 * have filled its place meanwhile: the ring has room for one more. */
static void
give_back(struct logpool *lp, int fd)
{
	pthread_mutex_lock(&lp->lock);
	if (lp->n < lp->cap) {
		lp->head = (lp->head + lp->cap - 1) % lp->cap;
		lp->fds[lp->head] = fd;
		lp->n++;
		fd = -1;
	}
	pthread_mutex_unlock(&lp->lock);
	if (fd >= 0)
		close(fd);
}

int
logpool_open(struct logpool *lp, const char *path)
{
	int fd = lp ? take(lp) : -1;

	if (fd >= 0) {
		char self[64];
		int named;

		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW) ==
		    0) {
			/* by its name (logpool.h); opening an existing
			 * file creates no inode */
			named = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
			if (named < 0)
				return fd; /* the same file, under "#INODE" */
			close(fd);
			return named;
		}
		/* EEXIST (a log of an earlier run, kept appending), or
		 * no /proc: the plain open says what goes */
		give_back(lp, fd);
	}
	return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}
