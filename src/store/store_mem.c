/* store_mem.c - the in-memory backend, for tests and `drover plan`-like
 * tools: a sorted array of items; a transaction works on a copy of the
 * touched entries and commits only when every op succeeded. In deferred
 * mode the first write of a group keeps a copy of everything, which a
 * failed "commit" (store_fail_commits) restores. */
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "xalloc.h"

struct mem {
	struct store_items items;
	int64_t rv;
	bool deferred;
	bool open;                /* a group is open: saved holds its start */
	struct store_items saved; /* the items before the group */
	int64_t saved_rv;
	int fail_commits;
};

static int
cmp_key(const struct store_item *it, const struct store_key *k)
{
	int c = strcmp(it->resource, k->resource);

	if (c == 0)
		c = strcmp(it->ns, k->ns);
	if (c == 0)
		c = strcmp(it->name, k->name);
	return c;
}

/* Index of k, or -(insertion point)-1. */
static long
find(const struct mem *m, const struct store_key *k)
{
	size_t lo = 0, hi = m->items.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_key(&m->items.v[mid], k);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

static int
mem_get(void *be, const struct store_key *k, struct store_item *out)
{
	struct mem *m = be;
	long i = find(m, k);

	if (i < 0)
		return STORE_ENOENT;
	store_item_copy(out, &m->items.v[i]);
	return 0;
}

static int
mem_list(void *be, const char *resource, const char *ns,
	 struct store_items *out)
{
	struct mem *m = be;
	size_t i;

	for (i = 0; i < m->items.n; i++) {
		const struct store_item *it = &m->items.v[i];

		if (strcmp(it->resource, resource) ||
		    (ns && strcmp(it->ns, ns)))
			continue;
		ALLOC_GROW(out->v, out->n + 1, out->alloc);
		store_item_copy(&out->v[out->n++], it);
	}
	return 0;
}

static int
check(struct mem *m, const struct store_op *op)
{
	long i = find(m, &op->key);

	if (op->kind == STORE_OP_CREATE)
		return i >= 0 ? STORE_EEXIST : 0;
	if (i < 0)
		return STORE_ENOENT;
	if (op->expect_rv && m->items.v[i].rv != op->expect_rv)
		return STORE_ECONFLICT;
	return 0;
}

static void
apply(struct mem *m, struct store_op *op)
{
	long i = find(m, &op->key);
	struct store_item *it;

	if (op->kind == STORE_OP_DELETE) {
		op->prev = m->items.v[i];
		memmove(&m->items.v[i], &m->items.v[i + 1],
			(m->items.n - (size_t)i - 1) * sizeof(*m->items.v));
		m->items.n--;
		return;
	}
	if (op->kind == STORE_OP_UPDATE) {
		it = &m->items.v[i];
		store_item_copy(&op->prev, it);
		store_item_release(it);
	} else {
		size_t at = (size_t)(-i - 1);

		ALLOC_GROW(m->items.v, m->items.n + 1, m->items.alloc);
		memmove(&m->items.v[at + 1], &m->items.v[at],
			(m->items.n - at) * sizeof(*m->items.v));
		m->items.n++;
		it = &m->items.v[at];
	}
	it->resource = xstrdup(op->key.resource);
	it->ns = xstrdup(op->key.ns);
	it->name = xstrdup(op->key.name);
	it->rv = op->rv;
	it->value = xstrdup(op->value);
	memset(&it->labels, 0, sizeof(it->labels));
	if (op->labels)
		strmap_copy(&it->labels, op->labels);
}

static int
mem_txn(void *be, struct store_op *ops, size_t n, int64_t first_rv,
	size_t *failed)
{
	struct mem *m = be;
	size_t i, j;
	int r;

	/* Check every op against the state the earlier ops would leave:
	 * simulate on a scratch copy only when ops touch the same key. */
	for (i = 0; i < n; i++) {
		bool touched = false;

		for (j = 0; j < i; j++)
			if (!cmp_key(
				&(struct store_item){
				    .resource = (char *)ops[j].key.resource,
				    .ns = (char *)ops[j].key.ns,
				    .name = (char *)ops[j].key.name},
				&ops[i].key))
				touched = true;
		if (touched) {
			*failed = i;
			return STORE_ECONFLICT; /* one write per key per txn */
		}
		if ((r = check(m, &ops[i]))) {
			*failed = i;
			return r;
		}
	}
	if (m->deferred && !m->open) {
		memset(&m->saved, 0, sizeof(m->saved));
		for (i = 0; i < m->items.n; i++) {
			ALLOC_GROW(m->saved.v, m->saved.n + 1, m->saved.alloc);
			store_item_copy(&m->saved.v[m->saved.n++],
					&m->items.v[i]);
		}
		m->saved_rv = m->rv;
		m->open = true;
	}
	if (!m->deferred && m->fail_commits > 0) {
		m->fail_commits--;
		*failed = 0;
		return STORE_EIO;
	}
	for (i = 0; i < n; i++) {
		ops[i].rv = first_rv + (int64_t)i;
		apply(m, &ops[i]);
	}
	m->rv = first_rv + (int64_t)n - 1;
	return 0;
}

static int64_t
mem_current_rv(void *be)
{
	return ((struct mem *)be)->rv;
}

static void
mem_rollback(void *be)
{
	struct mem *m = be;

	if (!m->open)
		return;
	store_items_release(&m->items);
	m->items = m->saved;
	memset(&m->saved, 0, sizeof(m->saved));
	m->rv = m->saved_rv;
	m->open = false;
}

static int
mem_flush(void *be)
{
	struct mem *m = be;

	if (!m->open)
		return 0;
	if (m->fail_commits > 0) {
		m->fail_commits--;
		mem_rollback(m);
		return STORE_EIO;
	}
	store_items_release(&m->saved);
	m->open = false;
	return 0;
}

static void
mem_set_deferred(void *be, bool on)
{
	struct mem *m = be;

	if (!on)
		mem_flush(m);
	m->deferred = on;
}

static void
mem_fail_commits(void *be, int n)
{
	((struct mem *)be)->fail_commits = n;
}

static void
mem_close(void *be)
{
	struct mem *m = be;

	store_items_release(&m->items);
	store_items_release(&m->saved);
	free(m);
}

static const struct store_backend_ops mem_ops = {
    .name = "memory",
    .get = mem_get,
    .list = mem_list,
    .txn = mem_txn,
    .current_rv = mem_current_rv,
    .close = mem_close,
    .set_deferred = mem_set_deferred,
    .flush = mem_flush,
    .rollback = mem_rollback,
    .fail_commits = mem_fail_commits,
};

struct store *
store_mem_open(size_t history)
{
	return store_new(&mem_ops, xcalloc(1, sizeof(struct mem)), history);
}
