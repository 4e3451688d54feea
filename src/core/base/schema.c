/* schema.c - generic release, copy, equality and canonical dump driven by
 * the field descriptors of schema.h.
 *
 * How a table describes a type: a `struct schema` names a C struct and
 * lists its fields; each `struct field` gives the JSON member name, the
 * storage type (FT_*), the offset of the member, flags and, for nested
 * structs, the sub-schema. For example the container port
 *
 *   struct container_port { char *name; int64_t container_port; ... };
 *
 * is a table with rows {"name", FT_STR, offsetof(..., name)},
 * {"containerPort", FT_INT, offsetof(..., container_port), FF_INT32},
 * and the container's "ports" row is {FT_LIST, sub = that table,
 * merge_key "containerPort"}. Every walker below is one loop over the
 * rows with a switch on the type, recursing through `sub`; no walker
 * knows a concrete type. The tables are in the API groups' rooms (src/core/apis: meta.c, core.c, apps.c, discovery.c); the JSON encoder and
 * decoder that use the same rows are in src/codec.
 *
 * Ownership: an object described by a schema owns everything it points
 * to (strings, lists, maps, FT_PTR targets), and nothing is shared
 * between two objects: copy duplicates, release frees. Values the codec
 * decodes are owned by the object they were decoded into and go with its
 * release. A zeroed struct is a valid empty object for every walker
 * (the storage conventions in schema.h make "absent" all-zero bytes). */
#include <stdlib.h>
#include <string.h>

#include "dtime.h"
#include "intstr.h"
#include "schema.h"
#include "strmap.h"
#include "xalloc.h"

/* The address of field f's member inside obj. */
#define AT(obj, f)  ((char *)(obj) + (f)->off)
#define CAT(obj, f) ((const char *)(obj) + (f)->off)

/* Frees the strings and the array and leaves l empty (reusable). */
void
strlist_release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* dst is overwritten, not released first: it must be uninitialized or
 * already released. */
void
strlist_copy(struct strlist *dst, const struct strlist *src)
{
	size_t i;

	dst->n = dst->alloc = src->n;
	dst->v = src->n ? xmalloc(src->n * sizeof(char *)) : NULL;
	for (i = 0; i < src->n; i++)
		dst->v[i] = xstrdup(src->v[i]);
}

/* Appends a copy of s; l owns it. */
void
strlist_push(struct strlist *l, const char *s)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = xstrdup(s);
}

void
intlist_push(struct intlist *l, int64_t v)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = v;
}

/* Capacity doubles from 4 (4, 8, 16, ...), so n pushes cost O(n) copies.
 * The returned element, and every earlier one, moves when the array
 * grows: pointers into l->v are valid only until the next push. */
void *
anylist_push(struct anylist *l, size_t elem_size)
{
	char *p;

	if (l->n + 1 > l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 4;
		l->v = xrealloc(l->v, l->alloc * elem_size);
	}
	p = (char *)l->v + l->n * elem_size;
	memset(p, 0, elem_size);
	l->n++;
	return p;
}

/* A linear search: tables have at most a few dozen rows. */
const struct field *
schema_field(const struct schema *s, const char *json)
{
	size_t i;

	for (i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].json, json))
			return &s->fields[i];
	return NULL;
}

/* Depth first: a field's sub-objects are released before the field's own
 * storage (list array, FT_PTR target) is freed. Scalars own nothing. The
 * final memset leaves obj a valid empty object, so releasing twice is
 * harmless. */
void
schema_release(const struct schema *s, void *obj)
{
	size_t i, j;

	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		void *p = AT(obj, f);

		switch (f->type) {
		case FT_STR:
		case FT_RAW:
			free(*(char **)p);
			break;
		case FT_INTSTR:
			intstr_release(p);
			break;
		case FT_STRMAP:
			strmap_release(p);
			break;
		case FT_STRLIST:
			strlist_release(p);
			break;
		case FT_INTLIST:
			free(((struct intlist *)p)->v);
			break;
		case FT_STRUCT:
			schema_release(f->sub, p);
			break;
		case FT_PTR:
			if (*(void **)p) {
				schema_release(f->sub, *(void **)p);
				free(*(void **)p);
			}
			break;
		case FT_LIST: {
			/* Elements are stored inline, sub->size bytes
			 * apart; each owns its own pointers. */
			struct anylist *l = p;

			for (j = 0; j < l->n; j++)
				schema_release(f->sub,
					       (char *)l->v + j * f->sub->size);
			free(l->v);
			break;
		}
		default:
			/* ints, bools, times, opt_*: nothing to free */
			break;
		}
	}
	memset(obj, 0, s->size);
}

/* The memcpy takes every scalar (ints, bools, times, opt_* values) in
 * one go and, for a moment, aliases every pointer of src; the loop then
 * replaces each pointer-bearing member with its own deep copy. Lists get
 * alloc == n (no spare capacity). dst must not own anything: it is
 * overwritten, not released. */
void
schema_copy(const struct schema *s, void *dst, const void *src)
{
	size_t i, j;

	memcpy(dst, src, s->size);
	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		void *d = AT(dst, f);
		const void *p = CAT(src, f);

		switch (f->type) {
		case FT_STR:
		case FT_RAW:
			*(char **)d = xstrdup(*(char *const *)p);
			break;
		case FT_INTSTR:
			intstr_copy(d, p);
			break;
		case FT_STRMAP:
			strmap_copy(d, p);
			break;
		case FT_STRLIST:
			strlist_copy(d, p);
			break;
		case FT_INTLIST: {
			/* Pushed one by one, so alloc may exceed n here,
			 * unlike the other lists' copies. */
			const struct intlist *x = p;
			struct intlist *y = d;

			y->v = NULL;
			y->alloc = y->n = 0;
			for (j = 0; j < x->n; j++)
				intlist_push(y, x->v[j]);
			break;
		}
		case FT_STRUCT:
			/* d already holds the memcpy'd bytes; the recursion
			 * replaces its pointers in place. */
			schema_copy(f->sub, d, p);
			break;
		case FT_PTR:
			if (*(void *const *)p) {
				void *n = xmalloc(f->sub->size);

				schema_copy(f->sub, n, *(void *const *)p);
				*(void **)d = n;
			}
			break;
		case FT_LIST: {
			const struct anylist *sl = p;
			struct anylist *dl = d;

			dl->n = dl->alloc = sl->n;
			dl->v = sl->n ? xmalloc(sl->n * f->sub->size) : NULL;
			for (j = 0; j < sl->n; j++)
				schema_copy(
				    f->sub, (char *)dl->v + j * f->sub->size,
				    (const char *)sl->v + j * f->sub->size);
			break;
		}
		default:
			break;
		}
	}
}

/* String equality with NULL treated as "". */
static bool
str_eq(const char *a, const char *b)
{
	/* Go strings have no nil: absent and "" are the same value. */
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Field by field, in table order, stopping at the first difference.
 * Where absent and empty are the same value in Go they compare equal
 * here: a NULL string and "" (Go strings cannot be nil), a zero-length
 * list or map whatever its storage. Where Go distinguishes them, so does
 * this: an unset opt_int differs from a set 0 (*int32 nil vs &0), a NULL
 * FT_PTR differs from a pointer to an empty struct. Lists compare in
 * order (the API treats them as ordered). FT_RAW texts are canonical
 * JSON, so comparing the text compares the values. Times compare to the
 * millisecond, the precision dtime keeps. */
bool
schema_equal(const struct schema *s, const void *a, const void *b)
{
	size_t i, j;

	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		const void *pa = CAT(a, f), *pb = CAT(b, f);

		switch (f->type) {
		case FT_STR:
		case FT_RAW:
			if (!str_eq(*(char *const *)pa, *(char *const *)pb))
				return false;
			break;
		case FT_INT:
		case FT_TIME:
			if (*(const int64_t *)pa != *(const int64_t *)pb)
				return false;
			break;
		case FT_OPTINT: {
			const struct opt_int *x = pa, *y = pb;

			if (x->set != y->set || (x->set && x->v != y->v))
				return false;
			break;
		}
		case FT_BOOL:
			if (*(const bool *)pa != *(const bool *)pb)
				return false;
			break;
		case FT_OPTBOOL: {
			const struct opt_bool *x = pa, *y = pb;

			if (x->set != y->set || (x->set && x->v != y->v))
				return false;
			break;
		}
		case FT_INTSTR:
			if (!intstr_equal(pa, pb))
				return false;
			break;
		case FT_STRMAP:
			if (!strmap_equal(pa, pb))
				return false;
			break;
		case FT_INTLIST: {
			const struct intlist *x = pa, *y = pb;

			if (x->n != y->n ||
			    (x->n && memcmp(x->v, y->v, x->n * sizeof(*x->v))))
				return false;
			break;
		}
		case FT_STRLIST: {
			/* Order matters: command ["a", "b"] and ["b", "a"]
			 * are different programs. */
			const struct strlist *x = pa, *y = pb;

			if (x->n != y->n)
				return false;
			for (j = 0; j < x->n; j++)
				if (strcmp(x->v[j], y->v[j]))
					return false;
			break;
		}
		case FT_STRUCT:
			if (!schema_equal(f->sub, pa, pb))
				return false;
			break;
		case FT_PTR: {
			const void *x = *(void *const *)pa;
			const void *y = *(void *const *)pb;

			/* nil vs &T{} differ, as with Go pointers */
			if (!x != !y)
				return false;
			if (x && !schema_equal(f->sub, x, y))
				return false;
			break;
		}
		case FT_LIST: {
			const struct anylist *x = pa, *y = pb;

			if (x->n != y->n)
				return false;
			for (j = 0; j < x->n; j++)
				if (!schema_equal(
					f->sub,
					(const char *)x->v + j * f->sub->size,
					(const char *)y->v + j * f->sub->size))
					return false;
			break;
		}
		}
	}
	return true;
}

/* Compared with a calloc'd zero object rather than field by field, so
 * "empty" means exactly "equal to the zero value" under schema_equal's
 * rules (a NULL string and "" both empty). */
bool
schema_is_empty(const struct schema *s, const void *obj)
{
	void *zero = xcalloc(1, s->size);
	bool r = schema_equal(s, obj, zero);

	free(zero);
	return r;
}

/* Whether an FF_HASHNEW row is empty, so left out of the dump: the
 * types such rows have (lists, optional structs, strings). */
static bool
hashnew_empty(const struct field *f, const void *p)
{
	switch (f->type) {
	case FT_LIST:
		return ((const struct anylist *)p)->n == 0;
	case FT_STRLIST:
		return ((const struct strlist *)p)->n == 0;
	case FT_PTR:
	case FT_STR:
	case FT_RAW:
		return *(void *const *)p == NULL;
	default:
		return false;
	}
}

/* The canonical text the pod-template-hash is computed over
 * (tmplhash.c). Not JSON: `{` then, for every field in table order that
 * is not FF_SKIPHASH, `json=value;`, then `}`. Strings are JSON-quoted,
 * lists are `[a,b,]` (each element followed by a comma), maps
 * `{"k":"v",}` in key order, nested structs recurse. An absent optional
 * prints nothing after the `=`, so a container port might dump as
 *
 *   {name=;hostPort=0;containerPort=8080;protocol="TCP";hostIP=;}
 *
 * Every field appears, absent or not (an empty FF_HASHNEW row aside), so
 * the text only depends on the values and the table; changing a table
 * (adding, renaming or reordering rows) changes every hash and therefore
 * the name of every new ReplicaSet. FF_HASHRAW exists to avoid that when
 * a field changes type, FF_HASHNEW when a row is added (an empty
 * FF_HASHNEW row is not dumped at all, so the text of a template that
 * does not use it is the text it had before the row existed), and
 * FF_SKIPHASH, to leave a field out whatever its value (no table uses it
 * yet).
 *
 * Not Kubernetes' bytes: Kubernetes hashes a spew dump of the Go struct,
 * which C cannot reproduce, so hashes (and RS names) differ from a real
 * cluster's for the same template; only their stability matters.
 *
 * Note: unlike schema_equal, the dump tells a NULL string (nothing) from
 * "" (""). */
void
schema_dump(const struct schema *s, const void *obj, struct strbuf *sb)
{
	size_t i, j;
	char tb[32];

	strbuf_addch(sb, '{');
	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		const void *p = CAT(obj, f);

		if ((f->flags & FF_SKIPHASH) ||
		    ((f->flags & FF_HASHNEW) && hashnew_empty(f, p)))
			continue;
		strbuf_addstr(sb, f->json);
		strbuf_addch(sb, '=');
		switch (f->type) {
		case FT_STR:
		case FT_RAW:
			if (*(char *const *)p)
				strbuf_addjsonstr(sb, *(char *const *)p);
			break;
		case FT_INT:
			strbuf_addf(sb, "%lld", (long long)*(const int64_t *)p);
			break;
		case FT_TIME:
			/* RFC 3339 as the API prints it: "05Z" and
			 * "05.000Z" in a manifest dump alike. */
			if (*(const dtime *)p) {
				dtime_format(*(const dtime *)p, tb);
				strbuf_addstr(sb, tb);
			}
			break;
		case FT_OPTINT: {
			/* unset prints nothing, a set 0 prints 0: they
			 * hash differently, as they are different values */
			const struct opt_int *x = p;

			if (x->set)
				strbuf_addf(sb, "%lld", (long long)x->v);
			break;
		}
		case FT_BOOL:
			strbuf_addstr(sb, *(const bool *)p ? "true" : "false");
			break;
		case FT_OPTBOOL: {
			const struct opt_bool *x = p;

			if (x->set)
				strbuf_addstr(sb, x->v ? "true" : "false");
			break;
		}
		case FT_INTSTR: {
			const struct intstr *x = p;

			if (x->type == INTSTR_INT)
				strbuf_addf(sb, "%lld", (long long)x->ival);
			else if (x->type == INTSTR_STRING)
				strbuf_addjsonstr(sb, x->sval);
			break;
		}
		case FT_STRMAP: {
			const struct strmap *m = p;

			strbuf_addch(sb, '{');
			for (j = 0; j < m->n; j++) {
				strbuf_addjsonstr(sb, m->v[j].key);
				strbuf_addch(sb, ':');
				strbuf_addjsonstr(sb, m->v[j].value);
				strbuf_addch(sb, ',');
			}
			strbuf_addch(sb, '}');
			break;
		}
		case FT_INTLIST: {
			const struct intlist *l = p;

			strbuf_addch(sb, '[');
			for (j = 0; j < l->n; j++)
				strbuf_addf(sb, "%lld,", (long long)l->v[j]);
			strbuf_addch(sb, ']');
			break;
		}
		case FT_STRLIST: {
			const struct strlist *l = p;

			strbuf_addch(sb, '[');
			for (j = 0; j < l->n; j++) {
				strbuf_addjsonstr(sb, l->v[j]);
				strbuf_addch(sb, ',');
			}
			strbuf_addch(sb, ']');
			break;
		}
		case FT_STRUCT:
			schema_dump(f->sub, p, sb);
			break;
		case FT_PTR:
			/* FF_HASHRAW: the member used to be an FT_RAW string,
			 * which dumped nothing when absent and "{}" (quoted)
			 * when given as an empty object. An interpreted but
			 * empty struct dumps the same, so templates written
			 * before the change keep their hash. Other pointers
			 * dump "nil" when absent, the struct otherwise. */
			if ((f->flags & FF_HASHRAW) &&
			    (*(void *const *)p == NULL ||
			     schema_is_empty(f->sub, *(void *const *)p))) {
				if (*(void *const *)p)
					strbuf_addjsonstr(sb, "{}");
			} else if (*(void *const *)p)
				schema_dump(f->sub, *(void *const *)p, sb);
			else
				strbuf_addstr(sb, "nil");
			break;
		case FT_LIST: {
			const struct anylist *l = p;

			strbuf_addch(sb, '[');
			for (j = 0; j < l->n; j++) {
				schema_dump(
				    f->sub,
				    (const char *)l->v + j * f->sub->size, sb);
				strbuf_addch(sb, ',');
			}
			strbuf_addch(sb, ']');
			break;
		}
		}
		strbuf_addch(sb, ';');
	}
	strbuf_addch(sb, '}');
}
