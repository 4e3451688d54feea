/* h_read.c - discovery documents, get, list, the scale subresource read,
 * and watch streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "clock.h"
#include "openapi.h"
#include "xalloc.h"

/* One APIResource of a discovery document. */
static json_t *
api_resource(const char *name, const char *singular, bool namespaced,
	     const char *kind, json_t *verbs)
{
	return json_pack("{sssssbssso}", "name", name, "singularName", singular,
			 "namespaced", namespaced, "kind", kind, "verbs",
			 verbs);
}

/* The APIResourceList of group/version gv: every kind of the registry
 * in it, and their subresources. */
static json_t *
resource_list(const char *gv)
{
	json_t *arr = json_array();
	const struct kind_info *k;
	size_t n, i, j;
	char name[128];

	k = kinds_all(&n);
	for (i = 0; i < n; i++) {
		json_t *r, *shorts;
		bool ns = k[i].namespaced;

		if (strcmp(k[i].api_version, gv))
			continue;
		shorts = json_array();
		for (j = 0; j < KIND_MAX_SHORT_NAMES && k[i].short_names[j];
		     j++)
			json_array_append_new(shorts,
					      json_string(k[i].short_names[j]));
		r = api_resource(k[i].plural, k[i].singular, ns, k[i].kind,
				 json_pack("[ssssssss]", "create", "delete",
					   "deletecollection", "get", "list",
					   "patch", "update", "watch"));
		json_object_set_new(r, "shortNames", shorts);
		if (k[i].category_all)
			json_object_set_new(r, "categories",
					    json_pack("[s]", "all"));
		json_array_append_new(arr, r);
		if (k[i].subresources & KIND_SUB_BINDING) {
			snprintf(name, sizeof(name), "%s/binding", k[i].plural);
			json_array_append_new(
			    arr, api_resource(name, "", ns, "Binding",
					      json_pack("[s]", "create")));
		}
		if (k[i].subresources & KIND_SUB_EVICTION) {
			snprintf(name, sizeof(name), "%s/eviction",
				 k[i].plural);
			r = api_resource(name, "", ns, "Eviction",
					 json_pack("[s]", "create"));
			json_object_set_new(r, "group", json_string("policy"));
			json_object_set_new(r, "version", json_string("v1"));
			json_array_append_new(arr, r);
		}
		if (k[i].subresources & KIND_SUB_LOG) {
			snprintf(name, sizeof(name), "%s/log", k[i].plural);
			json_array_append_new(
			    arr, api_resource(name, "", ns, k[i].kind,
					      json_pack("[s]", "get")));
		}
		if (k[i].subresources & KIND_SUB_STATUS) {
			snprintf(name, sizeof(name), "%s/status", k[i].plural);
			json_array_append_new(
			    arr, api_resource(name, "", ns, k[i].kind,
					      json_pack("[sss]", "get", "patch",
							"update")));
		}
		if (k[i].subresources & KIND_SUB_SCALE) {
			snprintf(name, sizeof(name), "%s/scale", k[i].plural);
			r = api_resource(
			    name, "", ns, "Scale",
			    json_pack("[sss]", "get", "patch", "update"));
			json_object_set_new(r, "group",
					    json_string("autoscaling"));
			json_object_set_new(r, "version", json_string("v1"));
			json_array_append_new(arr, r);
		}
	}
	return json_pack("{ssssssso}", "kind", "APIResourceList", "apiVersion",
			 "v1", "groupVersion", gv, "resources", arr);
}

/* The kind of the registry that first names group (not the core
 * group), or NULL. */
static const struct kind_info *
group_kind(const char *group)
{
	const struct kind_info *k;
	size_t n, i;

	k = kinds_all(&n);
	for (i = 0; i < n; i++)
		if (*k[i].group && !strcmp(k[i].group, group))
			return &k[i];
	return NULL;
}

/* The APIGroup document of the group of kind k (one version). */
static json_t *
api_group(const struct kind_info *k)
{
	return json_pack("{sss[{ssss}]s{ssss}}", "name", k->group, "versions",
			 "groupVersion", k->api_version, "version", k->version,
			 "preferredVersion", "groupVersion", k->api_version,
			 "version", k->version);
}

/* APIGroupList: the groups of the registry, in its order. */
static json_t *
group_list(void)
{
	json_t *groups = json_array();
	const struct kind_info *k;
	size_t n, i;

	k = kinds_all(&n);
	for (i = 0; i < n; i++)
		if (*k[i].group && group_kind(k[i].group) == &k[i])
			json_array_append_new(groups, api_group(&k[i]));
	return json_pack("{ssssso}", "kind", "APIGroupList", "apiVersion", "v1",
			 "groups", groups);
}

void
h_discovery(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	const char *p = req->path;
	const struct kind_info *g = NULL;
	char gv[128] = "";

	if (!strncmp(p, "/openapi/", 9)) {
		h_openapi(a, req, resp);
		return;
	}
	resp->stateless = true;
	/* "/apis/GROUP" and "/apis/GROUP/VERSION" */
	if (!strncmp(p, "/apis/", 6) && p[6]) {
		const char *slash = strchr(p + 6, '/');
		char group[64];

		snprintf(group, sizeof(group), "%.*s",
			 (int)(slash ? (size_t)(slash - p - 6) : strlen(p + 6)),
			 p + 6);
		g = group_kind(group);
		if (g && slash && slash[1] && !strcmp(slash + 1, g->version))
			snprintf(gv, sizeof(gv), "%s", g->api_version);
		else if (slash && slash[1])
			g = NULL;
	}
	if (!strcmp(p, "/version") || !strcmp(p, "/version/")) {
		resp_json(
		    resp, 200,
		    json_pack("{ssssssssssssssssss}", "major", "1", "minor",
			      DROVER_K8S_MINOR, "gitVersion",
			      "v1." DROVER_K8S_MINOR ".0-drover", "gitCommit",
			      "drover", "gitTreeState", "clean", "buildDate",
			      "2026-01-01T00:00:00Z", "goVersion", "c11",
			      "compiler", "gcc", "platform", "linux/amd64"));
	} else if (!strcmp(p, "/api") || !strcmp(p, "/api/")) {
		resp_json(resp, 200,
			  json_pack("{sss[s]s[{ssss}]}", "kind", "APIVersions",
				    "versions", "v1",
				    "serverAddressByClientCIDRs", "clientCIDR",
				    "0.0.0.0/0", "serverAddress", ""));
	} else if (!strcmp(p, "/apis") || !strcmp(p, "/apis/")) {
		resp_json(resp, 200, group_list());
	} else if (!strcmp(p, "/api/v1")) {
		resp_json(resp, 200, resource_list("v1"));
	} else if (g && *gv) {
		resp_json(resp, 200, resource_list(gv));
	} else if (g) {
		json_t *doc = api_group(g);

		json_object_set_new(doc, "kind", json_string("APIGroup"));
		json_object_set_new(doc, "apiVersion", json_string("v1"));
		resp_json(resp, 200, doc);
	} else if (!strcmp(p, "/healthz") || !strcmp(p, "/readyz") ||
		   !strcmp(p, "/livez")) {
		resp->status = 200;
		resp->content_type = "text/plain";
		resp->body = xstrdup("ok");
	} else {
		resp_status(resp, 404, "NotFound",
			    "the server could not find the requested resource",
			    NULL, NULL, NULL);
	}
}

static json_t *
scale_of(const struct kind_info *res, json_t *obj)
{
	json_t *md = json_object_get(obj, "metadata");
	json_t *spec = json_object_get(obj, "spec");
	json_t *status = json_object_get(obj, "status");
	json_t *sel =
	    json_object_get(json_object_get(spec, "selector"), "matchLabels");
	/* a ReplicationController's selector is the label map itself */
	if (res->id == KIND_REPLICATION_CONTROLLER)
		sel = json_object_get(spec, "selector");
	json_t *rep = json_object_get(spec, "replicas");
	char selbuf[512] = "";
	const char *k;
	json_t *v;
	size_t off = 0;

	json_object_foreach(sel, k, v)
	{
		off += (size_t)snprintf(selbuf + off, sizeof(selbuf) - off,
					"%s%s=%s", off ? "," : "", k,
					json_string_value(v));
		if (off >= sizeof(selbuf))
			break;
	}
	return json_pack(
	    "{sssss{sO?sO?sO?sO?sO?}s{sI}s{sIss}}", "kind", "Scale",
	    "apiVersion", "autoscaling/v1", "metadata", "name",
	    json_object_get(md, "name"), "namespace",
	    json_object_get(md, "namespace"), "uid", json_object_get(md, "uid"),
	    "resourceVersion", json_object_get(md, "resourceVersion"),
	    "creationTimestamp", json_object_get(md, "creationTimestamp"),
	    "spec", "replicas", (json_int_t)(rep ? json_integer_value(rep) : 1),
	    "status", "replicas",
	    (json_int_t)json_integer_value(json_object_get(status, "replicas")),
	    "selector", selbuf);
}

void
h_get(struct api *a, struct route *rt, const struct query *q,
      struct api_resp *resp)
{
	struct store_key k = {rt->res->plural, rt->ns ? rt->ns : "", rt->name};
	struct store_item it;
	int r = store_get(a->cfg.store, &k, &it);
	json_t *o;

	(void)q;
	if (r) {
		resp_store_error(resp, r, rt->res, rt->name);
		return;
	}
	o = served_object(&it);
	store_item_release(&it);
	if (rt->sub && !strcmp(rt->sub, "scale")) {
		json_t *s = scale_of(rt->res, o);

		json_decref(o);
		o = s;
	} else if (*rt->table) {
		json_t *t = table_of_one(rt->res, o, rt->table, rt->include,
					 a->cfg.now(a->cfg.arg));

		json_decref(o);
		o = t;
	}
	resp_json(resp, 200, o);
}

/* A list answered as text, in pieces (api_stream): the items' stored
 * text spliced (served_text), parsed only when a field selector needs to
 * read them, or, when the Accept asks for a Table (kubectl get), a
 * Table's rows. The items are read from the store a batch at a time
 * (store_list_open: a snapshot at the list's resourceVersion), so that
 * neither the reading nor the printing of a long list holds the loop:
 * 20,000 pods took 110-140 ms of it in one read. A batch is about
 * LIST_BATCH_BYTES of rows (its row count follows the size of the rows
 * before it), and the next is read only when the client has taken the
 * last piece: a list whose client reads nothing holds one batch and its
 * cursor (held, which the server counts in its budget). */
#define LIST_PIECE       (64 * 1024)
#define LIST_BATCH       256
#define LIST_FIRST_BATCH 16
#define LIST_BATCH_BYTES (256 * 1024)
/* What an open cursor costs besides its rows: SQLite's connection, its
 * 256 KiB page cache and the parsed schema (measured: 1.6 MB for 20
 * stalled lists of 4,000 5 KB pods before the batches were bounded,
 * of which 1.25 MB was the batch). */
#define LIST_CURSOR_BYTES (384 * 1024)

struct list_stream {
	struct api_stream base;
	struct store_cursor *cur; /* NULL once every row is read */
	struct store_items items; /* the batch being printed */
	size_t batch;             /* rows to read next */
	struct filter f;
	/* A Table (table.c) when table is not "": its rows, not items. */
	const struct kind_info *res;
	char table[8];
	enum table_include include;
	dtime now;
	char *head; /* {"kind":..,"metadata":{..},"items":[ (or "rows":[) */
	size_t next, n;
	bool head_sent, read_all, done;
};

/* The bytes a batch of rows holds, about. */
static size_t
items_bytes(const struct store_items *items)
{
	size_t i, b = 0;

	for (i = 0; i < items->n; i++)
		b += strlen(items->v[i].value) + 128;
	return b;
}

/* Reads the next batch (the one before is printed); 0, or the store's
 * error. The cursor is closed after the last row, which lets the store
 * go of the snapshot before the last pieces are sent. */
static int
list_read(struct list_stream *ls)
{
	size_t bytes;
	int r;

	store_items_release(&ls->items);
	ls->next = 0;
	r = store_list_next(ls->cur, ls->batch, &ls->items, &ls->read_all);
	bytes = items_bytes(&ls->items);
	if (ls->items.n) {
		size_t per = bytes / ls->items.n + 1;

		ls->batch = LIST_BATCH_BYTES / per;
		if (ls->batch < 1)
			ls->batch = 1;
		if (ls->batch > LIST_BATCH)
			ls->batch = LIST_BATCH;
	}
	if (ls->read_all || r) {
		store_list_close(ls->cur);
		ls->cur = NULL;
	}
	ls->base.held = bytes + (ls->cur ? LIST_CURSOR_BYTES : 0);
	return r;
}

/* Appends one item of the batch (a comma before all but the first). */
static void
list_item(struct list_stream *ls, const struct store_item *it,
	  struct strbuf *out)
{
	json_t *o = NULL;
	char *text;

	if (ls->f.nfields || ls->f.has_labels || *ls->table) {
		o = ls->f.nfields || *ls->table ? served_object(it) : NULL;
		if (!filter_match(&ls->f, it, o)) {
			json_decref(o);
			return;
		}
	}
	if (ls->n++)
		strbuf_addch(out, ',');
	if (*ls->table) {
		json_t *row =
		    table_row_of(ls->res, o, ls->table, ls->include, ls->now);

		json_decref(o);
		o = row;
	} else if (o == NULL && served_text(it, out)) {
		return;
	}
	if (o == NULL)
		o = served_object(it);
	text = json_dumps(o, JSON_COMPACT);
	strbuf_addstr(out, text ? text : "{}");
	free(text);
	json_decref(o);
}

static bool
list_next(struct api_stream *base, struct strbuf *out)
{
	struct list_stream *ls = (struct list_stream *)base;
	size_t start = out->len;

	if (ls->done)
		return false;
	if (!ls->head_sent) {
		strbuf_addstr(out, ls->head);
		ls->head_sent = true;
	}
	while (out->len - start < LIST_PIECE) {
		if (ls->next == ls->items.n) {
			if (ls->read_all)
				break;
			if (list_read(ls)) {
				/* the answer ends here, not valid JSON:
				 * the client sees the failure */
				ls->done = true;
				return out->len > start;
			}
			continue;
		}
		list_item(ls, &ls->items.v[ls->next++], out);
	}
	if (ls->next == ls->items.n && ls->read_all) {
		strbuf_addstr(out, "]}");
		store_items_release(&ls->items);
		ls->base.held = 0;
		ls->done = true;
	}
	return true;
}

static void
list_free(struct api_stream *base)
{
	struct list_stream *ls = (struct list_stream *)base;

	store_list_close(ls->cur);
	store_items_release(&ls->items);
	filter_release(&ls->f);
	free(ls->head);
	free(ls);
}

/* The list of rt as text in pieces (takes f): its items, or with
 * rt->table the rows of a Table; 0, or the store's error. */
static int
list_text(struct api *a, struct route *rt, struct filter *f,
	  struct api_resp *resp)
{
	struct list_stream *ls = xcalloc(1, sizeof(*ls));
	struct strbuf sb = STRBUF_INIT;
	int64_t rv;
	int r;

	ls->base.next = list_next;
	ls->base.free = list_free;
	ls->batch = LIST_FIRST_BATCH;
	ls->res = rt->res;
	snprintf(ls->table, sizeof(ls->table), "%s", rt->table);
	ls->include = (enum table_include)rt->include;
	ls->now = a->cfg.now(a->cfg.arg);
	ls->f = *f;
	memset(f, 0, sizeof(*f));
	r = store_list_open(a->cfg.store, rt->res->plural, rt->ns,
			    ls->f.has_labels ? &ls->f.labels : NULL, &ls->cur,
			    &rv);
	if (r) {
		list_free(&ls->base);
		return r;
	}
	ls->base.held = LIST_CURSOR_BYTES;
	if (*ls->table) {
		char rvs[32];

		snprintf(rvs, sizeof(rvs), "%lld", (long long)rv);
		ls->head = table_head_text(rt->res, rvs, ls->table);
		if (ls->head == NULL) {
			list_free(&ls->base);
			return STORE_EIO;
		}
	} else {
		strbuf_addf(&sb,
			    "{\"kind\":\"%sList\",\"apiVersion\":\"%s\","
			    "\"metadata\":{\"resourceVersion\":\"%lld\"},"
			    "\"items\":[",
			    rt->res->kind, rt->res->api_version, (long long)rv);
		ls->head = strbuf_detach(&sb);
	}
	resp->status = 200;
	resp->content_type = "application/json";
	resp->stream = &ls->base;
	return 0;
}

void
h_list(struct api *a, struct route *rt, const struct query *q,
       struct api_resp *resp)
{
	struct store_items items;
	struct filter f;
	json_t *arr, *list;
	int64_t rv;
	size_t i;
	char rvs[32], kind[64], gv[64];
	int r;

	if (rt->sub) {
		resp_status(resp, 405, "MethodNotAllowed",
			    "the server does not allow this method on the "
			    "requested resource",
			    rt->res, NULL, NULL);
		return;
	}
	if (rv_parse(query_get(q, "resourceVersion"), &rv, resp))
		return;
	if (filter_parse(q, rt->res->id, &f, resp))
		return;
	if (!resp->as_json) {
		/* The cursor reads what is committed: this turn's writes
		 * too, as a list read by the writer would have. */
		if (api_flush(a, resp)) {
			filter_release(&f);
			return;
		}
		if ((r = list_text(a, rt, &f, resp)))
			resp_store_error(resp, r, rt->res, NULL);
		return;
	}
	r = store_list(a->cfg.store, rt->res->plural, rt->ns,
		       f.has_labels ? &f.labels : NULL, &items, &rv);
	if (r) {
		filter_release(&f);
		resp_store_error(resp, r, rt->res, NULL);
		return;
	}
	snprintf(rvs, sizeof(rvs), "%lld", (long long)rv);
	snprintf(kind, sizeof(kind), "%sList", rt->res->kind);
	snprintf(gv, sizeof(gv), "%s", rt->res->api_version);
	arr = json_array();
	for (i = 0; i < items.n; i++) {
		json_t *o = served_object(&items.v[i]);

		if (filter_match(&f, &items.v[i], o))
			json_array_append_new(arr, o);
		else
			json_decref(o);
	}
	store_items_release(&items);
	filter_release(&f);
	if (*rt->table) {
		/* json_array's items, in order, as one vector */
		json_t **objs =
		    xcalloc(json_array_size(arr) + 1, sizeof(*objs));

		for (i = 0; i < json_array_size(arr); i++)
			objs[i] = json_array_get(arr, i);
		list = table_of(rt->res, objs, json_array_size(arr), rvs,
				rt->table, rt->include, a->cfg.now(a->cfg.arg));
		free(objs);
		json_decref(arr);
		resp_json(resp, 200, list);
		return;
	}
	list = json_pack("{sssss{ss}so}", "kind", kind, "apiVersion", gv,
			 "metadata", "resourceVersion", rvs, "items", arr);
	resp_json(resp, 200, list);
}

/* ---- watch ---- */

struct api_watch {
	struct api *a;
	struct store_watch *sw;
	struct filter f;
	char *resource;
	api_watch_cb cb;         /* either this */
	api_watch_obj_cb obj_cb; /* or this */
	void *arg;
	bool bookmarks;
	bool stopped;
	const struct kind_info *res;
	/* A Table's version when the Accept asked for one: each event's
	 * object is then a one-row Table (table.c). */
	char table[8];
	enum table_include include;
};

static void
emit(struct api_watch *w, const char *type, json_t *obj)
{
	json_t *ev;
	char *s;
	size_t n;

	if (*w->table && strcmp(type, "BOOKMARK")) {
		json_t *t = table_of_one(w->res, obj, w->table, w->include,
					 w->a->cfg.now(w->a->cfg.arg));

		json_decref(obj);
		obj = t;
	}
	ev = json_pack("{ssso}", "type", type, "object", obj);

	if (w->obj_cb) {
		if (!w->stopped && w->obj_cb(w->arg, ev))
			w->stopped = true;
		json_decref(ev);
		return;
	}
	s = json_dumps(ev, JSON_COMPACT);
	n = strlen(s);
	json_decref(ev);
	s = xrealloc(s, n + 2);
	s[n] = '\n';
	s[n + 1] = '\0';
	if (!w->stopped && w->cb(w->arg, s, n + 1))
		w->stopped = true;
	free(s);
}

static void
on_store_event(void *arg, const struct store_event *ev)
{
	struct api_watch *w = arg;
	json_t *o;

	if (w->stopped)
		return;
	o = event_object(w->a, ev->item);
	if (!filter_match(&w->f, ev->item, o)) {
		json_decref(o);
		return;
	}
	emit(w,
	     ev->type == STORE_ADDED      ? "ADDED"
	     : ev->type == STORE_MODIFIED ? "MODIFIED"
					  : "DELETED",
	     o);
}

static struct api_watch *
watch_open(struct api *a, const struct api_req *req, api_watch_cb cb,
	   api_watch_obj_cb obj_cb, void *arg, struct api_resp *resp)
{
	struct api_watch *w;
	struct route rt;
	struct query q;
	const char *rvq, *bm;
	int64_t from = 0;
	int r;

	memset(resp, 0, sizeof(*resp));
	if (route_parse(req->path, &rt) || rt.name || rt.sub) {
		resp_status(resp, 404, "NotFound",
			    "the server could not find the requested resource",
			    NULL, NULL, NULL);
		return NULL;
	}
	/* Its initial state and rv must be committed ones. */
	if (obj_cb == NULL && api_flush(a, resp))
		return NULL;
	query_of(req, &q);
	w = xcalloc(1, sizeof(*w));
	w->a = a;
	w->cb = cb;
	w->obj_cb = obj_cb;
	w->arg = arg;
	w->res = rt.res;
	if (filter_parse(&q, rt.res->id, &w->f, resp)) {
		query_release(&q);
		free(w);
		return NULL;
	}
	if (req->accept &&
	    table_wanted(req->accept, w->table, sizeof(w->table)))
		w->include =
		    table_include_parse(query_get(&q, "includeObject"));
	rvq = query_get(&q, "resourceVersion");
	bm = query_get(&q, "allowWatchBookmarks");
	w->bookmarks = bm && !strcmp(bm, "true");
	if (rv_parse(rvq, &from, resp)) {
		filter_release(&w->f);
		query_release(&q);
		free(w);
		return NULL;
	}
	if (from == 0) {
		/* "Any" version: the current state as ADDED events, then
		 * everything after it. */
		struct store_items items;
		size_t i;

		store_list(a->cfg.store, rt.res->plural, rt.ns,
			   w->f.has_labels ? &w->f.labels : NULL, &items,
			   &from);
		for (i = 0; i < items.n; i++) {
			json_t *o = served_object(&items.v[i]);

			if (filter_match(&w->f, &items.v[i], o))
				emit(w, "ADDED", o);
			else
				json_decref(o);
		}
		store_items_release(&items);
	}
	/* A stream leaving the process gets a group's events once it is
	 * committed (store.h). */
	r = (obj_cb ? store_watch
		    : store_watch_durable)(a->cfg.store, rt.res->plural, rt.ns,
					   from, on_store_event, w, &w->sw);
	query_release(&q);
	if (r) {
		char msg[128];

		/* Newer than the store (after a restart or a rolled-back
		 * group): Kubernetes' message, and 410 so that the client
		 * lists again. */
		snprintf(msg, sizeof(msg),
			 from > store_rv(a->cfg.store)
			     ? "Too large resource version: %lld, current: %lld"
			     : "too old resource version: %lld (%lld)",
			 (long long)from, (long long)store_rv(a->cfg.store));
		resp_status(resp, 410, "Expired", msg, NULL, NULL, NULL);
		filter_release(&w->f);
		free(w);
		return NULL;
	}
	resp->status = 200;
	/* With bookmarks asked for, one at once tells the client where the
	 * initial state ends; then one a minute (server.c). */
	api_watch_bookmark(w);
	return w;
}

/* A watch counts as a WATCH request once it is open (or refused), with
 * the time its initial events took. */
static void
watch_metrics(struct api *a, const struct api_req *req, int code,
	      uint64_t started)
{
	struct route rt;

	if (route_parse(req->path, &rt))
		rt.res = NULL;
	api_metrics_observe_verb(a, "WATCH", rt.res ? &rt : NULL, code,
				 started);
}

struct api_watch *
api_watch_open(struct api *a, const struct api_req *req, api_watch_cb cb,
	       void *arg, struct api_resp *resp)
{
	uint64_t started = clock_mono_ns();
	struct api_watch *w = watch_open(a, req, cb, NULL, arg, resp);

	watch_metrics(a, req, resp->status, started);
	return w;
}

struct api_watch *
api_watch_open_obj(struct api *a, const struct api_req *req,
		   api_watch_obj_cb cb, void *arg, struct api_resp *resp)
{
	uint64_t started = clock_mono_ns();
	struct api_watch *w = watch_open(a, req, NULL, cb, arg, resp);

	watch_metrics(a, req, resp->status, started);
	return w;
}

void
api_watch_bookmark(struct api_watch *w)
{
	char rv[32], gv[64];

	if (!w->bookmarks || w->stopped)
		return;
	/* A stream leaving the process is at the committed rv. */
	snprintf(rv, sizeof(rv), "%lld",
		 (long long)(w->obj_cb ? store_rv(w->a->cfg.store)
				       : store_committed_rv(w->a->cfg.store)));
	if (*w->res->group)
		snprintf(gv, sizeof(gv), "%s/%s", w->res->group,
			 w->res->version);
	else
		snprintf(gv, sizeof(gv), "%s", w->res->version);
	emit(w, "BOOKMARK",
	     json_pack("{sssss{ss}}", "kind", w->res->kind, "apiVersion", gv,
		       "metadata", "resourceVersion", rv));
}

void
api_watch_close(struct api_watch *w)
{
	if (w == NULL)
		return;
	store_unwatch(w->a->cfg.store, w->sw);
	filter_release(&w->f);
	free(w);
}
