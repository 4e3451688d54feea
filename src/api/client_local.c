/* client_local.c - the in-process client: requests go straight to
 * api_handle(), watches to api_watch_open_obj(), with the semantics of
 * HTTP but bodies, answers and events passed as JSON values: nothing is
 * printed to text and parsed back. */
#include <stdlib.h>
#include <string.h>

#include "client_local.h"
#include "xalloc.h"

struct local {
	struct client base;
	struct api *api;
};

struct client_watch {
	struct api_watch *w;
	client_watch_cb cb;
	void *arg;
};

static int
local_request(struct client *c, const char *method, const char *path,
	      const char *query, const char *content_type, json_t *body,
	      struct client_resp *out)
{
	struct local *l = (struct local *)c;
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

	memset(out, 0, sizeof(*out));
	w->cb = cb;
	w->arg = arg;
	w->w = api_watch_open_obj(l->api, &req, on_event, w, &resp);
	out->status = resp.status;
	out->body = resp.body ? json_loads(resp.body, 0, NULL) : NULL;
	api_resp_release(&resp);
	if (w->w == NULL) {
		free(w);
		return NULL;
	}
	return w;
}

static void
local_unwatch(struct client *c, struct client_watch *w)
{
	(void)c;
	if (w) {
		api_watch_close(w->w);
		free(w);
	}
}

static void
local_free(struct client *c)
{
	free(c);
}

static int
local_flush(struct client *c)
{
	return api_flush(((struct local *)c)->api, NULL);
}

static const struct client_ops local_ops = {
    local_request, local_watch, local_unwatch, local_free, local_flush,
};

struct client *
client_local_new(struct api *api)
{
	struct local *l = xcalloc(1, sizeof(*l));

	l->base.ops = &local_ops;
	l->api = api;
	return &l->base;
}
