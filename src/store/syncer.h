/* syncer.h - a thread that makes one file durable on request.
 *
 * The SQLite backend writes a group commit with synchronous=NORMAL (the
 * WAL frames reach the OS, not the disk) and asks the syncer for the
 * group's resourceVersion; the thread fdatasyncs the file and reports the
 * highest version that is now on disk. Requests that arrive during an
 * fsync share the next one: on two cores a group commit's fsync took
 * 28-54 ms, which the event loop no longer waits for.
 *
 * Ownership: syncer_start copies path; syncer_stop joins the thread and
 * frees the syncer. notify is called on the syncer's thread (it must be
 * thread-safe, e.g. uv_async_send), never after syncer_stop has begun. */
#ifndef DROVER_SYNCER_H
#define DROVER_SYNCER_H

#include <stdint.h>

#include "histogram.h"

struct syncer;

/* Starts the thread for path; from_rv is what is durable already. NULL
 * if the thread cannot be made. */
struct syncer *syncer_start(const char *path, int64_t from_rv,
			    void (*notify)(void *arg), void *arg);
/* Everything written up to rv is to be made durable. */
void syncer_ask(struct syncer *sy, int64_t rv);
/* The highest rv made durable; *err is an errno once a sync has failed
 * (and nothing after it is reported durable). */
int64_t syncer_done(struct syncer *sy, int *err);
/* Tests: the next n syncs fail as an I/O error would (EIO). */
void syncer_fail_next(struct syncer *sy, int n);
/* A copy of the histogram of the thread's fdatasyncs, in seconds (out
 * initialised or zeroed; the caller releases it). */
void syncer_fsync_seconds(struct syncer *sy, struct histogram *out);
/* Syncs what was asked, without notifying, then joins and frees; fills
 * what syncer_done would answer. */
void syncer_stop(struct syncer *sy, int64_t *done, int *err);

#endif
