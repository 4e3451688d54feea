/* patch.c - merge patch (RFC 7386), JSON patch (RFC 6902), and the
 * strategic merge patch of src/codec/smp.c. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patch.h"
#include "smp.h"

/* RFC 7386: objects merge member by member, null deletes, anything
 * else (lists included) replaces. */
static json_t *
merge(json_t *target, json_t *patch)
{
	json_t *out, *v;
	const char *k;

	if (!json_is_object(patch))
		return json_deep_copy(patch);
	out = json_is_object(target) ? json_deep_copy(target) : json_object();
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
	return merge(target, patch);
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
