/* pidlog.h - the agent's journal of the processes it starts, so that an
 * agent started again after a crash can find (and stop) the processes of
 * pods deleted while it was down.
 *
 * One append-only file, DIR/pids, of lines
 *     + UID CONTAINER PID STARTTICKS [PORT,...]
 *                                        a container's process started
 *                                        (with its host ports)
 *     - UID CONTAINER                    it exited
 * Each line is one write() to an O_APPEND descriptor, so a crash leaves at
 * worst a torn last line, which the reader skips. No fsync: the journal
 * guards against a crash of the agent, which keeps the page cache; after
 * a crash of the machine there are no processes left to find. One file
 * instead of a file per process: starting a pod creates no inode for it.
 *
 * Ownership: a pidlog owns its descriptor; pidlog_close() releases it. */
#ifndef DROVER_AGENT_PIDLOG_H
#define DROVER_AGENT_PIDLOG_H

#include <stdint.h>

struct pidlog;

/* The processes the journal says are running, one call each. */
typedef void (*pidlog_cb)(void *arg, const char *uid, const char *container,
			  int pid, uint64_t ticks);

/* Opens (creating) DIR/pids for appending; NULL on failure (errno). */
struct pidlog *pidlog_open(const char *dir);
void pidlog_close(struct pidlog *l);
/* ports: the container's host ports, "P1,P2" (or NULL), kept so that an
 * agent started again does not hand them out at once (pidlog_ports). */
void pidlog_started(struct pidlog *l, const char *uid, const char *container,
		    int pid, uint64_t ticks, const char *ports);
void pidlog_exited(struct pidlog *l, const char *uid, const char *container);
/* Reads the journal: cb for every process started and not exited. 0, or
 * -1 if it cannot be read (a missing journal is empty). */
int pidlog_running(const char *dir, pidlog_cb cb, void *arg);
/* Every host port of a start the journal records (running or not):
 * cb once per port and line. 0, or -1 if it cannot be read. */
int pidlog_ports(const char *dir, void (*cb)(void *arg, int port), void *arg);
/* A running process, with its host ports ("P1,P2" or NULL), for a
 * rewrite. */
typedef void (*pidlog_entry_cb)(void *arg, const char *uid,
				const char *container, int pid, uint64_t ticks,
				const char *ports);
/* Replaces the journal by the processes `each` reports (it calls its
 * callback once per running process): the journal stays as long as the
 * list of running processes, not as long as their history. 0 or -1. */
int pidlog_compact(struct pidlog *l,
		   void (*each)(void *arg, pidlog_entry_cb cb, void *cb_arg),
		   void *arg);
/* Bytes appended since the journal was opened or compacted. */
uint64_t pidlog_size(const struct pidlog *l);

#endif
