/* inplace_apply.c - one pod's in-place update as one transaction, and
 * when it is over (see inplace_apply.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inplace_apply.h"
#include "inplace_check.h"
#include "plan_deploy.h"
#include "plan_rs.h"
#include "pod_status.h"
#include "xalloc.h"

/* The controlling ownerReference of m, or NULL when there is none or
 * it carries no uid. Only a uid identifies an owner here: a Deployment
 * deleted and re-created under the same name is another owner, and a
 * pod must not move between the RSes of the two. A reference by name
 * alone (a hand-written manifest) is therefore treated as no owner, and
 * inplace_apply refuses it. */
static const struct owner_ref *
controller(const struct object_meta *m)
{
	const struct owner_ref *r = meta_controller_ref(m);

	return r && r->uid && *r->uid ? r : NULL;
}

/* The two RSes may trade a pod: both controlled by the same owner.
 * Example: web-aaa and web-bbb, both controlled by Deployment web (uid
 * d1): yes. web-aaa and an RS without a controller: no; a bare RS's
 * size is its user's, and this transaction would change it. */
static bool
same_owner(const struct replicaset *a, const struct replicaset *b)
{
	const struct owner_ref *x = controller(&a->metadata);
	const struct owner_ref *y = controller(&b->metadata);

	return x && y && !strcmp(x->uid, y->uid);
}

/* *dst becomes a copy of v; an image the template leaves unset (NULL)
 * is unset on the pod too. */
static void
set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

/* The list is replaced whole, never merged: args ["--port", "80"] over
 * ["-v"] gives exactly ["--port", "80"], as a Pod update does. */
static void
set_list(struct strlist *dst, const struct strlist *src)
{
	strlist_release(dst);
	strlist_copy(dst, src);
}

/* The pod's containers are the template's, by name and in order (the
 * API's Pod and InPlaceUpdate rules keep them so).
 *
 * Why it is checked at all: templates_compatible compares the two
 * templates, not the pod, and inplace_apply copies container i of the
 * template into container i of the pod. A pod that was not made from
 * `from`'s template (an adopted orphan, say) could otherwise get the
 * image of "web" written into its "sidecar". Example: template [web,
 * sidecar], pod [sidecar, web]: refused with
 *   spec.containers[0].name: pod has "sidecar", the template "web" */
static bool
same_containers(const struct pod *p, const struct pod_template *t, char *err,
		size_t errlen)
{
	size_t i;

	if (p->spec.containers.n != t->spec.containers.n) {
		snprintf(err, errlen,
			 "spec.containers: pod has %zu containers, the "
			 "template %zu",
			 p->spec.containers.n, t->spec.containers.n);
		return false;
	}
	for (i = 0; i < p->spec.containers.n; i++) {
		const char *a = p->spec.containers.v[i].name;
		const char *b = t->spec.containers.v[i].name;

		if (!a || !b || strcmp(a, b)) {
			snprintf(err, errlen,
				 "spec.containers[%zu].name: pod has \"%s\", "
				 "the template \"%s\"",
				 i, a ? a : "", b ? b : "");
			return false;
		}
	}
	return true;
}

/* The templates of from and to, hash label aside, differ in the
 * containers' image, command and args at most. */
static bool
templates_compatible(const struct replicaset *from, const struct replicaset *to,
		     char *err, size_t errlen)
{
	struct strbuf path = STRBUF_INIT;
	bool ok =
	    inplace_reachable(&from->spec.template, &to->spec.template, &path);

	if (!ok)
		snprintf(err, errlen, "%s: %s", path.buf, MSG_INPLACE_ONLY);
	strbuf_release(&path);
	return ok;
}

enum inplace_result
inplace_apply(struct pod *p, struct replicaset *from, struct replicaset *to,
	      char *err, size_t errlen)
{
	const struct owner_ref *ref = controller(&p->metadata);
	const char *hash;
	size_t i;

	/* Every check comes before the first write, so a refusal leaves
	 * the three objects exactly as they were. The CONFLICT cases are
	 * the world having moved since the planner looked (the pod is
	 * going, or another update took it): planning again resolves
	 * them. The INVALID ones would fail again the same way. */
	if (p->metadata.deletion_timestamp) {
		snprintf(err, errlen, "pod %s is being deleted",
			 p->metadata.name);
		return INPLACE_CONFLICT;
	}
	if (ref == NULL || !owner_ref_is(ref, "ReplicaSet", &from->metadata)) {
		snprintf(err, errlen,
			 "pod %s is not controlled by replica set %s",
			 p->metadata.name, from->metadata.name);
		return INPLACE_CONFLICT;
	}
	/* The same RS twice (one object, or two copies of one stored RS,
	 * same uid) is not an update of anything. */
	if (from == to || !strcmp(from->metadata.uid, to->metadata.uid) ||
	    !same_owner(from, to)) {
		snprintf(err, errlen,
			 "replica sets %s and %s are not two revisions of "
			 "one owner",
			 from->metadata.name, to->metadata.name);
		return INPLACE_CONFLICT;
	}
	if (!templates_compatible(from, to, err, errlen) ||
	    !same_containers(p, &to->spec.template, err, errlen))
		return INPLACE_INVALID;

	/* templates_compatible established that image, command and args
	 * are all that differ between the templates, and same_containers
	 * that container i of the pod is container i of `to`: copying the
	 * three fields is the whole spec change. */
	for (i = 0; i < p->spec.containers.n; i++) {
		struct container *c = &p->spec.containers.v[i];
		const struct container *t =
		    &to->spec.template.spec.containers.v[i];

		set_str(&c->image, t->image);
		set_list(&c->command, &t->command);
		set_list(&c->args, &t->args);
	}
	/* A Deployment's RS selects its pods by its own pod-template-hash
	 * (make_new_rs adds it to the selector), so the label moves with
	 * the pod: web-aaa-x goes from pod-template-hash=aaa to =bbb and is
	 * matched by web-bbb's selector, no longer by web-aaa's. A template
	 * without the label leaves the pod's as it was. */
	hash = strmap_get(&to->spec.template.metadata.labels,
			  LABEL_POD_TEMPLATE_HASH);
	if (hash)
		strmap_set(&p->metadata.labels, LABEL_POD_TEMPLATE_HASH, hash);
	/* Only the controller reference is replaced, in its place in the
	 * list; other (non-controller) owners stay. rs_controller_ref wants
	 * a zeroed ref, hence the memset after the frees. */
	for (i = 0; i < p->metadata.owner_references.n; i++) {
		struct owner_ref *r = &p->metadata.owner_references.v[i];

		if (r->controller.set && r->controller.v) {
			free(r->api_version);
			free(r->kind);
			free(r->name);
			free(r->uid);
			memset(r, 0, sizeof(*r));
			rs_controller_ref(to, r);
			break;
		}
	}
	strmap_set(&p->metadata.annotations, ANN_IN_PLACE_UPDATE,
		   to->metadata.name);
	/* One pod leaves `from` and joins `to`: web-aaa 3 -> 2, web-bbb
	 * 0 -> 1. Each size moves with its pod count, so neither RS
	 * controller creates or deletes a pod for the move. `from` never
	 * goes below 0 (a stale 0 stays 0); an unset spec.replicas counts
	 * 0 here. The generation bumps are the API server's for any spec
	 * write; until each RS controller has observed its RS,
	 * pd_history_victims will not delete it (generation >
	 * observedGeneration). */
	if (from->spec.replicas.v > 0)
		from->spec.replicas.v--;
	from->spec.replicas.set = true;
	to->spec.replicas.v =
	    (to->spec.replicas.set ? to->spec.replicas.v : 0) + 1;
	to->spec.replicas.set = true;
	from->metadata.generation++;
	to->metadata.generation++;
	return INPLACE_OK;
}

/* The container status of the container named `name`, or NULL. */
static const struct container_status *
status_of(const struct pod *p, const char *name)
{
	size_t i;

	for (i = 0; name && i < p->status.container_statuses.n; i++) {
		const struct container_status *s =
		    &p->status.container_statuses.v[i];

		if (s->name && !strcmp(s->name, name))
			return s;
	}
	return NULL;
}

/* The ctr_spec_hash of the run a status reports: imageID
 * "drover-spec://<hex>" (runtime_update.c); false if it has none.
 * Examples: "drover-spec://1f0c9a" gives 0x1f0c9a; "drover-spec://",
 * "drover-spec://12zz" and an image digest ("sha256:...") give false:
 * nothing is known of the run, and the caller decides on Ready alone. */
static bool
run_hash(const struct container_status *s, uint64_t *h)
{
	static const char prefix[] = "drover-spec://";
	const char *hex;
	char *end;

	if (s->image_id == NULL ||
	    strncmp(s->image_id, prefix, sizeof(prefix) - 1))
		return false;
	hex = s->image_id + sizeof(prefix) - 1;
	*h = strtoull(hex, &end, 16);
	return end != hex && *end == '\0';
}

/* Ready alone does not mean done: right after inplace_apply the old
 * process still runs and still passes its readiness probe. What tells
 * is the hash each container status reports. Example: web-aaa-x, moved
 * to web-bbb (image v2), Ready, status imageID drover-spec://<hash of
 * v1>: not done. The agent stops v1 and starts v2 (not Ready for a
 * moment), the status reports drover-spec://<hash of v2>, and once the
 * pod is Ready again it is done. A container the status does not list
 * yet is not done either. */
bool
inplace_pod_done(const struct pod *p)
{
	size_t i;

	if (!pod_is_ready(p))
		return false;
	if (p->status.container_statuses.n == 0)
		return true; /* nothing reports a run (a simulated pod) */
	for (i = 0; i < p->spec.containers.n; i++) {
		const struct container *c = &p->spec.containers.v[i];
		const struct container_status *s = status_of(p, c->name);
		uint64_t h;

		if (s == NULL)
			return false;
		if (run_hash(s, &h) && h != ctr_spec_hash(c))
			return false;
	}
	return true;
}

/* Example: web-aaa-x annotated drover.io/in-place-update-to=web-bbb,
 * controlled by web-bbb, still reporting its v1 run: pending for
 * web-bbb (the planner counts it unavailable), not for web-aaa (the
 * annotation names another RS). Once it runs v2 and is Ready it is
 * pending for neither (and the status write that says so drops the
 * annotation: inplace_finish). */
bool
inplace_pending(const struct pod *p, const struct replicaset *rs)
{
	const char *to =
	    strmap_get(&p->metadata.annotations, ANN_IN_PLACE_UPDATE);
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	if (to == NULL || rs == NULL || strcmp(to, rs->metadata.name))
		return false;
	if (ref == NULL || !owner_ref_is(ref, "ReplicaSet", &rs->metadata))
		return false;
	return !inplace_pod_done(p);
}

/* Example: web-aaa-x annotated drover.io/in-place-update-to=web-bbb,
 * controlled by web-bbb; the agent's status write reports Ready and
 * imageID drover-spec://<hash of v2>: the annotation goes in that same
 * write. While it still reports v1, or is not Ready, or names web-aaa
 * while web-bbb controls it, it stays. */
bool
inplace_finish(struct pod *p)
{
	const char *to =
	    strmap_get(&p->metadata.annotations, ANN_IN_PLACE_UPDATE);
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	if (to == NULL || ref == NULL || ref->kind == NULL ||
	    ref->name == NULL || strcmp(ref->kind, "ReplicaSet") ||
	    strcmp(ref->name, to) || !inplace_pod_done(p))
		return false;
	return strmap_del(&p->metadata.annotations, ANN_IN_PLACE_UPDATE);
}
