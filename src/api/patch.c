/* patch.c - merge patch (RFC 7386), JSON patch (RFC 6902) within
 * kube-apiserver's bounds (operations, bytes copied), and the strategic
 * merge patch of src/codec/smp.c.
 *
 * The merge and JSON patches build their result copy-on-write: a copy,
 * a move or an added value shares the nodes it names, and a change
 * copies (shallowly) only the nodes on its path that are shared (a
 * reference count above one). A copy costs the same whatever its size,
 * and its size (what the copy limit counts) is measured on the shared
 * tree with each shared node measured once: 18 copies of /metadata into
 * its own annotations are refused after about 13 steps of a few
 * microseconds each instead of building 185 MB. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "patch.h"
#include "smp.h"
#include "xalloc.h"

/* ---- copy-on-write ---- */

/* The member k (or element k) of container c, made exclusively c's: a
 * container shared with anything else is replaced by a shallow copy
 * (json_copy: new members are references to the same values). Only
 * called on a container c that is itself exclusive, so what it returns
 * may be changed in place. */
static json_t *
own_member(json_t *c, const char *k, size_t i)
{
	json_t *v =
	    json_is_object(c) ? json_object_get(c, k) : json_array_get(c, i);
	json_t *mine;

	if (v == NULL || v->refcount <= 1 ||
	    (!json_is_object(v) && !json_is_array(v)))
		return v;
	mine = json_copy(v);
	if (json_is_object(c))
		json_object_set_new(c, k, mine);
	else
		json_array_set_new(c, i, mine);
	return mine;
}

/* result (a new reference) with its top level and metadata its own: the
 * callers set apiVersion and kind and drop metadata.resourceVersion;
 * deeper nodes may be shared with the target and the patch, which
 * nothing changes. */
static json_t *
own_top(json_t *result)
{
	json_t *r = result;

	if (json_is_object(r) && r->refcount > 1) {
		r = json_copy(result);
		json_decref(result);
	}
	if (json_is_object(r))
		own_member(r, "metadata", 0);
	return r;
}

/* RFC 7386: objects merge member by member, null deletes, anything
 * else (lists included) replaces. Members the patch does not name are
 * shared with target. */
static json_t *
merge(json_t *target, json_t *patch)
{
	json_t *out, *v;
	const char *k;

	if (!json_is_object(patch))
		return json_deep_copy(patch);
	out = json_is_object(target) ? json_copy(target) : json_object();
	json_object_foreach(patch, k, v)
	{
		if (json_is_null(v))
			json_object_del(out, k);
		else
			json_object_set_new(out, k,
					    merge(json_object_get(out, k), v));
	}
	return out;
}

json_t *
patch_merge(json_t *target, json_t *patch)
{
	return own_top(merge(target, patch));
}

json_t *
patch_strategic(json_t *target, json_t *patch, const struct schema *s,
		char *err, size_t errlen)
{
	return smp_apply(target, patch, s, err, errlen);
}

/* ---- RFC 6902 ---- */

/* Decodes one JSON Pointer token (~1 -> /, ~0 -> ~). */
static char *
token(const char **p)
{
	const char *s = *p, *e = strchr(s, '/');
	size_t n = e ? (size_t)(e - s) : strlen(s), i, k = 0;
	char *t = xmalloc(n + 1);

	for (i = 0; i < n; i++) {
		if (s[i] == '~' && i + 1 < n && s[i + 1] == '1') {
			t[k++] = '/';
			i++;
		} else if (s[i] == '~' && i + 1 < n && s[i + 1] == '0') {
			t[k++] = '~';
			i++;
		} else {
			t[k++] = s[i];
		}
	}
	t[k] = '\0';
	*p = e ? e + 1 : s + n;
	return t;
}

/* An array index token: 0 with *i set, or -1. */
static int
index_of(const char *t, size_t *i)
{
	char *end;
	long v = strtol(t, &end, 10);

	if (!*t || *end || v < 0)
		return -1;
	*i = (size_t)v;
	return 0;
}

/* The container that holds the pointer's last token; *last gets the
 * token (caller frees). NULL if the path does not exist. With own, every
 * container on the way is made doc's own (own_member), so the one
 * returned may be changed. */
static json_t *
parent_of(json_t *doc, const char *ptr, char **last, bool own)
{
	json_t *cur = doc;
	const char *p;

	*last = NULL;
	if (ptr[0] != '/')
		return NULL;
	p = ptr + 1;
	for (;;) {
		const char *slash = strchr(p, '/');
		char *t = token(&p);
		size_t i = 0;

		if (slash == NULL) {
			*last = t;
			return cur;
		}
		if (json_is_object(cur))
			cur = own ? own_member(cur, t, 0)
				  : json_object_get(cur, t);
		else if (json_is_array(cur) && index_of(t, &i) == 0)
			cur = own ? own_member(cur, NULL, i)
				  : json_array_get(cur, i);
		else
			cur = NULL;
		free(t);
		if (cur == NULL)
			return NULL;
	}
}

/* The value at ptr (borrowed), or NULL. */
static json_t *
get_ptr(json_t *doc, const char *ptr)
{
	char *last;
	json_t *par, *r = NULL;
	size_t i;

	if (!strcmp(ptr, ""))
		return doc;
	par = parent_of(doc, ptr, &last, false);
	if (json_is_object(par))
		r = json_object_get(par, last);
	else if (json_is_array(par) && index_of(last, &i) == 0)
		r = json_array_get(par, i);
	free(last);
	return r;
}

/* add (replace=false) or replace (replace=true) into par, doc's own;
 * steals v. */
static int
put_in(json_t *par, const char *last, json_t *v, bool replace)
{
	size_t n = json_array_size(par), i;

	if (json_is_object(par) && (!replace || json_object_get(par, last)))
		return json_object_set_new(par, last, v);
	if (json_is_array(par) && !replace && !strcmp(last, "-"))
		return json_array_append_new(par, v);
	if (json_is_array(par) && index_of(last, &i) == 0) {
		if (replace && i < n)
			return json_array_set_new(par, i, v);
		if (!replace && i <= n)
			return json_array_insert_new(par, i, v);
	}
	json_decref(v);
	return -1;
}

/* steals v */
static int
put_ptr(json_t *doc, const char *ptr, json_t *v, bool replace)
{
	char *last;
	json_t *par = parent_of(doc, ptr, &last, true);
	int r = par ? put_in(par, last, v, replace) : (json_decref(v), -1);

	free(last);
	return r;
}

static int
remove_ptr(json_t *doc, const char *ptr)
{
	char *last;
	json_t *par = parent_of(doc, ptr, &last, true);
	int r = -1;
	size_t i;

	if (json_is_object(par))
		r = json_object_del(par, last);
	else if (json_is_array(par) && index_of(last, &i) == 0)
		r = json_array_remove(par, i);
	free(last);
	return r;
}

/* The length of json.Marshal's text of a value, which evanphx/json-patch
 * counts against AccumulatedCopySizeLimit: compact, strings with Go's
 * escapes (\", \\, \n, \r, \t; \u00XX for other control characters and
 * for <, > and &; \u2028 and \u2029). A shared container is measured
 * once per call (memo): a value that holds the same subtree 2^k times
 * costs k steps. */
struct size_memo {
	const json_t *node;
	size_t size;
	UT_hash_handle hh;
};

static size_t
string_size(const char *s, size_t n)
{
	size_t i, r = 2;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\' || c == '\n' || c == '\r' ||
		    c == '\t')
			r += 2;
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			r += 6;
		else if (c == 0xe2 && i + 2 < n &&
			 (unsigned char)s[i + 1] == 0x80 &&
			 ((unsigned char)s[i + 2] & 0xfe) == 0xa8)
			r += 6 - 2; /* its 3 bytes: 6 in all */
		else
			r += 1;
	}
	return r;
}

static size_t value_size(json_t *v, struct size_memo **memo);

static size_t
container_size(json_t *v, struct size_memo **memo)
{
	const char *k;
	json_t *e;
	size_t i, n = 2, count = 0;

	if (json_is_object(v)) {
		json_object_foreach(v, k, e)
		{
			n +=
			    string_size(k, strlen(k)) + 1 + value_size(e, memo);
			count++;
		}
	} else {
		json_array_foreach(v, i, e)
		{
			n += value_size(e, memo);
			count++;
		}
	}
	return n + (count ? count - 1 : 0);
}

static size_t
value_size(json_t *v, struct size_memo **memo)
{
	struct size_memo *m;
	size_t n;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
	case JSON_ARRAY:
		if (v->refcount <= 1)
			return container_size(v, memo);
		HASH_FIND_PTR(*memo, &v, m);
		if (m)
			return m->size;
		n = container_size(v, memo);
		m = xcalloc(1, sizeof(*m));
		m->node = v;
		m->size = n;
		HASH_ADD_PTR(*memo, node, m);
		return n;
	case JSON_STRING:
		return string_size(json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		return (size_t)snprintf(NULL, 0, "%" JSON_INTEGER_FORMAT,
					json_integer_value(v));
	case JSON_REAL:
		return json_dumpb(v, NULL, 0, JSON_ENCODE_ANY);
	case JSON_TRUE:
	case JSON_NULL:
		return 4;
	default:
		return 5; /* false */
	}
}

size_t
patch_json_size(json_t *v)
{
	struct size_memo *memo = NULL, *m, *tmp;
	size_t n = value_size(v, &memo);

	HASH_ITER(hh, memo, m, tmp)
	{
		HASH_DEL(memo, m);
		free(m);
	}
	return n;
}

/* Go's name of a JSON value's type in json.Unmarshal's errors. */
static const char *
go_json_type(json_t *v)
{
	return json_is_object(v)   ? "object"
	       : json_is_array(v)  ? "array"
	       : json_is_string(v) ? "string"
	       : json_is_number(v) ? "number"
				   : "bool";
}

/* jsonpatch.DecodePatch: a list of objects (null is the empty patch), at
 * most PATCH_MAX_OPS of them. 0, or the refusal with its text in err. */
static int
decode_ops(json_t *ops, char *err, size_t errlen)
{
	json_t *op;
	size_t i;

	if (!json_is_array(ops) && !json_is_null(ops)) {
		snprintf(err, errlen,
			 "json: cannot unmarshal %s into Go value of type "
			 "jsonpatch.Patch",
			 go_json_type(ops));
		return PATCH_MALFORMED;
	}
	json_array_foreach(ops, i, op)
	{
		if (!json_is_object(op) && !json_is_null(op)) {
			snprintf(err, errlen,
				 "json: cannot unmarshal %s into Go value of "
				 "type jsonpatch.Operation",
				 go_json_type(op));
			return PATCH_MALFORMED;
		}
	}
	if (json_array_size(ops) > PATCH_MAX_OPS) {
		snprintf(err, errlen,
			 "The allowed maximum operations in a JSON patch is "
			 "%d, got %zu",
			 PATCH_MAX_OPS, json_array_size(ops));
		return PATCH_TOO_MANY;
	}
	return 0;
}

/* copy: from's value added at path, unless the copies of the patch would
 * then add up to more than PATCH_MAX_COPY_BYTES (*copied: the bytes so
 * far; then 1 with evanphx/json-patch's text in err). */
static int
copy_op(json_t *doc, const char *from, const char *path, size_t *copied,
	char *err, size_t errlen)
{
	json_t *src = get_ptr(doc, from), *par;
	char *last;

	if (src == NULL)
		return -1;
	par = parent_of(doc, path, &last, false);
	free(last);
	if (par == NULL)
		return -1;
	*copied += patch_json_size(src);
	if (*copied > PATCH_MAX_COPY_BYTES) {
		snprintf(err, errlen,
			 "Unable to complete the copy, the accumulated size "
			 "increase of copy is %zu, exceeding the limit %d",
			 *copied, PATCH_MAX_COPY_BYTES);
		return 1;
	}
	return put_ptr(doc, path, json_incref(src), false);
}

/* move: from's value taken out and added at path (not into itself: once
 * taken out, path inside it does not exist). */
static int
move_op(json_t *doc, const char *from, const char *path)
{
	json_t *v = get_ptr(doc, from);

	if (v == NULL || !strcmp(from, ""))
		return -1;
	json_incref(v);
	if (remove_ptr(doc, from)) {
		json_decref(v);
		return -1;
	}
	return put_ptr(doc, path, v, false);
}

/* One operation applied to doc: 0, or -1 with the reason in err. */
static int
apply_op(json_t *doc, json_t *op, size_t i, size_t *copied, char *err,
	 size_t errlen)
{
	const char *o = json_string_value(json_object_get(op, "op"));
	const char *path = json_string_value(json_object_get(op, "path"));
	const char *from = json_string_value(json_object_get(op, "from"));
	json_t *value = json_object_get(op, "value"), *cur;
	int r = -1;

	if (o == NULL || path == NULL) {
		snprintf(err, errlen, "operation %zu: missing op or path", i);
		return -1;
	}
	if (!strcmp(o, "add") && value) {
		r = put_ptr(doc, path, json_incref(value), false);
	} else if (!strcmp(o, "replace") && value) {
		r = put_ptr(doc, path, json_incref(value), true);
	} else if (!strcmp(o, "remove")) {
		r = remove_ptr(doc, path);
	} else if (!strcmp(o, "test") && value) {
		cur = get_ptr(doc, path);
		r = cur && json_equal(cur, value) ? 0 : -1;
	} else if (!strcmp(o, "copy") && from) {
		if ((r = copy_op(doc, from, path, copied, err, errlen)) > 0)
			return -1; /* err says why */
	} else if (!strcmp(o, "move") && from) {
		r = move_op(doc, from, path);
	}
	if (r)
		snprintf(err, errlen, "operation %zu (%s %s) cannot be applied",
			 i, o, path);
	return r ? -1 : 0;
}

json_t *
patch_json(json_t *target, json_t *ops, int *refusal, char *err, size_t errlen)
{
	json_t *doc, *op;
	size_t i, copied = 0;

	if ((*refusal = decode_ops(ops, err, errlen)))
		return NULL;
	/* The root is doc's own; everything below is shared until changed. */
	doc = json_is_object(target) || json_is_array(target)
		  ? json_copy(target)
		  : json_deep_copy(target);
	json_array_foreach(ops, i, op)
	{
		if (apply_op(doc, op, i, &copied, err, errlen)) {
			*refusal = PATCH_NOT_APPLIED;
			json_decref(doc);
			return NULL;
		}
	}
	return own_top(doc);
}
