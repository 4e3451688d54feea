/* patch.c - merge patch, strategic merge patch and JSON patch. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyed.h"
#include "patch.h"

static json_t *merge(json_t *target, json_t *patch, const struct schema *s,
		     bool strategic);

/* Strategic merge of a list with a merge key (containers by "name",
 * ports by "containerPort", conditions by "type"): each element of the
 * patch merges into the element of the target with the same key, or is
 * appended; {"$patch": "delete"} removes it. Worked example, key "name":
 *   target [{"name":"a","image":"x"},{"name":"b"}]
 *   patch  [{"name":"a","image":"y"},{"name":"b","$patch":"delete"},
 *           {"name":"c"}]
 *   result [{"name":"a","image":"y"},{"name":"c"}] */
static json_t *
merge_keyed(json_t *target, json_t *patch, const char *key,
	    const struct schema *elem)
{
	json_t *out = json_is_array(target) ? json_deep_copy(target)
					    : json_array(),
	       *p;
	size_t i, j;

	json_array_foreach(patch, i, p)
	{
		json_t *id = json_object_get(p, key);
		const char *op =
		    json_string_value(json_object_get(p, "$patch"));
		bool del = op && !strcmp(op, "delete"), found = false;

		for (j = 0; id && j < json_array_size(out); j++) {
			json_t *e = json_array_get(out, j);

			if (!json_equal(json_object_get(e, key), id))
				continue;
			found = true;
			if (del)
				json_array_remove(out, j);
			else
				json_array_set_new(out, j,
						   merge(e, p, elem, true));
			break;
		}
		if (!found && !del) {
			json_t *n = json_deep_copy(p);

			json_object_del(n, "$patch");
			json_array_append_new(out, n);
		}
	}
	return out;
}

/* A list holding {"$patch": "replace"}: it replaces the target's list,
 * without its directive elements (mergeSliceWithSpecialElements). NULL if
 * it holds none. */
static json_t *
replacing_list(json_t *a)
{
	json_t *v, *out;
	size_t i;
	bool replace = false;

	json_array_foreach(a, i, v)
	{
		const char *d = json_string_value(json_object_get(v, "$patch"));

		if (d && !strcmp(d, "replace"))
			replace = true;
	}
	if (!replace)
		return NULL;
	out = json_array();
	json_array_foreach(a, i, v) if (!json_object_get(v, "$patch"))
	    json_array_append(out, v);
	return out;
}

/* target with patch merged in; with strategic, s (the schema of the
 * object at this level, or NULL where it is unknown) gives the lists'
 * merge keys. */
static json_t *
merge(json_t *target, json_t *patch, const struct schema *s, bool strategic)
{
	json_t *out, *v, *r;
	const char *k;

	if (!json_is_object(patch))
		return json_deep_copy(patch);
	out = json_is_object(target) ? json_deep_copy(target) : json_object();
	json_object_foreach(patch, k, v)
	{
		json_t *cur = json_object_get(out, k);
		const struct field *f = keyed_field(s, k);
		const char *key = keyed_merge_key(f);

		if (strategic && !strcmp(k, "$patch"))
			continue;
		if (strategic && json_is_object(v) &&
		    json_is_string(json_object_get(v, "$patch"))) {
			const char *d =
			    json_string_value(json_object_get(v, "$patch"));

			if (!strcmp(d, "delete")) { /* the whole map goes */
				json_object_del(out, k);
				continue;
			}
			if (!strcmp(d, "replace")) { /* the map as given */
				r = json_deep_copy(v);
				json_object_del(r, "$patch");
				json_object_set_new(out, k, r);
				continue;
			}
		}
		if (json_is_null(v)) {
			json_object_del(out, k);
		} else if (strategic && json_is_array(v) &&
			   (r = replacing_list(v))) {
			json_object_set_new(out, k, r);
		} else if (strategic && key && json_is_array(v)) {
			json_object_set_new(out, k,
					    merge_keyed(cur, v, key, f->sub));
		} else if (json_is_object(v)) {
			json_object_set_new(
			    out, k,
			    merge(cur, v, f ? f->sub : NULL, strategic));
		} else {
			json_object_set(out, k, v);
		}
	}
	return out;
}

json_t *
patch_merge(json_t *target, json_t *patch)
{
	return merge(target, patch, NULL, false);
}

/* Go's %v of a decoded JSON value (map[string]interface{}: keys
 * sorted, strings bare, numbers as float64), for the text of
 * mergepatch.ErrBadPatchType. */
static void
go_value(json_t *v, char *buf, size_t len, size_t *at)
{
#define PUT(...)                                                               \
	do {                                                                   \
		int n_ = snprintf(buf + *at, len - *at, __VA_ARGS__);          \
		if (n_ > 0)                                                    \
			*at = *at + (size_t)n_ < len ? *at + (size_t)n_        \
						     : len - 1;                \
	} while (0)
	size_t i, n;
	json_t *e;

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char **keys;
		const char *k;

		n = json_object_size(v);
		keys = calloc(n ? n : 1, sizeof(*keys));
		i = 0;
		json_object_foreach(v, k, e) keys[i++] = k;
		for (i = 1; i < n; i++) { /* insertion sort: maps are small */
			const char *x = keys[i];
			size_t j = i;

			for (; j > 0 && strcmp(keys[j - 1], x) > 0; j--)
				keys[j] = keys[j - 1];
			keys[j] = x;
		}
		PUT("map[");
		for (i = 0; i < n; i++) {
			PUT("%s%s:", i ? " " : "", keys[i]);
			go_value(json_object_get(v, keys[i]), buf, len, at);
		}
		PUT("]");
		free(keys);
		break;
	}
	case JSON_ARRAY:
		PUT("[");
		json_array_foreach(v, i, e)
		{
			if (i)
				PUT(" ");
			go_value(e, buf, len, at);
		}
		PUT("]");
		break;
	case JSON_STRING:
		PUT("%s", json_string_value(v));
		break;
	case JSON_INTEGER:
		PUT("%lld", (long long)json_integer_value(v));
		break;
	case JSON_REAL:
		PUT("%g", json_real_value(v));
		break;
	case JSON_TRUE:
		PUT("true");
		break;
	case JSON_FALSE:
		PUT("false");
		break;
	default:
		PUT("<nil>");
	}
#undef PUT
}

/* Every "$patch" directive of a strategic merge patch must be one
 * Kubernetes knows: "replace" or "delete" (a list element saying "merge"
 * is refused as Kubernetes refuses it). Returns 0, or -1 with
 * mergepatch.ErrBadPatchType's text ("unknown patch type: X in map:
 * map[...]") in err. */
static int
check_directives(json_t *patch, bool in_list, char *err, size_t errlen)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_array(patch)) {
		json_array_foreach(
		    patch, i,
		    v) if (check_directives(v, true, err, errlen)) return -1;
		return 0;
	}
	if (!json_is_object(patch))
		return 0;
	v = json_object_get(patch, "$patch");
	if (v) {
		const char *d = json_string_value(v);

		if (in_list && d && !strcmp(d, "merge")) {
			snprintf(err, errlen,
				 "merging lists cannot yet be "
				 "specified in the patch");
			return -1;
		}
		if (d == NULL ||
		    (strcmp(d, "replace") && strcmp(d, "delete"))) {
			size_t at = 0;

			at = (size_t)snprintf(err, errlen,
					      "unknown patch type: ");
			if (at >= errlen)
				at = errlen - 1;
			go_value(v, err, errlen, &at);
			if (at + 9 < errlen) {
				memcpy(err + at, " in map: ", 10);
				at += 9;
			}
			go_value(patch, err, errlen, &at);
			return -1;
		}
	}
	json_object_foreach(
	    patch, k, v) if (check_directives(v, false, err, errlen)) return -1;
	return 0;
}

json_t *
patch_strategic(json_t *target, json_t *patch, const struct schema *s,
		char *err, size_t errlen)
{
	if (check_directives(patch, false, err, errlen))
		return NULL;
	return merge(target, patch, s, true);
}

/* ---- RFC 6902 ---- */

/* Decodes one JSON Pointer token (~1 -> /, ~0 -> ~). */
static char *
token(const char **p)
{
	const char *s = *p, *e = strchr(s, '/');
	size_t n = e ? (size_t)(e - s) : strlen(s), i, k = 0;
	char *t = malloc(n + 1);

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

/* Finds the parent of the pointer's last token; *last gets the token
 * (caller frees). NULL if the path does not exist. */
static json_t *
parent_of(json_t *doc, const char *ptr, char **last)
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

		if (slash == NULL) {
			*last = t;
			return cur;
		}
		if (json_is_object(cur)) {
			cur = json_object_get(cur, t);
		} else if (json_is_array(cur)) {
			char *end;
			long i = strtol(t, &end, 10);

			cur = (*end || i < 0) ? NULL
					      : json_array_get(cur, (size_t)i);
		} else {
			cur = NULL;
		}
		free(t);
		if (cur == NULL)
			return NULL;
	}
}

static json_t *
get_ptr(json_t *doc, const char *ptr)
{
	char *last;
	json_t *par, *r = NULL;

	if (!strcmp(ptr, ""))
		return doc;
	par = parent_of(doc, ptr, &last);
	if (par == NULL) {
		free(last);
		return NULL;
	}
	if (json_is_object(par)) {
		r = json_object_get(par, last);
	} else if (json_is_array(par)) {
		char *end;
		long i = strtol(last, &end, 10);

		if (!*end && i >= 0)
			r = json_array_get(par, (size_t)i);
	}
	free(last);
	return r;
}

/* add (replace=false) or replace (replace=true); steals v. */
static int
put_ptr(json_t *doc, const char *ptr, json_t *v, bool replace)
{
	char *last;
	json_t *par = parent_of(doc, ptr, &last);
	int r = -1;

	if (par == NULL) {
		json_decref(v);
		free(last);
		return -1;
	}
	if (json_is_object(par)) {
		if (!replace || json_object_get(par, last))
			r = json_object_set_new(par, last, v);
		else
			json_decref(v);
	} else if (json_is_array(par)) {
		char *end;
		long i = strtol(last, &end, 10);
		size_t n = json_array_size(par);

		if (!replace && !strcmp(last, "-")) {
			r = json_array_append_new(par, v);
		} else if (*end || i < 0 || (size_t)i > (replace ? n - 1 : n) ||
			   (replace && n == 0)) {
			json_decref(v);
		} else if (replace) {
			r = json_array_set_new(par, (size_t)i, v);
		} else {
			r = json_array_insert_new(par, (size_t)i, v);
		}
	} else {
		json_decref(v);
	}
	free(last);
	return r;
}

static int
remove_ptr(json_t *doc, const char *ptr)
{
	char *last;
	json_t *par = parent_of(doc, ptr, &last);
	int r = -1;

	if (par && json_is_object(par)) {
		r = json_object_del(par, last);
	} else if (par && json_is_array(par)) {
		char *end;
		long i = strtol(last, &end, 10);

		if (!*end && i >= 0)
			r = json_array_remove(par, (size_t)i);
	}
	free(last);
	return r;
}

json_t *
patch_json(json_t *target, json_t *ops, char *err, size_t errlen)
{
	json_t *doc = json_deep_copy(target), *op;
	size_t i;

	if (!json_is_array(ops)) {
		snprintf(err, errlen, "a JSON patch must be an array");
		json_decref(doc);
		return NULL;
	}
	json_array_foreach(ops, i, op)
	{
		const char *o = json_string_value(json_object_get(op, "op"));
		const char *path =
		    json_string_value(json_object_get(op, "path"));
		const char *from =
		    json_string_value(json_object_get(op, "from"));
		json_t *value = json_object_get(op, "value"), *src;
		int r = -1;

		if (o == NULL || path == NULL) {
			snprintf(err, errlen,
				 "operation %zu: missing op or path", i);
			goto fail;
		}
		if (!strcmp(o, "add") && value) {
			r = put_ptr(doc, path, json_deep_copy(value), false);
		} else if (!strcmp(o, "replace") && value) {
			r = put_ptr(doc, path, json_deep_copy(value), true);
		} else if (!strcmp(o, "remove")) {
			r = remove_ptr(doc, path);
		} else if (!strcmp(o, "test") && value) {
			src = get_ptr(doc, path);
			r = src && json_equal(src, value) ? 0 : -1;
		} else if ((!strcmp(o, "move") || !strcmp(o, "copy")) && from &&
			   (src = get_ptr(doc, from))) {
			json_t *c = json_deep_copy(src);

			r = 0;
			if (!strcmp(o, "move"))
				r = remove_ptr(doc, from);
			if (r == 0)
				r = put_ptr(doc, path, c, false);
			else
				json_decref(c);
		}
		if (r) {
			snprintf(err, errlen,
				 "operation %zu (%s %s) cannot be applied", i,
				 o, path);
			goto fail;
		}
	}
	return doc;
fail:
	json_decref(doc);
	return NULL;
}
