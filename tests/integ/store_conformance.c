/* store_conformance.c - one suite, run against every store backend:
 * CRUD, compare-and-swap, transactions, label-selector lists, lists read
 * a piece at a time from a snapshot (store_list_open), the global
 * resourceVersion, watch from history, 410 Gone, sticky durability across
 * reopen (sqlite), and the same with group commit (deferred mode), whose
 * writes survive a crash only once flushed; a group whose commit fails
 * (a full disk, by the fault hook) is rolled back everywhere, and the
 * store's files are private. The SQLite backend runs it three ways: each
 * write durable, group commit, and group commit synced by a thread
 * (store_sync_in_background, as `drover serve` runs it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "labels.h"
#include "store.h"
#include "xalloc.h"

struct backend {
	const char *name;
	struct store *(*open)(const char *dir, size_t history);
	bool durable;
};

static char tmpdir[256];

static struct store *
open_mem(const char *dir, size_t history)
{
	(void)dir;
	return store_mem_open(history);
}

static struct store *
open_sqlite(const char *dir, size_t history)
{
	char path[512], err[256];
	struct store *s;

	snprintf(path, sizeof(path), "%s/state.db", dir);
	s = store_sqlite_open(path, history, err, sizeof(err));
	if (s == NULL)
		fail_msg("open: %s", err);
	return s;
}

static struct store *
open_sqlite_deferred(const char *dir, size_t history)
{
	struct store *s = open_sqlite(dir, history);

	store_set_deferred(s, true);
	return s;
}

/* The background sync's notify writes a byte here; the tests wait on
 * it as the daemon's loop does. */
static int notify_pipe[2] = {-1, -1};

static void
notify(void *arg)
{
	(void)arg;
	if (write(notify_pipe[1], "x", 1) < 0)
		return; /* the waiter times out and fails the test */
}

static void
wait_notified(void)
{
	struct pollfd p = {.fd = notify_pipe[0], .events = POLLIN};
	char buf[64];

	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_true(read(notify_pipe[0], buf, sizeof(buf)) > 0);
}

static struct store *
open_sqlite_background(const char *dir, size_t history)
{
	struct store *s = open_sqlite_deferred(dir, history);

	if (notify_pipe[0] < 0 && pipe(notify_pipe))
		fail_msg("pipe");
	assert_int_equal(store_sync_in_background(s, notify, NULL), 0);
	return s;
}

static const struct backend backends[] = {
    {"memory", open_mem, false},
    {"sqlite", open_sqlite, true},
    {"sqlite-deferred", open_sqlite_deferred, true},
    {"sqlite-background", open_sqlite_background, true},
};

/* store_flush, and with a background sync the wait for it, as the loop
 * would: then everything written is durable. */
static int
flush(struct store *s)
{
	int r = store_flush(s);

	while (store_committed_rv(s) < store_rv(s)) {
		wait_notified();
		if (store_synced(s))
			return STORE_EIO;
	}
	return r;
}

static const struct backend *cur;

static int
setup(void **state)
{
	char cmd[300];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/drover-store-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	(void)cmd;
	*state = cur->open(tmpdir, 4);
	return *state ? 0 : -1;
}

/* The database and its -wal and -shm files, gone. */
static void
remove_db_files(void)
{
	static const char *const sfx[] = {"-wal", "-shm", ""};
	char path[512];
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/state.db%s", tmpdir, sfx[i]);
		unlink(path);
	}
}

static int
teardown(void **state)
{
	store_free(*state);
	remove_db_files();
	rmdir(tmpdir);
	return 0;
}

/* A pods key as a compound literal (an lvalue, so &K(...) works). */
#define K(ns, name) ((struct store_key){"pods", (ns), (name)})

static void
test_crud_and_rv(void **state)
{
	struct store *s = *state;
	struct store_key a = K("default", "a");
	struct store_item it;
	struct strmap labels = {0};
	int64_t rv1, rv2, rv3, rv4;

	strmap_set(&labels, "app", "web");
	assert_int_equal(store_get(s, &a, &it), STORE_ENOENT);
	assert_int_equal(store_create(s, &a, "{\"v\":1}", &labels, &rv1), 0);
	assert_int_equal(store_create(s, &a, "{}", &labels, NULL),
			 STORE_EEXIST);
	assert_int_equal(store_get(s, &a, &it), 0);
	assert_string_equal(it.value, "{\"v\":1}");
	assert_int_equal(it.rv, rv1);
	assert_string_equal(strmap_get(&it.labels, "app"), "web");
	store_item_release(&it);
	/* CAS */
	assert_int_equal(
	    store_update(s, &a, "{\"v\":2}", &labels, rv1 + 7, NULL),
	    STORE_ECONFLICT);
	assert_int_equal(store_update(s, &a, "{\"v\":2}", &labels, rv1, &rv2),
			 0);
	assert_true(rv2 > rv1);
	assert_int_equal(store_update(s, &a, "{\"v\":3}", &labels, 0, &rv3), 0);
	assert_true(rv3 > rv2);
	assert_int_equal(store_delete(s, &a, rv1, NULL), STORE_ECONFLICT);
	assert_int_equal(store_delete(s, &a, rv3, &rv4), 0);
	assert_true(rv4 > rv3);
	assert_int_equal(store_rv(s), rv4);
	assert_int_equal(store_delete(s, &a, 0, NULL), STORE_ENOENT);
	assert_int_equal(store_update(s, &a, "{}", &labels, 0, NULL),
			 STORE_ENOENT);
	strmap_release(&labels);
}

static void
test_list_selector(void **state)
{
	struct store *s = *state;
	struct strmap web = {0}, db = {0};
	struct label_selector sel = {0};
	struct store_items items;
	char err[100];
	int64_t rv;

	strmap_set(&web, "app", "web");
	strmap_set(&db, "app", "db");
	store_create(s, &K("b", "x"), "1", &web, NULL);
	store_create(s, &K("a", "y"), "2", &db, NULL);
	store_create(s, &K("a", "x"), "3", &web, NULL);
	store_create(s, &(struct store_key){"deployments", "a", "x"}, "4", &web,
		     NULL);
	assert_int_equal(store_list(s, "pods", NULL, NULL, &items, &rv), 0);
	assert_int_equal(items.n, 3);
	assert_string_equal(items.v[0].ns, "a"); /* sorted by ns, name */
	assert_string_equal(items.v[0].name, "x");
	assert_string_equal(items.v[2].ns, "b");
	assert_int_equal(rv, store_rv(s));
	store_items_release(&items);
	assert_int_equal(store_list(s, "pods", "a", NULL, &items, &rv), 0);
	assert_int_equal(items.n, 2);
	store_items_release(&items);
	assert_int_equal(selector_parse("app=web", &sel, err, sizeof(err)), 0);
	assert_int_equal(store_list(s, "pods", NULL, &sel, &items, &rv), 0);
	assert_int_equal(items.n, 2);
	assert_string_equal(items.v[0].value, "3");
	store_items_release(&items);
	schema_release(&schema_label_selector, &sel);
	strmap_release(&web);
	strmap_release(&db);
}

/* A list a piece at a time: sorted, filtered, and the store as it was at
 * the open, whatever is written while it is read. */
static void
test_list_cursor(void **state)
{
	struct store *s = *state;
	struct strmap web = {0}, db = {0};
	struct label_selector sel = {0};
	struct store_cursor *c;
	struct store_items items = {0};
	char err[100];
	int64_t rv, rv_x;
	bool done = false;
	int calls = 0;

	strmap_set(&web, "app", "web");
	strmap_set(&db, "app", "db");
	store_create(s, &K("b", "x"), "1", &web, NULL);
	store_create(s, &K("a", "y"), "2", &db, NULL);
	store_create(s, &K("a", "x"), "3", &web, &rv_x);
	assert_int_equal(flush(s), 0);
	assert_int_equal(selector_parse("app=web", &sel, err, sizeof(err)), 0);
	assert_int_equal(store_list_open(s, "pods", NULL, &sel, &c, &rv), 0);
	assert_int_equal(rv, store_rv(s));
	/* written while the list is read */
	store_create(s, &K("a", "w"), "4", &web, NULL);
	store_update(s, &K("a", "x"), "5", &web, rv_x, NULL);
	store_delete(s, &K("b", "x"), 0, NULL);
	assert_int_equal(flush(s), 0);
	while (!done) {
		assert_int_equal(store_list_next(c, 1, &items, &done), 0);
		assert_true(++calls < 10);
	}
	store_list_close(c);
	assert_int_equal(items.n, 2);
	assert_string_equal(items.v[0].ns, "a");
	assert_string_equal(items.v[0].name, "x");
	assert_string_equal(items.v[0].value, "3");
	assert_int_equal(items.v[0].rv, rv_x);
	assert_string_equal(items.v[1].ns, "b");
	assert_string_equal(items.v[1].value, "1");
	store_items_release(&items);
	/* the next cursor sees the writes; closed before the end */
	assert_int_equal(store_list_open(s, "pods", "a", NULL, &c, &rv), 0);
	assert_int_equal(rv, store_rv(s));
	assert_int_equal(store_list_next(c, 2, &items, &done), 0);
	assert_int_equal(items.n, 2);
	assert_string_equal(items.v[0].name, "w");
	assert_string_equal(items.v[1].value, "5");
	store_list_close(c);
	store_items_release(&items);
	schema_release(&schema_label_selector, &sel);
	strmap_release(&web);
	strmap_release(&db);
}

static void
test_txn_all_or_nothing(void **state)
{
	struct store *s = *state;
	struct store_op ops[3] = {
	    {.kind = STORE_OP_CREATE, .key = K("t", "a"), .value = "a"},
	    {.kind = STORE_OP_CREATE, .key = K("t", "b"), .value = "b"},
	    {.kind = STORE_OP_UPDATE, .key = K("t", "missing"), .value = "c"},
	};
	struct store_items items;
	size_t failed = 99, i;
	int64_t rv0 = store_rv(s), rv;

	assert_int_equal(store_txn(s, ops, 3, &failed), STORE_ENOENT);
	assert_int_equal(failed, 2);
	assert_int_equal(store_rv(s), rv0);
	store_list(s, "pods", "t", NULL, &items, &rv);
	assert_int_equal(items.n, 0);
	store_items_release(&items);
	assert_int_equal(store_txn(s, ops, 2, &failed), 0);
	assert_int_equal(ops[0].rv, rv0 + 1);
	assert_int_equal(ops[1].rv, rv0 + 2);
	for (i = 0; i < 3; i++)
		store_item_release(&ops[i].prev);
	store_list(s, "pods", "t", NULL, &items, &rv);
	assert_int_equal(items.n, 2);
	store_items_release(&items);
}

struct seen {
	int n;
	enum store_event_type type[16];
	int64_t rv[16];
	char name[16][16];
};

static void
on_event(void *arg, const struct store_event *ev)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->type[s->n] = ev->type;
		s->rv[s->n] = ev->item->rv;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s",
			 ev->item->name);
	}
	s->n++;
}

static void
test_watch_resume_and_gone(void **state)
{
	struct store *s = *state;
	struct store_watch *w;
	struct seen live = {0}, resumed = {0};
	int64_t rv1, rv2, rv3;

	assert_int_equal(store_watch(s, "pods", "w", 0, on_event, &live, &w),
			 0);
	store_create(s, &K("w", "a"), "a", NULL, &rv1);
	store_create(s, &K("other", "z"), "z", NULL, NULL);
	store_update(s, &K("w", "a"), "a2", NULL, 0, &rv2);
	store_delete(s, &K("w", "a"), 0, &rv3);
	assert_int_equal(flush(s), 0); /* with group commit */
	store_deliver(s);
	assert_int_equal(live.n, 3);
	assert_int_equal(live.type[0], STORE_ADDED);
	assert_int_equal(live.type[1], STORE_MODIFIED);
	assert_int_equal(live.type[2], STORE_DELETED);
	assert_int_equal(live.rv[2], rv3);
	store_unwatch(s, w);
	/* resume from rv1: the MODIFIED and DELETED again */
	assert_int_equal(
	    store_watch(s, "pods", "w", rv1, on_event, &resumed, &w), 0);
	assert_int_equal(resumed.n, 2);
	assert_int_equal(resumed.rv[0], rv2);
	store_unwatch(s, w);
	/* history holds 4 events (committed ones: a group's events stay
	 * until its commit): older rvs are gone */
	assert_int_equal(flush(s), 0);
	store_create(s, &K("w", "b"), "b", NULL, NULL);
	store_create(s, &K("w", "c"), "c", NULL, NULL);
	assert_int_equal(
	    store_watch(s, "pods", "w", rv1, on_event, &resumed, &w),
	    STORE_EGONE);
	assert_null(w);
}

/* A byte bound on the history drops the oldest events beyond it (but
 * never the newest 64); without one the count alone decides. */
static void
test_history_byte_bound(void **state)
{
	struct store *s = *state;
	struct store_watch *w;
	struct seen got = {0};
	char big[1001], name[16];
	int64_t rv[200];
	int i;

	store_free(s);
	s = *state = cur->open(tmpdir, 1000);
	store_set_deferred(s, false); /* one commit a write */
	memset(big, 'x', 1000);
	big[1000] = '\0';
	store_limit_history(s, 100 * 1000);
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "o%d", i);
		assert_int_equal(
		    store_create(s, &K("h", name), big, NULL, &rv[i]), 0);
		assert_int_equal(flush(s), 0); /* a background sync too */
	}
	/* about 100 events fit: the 50th is gone, the 150th is not */
	assert_int_equal(
	    store_watch(s, "pods", "h", rv[50], on_event, &got, &w),
	    STORE_EGONE);
	assert_int_equal(
	    store_watch(s, "pods", "h", rv[150], on_event, &got, &w), 0);
	assert_int_equal(got.n, 49);
	store_unwatch(s, w);
	/* far below the newest 64: still those 64 */
	store_limit_history(s, 1);
	store_create(s, &K("h", "last"), big, NULL, NULL);
	got.n = 0;
	assert_int_equal(
	    store_watch(s, "pods", "h", rv[136], on_event, &got, &w), 0);
	assert_int_equal(got.n, 64);
	store_unwatch(s, w);
	assert_int_equal(
	    store_watch(s, "pods", "h", rv[135], on_event, &got, &w),
	    STORE_EGONE);
	/* unbounded: the count (1000) keeps everything */
	store_limit_history(s, 0);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		store_create(s, &K("h", name), big, NULL, NULL);
	}
	got.n = 0;
	assert_int_equal(
	    store_watch(s, "pods", "h", rv[136], on_event, &got, &w), 0);
	assert_int_equal(got.n, 74);
	store_unwatch(s, w);
}

struct self_unwatch {
	struct store *s;
	struct store_watch *w;
	int calls;
};

static void
unwatch_cb(void *arg, const struct store_event *ev)
{
	struct self_unwatch *u = arg;

	(void)ev;
	u->calls++;
	store_unwatch(u->s, u->w); /* from inside the fan-out */
}

static void
test_unwatch_inside_callback(void **state)
{
	struct store *s = *state;
	struct self_unwatch u = {.s = s};
	struct seen other = {0};
	struct store_watch *w2;

	assert_int_equal(store_watch(s, NULL, NULL, 0, unwatch_cb, &u, &u.w),
			 0);
	assert_int_equal(store_watch(s, NULL, NULL, 0, on_event, &other, &w2),
			 0);
	store_create(s, &K("u", "a"), "a", NULL, NULL);
	store_create(s, &K("u", "b"), "b", NULL, NULL);
	assert_int_equal(flush(s), 0); /* with group commit */
	store_deliver(s);
	assert_int_equal(u.calls, 1);
	assert_int_equal(other.n, 2);
	store_unwatch(s, w2);
}

static void
test_durable_reopen(void **state)
{
	struct store *s = *state;
	struct store_item it;
	int64_t rv;

	if (!cur->durable)
		return;
	store_create(s, &K("d", "a"), "kept", NULL, &rv);
	store_free(s);
	s = *state = cur->open(tmpdir, 4);
	assert_int_equal(store_rv(s), rv);
	assert_int_equal(store_get(s, &K("d", "a"), &it), 0);
	assert_string_equal(it.value, "kept");
	store_item_release(&it);
	/* rv keeps growing after a delete and a reopen */
	store_delete(s, &K("d", "a"), 0, &rv);
	store_free(s);
	s = *state = cur->open(tmpdir, 4);
	assert_int_equal(store_rv(s), rv);
}

/* A process that writes and dies without a flush loses the write; one
 * that flushes first keeps it. Each write happens in a child that ends
 * with _exit, as a crash would (no store_free, no commit on close). */
static void
crash_after(const char *name, bool flush)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct store *s = open_sqlite(tmpdir, 4);
		struct store_op ops[1] = {{.kind = STORE_OP_CREATE,
					   .key = K("c", name),
					   .value = "v"}};

		store_set_deferred(s, true);
		if (store_txn(s, ops, 1, NULL))
			_exit(2);
		store_item_release(&ops[0].prev);
		if (flush && store_flush(s))
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void
test_deferred_crash(void **state)
{
	struct store *s = *state;
	struct store_item it;

	if (!cur->durable)
		return;
	store_free(s);
	*state = NULL;
	crash_after("lost", false);
	crash_after("kept", true);
	s = *state = cur->open(tmpdir, 4);
	assert_int_equal(store_get(s, &K("c", "lost"), &it), STORE_ENOENT);
	assert_int_equal(store_get(s, &K("c", "kept"), &it), 0);
	assert_string_equal(it.value, "v");
	store_item_release(&it);
}

/* In one group, a write that fails undoes itself alone. */
static void
test_deferred_failed_write(void **state)
{
	struct store *s = *state;
	struct store_item it;

	store_set_deferred(s, true);
	assert_int_equal(store_create(s, &K("g", "a"), "a", NULL, NULL), 0);
	assert_int_equal(store_create(s, &K("g", "a"), "again", NULL, NULL),
			 STORE_EEXIST);
	assert_int_equal(store_update(s, &K("g", "a"), "b", NULL, 99, NULL),
			 STORE_ECONFLICT);
	assert_int_equal(store_create(s, &K("g", "b"), "b", NULL, NULL), 0);
	assert_int_equal(flush(s), 0);
	if (cur->durable) {
		store_free(s);
		s = *state = cur->open(tmpdir, 4);
	}
	assert_int_equal(store_get(s, &K("g", "a"), &it), 0);
	assert_string_equal(it.value, "a");
	store_item_release(&it);
	assert_int_equal(store_get(s, &K("g", "b"), &it), 0);
	store_item_release(&it);
}

/* A group that cannot commit is undone in the backend and in the front:
 * objects, rv, history, durable watchers; in-process watchers never see
 * it either (they get a group's events from store_deliver once it is
 * written), readers are told by store_rollbacks(), and writes wait for
 * store_resync_done(). */
static void
test_failed_commit(void **state)
{
	struct store *s = *state;
	struct store_watch *live, *out, *w;
	struct seen got = {0}, sent = {0}, again = {0};
	struct store_item it;
	int64_t rv0, rv_b, rv, rv_list;
	char name[16];
	int i;

	store_set_deferred(s, true);
	assert_int_equal(store_watch(s, "pods", NULL, 0, on_event, &got, &live),
			 0);
	assert_int_equal(
	    store_watch_durable(s, "pods", NULL, 0, on_event, &sent, &out), 0);
	assert_int_equal(store_create(s, &K("f", "a"), "a", NULL, NULL), 0);
	assert_int_equal(sent.n, 0); /* not before the commit */
	assert_int_equal(got.n, 0);  /* nor inside the write */
	assert_int_equal(flush(s), 0);
	assert_int_equal(sent.n, 1);
	assert_int_equal(got.n, 0); /* in-process: from store_deliver */
	store_deliver(s);
	assert_int_equal(got.n, 1);
	rv0 = store_rv(s);
	assert_int_equal(store_committed_rv(s), rv0);
	/* a group of more writes than the history holds (4) */
	assert_int_equal(store_create(s, &K("f", "b"), "b", NULL, &rv_b), 0);
	assert_int_equal(store_update(s, &K("f", "a"), "a2", NULL, 0, NULL), 0);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		assert_int_equal(
		    store_create(s, &K("f", name), "x", NULL, NULL), 0);
	}
	store_deliver(s);
	assert_int_equal(got.n, 1); /* not before the group is written */
	assert_int_equal(store_get(s, &K("f", "b"), &it), 0);
	store_item_release(&it);
	store_fail_commits(s, 1);
	assert_int_equal(flush(s), STORE_EIO);
	assert_int_equal(store_rollbacks(s), 1);
	assert_int_equal(sent.n, 1); /* never sent */
	store_deliver(s);
	assert_int_equal(got.n, 1); /* never shown in-process either */
	assert_int_equal(store_get(s, &K("f", "b"), &it), STORE_ENOENT);
	assert_int_equal(store_get(s, &K("f", "a"), &it), 0);
	assert_string_equal(it.value, "a");
	assert_int_equal(it.rv, rv0);
	store_item_release(&it);
	/* the versions handed out are never handed out again */
	assert_true(store_rv(s) > rv0 + 6);
	assert_int_equal(store_committed_rv(s), store_rv(s));
	rv_list = store_rv(s); /* what a list answers now */
	assert_int_equal(
	    store_watch(s, "pods", NULL, rv_b, on_event, &again, &w),
	    STORE_EGONE);
	assert_int_equal(
	    store_watch(s, "pods", NULL, store_rv(s) + 1, on_event, &again, &w),
	    STORE_EGONE);
	/* until the consumers have resynced, writes wait */
	assert_int_equal(store_create(s, &K("f", "c"), "c", NULL, NULL),
			 STORE_EIO);
	store_resync_done(s);
	assert_int_equal(store_create(s, &K("f", "c"), "c", NULL, &rv), 0);
	assert_true(rv > rv0 + 7);
	assert_int_equal(flush(s), 0);
	assert_int_equal(sent.n, 2);
	assert_string_equal(sent.name[1], "c");
	store_deliver(s);
	assert_int_equal(got.n, 2);
	assert_string_equal(got.name[1], "c");
	assert_int_equal(sent.rv[1], rv);
	/* a watch from the rv of a list after the rollback */
	assert_int_equal(
	    store_watch(s, "pods", NULL, rv_list, on_event, &again, &w), 0);
	assert_int_equal(again.n, 1);
	assert_string_equal(again.name[0], "c");
	store_unwatch(s, w);
	store_unwatch(s, live);
	store_unwatch(s, out);
	/* one write, not deferred: an error for it alone */
	store_set_deferred(s, false);
	store_fail_commits(s, 1);
	assert_int_equal(store_create(s, &K("f", "d"), "d", NULL, NULL),
			 STORE_EIO);
	assert_int_equal(store_create(s, &K("f", "d"), "d", NULL, NULL), 0);
	if (cur->durable) {
		store_free(s);
		s = *state = cur->open(tmpdir, 4);
	}
	assert_int_equal(store_get(s, &K("f", "b"), &it), STORE_ENOENT);
	assert_int_equal(store_get(s, &K("f", "c"), &it), 0);
	store_item_release(&it);
	assert_int_equal(store_get(s, &K("f", "d"), &it), 0);
	store_item_release(&it);
}

/* state.db, -wal and -shm are the owner's alone, whatever the umask. */
static void
test_private_files(void **state)
{
	static const char *const sfx[] = {"", "-wal", "-shm"};
	struct store *s = *state;
	struct stat st;
	char path[600];
	mode_t old;
	size_t i;

	if (!cur->durable)
		return;
	store_free(s);
	snprintf(path, sizeof(path), "%s/state.db", tmpdir);
	unlink(path);
	old = umask(0);
	s = *state = cur->open(tmpdir, 4);
	umask(old);
	assert_int_equal(store_create(s, &K("m", "a"), "a", NULL, NULL), 0);
	assert_int_equal(flush(s), 0);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/state.db%s", tmpdir, sfx[i]);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
}

/* The layout of earlier versions (objects in a WITHOUT ROWID table) is
 * moved to the current one when the store opens: every object, its rv
 * and labels, and the store's rv are kept, and writes go on from there. */
static void
test_migrates_without_rowid(void **state)
{
	static const char old_schema[] =
	    "PRAGMA journal_mode=WAL;"
	    "CREATE TABLE objects (resource TEXT NOT NULL, ns TEXT NOT NULL,"
	    " name TEXT NOT NULL, rv INTEGER NOT NULL, labels TEXT NOT NULL,"
	    " value TEXT NOT NULL, PRIMARY KEY (resource, ns, name))"
	    " WITHOUT ROWID;"
	    "CREATE TABLE meta (k TEXT PRIMARY KEY, v INTEGER);"
	    "INSERT INTO meta (k, v) VALUES ('rv', 7);"
	    "INSERT INTO objects VALUES ('pods', 'default', 'a', 3,"
	    " 'app=web' || char(10), '{\"v\":1}');"
	    "INSERT INTO objects VALUES ('pods', 'default', 'b', 7, '',"
	    " '{\"v\":2}');";
	struct store *s = *state;
	struct store_item it;
	struct store_items l = {0};
	sqlite3 *db;
	sqlite3_stmt *st;
	char path[600];
	int64_t rv;

	if (!cur->durable)
		return;
	store_free(s);
	*state = NULL;
	remove_db_files();
	snprintf(path, sizeof(path), "%s/state.db", tmpdir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, old_schema, NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	s = *state = cur->open(tmpdir, 4);
	assert_int_equal(store_rv(s), 7);
	assert_int_equal(store_get(s, &K("default", "a"), &it), 0);
	assert_string_equal(it.value, "{\"v\":1}");
	assert_int_equal(it.rv, 3);
	assert_string_equal(strmap_get(&it.labels, "app"), "web");
	store_item_release(&it);
	assert_int_equal(store_list(s, "pods", "default", NULL, &l, &rv), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1].name, "b");
	store_items_release(&l);
	assert_int_equal(store_create(s, &K("default", "c"), "{}", NULL, &rv),
			 0);
	assert_int_equal(rv, 8);
	assert_int_equal(flush(s), 0);

	/* the table is the current layout now */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(
		db, "SELECT sql FROM sqlite_master WHERE name='objects'", -1,
		&st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_null(
	    strstr((const char *)sqlite3_column_text(st, 0), "WITHOUT ROWID"));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* 1,200 objects of 8 KiB (about 10 MB), each flushed on its own with
 * flush_each, else left to the caller's flush. */
static void
burst(struct store *s, bool flush_each)
{
	char *value = xmalloc(8193), name[32];
	int i;

	memset(value, 'x', 8192);
	value[8192] = '\0';
	for (i = 0; i < 1200; i++) {
		snprintf(name, sizeof(name), "p%04d", i);
		assert_int_equal(
		    store_create(s, &K("m", name), value, NULL, NULL), 0);
		if (flush_each)
			assert_int_equal(flush(s), 0);
	}
	free(value);
}

/* The WAL is copied back into the database by the store's checkpointer
 * thread, not by the commits (which no longer run SQLite's automatic
 * checkpoint): after 10 MB of commits the database file holds them. */
/* Syncing in the background: a flush writes (a crash of the process
 * keeps the write), but nothing is durable, and no durable watcher hears
 * of it, until the thread has synced and the owner called store_synced.
 * Turning it off syncs what is left. */
static void
test_background_sync(void **state)
{
	struct store *s = *state;
	struct store_watch *w;
	struct seen got = {0};
	struct store_item it;
	int64_t rv;

	if (strcmp(cur->name, "sqlite-background"))
		return;
	assert_int_equal(
	    store_watch_durable(s, "pods", NULL, 0, on_event, &got, &w), 0);
	assert_int_equal(store_create(s, &K("b", "a"), "v", NULL, &rv), 0);
	assert_int_equal(store_flush(s), 0);
	assert_false(store_rv_durable(s, rv));
	assert_false(store_rv_lost(s, rv));
	assert_true(store_pending(s));
	assert_int_equal(got.n, 0);
	while (!store_rv_durable(s, rv)) {
		wait_notified();
		assert_int_equal(store_synced(s), 0);
	}
	assert_int_equal(got.n, 1);
	assert_int_equal(got.rv[0], rv);
	assert_false(store_pending(s));
	/* off: the last write is durable when it returns */
	assert_int_equal(store_create(s, &K("b", "b"), "v", NULL, &rv), 0);
	assert_int_equal(store_sync_in_background(s, NULL, NULL), 0);
	assert_true(store_rv_durable(s, rv));
	assert_int_equal(got.n, 2);
	store_unwatch(s, w);
	/* and on again, the store goes on as before */
	assert_int_equal(store_sync_in_background(s, notify, NULL), 0);
	assert_int_equal(store_update(s, &K("b", "b"), "w", NULL, 0, &rv), 0);
	assert_int_equal(flush(s), 0);
	assert_true(store_rv_durable(s, rv));
	store_free(s);
	s = *state = cur->open(tmpdir, 4);
	assert_int_equal(store_get(s, &K("b", "b"), &it), 0);
	assert_string_equal(it.value, "w");
	store_item_release(&it);
}

/* A background sync that fails (an I/O error): the write stays not
 * durable, no durable watcher hears of it, and store_synced says so
 * (`drover serve` then stops, as a second fsync could lie). */
static void
test_background_sync_fails(void **state)
{
	struct store *s = *state;
	struct store_watch *w;
	struct seen got = {0};
	int64_t rv;

	if (strcmp(cur->name, "sqlite-background"))
		return;
	assert_int_equal(
	    store_watch_durable(s, "pods", NULL, 0, on_event, &got, &w), 0);
	store_fail_syncs(s, 1);
	assert_int_equal(store_create(s, &K("b", "a"), "v", NULL, &rv), 0);
	assert_int_equal(store_flush(s), 0);
	wait_notified();
	assert_int_equal(store_synced(s), STORE_EIO);
	assert_false(store_rv_durable(s, rv));
	assert_false(store_rv_lost(s, rv));
	assert_int_equal(got.n, 0);
	store_unwatch(s, w);
}

static void
test_wal_checkpointed(void **state)
{
	struct store *s = *state;
	char path[600];
	struct stat st = {0};
	int waited;

	if (!cur->durable)
		return;
	burst(s, true);
	snprintf(path, sizeof(path), "%s/state.db", tmpdir);
	for (waited = 0; waited < 10000; waited += 10) {
		assert_int_equal(stat(path, &st), 0);
		if (st.st_size >= 5 * 1024 * 1024)
			break;
		usleep(10000); /* the checkpointer runs on its own thread */
	}
	assert_true(st.st_size >= 5 * 1024 * 1024);
}

/* After a burst (a WAL of about 10 MB), once writes go quiet the rest of
 * the WAL is copied back and the next write starts it over, cut back to
 * journal_size_limit (4 MiB): the WAL does not keep the size of its
 * largest burst. A small write every 100 ms, as a heartbeat would make,
 * until it is so (at most 10 s). */
static void
test_wal_shrinks_after_a_burst(void **state)
{
	struct store *s = *state;
	char path[600];
	struct stat st = {0};
	off_t peak = 0;
	int i;

	if (!cur->durable)
		return;
	assert_int_equal(store_set_deferred(s, true), 0);
	burst(s, false);
	assert_int_equal(flush(s), 0);
	snprintf(path, sizeof(path), "%s/state.db-wal", tmpdir);
	assert_int_equal(stat(path, &st), 0);
	peak = st.st_size;
	assert_true(peak > 8 * 1024 * 1024);
	for (i = 0; i < 100; i++) {
		assert_int_equal(
		    store_update(s, &K("m", "p0000"), "small", NULL, 0, NULL),
		    0);
		assert_int_equal(flush(s), 0);
		assert_int_equal(stat(path, &st), 0);
		if (st.st_size <= 4 * 1024 * 1024 + 65536)
			break;
		usleep(100000);
	}
	assert_true(st.st_size <= 4 * 1024 * 1024 + 65536);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_crud_and_rv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_selector, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_list_cursor, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_txn_all_or_nothing, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_watch_resume_and_gone, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_unwatch_inside_callback, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_history_byte_bound, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_durable_reopen, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_deferred_crash, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_deferred_failed_write, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_failed_commit, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_background_sync, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_background_sync_fails, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_wal_checkpointed, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_wal_shrinks_after_a_burst,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_private_files, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_migrates_without_rowid, setup,
					    teardown),
	};
	size_t i;
	int fails = 0;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		cur = &backends[i];
		fails += _cmocka_run_group_tests(
		    backends[i].name, tests, sizeof(tests) / sizeof(tests[0]),
		    NULL, NULL);
	}
	return fails ? 1 : 0;
}
