/* store_sqlite.c - the SQLite backend (the embedded default).
 *
 * One table of objects keyed by (resource, ns, name) and one row holding
 * the highest resourceVersion, written in the same transaction as the
 * objects, so the counter never goes back after a crash. Journal mode WAL
 * with synchronous=FULL: a transaction is on disk (WAL fsynced) before the
 * call returns, which is what "durable before the API answers" requires;
 * NORMAL would be crash-safe for the process but could lose the last
 * commits on power loss. One connection, one writer (the event loop).
 *
 * Deferred mode (group commit, see store.h): the first write opens a
 * transaction that stays open until lite_flush(); each txn inside it is a
 * savepoint, so that a failed one undoes itself alone. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "xalloc.h"

struct lite {
	sqlite3 *db;
	sqlite3_stmt *get, *list_ns, *list_all, *ins, *upd, *del, *set_rv;
	int64_t rv;
	bool deferred; /* group commit */
	bool open;     /* a deferred transaction is open */
};

static const char schema_sql[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    /* 256 KiB of page cache: the hot pages of one host's objects; the
     * OS cache holds the rest, a pread away. */
    "PRAGMA cache_size=-256;"
    "PRAGMA foreign_keys=OFF;"
    "CREATE TABLE IF NOT EXISTS objects ("
    " resource TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"
    " rv INTEGER NOT NULL, labels TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (resource, ns, name)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER);"
    "INSERT OR IGNORE INTO meta (k, v) VALUES ('rv', 0);";

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

static int
exec(struct lite *l, const char *sql)
{
	return sqlite3_exec(l->db, sql, NULL, NULL, NULL) == SQLITE_OK
		   ? 0
		   : STORE_EIO;
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

static int64_t
lite_current_rv(void *be)
{
	return ((struct lite *)be)->rv;
}

static void
lite_close(void *be)
{
	struct lite *l = be;

	lite_flush(l);
	sqlite3_finalize(l->get);
	sqlite3_finalize(l->list_ns);
	sqlite3_finalize(l->list_all);
	sqlite3_finalize(l->ins);
	sqlite3_finalize(l->upd);
	sqlite3_finalize(l->del);
	sqlite3_finalize(l->set_rv);
	sqlite3_close(l->db);
	free(l);
}

static const struct store_backend_ops lite_ops = {
    "sqlite",        lite_get,   lite_list,         lite_txn,
    lite_current_rv, lite_close, lite_set_deferred, lite_flush,
};

struct store *
store_sqlite_open(const char *path, size_t history, char *err, size_t errlen)
{
	struct lite *l = xcalloc(1, sizeof(*l));
	sqlite3_stmt *st;

	if (sqlite3_open_v2(path, &l->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK ||
	    sqlite3_exec(l->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    prep(l,
		 "SELECT resource, ns, name, rv, labels, value FROM objects "
		 "WHERE resource=?1 AND ns=?2 AND name=?3",
		 &l->get) ||
	    prep(l,
		 "SELECT resource, ns, name, rv, labels, value FROM objects "
		 "WHERE resource=?1 AND ns=?2 ORDER BY ns, name",
		 &l->list_ns) ||
	    prep(l,
		 "SELECT resource, ns, name, rv, labels, value FROM objects "
		 "WHERE resource=?1 ORDER BY ns, name",
		 &l->list_all) ||
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
		snprintf(err, errlen, "%s: %s", path,
			 l->db ? sqlite3_errmsg(l->db) : "cannot open");
		lite_close(l);
		return NULL;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		l->rv = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_busy_timeout(l->db, 5000);
	return store_new(&lite_ops, l, history);
}
