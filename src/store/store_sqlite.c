/* store_sqlite.c - the SQLite backend (the embedded default).
 *
 * One table of objects keyed by (resource, ns, name) and one row holding
 * the highest resourceVersion, written in the same transaction as the
 * objects, so the counter never goes back after a crash. Journal mode WAL
 * with synchronous=FULL: a transaction is on disk (WAL fsynced) before the
 * call returns, which is what "durable before the API answers" requires.
 * Syncing in the background (store.h; `drover serve`) switches to NORMAL,
 * which is crash-safe for the process but could lose the last commits on
 * power loss, and a syncer thread (syncer.h) fdatasyncs the WAL after
 * each group: the store reports a write durable only then, so answers
 * keep FULL's promise while the loop goes on. One connection, one writer
 * (the event loop).
 *
 * Deferred mode (group commit, see store.h): the first write opens a
 * transaction that stays open until lite_flush(); each txn inside it is a
 * savepoint, so that a failed one undoes itself alone. A commit that
 * fails (SQLITE_FULL, SQLITE_IOERR) is rolled back and reported; SQLite
 * keeps the database as it was before the transaction, and the next
 * transaction tries again.
 *
 * Checkpoints: SQLite copies the WAL back into the database file (a
 * checkpoint) inside the commit that takes the WAL past 1,000 pages,
 * with an fsync of the database: on the event loop, tens to hundreds of
 * milliseconds in which no request is answered. Here the commits only
 * append to the WAL; past CKPT_PAGES a thread of this store, on its own
 * connection, runs a passive checkpoint (it never blocks the writer and
 * gives up where the writer's transaction begins). What a crash leaves in
 * the WAL is replayed by the next open, as before.
 *
 * Files: SQLite creates the database with mode 0644 less the umask and
 * gives its -wal and -shm files the database's mode; the database is
 * created (or chmod-ed) 0600 here first, so all three are 0600 whatever
 * the umask. If the database cannot be opened for writing (on a full
 * disk SQLite cannot recover or create its WAL), it is opened read-only
 * and lite_reopen() tries again later. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "strbuf.h"
#include "syncer.h"
#include "xalloc.h"

/* WAL pages after which the checkpointer runs (SQLite's own default),
 * and after which the commit checkpoints itself: the WAL starts again
 * from its beginning only when a write begins after a complete
 * checkpoint, which a checkpointer behind a steady stream of commits may
 * never finish; there the loop pays for what is left, as it always did. */
#define CKPT_PAGES        1000
#define CKPT_INLINE_PAGES (8 * CKPT_PAGES)

/* The checkpointer thread and what it shares with the loop's thread
 * (under mu). Made on the first large WAL; joined by lite_close. */
struct ckpt {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool want; /* a checkpoint is asked for */
	bool stop;
	char *path;
	sqlite3 *db; /* the thread's own connection */
};

#define LITE_TX_STMTS 8

struct lite {
	sqlite3 *db;
	sqlite3_stmt *get, *list_ns, *list_all, *ins, *upd, *del, *set_rv;
	/* The transaction statements (BEGIN, SAVEPOINT, RELEASE, COMMIT),
	 * prepared once: parsing them took a tenth of a write. */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} tx[LITE_TX_STMTS];
	int64_t rv;
	bool deferred;    /* group commit */
	bool open;        /* a deferred transaction is open */
	int fail_commits; /* tests: commits to fail (the commit hook) */
	char *path;
	struct ckpt *ck; /* NULL until the WAL first passes CKPT_PAGES */
	/* Syncing in the background (store.h): commits run with
	 * synchronous=NORMAL and sy fdatasyncs the WAL. NULL: FULL. */
	struct syncer *sy;
	int64_t synced; /* without sy: the last rv known durable */
	int sync_err;   /* without sy: the errno of a failed final sync */
};

/* The objects, in a rowid table with a unique index on the key. A row
 * of a table is kept whole in its leaf page up to about 4 KB; a row of a
 * WITHOUT ROWID table (an index) only up to about 1 KB, the rest going to
 * an overflow page of its own. A pod of about 1.1 KB then took a leaf
 * cell and a 4 KiB overflow page that each write dirtied again: at
 * 100,000 pods the database was three times the size, and a group commit
 * of 300 writes took 30-45 ms of the loop (pwrite of the dirty pages to
 * the WAL) where it now takes 1-3 ms. New rows get
 * increasing rowids, so a burst of creations fills the same last pages.
 * migrate_objects() moves a database of the earlier layout over. */
#define OBJECTS_COLUMNS                                                        \
	" id INTEGER PRIMARY KEY,"                                             \
	" resource TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"       \
	" rv INTEGER NOT NULL, labels TEXT NOT NULL, value TEXT NOT NULL,"     \
	" UNIQUE (resource, ns, name)"

static const char schema_sql[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    /* 256 KiB of page cache: the hot pages of one host's objects; the
     * OS cache holds the rest, a pread away. The dirty pages of a
     * transaction stay in memory until its commit, past that size: a
     * group commit of 100 pod writes dirties a few hundred pages, which
     * SQLite otherwise spills to the WAL in the middle of the
     * transaction and writes again at the commit (at 100,000 pods:
     * 34 s to scale up and 42 s down instead of 40-55 s each, the
     * slowest GET /version 57 ms instead of 80-90 ms). */
    "PRAGMA cache_size=-256;"
    "PRAGMA cache_spill=OFF;"
    /* Reads through a mapping of the file (up to 1 GiB) rather than a
     * pread per page into the small cache: a list of 20,000 pods (25 MB
     * of rows) took 30-45 ms of the loop in preads, now 15-20 ms. Writes
     * still go through the WAL with write(). */
    "PRAGMA mmap_size=1073741824;"
    /* When the WAL starts over after a checkpoint, its file is cut back
     * to 4 MiB: without a limit it keeps the size of the largest burst
     * (one 1,000-pod rollout left a 21 MB WAL beside a 2 MB database). */
    "PRAGMA journal_size_limit=4194304;"
    "PRAGMA foreign_keys=OFF;"
    "CREATE TABLE IF NOT EXISTS objects (" OBJECTS_COLUMNS ");"
    "CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER);"
    "INSERT OR IGNORE INTO meta (k, v) VALUES ('rv', 0);";

/* The lists of a resource, in one namespace or all, in store_list's
 * order: the writer's statements and a cursor's. */
#define LIST_NS_SQL                                                            \
	"SELECT resource, ns, name, rv, labels, value FROM objects "           \
	"WHERE resource=?1 AND ns=?2 ORDER BY ns, name"
#define LIST_ALL_SQL                                                           \
	"SELECT resource, ns, name, rv, labels, value FROM objects "           \
	"WHERE resource=?1 ORDER BY ns, name"

static int
prep(struct lite *l, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v3(l->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
				  NULL);
}

static void
row_to_item(sqlite3_stmt *st, struct store_item *it)
{
	it->resource = xstrdup((const char *)sqlite3_column_text(st, 0));
	it->ns = xstrdup((const char *)sqlite3_column_text(st, 1));
	it->name = xstrdup((const char *)sqlite3_column_text(st, 2));
	it->rv = sqlite3_column_int64(st, 3);
	store_labels_decode((const char *)sqlite3_column_text(st, 4),
			    &it->labels);
	it->value = xstrdup((const char *)sqlite3_column_text(st, 5));
}

static void
bind_key(sqlite3_stmt *st, const struct store_key *k)
{
	sqlite3_bind_text(st, 1, k->resource, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, k->ns, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, k->name, -1, SQLITE_STATIC);
}

static int
lite_get(void *be, const struct store_key *k, struct store_item *out)
{
	struct lite *l = be;
	int r;

	sqlite3_reset(l->get);
	bind_key(l->get, k);
	r = sqlite3_step(l->get);
	if (r == SQLITE_ROW) {
		row_to_item(l->get, out);
		sqlite3_reset(l->get);
		return 0;
	}
	sqlite3_reset(l->get);
	return r == SQLITE_DONE ? STORE_ENOENT : STORE_EIO;
}

static int
lite_list(void *be, const char *resource, const char *ns,
	  struct store_items *out)
{
	struct lite *l = be;
	sqlite3_stmt *st = ns ? l->list_ns : l->list_all;
	int r;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, resource, -1, SQLITE_STATIC);
	if (ns)
		sqlite3_bind_text(st, 2, ns, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		memset(&out->v[out->n], 0, sizeof(out->v[0]));
		row_to_item(st, &out->v[out->n++]);
	}
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : STORE_EIO;
}

/* ---- cursors (store_list_open) ----
 *
 * A cursor reads on a connection of its own, inside a read transaction:
 * in WAL mode that transaction sees the database as it was when it began
 * while the writer goes on committing, so a list sent a piece at a time
 * is still one version of the store. A cursor held open stops the
 * checkpoints short of its snapshot, and the WAL grows until it closes;
 * the API closes it when the answer is sent or its connection ends. The
 * connection is opened for the cursor and closed with it (0.2-0.5 ms):
 * kept open, its page cache and its mapping of the file stayed in the
 * daemon's RSS (1.1 MB more with 100 pods). It reads with pread into its
 * 256 KiB cache, not through a mapping of the file: rows read in name
 * order are scattered over the file, and the pages around each fault
 * that the kernel maps with it made most of the file resident in each
 * cursor's mapping (a list whose client read nothing held 14 MB of RSS
 * with 4,000 pods of 5 KB, 22 MB with 20,000 pods of 1 KB). */
struct lite_cursor {
	sqlite3 *db;
	sqlite3_stmt *st;
};

static int
lite_cursor_open(void *be, const char *resource, const char *ns, void **cur,
		 int64_t *rv)
{
	struct lite *l = be;
	struct lite_cursor *c;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	if (l->db == NULL)
		return STORE_EIO;
	if ((sqlite3_open_v2(l->path, &db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			     NULL) != SQLITE_OK ||
	     sqlite3_exec(db,
			  "PRAGMA cache_size=-256;"
			  "PRAGMA mmap_size=0;",
			  NULL, NULL, NULL) != SQLITE_OK)) {
		sqlite3_close(db);
		return STORE_EIO;
	}
	/* The snapshot begins with the read of the version. */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT v FROM meta WHERE k='rv'", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail;
	*rv = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, ns ? LIST_NS_SQL : LIST_ALL_SQL, -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, resource, -1, SQLITE_TRANSIENT);
	if (ns)
		sqlite3_bind_text(st, 2, ns, -1, SQLITE_TRANSIENT);
	c = xcalloc(1, sizeof(*c));
	c->db = db;
	c->st = st;
	*cur = c;
	return 0;
fail:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return STORE_EIO;
}

static int
lite_cursor_next(void *be, void *cur, size_t max, struct store_items *out,
		 bool *done)
{
	struct lite_cursor *c = cur;
	int r = SQLITE_ROW;

	(void)be;
	*done = false;
	while (max-- > 0 && (r = sqlite3_step(c->st)) == SQLITE_ROW) {
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		memset(&out->v[out->n], 0, sizeof(out->v[0]));
		row_to_item(c->st, &out->v[out->n++]);
	}
	if (r == SQLITE_DONE)
		*done = true;
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : STORE_EIO;
}

static void
lite_cursor_close(void *be, void *cur)
{
	struct lite_cursor *c = cur;

	(void)be;
	sqlite3_finalize(c->st);
	sqlite3_close(c->db); /* ends the read transaction */
	free(c);
}

/* Runs one of the transaction statements (literals), prepared on first
 * use; a text of several statements is run as it is. */
static int
exec(struct lite *l, const char *sql)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int r;

	for (i = 0; i < LITE_TX_STMTS && l->tx[i].sql && !st; i++)
		if (!strcmp(l->tx[i].sql, sql))
			st = l->tx[i].st;
	if (st == NULL && i < LITE_TX_STMTS && !strchr(sql, ';') &&
	    prep(l, sql, &st) == SQLITE_OK) {
		l->tx[i].sql = sql;
		l->tx[i].st = st;
	}
	if (st == NULL)
		return sqlite3_exec(l->db, sql, NULL, NULL, NULL) == SQLITE_OK
			   ? 0
			   : STORE_EIO;
	r = sqlite3_step(st);
	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : STORE_EIO;
}

static int
step_done(sqlite3_stmt *st)
{
	int r = sqlite3_step(st);

	sqlite3_reset(st);
	return r == SQLITE_DONE ? 0 : STORE_EIO;
}

/* Binds ?1-?6 of an INSERT or UPDATE: the key, rv, labels, value. */
static void
bind_row(sqlite3_stmt *st, const struct store_op *op)
{
	char *labels =
	    store_labels_encode(op->labels ? op->labels : &(struct strmap){0});

	bind_key(st, &op->key);
	sqlite3_bind_int64(st, 4, op->rv);
	sqlite3_bind_text(st, 5, labels, -1, free);
	sqlite3_bind_text(st, 6, op->value, -1, SQLITE_STATIC);
}

/* An update checks its precondition in the UPDATE itself: no read of
 * the row unless it fails (then: which way). */
static int
do_update(struct lite *l, struct store_op *op)
{
	int r;

	sqlite3_reset(l->upd);
	bind_row(l->upd, op);
	sqlite3_bind_int64(l->upd, 7, op->expect_rv);
	r = step_done(l->upd);
	if (r || sqlite3_changes(l->db) == 1)
		return r;
	r = lite_get(l, &op->key, &op->prev);
	if (r == 0) {
		store_item_release(&op->prev);
		r = STORE_ECONFLICT;
	}
	return r;
}

static int
do_op(struct lite *l, struct store_op *op)
{
	int r;

	if (op->kind == STORE_OP_UPDATE)
		return do_update(l, op);
	r = lite_get(l, &op->key, &op->prev);
	if (r == STORE_EIO)
		return r;
	if (op->kind == STORE_OP_CREATE) {
		if (r == 0) {
			store_item_release(&op->prev);
			return STORE_EEXIST;
		}
	} else {
		if (r == STORE_ENOENT)
			return r;
		if (op->expect_rv && op->prev.rv != op->expect_rv)
			return STORE_ECONFLICT;
	}
	if (op->kind == STORE_OP_DELETE) {
		sqlite3_reset(l->del);
		bind_key(l->del, &op->key);
		return step_done(l->del);
	}
	sqlite3_reset(l->ins);
	bind_row(l->ins, op);
	return step_done(l->ins);
}

static int
lite_txn(void *be, struct store_op *ops, size_t n, int64_t first_rv,
	 size_t *failed)
{
	struct lite *l = be;
	size_t i, j;
	int r;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(ops[i].key.resource, ops[j].key.resource) &&
			    !strcmp(ops[i].key.ns, ops[j].key.ns) &&
			    !strcmp(ops[i].key.name, ops[j].key.name)) {
				*failed = i;
				return STORE_ECONFLICT;
			}
	if (l->deferred && !l->open) {
		if (exec(l, "BEGIN IMMEDIATE"))
			return STORE_EIO;
		l->open = true;
	}
	if (exec(l, l->deferred ? "SAVEPOINT w" : "BEGIN IMMEDIATE"))
		return STORE_EIO;
	for (i = 0; i < n; i++) {
		ops[i].rv = first_rv + (int64_t)i;
		if ((r = do_op(l, &ops[i]))) {
			*failed = i;
			for (j = 0; j <= i; j++)
				store_item_release(&ops[j].prev);
			exec(l, l->deferred ? "ROLLBACK TO w; RELEASE w"
					    : "ROLLBACK");
			return r;
		}
	}
	sqlite3_reset(l->set_rv);
	sqlite3_bind_int64(l->set_rv, 1, first_rv + (int64_t)n - 1);
	if (step_done(l->set_rv) ||
	    exec(l, l->deferred ? "RELEASE w" : "COMMIT")) {
		for (j = 0; j < n; j++)
			store_item_release(&ops[j].prev);
		exec(l, l->deferred ? "ROLLBACK TO w; RELEASE w" : "ROLLBACK");
		*failed = 0;
		return STORE_EIO;
	}
	l->rv = first_rv + (int64_t)n - 1;
	return 0;
}

static int
lite_flush(void *be)
{
	struct lite *l = be;

	if (!l->open)
		return 0;
	l->open = false;
	if (exec(l, "COMMIT")) {
		exec(l, "ROLLBACK");
		return STORE_EIO;
	}
	return 0;
}

static void
lite_set_deferred(void *be, bool on)
{
	struct lite *l = be;

	if (!on)
		lite_flush(l);
	l->deferred = on;
}

static void
lite_rollback(void *be)
{
	struct lite *l = be;

	/* After SQLITE_FULL or SQLITE_IOERR SQLite may have rolled back
	 * already; a second ROLLBACK then fails harmlessly. */
	if (!sqlite3_get_autocommit(l->db))
		exec(l, "ROLLBACK");
	l->open = false;
}

/* A non-zero return turns the COMMIT into a ROLLBACK, as a failed write
 * of the WAL would. */
static int
on_commit(void *arg)
{
	struct lite *l = arg;

	if (l->fail_commits > 0) {
		l->fail_commits--;
		return 1;
	}
	return 0;
}

/* Once writes stop, how long the checkpointer waits before it copies
 * the last frames of the WAL: then the next write starts the WAL over,
 * and journal_size_limit cuts its file back. */
#define CKPT_IDLE_MS 1000

static void *
ckpt_main(void *arg)
{
	struct ckpt *ck = arg;
	bool behind = false; /* the WAL has frames not copied back yet */

	pthread_mutex_lock(&ck->mu);
	for (;;) {
		while (!ck->want && !ck->stop) {
			struct timespec until;

			if (!behind) {
				pthread_cond_wait(&ck->cv, &ck->mu);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += CKPT_IDLE_MS / 1000;
			until.tv_nsec += (CKPT_IDLE_MS % 1000) * 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			if (pthread_cond_timedwait(&ck->cv, &ck->mu, &until) ==
			    ETIMEDOUT)
				break; /* quiet: copy the rest */
		}
		if (ck->stop)
			break;
		ck->want = false;
		pthread_mutex_unlock(&ck->mu);
		/* A connection knows the database is in WAL mode once it
		 * has read it: before, a checkpoint does nothing. */
		if (ck->db == NULL &&
		    (sqlite3_open_v2(ck->path, &ck->db,
				     SQLITE_OPEN_READWRITE |
					 SQLITE_OPEN_NOMUTEX,
				     NULL) != SQLITE_OK ||
		     sqlite3_exec(ck->db, "PRAGMA journal_mode", NULL, NULL,
				  NULL) != SQLITE_OK)) {
			sqlite3_close(ck->db); /* tried again next time */
			ck->db = NULL;
		}
		/* A failure (a full disk) leaves the WAL as it is: the
		 * next commit past CKPT_PAGES asks again. */
		behind = false;
		if (ck->db) {
			int log = 0, copied = 0;

			sqlite3_wal_checkpoint_v2(ck->db, NULL,
						  SQLITE_CHECKPOINT_PASSIVE,
						  &log, &copied);
			behind = copied < log;
		}
		pthread_mutex_lock(&ck->mu);
	}
	pthread_mutex_unlock(&ck->mu);
	return NULL;
}

static struct ckpt *
ckpt_start(const char *path)
{
	struct ckpt *ck = xcalloc(1, sizeof(*ck));

	pthread_mutex_init(&ck->mu, NULL);
	pthread_cond_init(&ck->cv, NULL);
	ck->path = xstrdup(path);
	if (pthread_create(&ck->th, NULL, ckpt_main, ck)) {
		pthread_mutex_destroy(&ck->mu);
		pthread_cond_destroy(&ck->cv);
		free(ck->path);
		free(ck);
		return NULL;
	}
	return ck;
}

static void
ckpt_stop(struct ckpt *ck)
{
	if (ck == NULL)
		return;
	pthread_mutex_lock(&ck->mu);
	ck->stop = true;
	pthread_cond_signal(&ck->cv);
	pthread_mutex_unlock(&ck->mu);
	pthread_join(ck->th, NULL);
	sqlite3_close(ck->db);
	pthread_mutex_destroy(&ck->mu);
	pthread_cond_destroy(&ck->cv);
	free(ck->path);
	free(ck);
}

/* After each commit (SQLite's wal hook, which replaces its automatic
 * checkpoints): past CKPT_PAGES, the checkpointer is asked to run. If
 * its thread cannot be made, the checkpoint runs here, as SQLite's own
 * would. */
static int
on_wal(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct lite *l = arg;

	(void)name;
	if (pages < CKPT_PAGES)
		return SQLITE_OK;
	if (l->ck == NULL)
		l->ck = ckpt_start(l->path);
	if (l->ck == NULL || pages >= CKPT_INLINE_PAGES) {
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
		return SQLITE_OK;
	}
	pthread_mutex_lock(&l->ck->mu);
	l->ck->want = true;
	pthread_cond_signal(&l->ck->cv);
	pthread_mutex_unlock(&l->ck->mu);
	return SQLITE_OK;
}

static void
lite_fail_commits(void *be, int n)
{
	((struct lite *)be)->fail_commits = n;
}

static int64_t
lite_current_rv(void *be)
{
	return ((struct lite *)be)->rv;
}

static void
lite_disconnect(struct lite *l)
{
	size_t i;

	sqlite3_finalize(l->get);
	sqlite3_finalize(l->list_ns);
	sqlite3_finalize(l->list_all);
	sqlite3_finalize(l->ins);
	sqlite3_finalize(l->upd);
	sqlite3_finalize(l->del);
	sqlite3_finalize(l->set_rv);
	for (i = 0; i < LITE_TX_STMTS; i++) {
		sqlite3_finalize(l->tx[i].st);
		l->tx[i].sql = NULL;
		l->tx[i].st = NULL;
	}
	sqlite3_close(l->db);
	l->get = l->list_ns = l->list_all = l->ins = l->upd = l->del =
	    l->set_rv = NULL;
	l->db = NULL;
}

static void
lite_close(void *be)
{
	struct lite *l = be;

	if (l->db)
		lite_flush(l);
	if (l->sy) {
		syncer_ask(l->sy, l->rv);
		syncer_stop(l->sy, NULL, NULL);
	}
	ckpt_stop(l->ck);
	lite_disconnect(l);
	free(l->path);
	free(l);
}

/* The database and its companions are the owner's alone (0600). */
static void
make_private(const char *path)
{
	char p[1100];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (fchmod(fd, 0600)) {
			/* reported by the open that follows, if it matters */
		}
		close(fd);
	}
	snprintf(p, sizeof(p), "%s-wal", path);
	if (chmod(p, 0600) && errno != ENOENT) {
		/* idem */
	}
	snprintf(p, sizeof(p), "%s-shm", path);
	if (chmod(p, 0600) && errno != ENOENT) {
		/* idem */
	}
}

static bool
wal_exists(const char *path)
{
	char p[1100];
	struct stat st;

	snprintf(p, sizeof(p), "%s-wal", path);
	return stat(p, &st) == 0 && st.st_size > 0;
}

/* "file:PATH?immutable=1", PATH escaped as a URI path. */
static char *
immutable_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *c;

	strbuf_addstr(&sb, "file:");
	for (c = path; *c; c++) {
		if (*c == '%' || *c == '?' || *c == '#')
			strbuf_addf(&sb, "%%%02X", (unsigned char)*c);
		else
			strbuf_addch(&sb, *c);
	}
	strbuf_addstr(&sb, "?immutable=1");
	return strbuf_detach(&sb);
}

/* A database written by an earlier drover keeps its objects in a
 * WITHOUT ROWID table: copied into the current layout in one
 * transaction (all or nothing; a crash in the middle leaves the old
 * table as it was). The column names are the same, so a database opened
 * read-only is read in either layout. */
static int
migrate_objects(sqlite3 *db)
{
	static const char sql[] =
	    "BEGIN IMMEDIATE;"
	    "ALTER TABLE objects RENAME TO objects_without_rowid;"
	    "CREATE TABLE objects (" OBJECTS_COLUMNS ");"
	    "INSERT INTO objects (resource, ns, name, rv, labels, value)"
	    " SELECT resource, ns, name, rv, labels, value"
	    " FROM objects_without_rowid ORDER BY rv;"
	    "DROP TABLE objects_without_rowid;"
	    "COMMIT;";
	sqlite3_stmt *st;
	bool old = false;

	if (sqlite3_prepare_v2(db,
			       "SELECT sql FROM sqlite_master WHERE "
			       "type='table' AND name='objects'",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		old = strstr((const char *)sqlite3_column_text(st, 0),
			     "WITHOUT ROWID") != NULL;
	sqlite3_finalize(st);
	if (!old)
		return 0;
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		if (!sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

/* Opens l->path for writing (creating the schema) or, with ro, for
 * reading only: 0, or -1 with a message. */
static int
lite_connect(struct lite *l, bool ro, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int flags = ro ? SQLITE_OPEN_READONLY
		       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	char *uri = NULL;

	if (!ro)
		make_private(l->path);
	else if (!wal_exists(l->path))
		/* No WAL: everything is in the database file, which can be
		 * read without the -shm file SQLite could not create. */
		uri = immutable_uri(l->path);
	if (sqlite3_open_v2(uri ? uri : l->path, &l->db,
			    flags | SQLITE_OPEN_NOMUTEX |
				(uri ? SQLITE_OPEN_URI : 0),
			    NULL) != SQLITE_OK ||
	    sqlite3_exec(l->db, ro ? "PRAGMA cache_size=-256" : schema_sql,
			 NULL, NULL, NULL) != SQLITE_OK ||
	    (!ro && migrate_objects(l->db)) ||
	    prep(l,
		 "SELECT resource, ns, name, rv, labels, value FROM objects "
		 "WHERE resource=?1 AND ns=?2 AND name=?3",
		 &l->get) ||
	    prep(l, LIST_NS_SQL, &l->list_ns) ||
	    prep(l, LIST_ALL_SQL, &l->list_all) ||
	    prep(l,
		 "INSERT INTO objects (resource, ns, name, rv, labels, value) "
		 "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
		 &l->ins) ||
	    prep(l,
		 "UPDATE objects SET rv=?4, labels=?5, value=?6 "
		 "WHERE resource=?1 AND ns=?2 AND name=?3 AND (?7=0 OR rv=?7)",
		 &l->upd) ||
	    prep(l,
		 "DELETE FROM objects WHERE resource=?1 AND ns=?2 AND name=?3",
		 &l->del) ||
	    prep(l, "UPDATE meta SET v=?1 WHERE k='rv'", &l->set_rv) ||
	    prep(l, "SELECT v FROM meta WHERE k='rv'", &st)) {
		snprintf(err, errlen, "%s: %s", l->path,
			 l->db ? sqlite3_errmsg(l->db) : "cannot open");
		sqlite3_finalize(st);
		lite_disconnect(l);
		free(uri);
		return -1;
	}
	free(uri);
	l->rv = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		l->rv = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_busy_timeout(l->db, 5000);
	sqlite3_commit_hook(l->db, on_commit, l);
	if (!ro)
		sqlite3_wal_hook(l->db, on_wal, l);
	return 0;
}

static int
set_synchronous(struct lite *l)
{
	return sqlite3_exec(l->db,
			    l->sy ? "PRAGMA synchronous=NORMAL"
				  : "PRAGMA synchronous=FULL",
			    NULL, NULL, NULL) == SQLITE_OK
		   ? 0
		   : -1;
}

static int
lite_background(void *be, void (*notify)(void *arg), void *arg)
{
	struct lite *l = be;
	char *wal;

	if (notify == NULL) {
		if (l->sy == NULL)
			return 0;
		syncer_stop(l->sy, &l->synced, &l->sync_err);
		l->sy = NULL;
		return l->db ? set_synchronous(l) : 0;
	}
	if (l->sy)
		return -1;
	wal = xmalloc(strlen(l->path) + 5);
	strcpy(wal, l->path);
	strcat(wal, "-wal");
	l->sy = syncer_start(wal, l->rv, notify, arg);
	free(wal);
	if (l->sy == NULL)
		return -1;
	if (l->db && set_synchronous(l)) {
		syncer_stop(l->sy, NULL, NULL);
		l->sy = NULL;
		return -1;
	}
	return 0;
}

static void
lite_sync(void *be, int64_t rv)
{
	struct lite *l = be;

	if (l->sy)
		syncer_ask(l->sy, rv);
	else if (rv > l->synced)
		l->synced = rv;
}

static void
lite_fail_syncs(void *be, int n)
{
	struct lite *l = be;

	if (l->sy)
		syncer_fail_next(l->sy, n);
}

static int64_t
lite_synced(void *be, int *err)
{
	struct lite *l = be;

	if (l->sy)
		return syncer_done(l->sy, err);
	*err = l->sync_err;
	return l->synced;
}

static void
lite_fsync_seconds(void *be, struct histogram *out)
{
	struct lite *l = be;

	if (l->sy)
		syncer_fsync_seconds(l->sy, out);
}

/* Read-only to writable: a new connection, or the old one kept. */
static int
lite_reopen(void *be, char *err, size_t errlen)
{
	struct lite *l = be, n = {.path = l->path};

	if (lite_connect(&n, false, err, errlen))
		return -1;
	lite_disconnect(l);
	n.fail_commits = l->fail_commits;
	n.ck = l->ck;
	n.sy = l->sy;
	n.synced = l->synced;
	n.sync_err = l->sync_err;
	*l = n;
	if (l->sy && set_synchronous(l))
		return -1;
	sqlite3_commit_hook(l->db, on_commit, l);
	sqlite3_wal_hook(l->db, on_wal, l);
	return 0;
}

static const struct store_backend_ops lite_ops = {
    .name = "sqlite",
    .get = lite_get,
    .list = lite_list,
    .txn = lite_txn,
    .current_rv = lite_current_rv,
    .close = lite_close,
    .set_deferred = lite_set_deferred,
    .flush = lite_flush,
    .rollback = lite_rollback,
    .fail_commits = lite_fail_commits,
    .reopen = lite_reopen,
    .background = lite_background,
    .sync = lite_sync,
    .synced = lite_synced,
    .fail_syncs = lite_fail_syncs,
    .fsync_seconds = lite_fsync_seconds,
    .cursor_open = lite_cursor_open,
    .cursor_next = lite_cursor_next,
    .cursor_close = lite_cursor_close,
};

struct store *
store_sqlite_open(const char *path, size_t history, char *err, size_t errlen)
{
	struct lite *l = xcalloc(1, sizeof(*l));
	struct store *s;
	char rerr[600];

	l->path = xstrdup(path);
	if (lite_connect(l, false, err, errlen) == 0)
		return store_new(&lite_ops, l, history);
	/* Readable, if not writable: the operator can look and delete. */
	if (lite_connect(l, true, rerr, sizeof(rerr))) {
		size_t n = strlen(err);

		snprintf(err + n, errlen - n, " (read-only: %s)", rerr);
		lite_close(l);
		return NULL;
	}
	s = store_new(&lite_ops, l, history);
	store_mark_readonly(s);
	return s;
}
