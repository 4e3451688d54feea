/* store.h - drover's object store: one interface, several backends.
 *
 * Objects are opaque JSON texts filed under (resource, namespace, name)
 * with their labels. Every write gets the next value of one global,
 * monotonic resourceVersion (rv). Updates and deletes may require the
 * current rv (compare-and-swap). Several writes can be one transaction.
 * Watchers see ADDED/MODIFIED/DELETED events in rv order, and can resume
 * from an rv inside a bounded history window; older than that is
 * STORE_EGONE (HTTP 410, as in Kubernetes).
 *
 * The front (store.c) owns the rv counter's cache, the watch history and
 * the fan-out; a backend (store_sqlite.c, store_mem.c) only persists.
 * A write that cannot be made durable (a full disk, an I/O error) is an
 * error for that write alone (STORE_EIO); the store keeps serving reads
 * and takes writes again as soon as the backend can commit them.
 *
 * Group commit: by default every write is durable before it returns. A
 * store in deferred mode (store_set_deferred) gathers writes into one
 * open transaction that store_flush() makes durable: readers on this
 * store see a write at once, but nothing may leave the process on the
 * strength of it (an HTTP answer, a started process) before a flush;
 * `drover serve` flushes before every such act and once per loop turn.
 * A crash before the flush loses the writes that nothing outside had
 * seen.
 *
 * Events are never delivered inside a write. In-process watchers (the
 * informers of the controllers and the agent) get the events of what a
 * flush wrote when the owner calls store_deliver(), in a loop phase of
 * its own (`drover serve`: right after the turn's commit); without group
 * commit, at the end of each write. Durable watchers (the HTTP streams)
 * get them once they are durable.
 *
 * Syncing in the background (store_sync_in_background; `drover serve`):
 * a flush writes the group, which from then on survives the process and
 * is never rolled back, and a thread of the backend makes it durable
 * (an fsync) while the loop goes on. The backend calls notify from that
 * thread when more is durable; the owner then calls store_synced() on the
 * loop, which delivers the events to durable watchers. Answers wait for
 * store_rv_durable() as before; an fsync no longer stalls the loop (on
 * two cores it took 28-54 ms of every busy turn).
 *
 * A group that fails to commit is rolled back as a whole, in the backend
 * and here: the rv counter skips the versions it had handed out (never
 * reused: a watch from one of them is STORE_EGONE), the history forgets
 * its events, and durable watchers never see them. In-process watchers
 * and anything that read the group's writes may hold rolled-back state:
 * store_rollbacks() counts these events, and from a rollback until
 * store_resync_done() the store refuses writes (STORE_EIO), so that the
 * owner can restart those consumers from what is on disk first.
 *
 * A store may be read-only (SQLite could open the database only for
 * reading, e.g. on a full disk): writes are STORE_EROFS until
 * store_reopen() succeeds.
 *
 * Ownership: store_item and store_items own their strings; release them
 * with store_item_release / store_items_release. Single-threaded: all
 * calls come from the one event loop; callbacks run inside store_deliver,
 * store_flush or store_synced (or at the end of a write without group
 * commit), and may not call store_flush. */
#ifndef DROVER_STORE_H
#define DROVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "model.h"

enum store_err {
	STORE_OK = 0,
	STORE_ENOENT = -1,    /* no such object */
	STORE_EEXIST = -2,    /* create of an existing name */
	STORE_ECONFLICT = -3, /* rv precondition failed */
	STORE_EGONE = -4,     /* watch rv compacted away */
	STORE_EIO = -5,       /* backend failure: the write is not applied */
	STORE_EROFS = -6,     /* the store is read-only */
};

struct store_key {
	const char *resource; /* "deployments" */
	const char *ns;       /* "" for cluster-scoped */
	const char *name;
};

struct store_item {
	char *resource;
	char *ns;
	char *name;
	int64_t rv;
	struct strmap labels;
	char *value; /* JSON text */
};

struct store_items {
	struct store_item *v;
	size_t n;
	size_t alloc;
};

enum store_op_kind { STORE_OP_CREATE, STORE_OP_UPDATE, STORE_OP_DELETE };

struct store_op {
	enum store_op_kind kind;
	struct store_key key;
	const char *value;           /* CREATE, UPDATE */
	const struct strmap *labels; /* CREATE, UPDATE */
	int64_t expect_rv;           /* UPDATE, DELETE: 0 = any */
	/* out: */
	int64_t rv;             /* the rv this op got */
	struct store_item prev; /* DELETE: the object before (a backend
				   may fill it for UPDATE too) */
};

enum store_event_type { STORE_ADDED, STORE_MODIFIED, STORE_DELETED };

struct store_event {
	enum store_event_type type;
	const struct store_item *item; /* for DELETED: the last state, with
					  the rv of the delete */
};

typedef void (*store_watch_cb)(void *arg, const struct store_event *ev);

/* The backend contract. txn applies every op or none: it checks existence
 * and expect_rv, writes, and makes it durable before returning (unless
 * set_deferred(true): then durable at the next flush); it fills op->prev.
 * current_rv is the highest rv ever committed. set_deferred, flush and
 * rollback may be NULL (a backend without durability). background (may
 * be NULL: always durable when written) starts a thread that makes
 * flushed writes durable, with notify called from it after each sync, or
 * with notify NULL syncs what is left and stops it: 0 or -1. sync asks
 * that thread to make everything up to rv durable; synced answers the
 * highest rv it has, and sets *err if a sync failed. rollback drops
 * the open group (after a failed txn or flush in deferred mode).
 * fail_syncs (tests; may be NULL) makes the next n background syncs fail.
 * fail_commits (tests; may be NULL) makes the next n commits fail as a
 * full disk would. reopen (may be NULL) turns a read-only backend into a
 * writable one: 0, or -1 with a message. */
struct store_backend_ops {
	const char *name;
	int (*get)(void *be, const struct store_key *k, struct store_item *out);
	int (*list)(void *be, const char *resource, const char *ns,
		    struct store_items *out);
	int (*txn)(void *be, struct store_op *ops, size_t n, int64_t first_rv,
		   size_t *failed);
	int64_t (*current_rv)(void *be);
	void (*close)(void *be);
	void (*set_deferred)(void *be, bool on);
	int (*flush)(void *be);
	void (*rollback)(void *be);
	void (*fail_commits)(void *be, int n);
	void (*fail_syncs)(void *be, int n);
	int (*reopen)(void *be, char *err, size_t errlen);
	int (*background)(void *be, void (*notify)(void *arg), void *arg);
	void (*sync)(void *be, int64_t rv);
	int64_t (*synced)(void *be, int *err);
	/* May be NULL: a copy of the histogram of the background thread's
	 * syncs, in seconds (left as it is without a thread). */
	void (*fsync_seconds)(void *be, struct histogram *out);
	/* May be NULL (the front then reads the whole list at once): a list
	 * read a piece at a time from a snapshot of what is committed, in
	 * the order of store_list. cursor_open fills *cur and the snapshot's
	 * *rv, or fails (the front then reads the whole list at once);
	 * cursor_next appends up to max items and sets *done after the
	 * last. */
	int (*cursor_open)(void *be, const char *resource, const char *ns,
			   void **cur, int64_t *rv);
	int (*cursor_next)(void *be, void *cur, size_t max,
			   struct store_items *out, bool *done);
	void (*cursor_close)(void *be, void *cur);
};

struct store;
struct store_watch;

/* Takes ownership of be. history: events kept for resuming watches. */
struct store *store_new(const struct store_backend_ops *ops, void *be,
			size_t history);
void store_free(struct store *s);
/* Bounds the history by the size of its objects too (0: by count alone):
 * the oldest events go first, never the newest 64. */
void store_limit_history(struct store *s, size_t max_bytes);
const char *store_backend_name(const struct store *s);
const char *store_strerror(int err);
int64_t store_rv(const struct store *s);

int store_get(struct store *s, const struct store_key *k,
	      struct store_item *out);
/* Lists resource in ns ("" all namespaces when ns is NULL), filtered by
 * sel (NULL: everything), sorted by namespace and name; *rv receives the
 * store's rv at the time of the list. */
int store_list(struct store *s, const char *resource, const char *ns,
	       const struct label_selector *sel, struct store_items *out,
	       int64_t *rv);
/* The same list a piece at a time, so that a long one (20,000 pods:
 * 110 ms of rows on two cores) does not hold the loop: the items are a
 * snapshot of what is committed when the cursor opens (the backend's
 * read transaction; flush first), *rv its version. sel is borrowed and
 * must outlive the cursor. store_list_next appends up to max items to out
 * and sets *done after the last; a cursor may be closed at any point.
 * Backends without cursors (and a read-only store) read the whole list
 * at open. Ownership: the caller closes the cursor, before store_free. */
struct store_cursor;
int store_list_open(struct store *s, const char *resource, const char *ns,
		    const struct label_selector *sel, struct store_cursor **out,
		    int64_t *rv);
int store_list_next(struct store_cursor *c, size_t max, struct store_items *out,
		    bool *done);
void store_list_close(struct store_cursor *c);
int store_create(struct store *s, const struct store_key *k, const char *value,
		 const struct strmap *labels, int64_t *rv);
int store_update(struct store *s, const struct store_key *k, const char *value,
		 const struct strmap *labels, int64_t expect_rv, int64_t *rv);
int store_delete(struct store *s, const struct store_key *k, int64_t expect_rv,
		 int64_t *rv);
/* All or nothing; on failure *failed is the index of the op that failed. */
int store_txn(struct store *s, struct store_op *ops, size_t n, size_t *failed);
/* Deferred mode on or off (off flushes first); see "Group commit". */
int store_set_deferred(struct store *s, bool on);
/* Makes every write so far durable: 0, or STORE_EIO: the group is rolled
 * back (see "A group that fails to commit" above). */
int store_flush(struct store *s);
/* The write that got resourceVersion rv is on disk: committed, and not
 * in a group that was rolled back. */
bool store_rv_durable(const struct store *s, int64_t rv);
/* The write that got rv was in a group that was rolled back. */
bool store_rv_lost(const struct store *s, int64_t rv);
/* From now on (notify non-NULL) flushes write and the backend's thread
 * syncs, calling notify from that thread after each sync; with notify
 * NULL, syncs what is left and goes back to syncing in the flush. A
 * backend without durability ignores it. 0, -1 if the thread cannot be
 * made (or is already running), or STORE_EIO from the flush. */
int store_sync_in_background(struct store *s, void (*notify)(void *arg),
			     void *arg);
/* On the loop, after notify: what the thread synced is durable, and its
 * events go to durable watchers. 0, or STORE_EIO if a sync failed: what
 * was written may not be on disk, and nothing after it becomes durable
 * (the owner should stop; the next start reads what the disk has). */
int store_synced(struct store *s);
/* In-process watchers get the events of every write flushed so far
 * (see "Events are never delivered inside a write"). */
void store_deliver(struct store *s);
/* Writes are not durable yet: waiting for store_flush (deferred mode) or
 * for the background sync. */
bool store_pending(const struct store *s);
/* How many groups were rolled back after being seen in-process. */
unsigned store_rollbacks(const struct store *s);
/* The in-process consumers were restarted (or stopped) after a rollback:
 * take writes again. */
void store_resync_done(struct store *s);
/* The highest rv that is durable (and delivered to durable watchers). */
int64_t store_committed_rv(const struct store *s);
/* Read-only store (see above); store_reopen tries to open it for writing
 * again: 0, or -1 with a message in err. */
bool store_readonly(const struct store *s);
int store_reopen(struct store *s, char *err, size_t errlen);
/* Tests: the next n commits fail as on a full disk. */
void store_fail_commits(struct store *s, int n);
/* Tests: the next n background syncs fail as an I/O error would. */
void store_fail_syncs(struct store *s, int n);

/* What the store has done since it was opened, for the metrics:
 * writes by kind (one per op of a transaction that succeeded), commits
 * (groups made durable: a flush with something in it, or each write
 * without group commit), commit failures (groups rolled back), the time
 * the loop spent in flushes, and the background thread's syncs. The
 * histograms are copies the caller releases (store_stats_release). */
struct store_stats {
	uint64_t creates, updates, deletes;
	uint64_t commits, commit_failures;
	struct histogram commit_seconds;
	struct histogram fsync_seconds; /* count 0 without a sync thread */
};
void store_stats(const struct store *s, struct store_stats *out);
void store_stats_release(struct store_stats *st);

/* Watches resource (NULL: all) in ns (NULL: all) from rv: events with a
 * higher rv are delivered, first from history, then live. from_rv 0 means
 * "from now". STORE_EGONE if from_rv is older than the history, newer
 * than the store, or one of a rolled-back group's. */
int store_watch(struct store *s, const char *resource, const char *ns,
		int64_t from_rv, store_watch_cb cb, void *arg,
		struct store_watch **out);
/* The same for a watcher whose events leave the process: it gets a
 * deferred group's events only once the group is committed. */
int store_watch_durable(struct store *s, const char *resource, const char *ns,
			int64_t from_rv, store_watch_cb cb, void *arg,
			struct store_watch **out);
void store_unwatch(struct store *s, struct store_watch *w);

void store_item_release(struct store_item *it);
void store_items_release(struct store_items *l);
void store_item_copy(struct store_item *dst, const struct store_item *src);

/* Backends. */
struct store *store_mem_open(size_t history);
/* Opens (creating) path, mode 0600 (its -wal and -shm files too). If it
 * cannot be opened for writing but can be read (a full disk), returns a
 * read-only store with the reason in err. On failure returns NULL with a
 * message in err. */
struct store *store_sqlite_open(const char *path, size_t history, char *err,
				size_t errlen);

/* For backends: the store is read-only until store_reopen(). */
void store_mark_readonly(struct store *s);

/* Labels <-> the "k=v\n" text the backends persist. */
char *store_labels_encode(const struct strmap *labels);
void store_labels_decode(const char *text, struct strmap *out);

#endif
