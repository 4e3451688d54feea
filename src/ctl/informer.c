/* informer.c - decode-once object caches fed by watches. */
#include <stdlib.h>
#include <string.h>

#include "informer.h"
#include "kube.h"
#include "object.h"
#include "xalloc.h"

struct sub {
	client_watch_cb cb;
	void *arg;
};

struct informer {
	struct client *client;
	enum kind_id kind;
	struct client_watch *w;
	struct object *objs;
	size_t n, alloc;
	struct sub *subs;
	size_t nsubs, subs_alloc;
	int held;
	json_t *pending; /* events held back */
};

static long
find(struct informer *inf, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < inf->n; i++) {
		const struct object_meta *m = object_meta(&inf->objs[i]);

		if (!strcmp(m->name ? m->name : "", name) &&
		    !strcmp(m->namespace ? m->namespace : "", ns))
			return (long)i;
	}
	return -1;
}

static void
apply(struct informer *inf, json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object");
	json_t *md = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	struct fielderr_list errs = {0};
	struct object o;
	long at;
	size_t i;

	if (ev == NULL || type == NULL || name == NULL)
		return;
	at = find(inf, ns ? ns : "", name);
	if (!strcmp(type, "DELETED")) {
		if (at >= 0) {
			object_release(&inf->objs[at]);
			inf->objs[at] = inf->objs[--inf->n];
		}
	} else if (strcmp(type, "BOOKMARK") &&
		   object_decode(obj, false, &o, &errs) == 0) {
		if (at >= 0) {
			object_release(&inf->objs[at]);
			inf->objs[at] = o;
		} else {
			ALLOC_GROW(inf->objs, inf->n + 1, inf->alloc);
			inf->objs[inf->n++] = o;
		}
	}
	fielderr_list_release(&errs);
	for (i = 0; i < inf->nsubs; i++)
		inf->subs[i].cb(inf->subs[i].arg, ev);
}

static void
on_event(void *arg, json_t *ev)
{
	struct informer *inf = arg;

	if (ev == NULL)
		return;
	if (inf->held) {
		json_array_append(inf->pending, ev);
		return;
	}
	apply(inf, ev);
}

int
informer_get(struct informer *inf, const char *ns, const char *name,
	     struct object *out)
{
	long at = find(inf, ns ? ns : "", name);
	const struct object *o;

	if (at < 0)
		return -1;
	o = &inf->objs[at];
	out->k = o->k;
	out->obj = xcalloc(1, o->k->schema->size);
	schema_copy(o->k->schema, out->obj, o->obj);
	return 0;
}

void
informer_hold(struct informer *inf)
{
	inf->held++;
}

void
informer_release(struct informer *inf)
{
	json_t *evs;
	size_t i;

	if (--inf->held > 0)
		return;
	while (json_array_size(inf->pending)) {
		evs = inf->pending;
		inf->pending = json_array();
		for (i = 0; i < json_array_size(evs); i++)
			apply(inf, json_array_get(evs, i));
		json_decref(evs);
	}
}

struct informer *
informer_new(struct client *c, enum kind_id k)
{
	struct informer *inf = xcalloc(1, sizeof(*inf));
	struct client_resp r;
	char path[256];

	inf->client = c;
	inf->kind = k;
	inf->pending = json_array();
	kube_path(path, sizeof(path), k, NULL, NULL, NULL);
	inf->w = c->ops->watch(c, path, "watch=true", on_event, inf, &r);
	client_resp_release(&r);
	if (inf->w == NULL) {
		json_decref(inf->pending);
		free(inf);
		return NULL;
	}
	return inf;
}

void
informer_free(struct informer *inf)
{
	size_t i;

	if (inf == NULL)
		return;
	inf->client->ops->unwatch(inf->client, inf->w);
	for (i = 0; i < inf->n; i++)
		object_release(&inf->objs[i]);
	free(inf->objs);
	free(inf->subs);
	json_decref(inf->pending);
	free(inf);
}

void
informer_subscribe(struct informer *inf, client_watch_cb cb, void *arg)
{
	ALLOC_GROW(inf->subs, inf->nsubs + 1, inf->subs_alloc);
	inf->subs[inf->nsubs].cb = cb;
	inf->subs[inf->nsubs].arg = arg;
	inf->nsubs++;
}

void
informer_unsubscribe(struct informer *inf, void *arg)
{
	size_t i = 0;

	while (inf && i < inf->nsubs) {
		if (inf->subs[i].arg == arg)
			inf->subs[i] = inf->subs[--inf->nsubs];
		else
			i++;
	}
}

size_t
informer_list(struct informer *inf, const char *ns, struct object ***out)
{
	size_t i, n = 0;

	*out = xcalloc(inf->n + 1, sizeof(**out));
	for (i = 0; i < inf->n; i++) {
		const struct object_meta *m = object_meta(&inf->objs[i]);

		if (ns == NULL || !strcmp(m->namespace ? m->namespace : "", ns))
			(*out)[n++] = &inf->objs[i];
	}
	return n;
}
