/* client_fake.c - the recording fake client (client_fake.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_fake.h"
#include "kube.h"
#include "xalloc.h"

struct answer {
	char *method, *path;
	int status;
	json_t *body;
};

struct client_watch {
	struct fake *f;
	char *path;
	client_watch_cb cb;
	void *arg;
	bool ended;
	bool cancelled; /* unwatched while its callback ran */
	int running;    /* callbacks running */
	struct client_watch *prev, *next;
};

/* An answer of request_async waiting for the loop. */
struct due {
	struct client_resp r;
	client_done_cb cb;
	void *arg;
	struct due *next;
};

struct fake {
	struct client base;
	uv_loop_t *loop;
	uv_idle_t idle; /* runs the answers due; its close frees f */
	struct due *due, **due_tail;
	struct due *batch; /* the answers on_idle is handing out */
	struct answer *answers;
	size_t nanswers, answers_alloc;
	struct client_fake_request *reqs;
	size_t nreqs, reqs_alloc;
	bool echo;
	unsigned long rv;
	unsigned long names; /* names given to generateName creates */
	struct client_watch *watches;
};

static void
record(struct fake *f, const char *method, const char *path, const char *query,
       json_t *body)
{
	struct client_fake_request *r;

	ALLOC_GROW(f->reqs, f->nreqs + 1, f->reqs_alloc);
	r = &f->reqs[f->nreqs++];
	r->method = xstrdup(method);
	r->path = xstrdup(path);
	r->query = xstrdup(query ? query : "");
	r->body = body ? json_deep_copy(body) : NULL;
}

static void
answer(struct fake *f, const char *method, const char *path, json_t *body,
       struct client_resp *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = f->nanswers; i-- > 0;) {
		struct answer *a = &f->answers[i];

		if (!strcmp(a->method, method) && !strcmp(a->path, path)) {
			out->status = a->status;
			out->body = a->body ? json_deep_copy(a->body) : NULL;
			return;
		}
	}
	if (f->echo && body &&
	    (!strcmp(method, "POST") || !strcmp(method, "PUT") ||
	     !strcmp(method, "PATCH"))) {
		json_t *md;

		out->status = strcmp(method, "POST") ? 200 : 201;
		out->body = json_deep_copy(body);
		md = json_object_get(out->body, "metadata");
		if (json_is_object(md) &&
		    !json_object_get(md, "resourceVersion")) {
			char rv[32];

			snprintf(rv, sizeof(rv), "fake-%lu", ++f->rv);
			json_object_set_new(md, "resourceVersion",
					    json_string(rv));
		}
		if (json_is_object(md) && !strcmp(method, "POST") &&
		    !json_object_get(md, "name") &&
		    json_is_string(json_object_get(md, "generateName"))) {
			char name[300];

			snprintf(name, sizeof(name), "%sfake%lu",
				 json_string_value(
				     json_object_get(md, "generateName")),
				 ++f->names);
			json_object_set_new(md, "name", json_string(name));
		}
		return;
	}
	out->status = 404;
	out->body = json_pack("{sssss{}sssssssi}", "kind", "Status",
			      "apiVersion", "v1", "metadata", "status",
			      "Failure", "message", "the fake has no answer",
			      "reason", "NotFound", "code", 404);
}

static int
fake_request(struct client *c, const char *method, const char *path,
	     const char *query, const char *content_type, json_t *body,
	     struct client_resp *out)
{
	struct fake *f = (struct fake *)c;

	(void)content_type;
	record(f, method, path, query, body);
	answer(f, method, path, body, out);
	return 0;
}

static void
on_idle(uv_idle_t *i)
{
	struct fake *f = i->data;
	struct due *d;

	/* The answers due when the turn began; later ones, the next. */
	f->batch = f->due;
	f->due = NULL;
	f->due_tail = &f->due;
	while ((d = f->batch) != NULL) {
		f->batch = d->next;
		d->cb(d->arg, &d->r);
		client_resp_release(&d->r);
		free(d);
	}
	if (f->due == NULL)
		uv_idle_stop(&f->idle);
}

/* Drops the answer waiting for arg: in f->due, or in the batch on_idle
 * is running (f->batch). */
static void
fake_cancel(struct client *c, void *arg)
{
	struct fake *f = (struct fake *)c;
	struct due **lists[] = {&f->due, &f->batch}, **pp, *d;
	size_t i;

	for (i = 0; i < 2; i++)
		for (pp = lists[i]; (d = *pp); pp = &d->next)
			if (d->arg == arg) {
				*pp = d->next;
				if (f->due_tail == &d->next)
					f->due_tail = pp;
				client_resp_release(&d->r);
				free(d);
				return;
			}
}

static int
fake_request_async(struct client *c, const char *method, const char *path,
		   const char *query, const char *content_type, json_t *body,
		   client_done_cb cb, void *arg)
{
	struct fake *f = (struct fake *)c;
	struct due *d;

	if (f->loop == NULL)
		return -1;
	d = xcalloc(1, sizeof(*d));
	fake_request(c, method, path, query, content_type, body, &d->r);
	d->cb = cb;
	d->arg = arg;
	*f->due_tail = d;
	f->due_tail = &d->next;
	uv_idle_start(&f->idle, on_idle);
	return 0;
}

static struct client_watch *
fake_watch(struct client *c, const char *path, const char *query,
	   client_watch_cb cb, void *arg, struct client_resp *out)
{
	struct fake *f = (struct fake *)c;
	struct client_watch *w = xcalloc(1, sizeof(*w));

	record(f, "GET", path, query, NULL);
	memset(out, 0, sizeof(*out));
	out->status = 200;
	w->f = f;
	w->path = xstrdup(path);
	w->cb = cb;
	w->arg = arg;
	w->next = f->watches;
	if (f->watches)
		f->watches->prev = w;
	f->watches = w;
	return w;
}

static void
watch_free(struct client_watch *w)
{
	struct fake *f = w->f;

	if (w->prev)
		w->prev->next = w->next;
	else
		f->watches = w->next;
	if (w->next)
		w->next->prev = w->prev;
	free(w->path);
	free(w);
}

static void
fake_unwatch(struct client *c, struct client_watch *w)
{
	(void)c;
	if (w == NULL)
		return;
	if (w->running)
		w->cancelled = true;
	else
		watch_free(w);
}

size_t
client_fake_emit(struct client *c, const char *path, json_t *ev)
{
	struct fake *f = (struct fake *)c;
	struct client_watch *w, **v = NULL;
	size_t i, n = 0, alloc = 0;

	/* The watches reached are those open now; a callback may open or
	 * close watches. */
	for (w = f->watches; w; w = w->next)
		if (!w->ended && !w->cancelled && !strcmp(w->path, path)) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = w;
			w->running++;
		}
	for (i = 0; i < n; i++) {
		w = v[i];
		if (!w->cancelled && !w->ended) {
			if (ev == NULL)
				w->ended = true;
			w->cb(w->arg, ev);
		}
	}
	for (i = 0; i < n; i++)
		if (--v[i]->running == 0 && v[i]->cancelled)
			watch_free(v[i]);
	free(v);
	return n;
}

size_t
client_fake_emitf(struct client *c, const char *path, const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	json_t *ev;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if ((ev = json_loads(text, 0, NULL)) == NULL)
		return 0;
	n = client_fake_emit(c, path, ev);
	json_decref(ev);
	return n;
}

size_t
client_fake_watches(struct client *c)
{
	struct fake *f = (struct fake *)c;
	struct client_watch *w;
	size_t n = 0;

	for (w = f->watches; w; w = w->next)
		if (!w->ended && !w->cancelled)
			n++;
	return n;
}

void
client_fake_answer(struct client *c, const char *method, const char *path,
		   int status, json_t *body)
{
	struct fake *f = (struct fake *)c;
	struct answer *a;

	ALLOC_GROW(f->answers, f->nanswers + 1, f->answers_alloc);
	a = &f->answers[f->nanswers++];
	a->method = xstrdup(method);
	a->path = xstrdup(path);
	a->status = status;
	a->body = json_incref(body);
}

void
client_fake_answer_empty_list(struct client *c, enum kind_id k)
{
	json_t *list = json_pack("{s{ss}s[]}", "metadata", "resourceVersion",
				 "5", "items");
	char path[256];

	kube_path(path, sizeof(path), k, NULL, NULL, NULL);
	client_fake_answer(c, "GET", path, 200, list);
	json_decref(list);
}

void
client_fake_echo_writes(struct client *c, bool on)
{
	((struct fake *)c)->echo = on;
}

size_t
client_fake_count(struct client *c)
{
	return ((struct fake *)c)->nreqs;
}

const struct client_fake_request *
client_fake_request(struct client *c, size_t i)
{
	struct fake *f = (struct fake *)c;

	return i < f->nreqs ? &f->reqs[i] : NULL;
}

size_t
client_fake_count_of(struct client *c, const char *method, const char *path)
{
	struct fake *f = (struct fake *)c;
	size_t i, n = 0;

	for (i = 0; i < f->nreqs; i++)
		if (!strcmp(f->reqs[i].method, method) &&
		    !strcmp(f->reqs[i].path, path))
			n++;
	return n;
}

const struct client_fake_request *
client_fake_last(struct client *c, const char *method, const char *path)
{
	struct fake *f = (struct fake *)c;
	size_t i;

	for (i = f->nreqs; i-- > 0;)
		if (!strcmp(f->reqs[i].method, method) &&
		    !strcmp(f->reqs[i].path, path))
			return &f->reqs[i];
	return NULL;
}

void
client_fake_clear(struct client *c)
{
	struct fake *f = (struct fake *)c;
	size_t i;

	for (i = 0; i < f->nreqs; i++) {
		free(f->reqs[i].method);
		free(f->reqs[i].path);
		free(f->reqs[i].query);
		json_decref(f->reqs[i].body);
	}
	f->nreqs = 0;
}

static void
fake_closed(uv_handle_t *h)
{
	free(h->data);
}

static void
fake_free(struct client *c)
{
	struct fake *f = (struct fake *)c;
	size_t i;

	client_fake_clear(c);
	free(f->reqs);
	for (i = 0; i < f->nanswers; i++) {
		free(f->answers[i].method);
		free(f->answers[i].path);
		json_decref(f->answers[i].body);
	}
	free(f->answers);
	while (f->watches)
		watch_free(f->watches);
	while (f->due) {
		struct due *d = f->due;

		f->due = d->next;
		client_resp_release(&d->r);
		free(d);
	}
	if (f->loop == NULL) {
		free(f);
		return;
	}
	uv_idle_stop(&f->idle);
	uv_close((uv_handle_t *)&f->idle, fake_closed);
}

static const struct client_ops fake_ops = {
    .request = fake_request,
    .watch = fake_watch,
    .unwatch = fake_unwatch,
    .free = fake_free,
    .flush = NULL,
    .request_async = fake_request_async,
    .cancel = fake_cancel,
};

struct client *
client_fake_new(uv_loop_t *loop)
{
	struct fake *f = xcalloc(1, sizeof(*f));

	f->base.ops = &fake_ops;
	f->due_tail = &f->due;
	f->loop = loop;
	if (loop) {
		uv_idle_init(loop, &f->idle);
		f->idle.data = f;
	}
	return &f->base;
}
