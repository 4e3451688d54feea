/* syncer.c - the fsync thread of a store (see syncer.h).
 *
 * One request at a time: the thread takes the highest rv asked so far,
 * fdatasyncs the file (opened anew each time: SQLite may truncate it, and
 * a file that is gone has nothing left to sync), and publishes that rv.
 * Example: asks for 10, 11 and 12 while the sync for 9 runs give one sync
 * that reports 12. The file's directory is synced once, so that the file
 * itself survives a power loss. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "syncer.h"
#include "xalloc.h"

struct syncer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *path;
	void (*notify)(void *arg); /* NULL once stopping */
	void *arg;
	int64_t want, done;      /* under mu */
	int err;                 /* under mu: the first failure's errno */
	bool stop;               /* under mu */
	int fail;                /* under mu: syncs to fail (tests) */
	bool dir_synced;         /* the thread's own */
	struct histogram fsyncs; /* under mu: seconds per sync */
};

static double
mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
sync_path(const char *path, bool data_only)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	r = (data_only ? fdatasync(fd) : fsync(fd)) ? errno : 0;
	close(fd);
	return r;
}

static int
sync_once(struct syncer *sy)
{
	int r = sync_path(sy->path, true);

	if (r == 0 && !sy->dir_synced) {
		char *copy = xstrdup(sy->path);

		r = sync_path(dirname(copy), false);
		free(copy);
		sy->dir_synced = r == 0;
	}
	return r;
}

static void *
syncer_main(void *arg)
{
	struct syncer *sy = arg;

	pthread_mutex_lock(&sy->mu);
	for (;;) {
		int64_t target;
		int r;

		while (sy->want <= sy->done && !sy->stop)
			pthread_cond_wait(&sy->cv, &sy->mu);
		if (sy->want <= sy->done || sy->err)
			break; /* stopping, and nothing left to do */
		target = sy->want;
		if (sy->fail > 0) {
			sy->fail--;
			r = EIO;
		} else {
			double t0 = mono_seconds(), t;

			pthread_mutex_unlock(&sy->mu);
			r = sync_once(sy);
			t = mono_seconds() - t0;
			pthread_mutex_lock(&sy->mu);
			histogram_observe(&sy->fsyncs, t);
		}
		if (r)
			sy->err = r;
		else
			sy->done = target;
		if (sy->notify)
			sy->notify(sy->arg);
	}
	pthread_mutex_unlock(&sy->mu);
	return NULL;
}

struct syncer *
syncer_start(const char *path, int64_t from_rv, void (*notify)(void *arg),
	     void *arg)
{
	struct syncer *sy = xcalloc(1, sizeof(*sy));

	pthread_mutex_init(&sy->mu, NULL);
	pthread_cond_init(&sy->cv, NULL);
	sy->path = xstrdup(path);
	sy->notify = notify;
	sy->arg = arg;
	sy->want = sy->done = from_rv;
	histogram_init(&sy->fsyncs, histogram_fsync_bounds,
		       HISTOGRAM_NBOUNDS(histogram_fsync_bounds));
	if (pthread_create(&sy->th, NULL, syncer_main, sy)) {
		histogram_release(&sy->fsyncs);
		pthread_mutex_destroy(&sy->mu);
		pthread_cond_destroy(&sy->cv);
		free(sy->path);
		free(sy);
		return NULL;
	}
	return sy;
}

void
syncer_ask(struct syncer *sy, int64_t rv)
{
	pthread_mutex_lock(&sy->mu);
	if (rv > sy->want) {
		sy->want = rv;
		pthread_cond_signal(&sy->cv);
	}
	pthread_mutex_unlock(&sy->mu);
}

void
syncer_fail_next(struct syncer *sy, int n)
{
	pthread_mutex_lock(&sy->mu);
	sy->fail = n;
	pthread_mutex_unlock(&sy->mu);
}

int64_t
syncer_done(struct syncer *sy, int *err)
{
	int64_t done;

	pthread_mutex_lock(&sy->mu);
	done = sy->done;
	if (err)
		*err = sy->err;
	pthread_mutex_unlock(&sy->mu);
	return done;
}

void
syncer_fsync_seconds(struct syncer *sy, struct histogram *out)
{
	pthread_mutex_lock(&sy->mu);
	histogram_copy(out, &sy->fsyncs);
	pthread_mutex_unlock(&sy->mu);
}

void
syncer_stop(struct syncer *sy, int64_t *done, int *err)
{
	pthread_mutex_lock(&sy->mu);
	sy->stop = true;
	sy->notify = NULL;
	pthread_cond_signal(&sy->cv);
	pthread_mutex_unlock(&sy->mu);
	pthread_join(sy->th, NULL);
	if (done)
		*done = sy->done;
	if (err)
		*err = sy->err;
	pthread_mutex_destroy(&sy->mu);
	pthread_cond_destroy(&sy->cv);
	histogram_release(&sy->fsyncs);
	free(sy->path);
	free(sy);
}
