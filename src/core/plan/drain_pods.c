/* drain_pods.c - kubectl drain's pod filters (drain_pods.h), with
 * pkg/drain's messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drain_pods.h"
#include "xalloc.h"

#define DAEMONSET_FATAL                                                        \
	"DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
#define DAEMONSET_WARNING "ignoring DaemonSet-managed Pods"
#define LOCAL_STORAGE_FATAL                                                    \
	"Pods with local storage (use --delete-emptydir-data to override)"
#define LOCAL_STORAGE_WARNING "deleting Pods with local storage"
#define UNMANAGED_FATAL       "Pods declare no controller (use --force to override)"
#define UNMANAGED_WARNING     "deleting Pods that declare no controller"
#define MIRROR_ANNOTATION     "kubernetes.io/config.mirror"

static bool
finished(const struct pod *p)
{
	return p->status.phase && (!strcmp(p->status.phase, "Succeeded") ||
				   !strcmp(p->status.phase, "Failed"));
}

static void
set(struct drain_pod *d, enum drain_verdict v, bool warning, const char *msg)
{
	free(d->message);
	d->verdict = v;
	d->warning = warning;
	d->message = msg ? xstrdup(msg) : NULL;
}

/* One pod through the filters; false once one does not delete. */
static bool
skip_deleted(const struct drain_opts *o, const struct pod *p, dtime now,
	     struct drain_pod *d)
{
	if (o->skip_wait_s > 0 && p->metadata.deletion_timestamp &&
	    (now - p->metadata.deletion_timestamp) / 1000 > o->skip_wait_s) {
		set(d, DRAIN_SKIP, false, NULL);
		return false;
	}
	set(d, DRAIN_DELETE, false, NULL);
	return true;
}

static bool
daemonset(const struct drain_opts *o, const struct pod *p,
	  bool (*ds_exists)(void *, const char *, const char *), void *arg,
	  struct drain_pod *d)
{
	const struct owner_ref *r = meta_controller_ref(&p->metadata);
	char msg[600];

	if (r == NULL || !r->kind || strcmp(r->kind, "DaemonSet") ||
	    finished(p)) {
		set(d, DRAIN_DELETE, false, NULL);
		return true;
	}
	if (!ds_exists || !ds_exists(arg, p->metadata.namespace, r->name)) {
		snprintf(msg, sizeof(msg), "daemonsets.apps \"%s\" not found",
			 r->name ? r->name : "");
		if (o->force) {
			set(d, DRAIN_DELETE, true, msg);
			return true;
		}
		set(d, DRAIN_ERROR, false, msg);
		return false;
	}
	if (!o->ignore_daemonsets) {
		set(d, DRAIN_ERROR, false, DAEMONSET_FATAL);
		return false;
	}
	set(d, DRAIN_SKIP, true, DAEMONSET_WARNING);
	return false;
}

static bool
mirror(const struct pod *p, struct drain_pod *d)
{
	if (strmap_get(&p->metadata.annotations, MIRROR_ANNOTATION)) {
		set(d, DRAIN_SKIP, false, NULL);
		return false;
	}
	set(d, DRAIN_DELETE, false, NULL);
	return true;
}

/* hasLocalStorage: any emptyDir volume, whatever its medium and
 * whether a container mounts it. */
static bool
has_local_storage(const struct pod *p)
{
	size_t i;

	for (i = 0; i < p->spec.volumes.n; i++)
		if (p->spec.volumes.v[i].empty_dir)
			return true;
	return false;
}

/* localStorageFilter. Its warning never survives, as in kubectl (whose
 * source says so in a TODO): the pod goes on to unreplicated(), which
 * says plain delete for a pod with a controller and gives its own
 * warning or error for one without. */
static bool
local_storage(const struct drain_opts *o, const struct pod *p,
	      struct drain_pod *d)
{
	if (!has_local_storage(p) || finished(p)) {
		set(d, DRAIN_DELETE, false, NULL);
		return true;
	}
	if (!o->delete_emptydir) {
		set(d, DRAIN_ERROR, false, LOCAL_STORAGE_FATAL);
		return false;
	}
	set(d, DRAIN_DELETE, true, LOCAL_STORAGE_WARNING);
	return true;
}

static bool
unreplicated(const struct drain_opts *o, const struct pod *p,
	     struct drain_pod *d)
{
	if (finished(p) || meta_controller_ref(&p->metadata)) {
		set(d, DRAIN_DELETE, false, NULL);
		return true;
	}
	if (o->force) {
		set(d, DRAIN_DELETE, true, UNMANAGED_WARNING);
		return true;
	}
	set(d, DRAIN_ERROR, false, UNMANAGED_FATAL);
	return false;
}

void
drain_pods_filter(const struct drain_opts *o, struct pod *const *pods, size_t n,
		  dtime now,
		  bool (*ds_exists)(void *, const char *, const char *),
		  void *arg, struct drain_pods *out)
{
	size_t i;

	out->v = xcalloc(n ? n : 1, sizeof(*out->v));
	out->n = n;
	for (i = 0; i < n; i++) {
		struct drain_pod *d = &out->v[i];

		d->pod = pods[i];
		if (skip_deleted(o, pods[i], now, d) &&
		    daemonset(o, pods[i], ds_exists, arg, d) &&
		    mirror(pods[i], d) && local_storage(o, pods[i], d))
			unreplicated(o, pods[i], d);
	}
}

void
drain_pods_release(struct drain_pods *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		free(out->v[i].message);
	free(out->v);
	out->v = NULL;
	out->n = 0;
}

/* The messages of l's pods that pass keep(), each with its pods. */
static void
grouped(const struct drain_pods *l, bool errors, const char *prefix,
	const char *sep, struct strbuf *sb, size_t *count)
{
	size_t i, j, groups = 0;

	for (i = 0; i < l->n; i++) {
		const struct drain_pod *d = &l->v[i];
		bool first = true;

		if (!d->message ||
		    (errors ? d->verdict != DRAIN_ERROR : !d->warning))
			continue;
		for (j = 0; j < i; j++) /* its message came before */
			if (l->v[j].message &&
			    !strcmp(l->v[j].message, d->message) &&
			    (errors ? l->v[j].verdict == DRAIN_ERROR
				    : l->v[j].warning))
				break;
		if (j < i)
			continue;
		strbuf_addf(sb, "%s%s%s: ", groups++ ? sep : "", prefix,
			    d->message);
		for (j = i; j < l->n; j++) {
			const struct drain_pod *e = &l->v[j];

			if (!e->message || strcmp(e->message, d->message) ||
			    (errors ? e->verdict != DRAIN_ERROR : !e->warning))
				continue;
			strbuf_addf(sb, "%s%s/%s", first ? "" : ", ",
				    e->pod->metadata.namespace,
				    e->pod->metadata.name);
			first = false;
		}
	}
	if (count)
		*count = groups;
}

void
drain_pods_errors(const struct drain_pods *l, struct strbuf *sb, size_t *count)
{
	grouped(l, true, "cannot delete ", ", ", sb, count);
}

void
drain_pods_warnings(const struct drain_pods *l, struct strbuf *sb)
{
	grouped(l, false, "", "; ", sb, NULL);
}
