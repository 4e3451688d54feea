/* client_local.c - the in-process client: requests go straight to
 * api_handle(), watches to api_watch_open_obj(), with the semantics of
 * HTTP but bodies, answers and events passed as JSON values: nothing is
 * printed to text and parsed back.
 *
 * On a loop (client_local_new_on_loop), request_async makes the request
 * at once and hands the answer to the callback from the loop (a uv_idle_t
 * runs the answers due, in order), and a refused watch is reported from
 * the loop as an ERROR event and NULL: the contract of the HTTP client on
 * a loop (client.h), so that code written against one runs on the other. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client_local.h"
#include "xalloc.h"

/* An answer waiting for the loop: a request's, or a watch's refusal. */
struct due {
	uint64_t seq;
	struct client_resp r;
	client_done_cb cb; /* a request */
	void *arg;
	struct client_watch *w; /* a refused watch (its ERROR event in ev) */
	json_t *ev;
	struct due *next;
};

struct local {
	struct client base;
	struct api *api;
	uv_loop_t *loop; /* NULL: no request_async */
	uv_idle_t idle;  /* runs the answers due; its close frees l */
	struct due *due, **due_tail;
	uint64_t seq;
	struct client_watch *watches; /* open, to free with the client */
	struct client_watch *current; /* the one whose callback runs */
};

struct client_watch {
	struct local *l;
	struct api_watch *w; /* NULL if refused */
	client_watch_cb cb;
	void *arg;
	bool cancelled; /* unwatched while its callback ran */
	struct client_watch *prev, *next;
};

static void
answer(struct local *l, const char *method, const char *path, const char *query,
       const char *content_type, json_t *body, struct client_resp *out)
{
	struct api_req req = {
	    .method = method,
	    .path = path,
	    .query = query,
	    .content_type = content_type ? content_type : "application/json",
	    .json = body,
	    .want_json = true,
	};
	struct api_resp resp;

	api_handle(l->api, &req, &resp);
	out->status = resp.status;
	if (resp.json) {
		out->body = resp.json;
		resp.json = NULL;
	} else {
		out->body = resp.body ? json_loads(resp.body, 0, NULL) : NULL;
	}
	api_resp_release(&resp);
}

static int
local_request(struct client *c, const char *method, const char *path,
	      const char *query, const char *content_type, json_t *body,
	      struct client_resp *out)
{
	answer((struct local *)c, method, path, query, content_type, body, out);
	return 0;
}

static void on_idle(uv_idle_t *i);

static void
due_add(struct local *l, struct due *d)
{
	d->seq = ++l->seq;
	*l->due_tail = d;
	l->due_tail = &d->next;
	uv_idle_start(&l->idle, on_idle);
}

static struct due *
due_pop(struct local *l)
{
	struct due *d = l->due;

	l->due = d->next;
	if (l->due == NULL)
		l->due_tail = &l->due;
	return d;
}

static void
due_free(struct due *d)
{
	client_resp_release(&d->r);
	json_decref(d->ev);
	free(d);
}

static void
watch_free(struct client_watch *w)
{
	struct local *l = w->l;

	api_watch_close(w->w);
	if (w->prev)
		w->prev->next = w->next;
	else
		l->watches = w->next;
	if (w->next)
		w->next->prev = w->prev;
	free(w);
}

/* Runs one callback of w; false if w is gone (unwatched). */
static bool
call(struct client_watch *w, json_t *ev)
{
	struct local *l = w->l;

	l->current = w;
	w->cb(w->arg, ev);
	l->current = NULL;
	if (w->cancelled) {
		watch_free(w);
		return false;
	}
	return true;
}

/* The answers due when the turn began; later ones wait for the next. */
static void
on_idle(uv_idle_t *i)
{
	struct local *l = i->data;
	uint64_t last = l->seq;
	struct due *d;

	while (l->due && l->due->seq <= last) {
		d = due_pop(l);
		if (d->cb)
			d->cb(d->arg, &d->r);
		else if (call(d->w, d->ev))
			call(d->w, NULL);
		due_free(d);
	}
	if (l->due == NULL)
		uv_idle_stop(&l->idle);
}

/* The answer waiting for arg is dropped (the ones running are popped
 * already). */
static void
local_cancel(struct client *c, void *arg)
{
	struct local *l = (struct local *)c;
	struct due **pp, *d;

	for (pp = &l->due; (d = *pp); pp = &d->next)
		if (d->cb && d->arg == arg) {
			*pp = d->next;
			if (l->due_tail == &d->next)
				l->due_tail = pp;
			due_free(d);
			return;
		}
}

static int
local_request_async(struct client *c, const char *method, const char *path,
		    const char *query, const char *content_type, json_t *body,
		    client_done_cb cb, void *arg)
{
	struct local *l = (struct local *)c;
	struct due *d;

	if (l->loop == NULL)
		return -1;
	d = xcalloc(1, sizeof(*d));
	d->cb = cb;
	d->arg = arg;
	answer(l, method, path, query, content_type, body, &d->r);
	due_add(l, d);
	return 0;
}

static int
on_event(void *arg, json_t *ev)
{
	struct client_watch *w = arg;

	w->cb(w->arg, ev);
	return 0;
}

static struct client_watch *
local_watch(struct client *c, const char *path, const char *query,
	    client_watch_cb cb, void *arg, struct client_resp *out)
{
	struct local *l = (struct local *)c;
	struct client_watch *w = xcalloc(1, sizeof(*w));
	struct api_req req = {.method = "GET", .path = path, .query = query};
	struct api_resp resp;
	struct due *d;

	memset(out, 0, sizeof(*out));
	w->l = l;
	w->cb = cb;
	w->arg = arg;
	w->w = api_watch_open_obj(l->api, &req, on_event, w, &resp);
	out->status = resp.status;
	out->body = resp.body ? json_loads(resp.body, 0, NULL) : NULL;
	api_resp_release(&resp);
	if (w->w == NULL && l->loop == NULL) {
		free(w);
		return NULL;
	}
	w->next = l->watches;
	if (l->watches)
		l->watches->prev = w;
	l->watches = w;
	if (w->w)
		return w;
	/* Refused, on a loop: the ERROR event and the end come from it. */
	d = xcalloc(1, sizeof(*d));
	d->w = w;
	d->ev = json_pack("{ssso}", "type", "ERROR", "object",
			  out->body ? out->body : json_object());
	out->body = NULL;
	out->status = 0;
	due_add(l, d);
	return w;
}

static void
local_unwatch(struct client *c, struct client_watch *w)
{
	struct local *l = (struct local *)c;
	struct due **pp, *d;

	if (w == NULL)
		return;
	if (l->current == w) {
		w->cancelled = true; /* freed when its callback returns */
		return;
	}
	for (pp = &l->due; *pp;) {
		d = *pp;
		if (d->w != w) {
			pp = &d->next;
			continue;
		}
		*pp = d->next;
		due_free(d);
	}
	l->due_tail = &l->due;
	while (*l->due_tail)
		l->due_tail = &(*l->due_tail)->next;
	watch_free(w);
}

static void
local_closed(uv_handle_t *h)
{
	free(h->data);
}

static void
local_free(struct client *c)
{
	struct local *l = (struct local *)c;

	while (l->due)
		due_free(due_pop(l));
	while (l->watches)
		watch_free(l->watches);
	if (l->loop == NULL) {
		free(l);
		return;
	}
	uv_idle_stop(&l->idle);
	uv_close((uv_handle_t *)&l->idle, local_closed);
}

static int
local_flush(struct client *c)
{
	return api_flush(((struct local *)c)->api, NULL);
}

static const struct client_ops local_ops = {
    .request = local_request,
    .watch = local_watch,
    .unwatch = local_unwatch,
    .free = local_free,
    .cancel = local_cancel,
    .flush = local_flush,
    .request_async = local_request_async,
};

struct client *
client_local_new(struct api *api)
{
	return client_local_new_on_loop(api, NULL);
}

struct client *
client_local_new_on_loop(struct api *api, uv_loop_t *loop)
{
	struct local *l = xcalloc(1, sizeof(*l));

	l->base.ops = &local_ops;
	l->api = api;
	l->due_tail = &l->due;
	l->loop = loop;
	if (loop) {
		uv_idle_init(loop, &l->idle);
		l->idle.data = l;
	}
	return &l->base;
}
