/* inplace_check.c - the template comparison behind InPlaceUpdate's update
 * validation (see inplace_check.h).
 *
 * How: copy the new template, put the old containers' image, command and
 * args into the copy (container by container, at the same index), then
 * look for the first field where the copy and the old template differ,
 * walking the schema tables of the API groups (core.c, apps.c) in their order. Whatever
 * difference is left is, by construction, not an image/command/args
 * change. Equality is schema_equal's (absent and empty are equal, as in
 * Kubernetes' Semantic.DeepEqual).
 *
 * Worked example: old containers [{name app, image web:1, env A=1}], new
 * [{name app, image web:2, env A=2}]: the copy gets image web:1 back, its
 * env still differs: "spec.template.spec.containers[0].env". With env
 * A=1 in both, only the image differed: allowed. New containers
 * [{app}, {sidecar}]: the lengths differ: "spec.template.spec.containers".
 */
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "inplace_check.h"
#include "xalloc.h"

/* Cuts path back to `at` characters (at <= len). */
static void
path_cut(struct strbuf *path, size_t at)
{
	if (at < path->len) {
		path->len = at;
		path->buf[at] = '\0';
	}
}

/* Equality of one field of two parent structs: schema_equal over a
 * one-field schema at the same offsets. */
static bool
field_eq(const struct field *f, const void *a, const void *b)
{
	struct schema one = {"field", 0, f, 1};

	return schema_equal(&one, a, b);
}

/* The first differing field under schema s of a and b, appended to path
 * (which already holds the parent's path); true if one was found. A
 * struct or a list of the same length is entered to find the deeper
 * path; anything else (or a list whose length changed, or a pointer set
 * on one side only) is reported where it is. */
static bool
first_diff(const struct schema *s, const void *a, const void *b,
	   struct strbuf *path)
{
	size_t i, j, len = path->len;

	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		const char *pa = (const char *)a + f->off;
		const char *pb = (const char *)b + f->off;

		if (field_eq(f, a, b))
			continue;
		strbuf_addf(path, "%s%s", len ? "." : "", f->json);
		if (f->type == FT_STRUCT && first_diff(f->sub, pa, pb, path))
			return true;
		if (f->type == FT_PTR && *(void *const *)pa &&
		    *(void *const *)pb &&
		    first_diff(f->sub, *(void *const *)pa, *(void *const *)pb,
			       path))
			return true;
		if (f->type == FT_LIST && f->sub) {
			const struct anylist *la = (const void *)pa;
			const struct anylist *lb = (const void *)pb;
			size_t at = path->len;

			for (j = 0; la->n == lb->n && j < la->n; j++) {
				strbuf_addf(path, "[%zu]", j);
				if (first_diff(
					f->sub,
					(const char *)la->v + j * f->sub->size,
					(const char *)lb->v + j * f->sub->size,
					path))
					return true;
				path_cut(path, at);
			}
		}
		return true; /* the difference is this field as a whole */
	}
	return false;
}

bool
inplace_template_forbidden(const struct pod_template *old,
			   const struct pod_template *nw, const char *prefix,
			   struct strbuf *path)
{
	struct pod_template t;
	size_t i, n = old->spec.containers.n;
	bool bad;

	pod_template_copy(&t, nw);
	if (t.spec.containers.n < n)
		n = t.spec.containers.n;
	for (i = 0; i < n; i++) {
		struct container *c = &t.spec.containers.v[i];
		const struct container *o = &old->spec.containers.v[i];

		free(c->image);
		c->image = o->image ? xstrdup(o->image) : NULL;
		strlist_release(&c->command);
		strlist_copy(&c->command, &o->command);
		strlist_release(&c->args);
		strlist_copy(&c->args, &o->args);
	}
	strbuf_addstr(path, prefix);
	bad = first_diff(&schema_pod_template, old, &t, path);
	if (!bad)
		path_cut(path, path->len - strlen(prefix));
	pod_template_release(&t);
	return bad;
}

/* Which updates are checked. Kubernetes lets an update switch the
 * strategy type freely (ValidateDeploymentUpdate checks only the
 * selector), and so does drover: the check looks at the strategy the
 * Deployment has AFTER the update, because that is the strategy that
 * will roll the template out:
 *  - InPlaceUpdate -> InPlaceUpdate: checked;
 *  - RollingUpdate/Recreate -> InPlaceUpdate: checked too, since
 *    otherwise "switch to InPlaceUpdate and add an env var" would start
 *    an in-place rollout of a change that needs new pods;
 *  - InPlaceUpdate -> RollingUpdate/Recreate: not checked: the new
 *    strategy replaces pods, any template change is fine. */
void
validate_deployment_update(const struct deployment *old,
			   const struct deployment *nw,
			   struct fielderr_list *errs)
{
	struct strbuf path = STRBUF_INIT;

	if (!deploy_is_inplace(nw))
		return;
	if (inplace_template_forbidden(&old->spec.template, &nw->spec.template,
				       "spec.template", &path))
		fielderr_add(errs, FE_FORBIDDEN, path.buf, NULL,
			     MSG_INPLACE_ONLY);
	strbuf_release(&path);
}

/* The pods' specs in two templates with empty metadata (the specs are
 * borrowed: the templates are not released). Example: old image web:1,
 * new image web:2 and env A=2: "spec.containers[0].env", Forbidden. */
void
validate_pod_update(const struct pod *old, const struct pod *nw,
		    struct fielderr_list *errs)
{
	struct pod_template a = {.spec = old->spec}, b = {.spec = nw->spec};
	struct strbuf path = STRBUF_INIT;

	if (inplace_template_forbidden(&a, &b, "", &path))
		fielderr_add(errs, FE_FORBIDDEN, path.buf, NULL,
			     MSG_POD_UPDATE);
	strbuf_release(&path);
}

bool
inplace_reachable(const struct pod_template *from,
		  const struct pod_template *to, struct strbuf *path)
{
	struct pod_template a, b;
	bool bad;

	pod_template_copy(&a, from);
	pod_template_copy(&b, to);
	strmap_del(&a.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	strmap_del(&b.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	bad = inplace_template_forbidden(&a, &b, "spec.template", path);
	pod_template_release(&a);
	pod_template_release(&b);
	return !bad;
}
