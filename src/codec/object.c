/* object.c - apiVersion/kind dispatch, Lists, and manifest loading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "manifest.h"
#include "object.h"
#include "xalloc.h"

int
object_decode(json_t *doc, bool prepare, struct object *out,
	      struct fielderr_list *errs)
{
	const char *av, *kind;
	const struct kind_info *k;
	size_t before = errs->n;

	out->k = NULL;
	out->obj = NULL;
	if (!json_is_object(doc)) {
		fielderr_add(errs, FE_INVALID, "<root>", NULL,
			     "an object must be a JSON/YAML mapping");
		return -1;
	}
	av = json_string_value(json_object_get(doc, "apiVersion"));
	kind = json_string_value(json_object_get(doc, "kind"));
	if (av == NULL)
		fielderr_add(errs, FE_REQUIRED, "apiVersion", NULL,
			     "apiVersion must be set");
	if (kind == NULL)
		fielderr_add(errs, FE_REQUIRED, "kind", NULL,
			     "kind must be set");
	if (av == NULL || kind == NULL)
		return -1;
	k = kind_lookup(av, kind);
	if (k == NULL) {
		char msg[300];

		snprintf(msg, sizeof(msg),
			 "no kind \"%s\" is registered for version \"%s\"",
			 kind, av);
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "kind", kind, msg);
		return -1;
	}
	out->k = k;
	out->obj = xcalloc(1, k->schema->size);
	codec_decode(k->schema, doc, out->obj, "", errs);
	if (errs->n == before && prepare) {
		k->defaults(out->obj);
		k->validate(out->obj, errs);
	}
	if (errs->n != before) {
		object_release(out);
		return -1;
	}
	return 0;
}

json_t *
object_encode(const struct object *o)
{
	json_t *j = codec_encode(o->k->schema, o->obj);

	/* apiVersion and kind first, always set. */
	json_t *r = json_object();

	json_object_set_new(r, "apiVersion", json_string(o->k->api_version));
	json_object_set_new(r, "kind", json_string(o->k->kind));
	json_object_update_missing(r, j);
	json_decref(j);
	return r;
}

void
manifest_errors_release(struct manifest_errors *e)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		free(e->v[i].what);
		fielderr_list_release(&e->v[i].errs);
	}
	free(e->v);
	free(e->syntax);
	memset(e, 0, sizeof(*e));
}

void
manifest_errors_format(const struct manifest_errors *e, struct strbuf *sb)
{
	size_t i, j;

	if (e->syntax)
		strbuf_addf(sb, "error: %s\n", e->syntax);
	for (i = 0; i < e->n; i++) {
		strbuf_addf(sb, "The %s is invalid:\n", e->v[i].what);
		for (j = 0; j < e->v[i].errs.n; j++) {
			strbuf_addstr(sb, "* ");
			fielderr_format(&e->v[i].errs.v[j], sb);
			strbuf_addch(sb, '\n');
		}
	}
}

static void
describe(json_t *doc, size_t index, char *buf, size_t len)
{
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	json_t *md = json_object_get(doc, "metadata");
	const char *name = json_string_value(json_object_get(md, "name"));

	if (kind && name)
		snprintf(buf, len, "%s \"%s\"", kind, name);
	else if (kind)
		snprintf(buf, len, "%s in document %zu", kind, index + 1);
	else
		snprintf(buf, len, "document %zu", index + 1);
}

static void
load_doc(json_t *doc, size_t index, bool prepare, struct object_list *out,
	 struct manifest_errors *errs)
{
	struct fielderr_list fe = {0};
	struct object o;
	const char *kind = json_string_value(json_object_get(doc, "kind"));

	if (kind && !strcmp(kind, "List")) {
		json_t *items = json_object_get(doc, "items"), *it;
		size_t i;

		json_array_foreach(items, i, it)
		    load_doc(it, index, prepare, out, errs);
		return;
	}
	if (object_decode(doc, prepare, &o, &fe) == 0) {
		object_list_push(out, o);
		return;
	}
	{
		char what[300];
		struct manifest_error *me;

		describe(doc, index, what, sizeof(what));
		ALLOC_GROW(errs->v, errs->n + 1, errs->alloc);
		me = &errs->v[errs->n++];
		me->what = xstrdup(what);
		me->errs = fe;
	}
}

int
manifest_load(const char *buf, size_t len, bool prepare,
	      struct object_list *out, struct manifest_errors *errs)
{
	char err[512] = "";
	json_t *docs = manifest_parse(buf, len, err, sizeof(err)), *doc;
	size_t i;

	memset(errs, 0, sizeof(*errs));
	if (docs == NULL) {
		errs->syntax = xstrdup(err[0] ? err : "cannot parse manifest");
		return -1;
	}
	json_array_foreach(docs, i, doc) load_doc(doc, i, prepare, out, errs);
	json_decref(docs);
	if (errs->n) {
		object_list_release(out);
		return -1;
	}
	return 0;
}
