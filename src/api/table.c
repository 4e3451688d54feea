/* table.c - server-side printing: a get, list or watch event answered as a
 * meta.k8s.io Table when the client's Accept asks for one, as `kubectl
 * get` does:
 *
 *   Accept: application/json;as=Table;v=v1;g=meta.k8s.io,
 *           application/json;as=Table;v=v1beta1;g=meta.k8s.io,
 *           application/json
 *
 * The columns are the core's column registry (src/core/apis/columns.h), the
 * same `drover get` prints. A Table (Kubernetes' metav1.Table):
 *
 *   {"kind":"Table","apiVersion":"meta.k8s.io/v1",
 *    "metadata":{"resourceVersion":"467"},
 *    "columnDefinitions":[{"name":"Name","type":"string","format":"name",
 *                          "description":"...","priority":0}, ...],
 *    "rows":[{"cells":["web","3/3",3,3,"2s"],
 *             "object":{"kind":"PartialObjectMetadata",
 *                       "apiVersion":"meta.k8s.io/v1",
 *                       "metadata":{"name":"web","namespace":"default",
 *                                   "labels":{"app":"web"},...}}}]}
 *
 * Each row's object is what ?includeObject= asks for: Metadata (the
 * default: a PartialObjectMetadata, which kubectl needs for -A,
 * --show-labels and -L), Object (the whole object) or None. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_int.h"
#include "columns.h"
#include "object.h"

/* One media range's parameter value ("Table" for as=), or false. */
static bool
param_of(const char *range, size_t len, const char *key, char *val, size_t vlen)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		const char *semi = memchr(range + i, ';', len - i);
		size_t end = semi ? (size_t)(semi - range) : len, s = i;

		while (s < end && (range[s] == ' ' || range[s] == '\t'))
			s++;
		if (end - s > klen && !strncasecmp(range + s, key, klen) &&
		    range[s + klen] == '=') {
			size_t n = end - s - klen - 1;

			if (n >= vlen)
				n = vlen - 1;
			memcpy(val, range + s + klen + 1, n);
			val[n] = '\0';
			while (n && (val[n - 1] == ' ' || val[n - 1] == '\t'))
				val[--n] = '\0';
			return true;
		}
		i = end + 1;
	}
	return false;
}

/* The first media range of accept that asks for a Table of group
 * meta.k8s.io (Kubernetes' negotiation picks the first it serves): its
 * version in version ("v1" or "v1beta1"). */
bool
table_wanted(const char *accept, char *version, size_t len)
{
	const char *p = accept;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char as[32], g[64], v[32];

		if (param_of(p, n, "as", as, sizeof(as)) &&
		    !strcmp(as, "Table") &&
		    (!param_of(p, n, "g", g, sizeof(g)) ||
		     !strcmp(g, "meta.k8s.io"))) {
			if (!param_of(p, n, "v", v, sizeof(v)))
				snprintf(v, sizeof(v), "v1");
			if (!strcmp(v, "v1") || !strcmp(v, "v1beta1")) {
				snprintf(version, len, "%s", v);
				return true;
			}
		}
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

enum table_include
table_include_parse(const char *s)
{
	if (s && !strcmp(s, "None"))
		return TABLE_INCLUDE_NONE;
	if (s && !strcmp(s, "Object"))
		return TABLE_INCLUDE_OBJECT;
	return TABLE_INCLUDE_METADATA;
}

static json_t *
column_definitions(const struct kind_info *k)
{
	const struct column *c;
	json_t *defs = json_array();
	size_t n, i;

	c = columns_of(k->id, &n);
	for (i = 0; i < n; i++)
		json_array_append_new(
		    defs,
		    json_pack("{sssssssssi}", "name", c[i].name, "type",
			      c[i].type, "format", c[i].format, "description",
			      c[i].description, "priority", c[i].priority));
	return defs;
}

/* The row of obj (a served object): its cells by the kind's columns, and
 * its object. An object the codec cannot read (it was stored by an older
 * drover, say) still gets a row: its name, other cells empty. */
static json_t *
table_row(const struct kind_info *k, json_t *obj, enum table_include inc,
	  const char *api_version, dtime now)
{
	const struct column *c;
	struct fielderr_list errs = {0};
	struct object o = {0};
	struct strbuf sb = STRBUF_INIT;
	json_t *cells = json_array(), *row;
	const char *name = json_string_value(
	    json_object_get(json_object_get(obj, "metadata"), "name"));
	size_t n, i;
	bool ok;

	ok = object_decode(obj, false, &o, &errs) == 0 && o.k == k;
	fielderr_list_release(&errs);
	c = columns_of(k->id, &n);
	for (i = 0; i < n; i++) {
		strbuf_reset(&sb);
		if (ok)
			c[i].cell(&o, now, &sb);
		else if (!strcmp(c[i].format, "name") && name)
			strbuf_addstr(&sb, name);
		if (!strcmp(c[i].type, "integer") && ok)
			json_array_append_new(
			    cells, json_integer(strtoll(sb.buf, NULL, 10)));
		else
			json_array_append_new(cells, json_string(sb.buf));
	}
	strbuf_release(&sb);
	if (o.obj)
		object_release(&o);
	row = json_pack("{so}", "cells", cells);
	if (inc == TABLE_INCLUDE_OBJECT)
		json_object_set(row, "object", obj);
	else if (inc == TABLE_INCLUDE_METADATA)
		json_object_set_new(
		    row, "object",
		    json_pack("{sssssO}", "kind", "PartialObjectMetadata",
			      "apiVersion", api_version, "metadata",
			      json_object_get(obj, "metadata")));
	return row;
}

json_t *
table_of(const struct kind_info *k, json_t *const *objs, size_t n,
	 const char *rv, const char *version, enum table_include inc, dtime now)
{
	char gv[32];
	json_t *rows = json_array(), *t;
	size_t i;

	snprintf(gv, sizeof(gv), "meta.k8s.io/%s", version);
	for (i = 0; i < n; i++)
		json_array_append_new(rows,
				      table_row(k, objs[i], inc, gv, now));
	t = json_pack("{sssss{}soso}", "kind", "Table", "apiVersion", gv,
		      "metadata", "columnDefinitions", column_definitions(k),
		      "rows", rows);
	if (rv)
		json_object_set_new(json_object_get(t, "metadata"),
				    "resourceVersion", json_string(rv));
	return t;
}

json_t *
table_row_of(const struct kind_info *k, json_t *obj, const char *version,
	     enum table_include inc, dtime now)
{
	char gv[32];

	snprintf(gv, sizeof(gv), "meta.k8s.io/%s", version);
	return table_row(k, obj, inc, gv, now);
}

char *
table_head_text(const struct kind_info *k, const char *rv, const char *version)
{
	json_t *t = table_of(k, NULL, 0, rv, version, TABLE_INCLUDE_NONE, 0);
	static const char tail[] = "\"rows\":[]}";
	char *s = json_dumps(t, JSON_COMPACT);
	size_t n = s ? strlen(s) : 0;

	json_decref(t);
	/* jansson prints members in insertion order: "rows":[] is last */
	if (n < sizeof(tail) || strcmp(s + n - (sizeof(tail) - 1), tail)) {
		free(s);
		return NULL;
	}
	s[n - 2] = '\0';
	return s;
}

json_t *
table_of_one(const struct kind_info *k, json_t *obj, const char *version,
	     enum table_include inc, dtime now)
{
	return table_of(
	    k, &obj, 1,
	    json_string_value(json_object_get(json_object_get(obj, "metadata"),
					      "resourceVersion")),
	    version, inc, now);
}
