/* api.c - request dispatch, routing (by the kind registry, kinds.h),
 * query strings and Kubernetes Status responses. */
#include <ctype.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "k8spb.h"
#include "options.h"
#include "clock.h"
#include "inplace_apply.h"
#include "labels.h"
#include "openapi.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- query strings ---- */

/* A query string's key or value decoded as a form field: '+' is a
 * space, %XX a byte (libmicrohttpd's MHD_http_unescape, as it decodes
 * the query of the requests it parses itself). */
static char *
url_decode(const char *s, size_t n)
{
	char *o = xstrndup(s, n), *c;

	for (c = o; *c; c++)
		if (*c == '+')
			*c = ' ';
	MHD_http_unescape(o);
	return o;
}

void
query_of(const struct api_req *req, struct query *out)
{
	size_t i;

	if (req->args == NULL) {
		query_parse(req->query, out);
		return;
	}
	memset(out, 0, sizeof(*out));
	for (i = 0; i < req->nargs && out->n < 32; i++) {
		out->keys[out->n] = xstrdup(req->args[2 * i]);
		out->vals[out->n] = xstrdup(req->args[2 * i + 1]);
		out->n++;
	}
}

void
query_parse(const char *q, struct query *out)
{
	memset(out, 0, sizeof(*out));
	while (q && *q && out->n < 32) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', len);

		if (len) {
			size_t kl = eq ? (size_t)(eq - q) : len;

			out->keys[out->n] = url_decode(q, kl);
			out->vals[out->n] =
			    eq ? url_decode(eq + 1, len - kl - 1) : xstrdup("");
			out->n++;
		}
		q = amp ? amp + 1 : NULL;
	}
}

void
query_release(struct query *q)
{
	size_t i;

	for (i = 0; i < q->n; i++) {
		free(q->keys[i]);
		free(q->vals[i]);
	}
	q->n = 0;
}

const char *
query_get(const struct query *q, const char *key)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		if (!strcmp(q->keys[i], key))
			return q->vals[i];
	return NULL;
}

bool
query_bool(const struct query *q, const char *key)
{
	static const char *const yes[] = {"1",    "t",    "T",
					  "true", "True", "TRUE"};
	const char *v = query_get(q, key);
	size_t i;

	for (i = 0; v && i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(v, yes[i]))
			return true;
	return false;
}

/* ---- routing ---- */

/* KIND_SUB_* of a subresource's name; 0 if none. */
static unsigned
subresource_flag(const char *sub)
{
	return !strcmp(sub, "status")              ? KIND_SUB_STATUS
	       : !strcmp(sub, "scale")             ? KIND_SUB_SCALE
	       : !strcmp(sub, "binding")           ? KIND_SUB_BINDING
	       : !strcmp(sub, "log")               ? KIND_SUB_LOG
	       : !strcmp(sub, INPLACE_SUBRESOURCE) ? KIND_SUB_INPLACE
	       : !strcmp(sub, "eviction")          ? KIND_SUB_EVICTION
						   : 0;
}

int
route_parse(const char *path, struct route *rt)
{
	char *seg[12], *p;
	size_t n = 0, i = 0;
	const char *group, *version;

	memset(rt, 0, sizeof(*rt));
	if (strlen(path) >= sizeof(rt->buf))
		return -1;
	strcpy(rt->buf, path);
	for (p = strtok(rt->buf, "/"); p && n < 12; p = strtok(NULL, "/"))
		seg[n++] = p;
	if (n >= 2 && !strcmp(seg[0], "api")) {
		group = "";
		version = seg[1];
		i = 2;
	} else if (n >= 3 && !strcmp(seg[0], "apis")) {
		group = seg[1];
		version = seg[2];
		i = 3;
	} else {
		return -1;
	}
	if (n - i >= 3 && !strcmp(seg[i], "namespaces")) {
		rt->ns = seg[i + 1];
		i += 2;
	}
	if (i >= n)
		return -1;
	rt->res = kind_by_resource(group, version, seg[i]);
	if (rt->res == NULL)
		return -1;
	if (!rt->res->namespaced && rt->ns)
		return -1;
	if (!rt->res->namespaced)
		rt->ns = ""; /* cluster-scoped objects live in namespace "" */
	i++;
	if (i < n)
		rt->name = seg[i++];
	if (i < n)
		rt->sub = seg[i++];
	if (i < n)
		return -1;
	if (rt->sub && !(rt->res->subresources & subresource_flag(rt->sub)))
		return -1;
	if (rt->name && rt->res->namespaced && rt->ns == NULL)
		return -1;
	return 0;
}

/* ---- responses ---- */

void
resp_json(struct api_resp *resp, int status, json_t *body)
{
	resp->status = status;
	resp->content_type = "application/json";
	if (body == NULL) { /* a json_pack format bug: never serve garbage */
		resp->status = 500;
		resp->body = xstrdup("{\"kind\":\"Status\",\"apiVersion\":"
				     "\"v1\",\"status\":\"Failure\",\"reason\":"
				     "\"InternalError\",\"code\":500}");
		return;
	}
	if (resp->as_json) {
		resp->json = body;
		return;
	}
	resp->body = json_dumps(body, JSON_COMPACT);
	json_decref(body);
}

/* A Status object (see resp_status). */
static json_t *
status_json(int code, const char *reason, const char *message,
	    const struct kind_info *res, const char *name,
	    const struct fielderr_list *causes)
{
	json_t *st =
	    json_pack("{sssss{}sssssssi}", "kind", "Status", "apiVersion", "v1",
		      "metadata", "status", code < 400 ? "Success" : "Failure",
		      "message", message, "reason", reason, "code", code);
	json_t *details = NULL;
	size_t i;

	if (res || name || causes) {
		details = json_object();
		if (name)
			json_object_set_new(details, "name", json_string(name));
		if (res) {
			if (*res->group)
				json_object_set_new(details, "group",
						    json_string(res->group));
			json_object_set_new(details, "kind",
					    json_string(res->plural));
		}
	}
	if (causes && causes->n) {
		json_t *arr = json_array();

		for (i = 0; i < causes->n; i++) {
			struct strbuf m = STRBUF_INIT;
			const struct fielderr *e = &causes->v[i];
			const char *colon;

			fielderr_format(e, &m);
			/* the message without the leading "<field>: " */
			colon = strstr(m.buf, ": ");
			json_array_append_new(
			    arr, json_pack("{sssss s}", "reason",
					   fielderr_reason(e->type), "message",
					   colon ? colon + 2 : m.buf, "field",
					   e->field));
			strbuf_release(&m);
		}
		json_object_set_new(details, "causes", arr);
	}
	if (details)
		json_object_set_new(st, "details", details);
	return st;
}

void
resp_status(struct api_resp *resp, int code, const char *reason,
	    const char *message, const struct kind_info *res, const char *name,
	    const struct fielderr_list *causes)
{
	resp_json(resp, code,
		  status_json(code, reason, message, res, name, causes));
}

void
resp_not_found(struct api_resp *resp, const struct kind_info *res,
	       const char *name)
{
	char q[128], msg[512];

	kind_qualified_plural(res, q, sizeof(q));
	snprintf(msg, sizeof(msg), "%s \"%s\" not found", q, name);
	resp_status(resp, 404, "NotFound", msg, res, name, NULL);
}

void
resp_store_error(struct api_resp *resp, int err, const struct kind_info *res,
		 const char *name)
{
	char q[128], msg[600];

	kind_qualified_plural(res, q, sizeof(q));
	switch (err) {
	case STORE_ENOENT:
		resp_not_found(resp, res, name);
		return;
	case STORE_EEXIST:
		snprintf(msg, sizeof(msg), "%s \"%s\" already exists", q, name);
		resp_status(resp, 409, "AlreadyExists", msg, res, name, NULL);
		return;
	case STORE_ECONFLICT:
		snprintf(msg, sizeof(msg),
			 "Operation cannot be fulfilled on %s \"%s\": the "
			 "object has been modified; please apply your changes "
			 "to the latest version and try again",
			 q, name);
		resp_status(resp, 409, "Conflict", msg, res, name, NULL);
		return;
	case STORE_EROFS:
		resp_store_unavailable(resp);
		return;
	default:
		resp_internal(resp, store_strerror(err));
	}
}

void
resp_internal(struct api_resp *resp, const char *cause)
{
	char msg[600];
	json_t *st;

	/* apierrors.NewInternalError */
	snprintf(msg, sizeof(msg), "Internal error occurred: %s", cause);
	st = json_pack("{sssss{}sssssss{s[{ss}]}si}", "kind", "Status",
		       "apiVersion", "v1", "metadata", "status", "Failure",
		       "message", msg, "reason", "InternalError", "details",
		       "causes", "message", cause, "code", 500);
	api_resp_release(resp);
	resp_json(resp, 500, st);
}

void
resp_store_unavailable(struct api_resp *resp)
{
	api_resp_release(resp);
	resp_status(resp, 503, "ServiceUnavailable",
		    "the store is read-only: drover serve could not open it "
		    "for writing (is the disk full?); reads are served, "
		    "writes are refused until there is room",
		    NULL, NULL, NULL);
}

void
resp_invalid(struct api_resp *resp, const struct kind_info *res,
	     const char *name, const struct fielderr_list *errs)
{
	struct strbuf m = STRBUF_INIT;
	json_t *st;
	size_t i;

	strbuf_addf(&m, "%s%s%s \"%s\" is invalid: ", res->kind,
		    *res->group ? "." : "", res->group, name ? name : "");
	if (errs->n > 1)
		strbuf_addch(&m, '[');
	for (i = 0; i < errs->n; i++) {
		if (i)
			strbuf_addstr(&m, ", ");
		fielderr_format(&errs->v[i], &m);
	}
	if (errs->n > 1)
		strbuf_addch(&m, ']');
	st = status_json(422, "Invalid", m.buf, res, name, errs);
	strbuf_release(&m);
	/* NotFound and friends name the resource ("deployments"); Invalid
	 * names the Kind ("Deployment"), as in Kubernetes. */
	json_object_set_new(json_object_get(st, "details"), "kind",
			    json_string(res->kind));
	resp_json(resp, 422, st);
}

json_t *
served_object(const struct store_item *it)
{
	json_t *o = json_loads(it->value, 0, NULL), *md;
	char rv[32];

	if (o == NULL)
		return json_object();
	md = json_object_get(o, "metadata");
	if (!json_is_object(md)) {
		md = json_object();
		json_object_set_new(o, "metadata", md);
	}
	snprintf(rv, sizeof(rv), "%lld", (long long)it->rv);
	json_object_set_new(md, "resourceVersion", json_string(rv));
	return o;
}

bool
served_text(const struct store_item *it, struct strbuf *out)
{
	static const char key[] = "\"metadata\":{";
	const char *v = it->value, *m = strstr(v, key);
	size_t at;

	if (m == NULL || v[0] != '{' || memchr(v + 1, '{', (size_t)(m - v - 1)))
		return false;
	at = (size_t)(m - v) + sizeof(key) - 1;
	strbuf_add(out, v, at);
	strbuf_addf(out, "\"resourceVersion\":\"%lld\"%s", (long long)it->rv,
		    v[at] == '}' ? "" : ",");
	strbuf_addstr(out, v + at);
	return true;
}

/* Takes the oldest held value out of the ring: its reference, the
 * caller's. */
static json_t *
pop_held(struct api *a)
{
	json_t *v = a->held[a->held_head].v;

	a->held_head = (a->held_head + 1) % API_HELD_MAX;
	a->nheld--;
	return v;
}

void
api_hold_written(struct api *a, int64_t rv, json_t *v)
{
	struct held_value *h;

	if (a->nheld == API_HELD_MAX) /* the oldest is parsed instead */
		json_decref(pop_held(a));
	h = &a->held[(a->held_head + a->nheld) % API_HELD_MAX];
	h->rv = rv;
	h->v = json_incref(v);
	a->nheld++;
}

void
api_events_delivered(struct api *a)
{
	while (a->nheld)
		json_decref(pop_held(a));
}

/* The held value of version rv, or NULL; the ones before it go: events
 * come in version order, so theirs were delivered (or never will be, a
 * rolled-back group's). Example: held 7, 8, 9; the event of 8 drops 7
 * and takes 8; 9 waits for its own. */
static json_t *
take_held(struct api *a, int64_t rv)
{
	json_t *v = NULL;

	while (a->nheld && a->held[a->held_head].rv <= rv) {
		bool mine = a->held[a->held_head].rv == rv;
		json_t *h = pop_held(a);

		if (mine)
			v = h;
		else
			json_decref(h);
	}
	return v;
}

json_t *
event_object(struct api *a, const struct store_item *it)
{
	json_t *o;

	if (a->ev_obj && a->ev_rv == it->rv)
		return json_incref(a->ev_obj);
	o = take_held(a, it->rv);
	if (o == NULL)
		o = served_object(it);
	json_decref(a->ev_obj);
	a->ev_obj = o;
	a->ev_rv = it->rv;
	return json_incref(o);
}

/* ---- filters ---- */

/* fields.UnescapeValue: "\\", "\," and "\=" are escapes; any other
 * escape, and an unescaped "," or "=", are errors. */
static char *
field_unescape(const char *s, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	bool slash = false;

	for (; *s; s++) {
		if (slash) {
			if (*s != '\\' && *s != ',' && *s != '=') {
				snprintf(err, errlen,
					 "invalid field selector: invalid "
					 "escape sequence: \\%c",
					 *s);
				strbuf_release(&sb);
				return NULL;
			}
			strbuf_addch(&sb, *s);
			slash = false;
		} else if (*s == '\\') {
			slash = true;
		} else if (*s == ',' || *s == '=') {
			/* Go prints the rune with %v: its code point */
			snprintf(err, errlen,
				 "invalid field selector: unescaped character "
				 "in value: %d",
				 *s);
			strbuf_release(&sb);
			return NULL;
		} else {
			strbuf_addch(&sb, *s);
		}
	}
	if (slash) {
		snprintf(err, errlen,
			 "invalid field selector: invalid escape sequence: \\");
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static int
cmp_term(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* fields.ParseSelector: terms split at unescaped commas, sorted, each
 * "lhs!=rhs", "lhs==rhs" or "lhs=rhs" at the first operator. */
static int
field_selector_parse(const char *fs, struct filter *f, char *err, size_t errlen)
{
	char *terms[64];
	size_t n = 0, i, start = 0, k;
	bool slash = false;
	int rc = 0;

	for (k = 0;; k++) {
		bool end = fs[k] == '\0';

		if (!end && slash) {
			slash = false;
			continue;
		}
		if (!end && fs[k] == '\\') {
			slash = true;
			continue;
		}
		if (!end && fs[k] != ',')
			continue;
		if (n == 64) {
			snprintf(err, errlen,
				 "invalid selector: '%.200s'; too many terms",
				 fs);
			rc = -1;
			break;
		}
		terms[n++] = xstrndup(fs + start, k - start);
		start = k + 1;
		if (end)
			break;
	}
	if (rc == 0)
		qsort(terms, n, sizeof(terms[0]), cmp_term);
	for (i = 0; rc == 0 && i < n; i++) {
		char *t = terms[i], *v;
		size_t at, oplen = 0;
		bool neg = false;

		if (!*t)
			continue;
		for (at = 0; t[at]; at++) {
			if (!strncmp(t + at, "!=", 2)) {
				neg = true;
				oplen = 2;
			} else if (!strncmp(t + at, "==", 2)) {
				oplen = 2;
			} else if (t[at] == '=') {
				oplen = 1;
			}
			if (oplen)
				break;
		}
		if (!oplen) {
			snprintf(err, errlen,
				 "invalid selector: '%.200s'; can't understand "
				 "'%.200s'",
				 fs, t);
			rc = -1;
			break;
		}
		if ((v = field_unescape(t + at + oplen, err, errlen)) == NULL) {
			rc = -1;
			break;
		}
		t[at] = '\0';
		if (!kind_field_label(kind_by_id(f->kid), t)) {
			snprintf(err, errlen,
				 "field label not supported: %.200s", t);
			free(v);
			rc = -1;
			break;
		}
		if (f->nfields ==
		    sizeof(f->field_path) / sizeof(f->field_path[0])) {
			snprintf(err, errlen,
				 "invalid selector: '%.200s'; too many terms",
				 fs);
			free(v);
			rc = -1;
			break;
		}
		f->field_path[f->nfields] =
		    xstrdup(kind_field_path(kind_by_id(f->kid), t));
		f->field_value[f->nfields] = v;
		f->field_neg[f->nfields] = neg;
		f->nfields++;
	}
	for (i = 0; i < n; i++)
		free(terms[i]);
	return rc;
}

int
filter_parse(const struct query *q, enum kind_id kid, struct filter *f,
	     struct api_resp *resp)
{
	const char *ls = query_get(q, "labelSelector");
	const char *fs = query_get(q, "fieldSelector");
	char err[600];

	memset(f, 0, sizeof(*f));
	f->kid = kid;
	if (list_numbers_check(q, resp))
		return -1;
	if (ls && *ls) {
		if (selector_parse(ls, &f->labels, err, sizeof(err))) {
			schema_release(&schema_label_selector, &f->labels);
			resp_status(resp, 400, "BadRequest", err, NULL, NULL,
				    NULL);
			return -1;
		}
		f->has_labels = true;
		if (label_selector_check(&f->labels, resp)) {
			filter_release(f);
			return -1;
		}
	}
	if (fs && *fs && field_selector_parse(fs, f, err, sizeof(err))) {
		filter_release(f);
		resp_status(resp, 400, "BadRequest", err, NULL, NULL, NULL);
		return -1;
	}
	if (list_continue_check(q, resp)) {
		filter_release(f);
		return -1;
	}
	return 0;
}

/* A dotted path into the object ("metadata.name", "spec.nodeName"), as
 * the text a field selector compares: booleans and numbers printed. */
static const char *
field_value(json_t *obj, const char *path, char *num, size_t numlen)
{
	char buf[256], *p, *save = NULL;
	json_t *cur = obj;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, ".", &save); p && cur;
	     p = strtok_r(NULL, ".", &save))
		cur = json_object_get(cur, p);
	if (json_is_boolean(cur))
		return json_is_true(cur) ? "true" : "false";
	if (json_is_integer(cur)) {
		snprintf(num, numlen, "%lld",
			 (long long)json_integer_value(cur));
		return num;
	}
	return cur ? json_string_value(cur) : NULL;
}

bool
filter_match(const struct filter *f, const struct store_item *it, json_t *obj)
{
	size_t i;

	if (f->has_labels && !selector_matches(&f->labels, &it->labels))
		return false;
	for (i = 0; i < f->nfields; i++) {
		char num[32];
		const char *v =
		    field_value(obj, f->field_path[i], num, sizeof(num));
		bool eq = !strcmp(v ? v : "", f->field_value[i]);

		if (eq == f->field_neg[i])
			return false;
	}
	return true;
}

void
filter_release(struct filter *f)
{
	size_t i;

	if (f->has_labels)
		schema_release(&schema_label_selector, &f->labels);
	for (i = 0; i < f->nfields; i++) {
		free(f->field_path[i]);
		free(f->field_value[i]);
	}
	memset(f, 0, sizeof(*f));
}

/* ---- dispatch ---- */

void
api_serve_node_logs(struct api *a, const char *node, podlog_read_fn read,
		    void *arg)
{
	size_t i;

	for (i = 0; i < a->nlogs; i++)
		if (!strcmp(a->logs[i].node, node))
			break;
	if (read == NULL) {
		if (i < a->nlogs) {
			free(a->logs[i].node);
			a->logs[i] = a->logs[--a->nlogs];
		}
		return;
	}
	if (i == a->nlogs) {
		a->logs = xrealloc(a->logs, (a->nlogs + 1) * sizeof(*a->logs));
		a->logs[a->nlogs++].node = xstrdup(node);
	}
	a->logs[i].read = read;
	a->logs[i].arg = arg;
}

struct api *
api_new(const struct api_config *cfg)
{
	struct api *a = xcalloc(1, sizeof(*a));

	a->cfg = *cfg;
	a->cache = objcache_new(OBJCACHE_BYTES);
	return a;
}

void
api_stop_loop_work(struct api *a)
{
	if (a)
		h_log_remote_free(a);
}

void
api_free(struct api *a)
{
	if (a) {
		json_decref(a->ev_obj);
		api_events_delivered(a);
		openapi_cache_free(a->openapi);
		objcache_free(a->cache);
		api_metrics_free(a);
		while (a->nlogs)
			free(a->logs[--a->nlogs].node);
		free(a->logs);
		h_log_remote_free(a);
	}
	free(a);
}

int
api_flush(struct api *a, struct api_resp *resp)
{
	if (store_flush(a->cfg.store) == 0)
		return 0;
	if (resp)
		resp_internal(resp, store_strerror(STORE_EIO));
	return -1;
}

bool
api_pending(struct api *a)
{
	return store_pending(a->cfg.store);
}

int64_t
api_last_rv(struct api *a)
{
	return store_rv(a->cfg.store);
}

bool
api_durable(struct api *a, int64_t rv)
{
	return store_rv_durable(a->cfg.store, rv);
}

bool
api_lost(struct api *a, int64_t rv)
{
	return store_rv_lost(a->cfg.store, rv);
}

void
api_resp_rolled_back(struct api_resp *resp)
{
	api_resp_release(resp);
	resp_internal(resp, store_strerror(STORE_EIO));
}

void
api_resp_release(struct api_resp *resp)
{
	free(resp->body);
	resp->body = NULL;
	json_decref(resp->json);
	resp->json = NULL;
	if (resp->stream)
		resp->stream->free(resp->stream);
	resp->stream = NULL;
	if (resp->deferred)
		resp->deferred->cancel(resp->deferred);
	resp->deferred = NULL;
}

bool
api_is_watch(const struct api_req *req)
{
	struct route rt;
	struct query q;
	bool r;

	if (strcmp(req->method, "GET"))
		return false;
	query_of(req, &q);
	r = query_bool(&q, "watch");
	query_release(&q);
	/* One in the namespace "." or "..", refused, is answered by
	 * api_handle (route_dots_check). */
	return r && (route_parse(req->path, &rt) || !rt.ns ||
		     (strcmp(rt.ns, ".") && strcmp(rt.ns, "..")));
}

/* The options of a write that the query string carries: dryRun (the
 * DeleteOptions body may add its own, see h_delete), and the media type
 * of a body to decode. 0, or -1 with the refusal in resp. */
static int
write_options(const struct api_req *req, struct route *rt,
	      const struct query *q, struct api_resp *resp)
{
	const char *m = req->method;
	const char *kind = !strcmp(m, "POST")     ? "CreateOptions"
			   : !strcmp(m, "PUT")    ? "UpdateOptions"
			   : !strcmp(m, "PATCH")  ? "PatchOptions"
			   : !strcmp(m, "DELETE") ? "DeleteOptions"
						  : NULL;
	int r;

	if (kind == NULL)
		return 0;
	if ((r = dry_run_query(q, kind, resp)) < 0)
		return -1;
	rt->dry_run = r == 1;
	if ((!strcmp(m, "POST") || !strcmp(m, "PUT")) &&
	    body_media_type(req, resp))
		return -1;
	return 0;
}

const char *
api_verb(const char *method, const struct route *rt)
{
	if (!strcmp(method, "GET"))
		return rt->name ? "get" : "list";
	if (!strcmp(method, "POST"))
		return "create";
	if (!strcmp(method, "PUT"))
		return "update";
	if (!strcmp(method, "PATCH"))
		return "patch";
	if (!strcmp(method, "DELETE"))
		return rt->name ? "delete" : "deletecollection";
	return method;
}

/* p, a piece of from->buf (or not: a static string, NULL), in to->buf. */
static const char *
rebase(const struct route *to, const struct route *from, const char *p)
{
	uintptr_t at = (uintptr_t)p, lo = (uintptr_t)from->buf;

	if (p && at >= lo && at < lo + sizeof(from->buf))
		return to->buf + (at - lo);
	return p;
}

/* The request, routed into *rt (rt->res NULL: not a resource). */
static void
handle(struct api *a, const struct api_req *req, struct api_resp *resp,
       struct route *rt_out)
{
	struct route rt;
	struct query q;
	const char *m = req->method;

	memset(resp, 0, sizeof(*resp));
	resp->as_json = req->want_json;
	if (!strcmp(req->path, "/metrics")) {
		h_metrics(a, req, resp);
		return;
	}
	if (req->body_len > API_MAX_BODY) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "Request entity too large: limit is %d", API_MAX_BODY);
		resp_status(resp, 413, "RequestEntityTooLarge", msg, NULL, NULL,
			    NULL);
		return;
	}
	if (h_drover(a, req, resp))
		return;
	if (route_parse(req->path, &rt)) {
		rt.res = NULL;
		if (!strcmp(m, "GET")) {
			h_discovery(a, req, resp);
			return;
		}
		resp_status(resp, 404, "NotFound",
			    "the server could not find the requested resource",
			    NULL, NULL, NULL);
		return;
	}
	/* ns, name and sub point into rt.buf: into the copy's own */
	*rt_out = rt;
	rt_out->ns = rebase(rt_out, &rt, rt.ns);
	rt_out->name = rebase(rt_out, &rt, rt.name);
	rt_out->sub = rebase(rt_out, &rt, rt.sub);
	if (route_dots_check(&rt, resp))
		return;
	query_of(req, &q);
	if (!strcmp(m, "GET") && req->accept &&
	    table_wanted(req->accept, rt.table, sizeof(rt.table)))
		rt.include =
		    table_include_parse(query_get(&q, "includeObject"));
	if (write_options(req, &rt, &q, resp) ||
	    (req->node && api_node_authorize(a, req, &rt, resp))) {
		query_release(&q);
		return;
	}
	if (!strcmp(m, "GET") && rt.sub && !strcmp(rt.sub, "log"))
		h_log(a, &rt, &q, resp);
	else if (!strcmp(m, "GET") && rt.name)
		h_get(a, &rt, &q, resp);
	else if (!strcmp(m, "GET"))
		h_list(a, &rt, &q, resp);
	else if (!strcmp(m, "POST") && !rt.name && rt.ns)
		h_create(a, &rt, req, resp);
	else if (!strcmp(m, "POST") && rt.sub && !strcmp(rt.sub, "binding"))
		h_bind(a, &rt, req, resp);
	else if (!strcmp(m, "POST") && rt.sub && !strcmp(rt.sub, "eviction"))
		h_evict(a, &rt, req, resp);
	else if (!strcmp(m, "POST") && rt.sub &&
		 !strcmp(rt.sub, INPLACE_SUBRESOURCE))
		h_inplace(a, &rt, req, resp);
	else if (!strcmp(m, "PUT") && rt.name)
		h_update(a, &rt, req, resp);
	else if (!strcmp(m, "PATCH") && rt.name)
		h_patch(a, &rt, req, resp);
	else if (!strcmp(m, "DELETE") && rt.name && !rt.sub)
		h_delete(a, &rt, &q, req, resp);
	else
		resp_status(resp, 405, "MethodNotAllowed",
			    "the server does not allow this method on the "
			    "requested resource",
			    rt.res, rt.name, NULL);
	query_release(&q);
}

/* A body in Kubernetes' protobuf (kubectl 1.32 and later send some):
 * decoded to JSON and handled as the same request in JSON (k8spb.h); a
 * kind drover reads only in JSON is 415, as kube-apiserver answers a
 * media type it does not accept, and a body that is not protobuf 400. */
static void
handle_protobuf(struct api *a, const struct api_req *req, struct api_resp *resp,
		struct route *rt)
{
	struct api_req jr = *req;
	json_t *v;
	char err[400];
	int r = k8spb_decode(req->body, req->body_len, &v, err, sizeof(err));

	if (r) {
		resp_status(resp, r > 0 ? 415 : 400,
			    r > 0 ? "UnsupportedMediaType" : "BadRequest", err,
			    NULL, NULL, NULL);
		return;
	}
	jr.content_type = "application/json";
	jr.body = NULL;
	jr.body_len = 0;
	jr.parsed = v;
	jr.parse_error = NULL;
	handle(a, &jr, resp, rt);
	json_decref(v);
}

void
api_handle(struct api *a, const struct api_req *req, struct api_resp *resp)
{
	uint64_t started = clock_mono_ns();
	struct route rt;

	rt.res = NULL;
	memset(resp, 0, sizeof(*resp));
	if (req->body && req->body_len && req->json == NULL &&
	    req->body_len <= API_MAX_BODY &&
	    media_type_is(req->content_type, K8SPB_MEDIA_TYPE))
		handle_protobuf(a, req, resp, &rt);
	else
		handle(a, req, resp, &rt);
	api_metrics_observe(a, req, rt.res ? &rt : NULL, resp->status, started);
}
