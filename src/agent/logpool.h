/* logpool.h - container log files made ahead of need, off the loop.
 *
 * Creating an inode is the slow part of opening a new log: on ext4
 * without a journal the allocator scans past recently deleted inodes,
 * and a rollout deletes and creates hundreds of logs. Measured on the
 * build machine, 500 new logs in a directory just emptied of 500: a
 * plain open(O_CREAT) 0.3 to 1.3 ms each (the more inodes deleted
 * lately, the slower; an unnamed file costs the same), logpool_open with
 * a file ready 0.04 ms (the linkat 0.015, the open by name 0.003). So a
 * thread keeps up to `want` unnamed files (O_TMPFILE) in the log
 * directory, and the loop only gives one its name. Past `want` opens in
 * a row faster than the thread, they are plain opens again.
 *
 * The descriptor logpool_open returns is opened by the file's name, as a
 * plain open's: /proc/PID/fd/1 of the process that inherits it names the
 * log (the sweep of live restore and `lsof` read it), where that of the
 * unnamed file would stay "DIR/#INODE (deleted)" after the link.
 *
 * Ownership: the pool owns its thread and the unnamed files until one
 * is taken; the caller owns the descriptor logpool_open returns. The
 * thread touches nothing but the pool, under its mutex, and calls only
 * open and close. */
#ifndef DROVER_AGENT_LOGPOOL_H
#define DROVER_AGENT_LOGPOOL_H

#include <stddef.h>

struct logpool;

/* A pool of up to want files in dir, filled by a thread of its own from
 * now on. NULL with errno: want is 0 (EINVAL), or the thread cannot
 * start. */
struct logpool *logpool_new(const char *dir, size_t want);

/* Stops and joins the thread; the files not taken go (they have no
 * name). NULL: nothing. */
void logpool_free(struct logpool *lp);

/* The file at path (in the pool's directory), opened O_WRONLY|O_APPEND,
 * close-on-exec, mode 0600 (less the umask) if it is new: a pool file
 * linked at path, or a plain open(O_CREAT) when the pool has none ready,
 * the filesystem refuses unnamed files, or path exists already (appended
 * to, not replaced; the pool keeps its file for the next call). lp may be
 * NULL: the plain open. -1 with errno on failure. */
int logpool_open(struct logpool *lp, const char *path);

/* How many files are ready now (for tests; 0 for NULL). */
size_t logpool_ready(struct logpool *lp);

#endif
