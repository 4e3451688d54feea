/* fixture.c - world builders for unit tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "deploy_util.h"
#include "fixture.h"
#include "strbuf.h"
#include "xalloc.h"

struct intstr
fx_intstr(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (*end == '\0' && end != s)
		return intstr_int(v);
	return intstr_str(s);
}

static void
fx_template(struct pod_template *t, const char *image)
{
	struct container *c;

	strmap_set(&t->metadata.labels, "app", "web");
	c = anylist_push((struct anylist *)&t->spec.containers, sizeof(*c));
	c->name = xstrdup("web");
	c->image = xstrdup(image);
	strlist_push(&c->command, "/bin/web");
	defaults_pod_spec(&t->spec);
}

struct deployment *
fx_deployment(int64_t replicas, const char *image, const char *surge,
	      const char *unavail)
{
	struct deployment *d = xcalloc(1, sizeof(*d));

	d->api_version = xstrdup("apps/v1");
	d->kind = xstrdup("Deployment");
	d->metadata.name = xstrdup("web");
	d->metadata.namespace = xstrdup("default");
	d->metadata.uid = xstrdup("uid-web");
	d->metadata.generation = 1;
	d->metadata.creation_timestamp = T0;
	d->spec.replicas.set = true;
	d->spec.replicas.v = replicas;
	d->spec.selector = xcalloc(1, sizeof(*d->spec.selector));
	strmap_set(&d->spec.selector->match_labels, "app", "web");
	fx_template(&d->spec.template, image);
	d->spec.strategy.rolling_update =
	    xcalloc(1, sizeof(*d->spec.strategy.rolling_update));
	if (surge)
		d->spec.strategy.rolling_update->max_surge = fx_intstr(surge);
	if (unavail)
		d->spec.strategy.rolling_update->max_unavailable =
		    fx_intstr(unavail);
	defaults_deployment(d);
	d->status.observed_generation = 1;
	return d;
}

void
fx_recreate(struct deployment *d)
{
	free(d->spec.strategy.type);
	d->spec.strategy.type = xstrdup("Recreate");
	schema_release(
	    &schema_deployment,
	    &(struct deployment){.spec.strategy.rolling_update =
				     d->spec.strategy.rolling_update});
	d->spec.strategy.rolling_update = NULL;
}

struct replicaset *
fx_rs(const struct deployment *d, const char *name, const char *image,
      int64_t replicas, int64_t available, int64_t revision, int64_t created_s)
{
	struct replicaset *rs = xcalloc(1, sizeof(*rs));
	struct owner_ref *ref;
	char buf[32];

	rs->api_version = xstrdup("apps/v1");
	rs->kind = xstrdup("ReplicaSet");
	rs->metadata.name = xstrdup(name);
	rs->metadata.namespace = xstrdup("default");
	snprintf(buf, sizeof(buf), "uid-%s", name);
	rs->metadata.uid = xstrdup(buf);
	rs->metadata.generation = 1;
	rs->metadata.creation_timestamp = T0 + DTIME_SEC(created_s);
	ref = anylist_push((struct anylist *)&rs->metadata.owner_references,
			   sizeof(*ref));
	deploy_controller_ref(d, ref);
	fx_template(&rs->spec.template, image);
	strmap_set(&rs->spec.template.metadata.labels, LABEL_POD_TEMPLATE_HASH,
		   name);
	strmap_copy(&rs->metadata.labels, &rs->spec.template.metadata.labels);
	rs->spec.selector = xcalloc(1, sizeof(*rs->spec.selector));
	strmap_set(&rs->spec.selector->match_labels, "app", "web");
	strmap_set(&rs->spec.selector->match_labels, LABEL_POD_TEMPLATE_HASH,
		   name);
	rs->spec.replicas.set = true;
	rs->spec.replicas.v = replicas;
	if (revision) {
		snprintf(buf, sizeof(buf), "%lld", (long long)revision);
		strmap_set(&rs->metadata.annotations, ANN_REVISION, buf);
	}
	rs->status.replicas = replicas;
	rs->status.ready_replicas = available;
	rs->status.available_replicas = available;
	rs->status.fully_labeled_replicas = replicas;
	rs->status.observed_generation = 1;
	return rs;
}

void
fx_plan(struct fx_world *w, struct plan_deploy_out *out)
{
	struct plan_deploy_in in = {
	    .d = w->d,
	    .rs = (const struct replicaset *const *)w->rs,
	    .nrs = w->nrs,
	    .pods = (const struct pod *const *)w->pods,
	    .npods = w->npods,
	    .now = w->now ? w->now : T0 + DTIME_SEC(100),
	};

	plan_deploy(&in, out);
}

void
fx_free_deployment(struct deployment *d)
{
	if (d) {
		deployment_release(d);
		free(d);
	}
}

void
fx_free_rs(struct replicaset *rs)
{
	if (rs) {
		replicaset_release(rs);
		free(rs);
	}
}

void
fx_world_release(struct fx_world *w)
{
	size_t i;

	fx_free_deployment(w->d);
	for (i = 0; i < w->nrs; i++)
		fx_free_rs(w->rs[i]);
	for (i = 0; i < w->npods; i++) {
		pod_release(w->pods[i]);
		free(w->pods[i]);
	}
	memset(w, 0, sizeof(*w));
}

const struct replicaset *
fx_out_rs(const struct plan_deploy_out *o, const char *name)
{
	return plan_deploy_object(o, "ReplicaSet", name);
}

char *
fx_actions(const struct plan_deploy_out *o)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < o->actions.n; i++) {
		const struct action *a = &o->actions.v[i];
		const char *k = !strcmp(a->kind, "ReplicaSet")   ? "rs"
				: !strcmp(a->kind, "Deployment") ? "deploy"
								 : "pod";

		if (i)
			strbuf_addstr(&sb, "; ");
		switch (a->op) {
		case ACT_CREATE:
			strbuf_addf(&sb, "create %s %lld", k,
				    (long long)a->replicas);
			break;
		case ACT_SCALE:
			strbuf_addf(&sb, "scale %s %s %lld->%lld", k, a->name,
				    (long long)a->from, (long long)a->to);
			break;
		case ACT_UPDATE:
			strbuf_addf(&sb, "update %s %s", k, a->name);
			break;
		case ACT_DELETE:
			strbuf_addf(&sb, "delete %s %s", k, a->name);
			break;
		case ACT_STATUS:
			strbuf_addstr(&sb, "status");
			break;
		case ACT_UPDATE_IN_PLACE:
			strbuf_addf(&sb, "inplace %s %s", k, a->name);
			break;
		}
	}
	return strbuf_detach(&sb);
}

void
fx_render_errors(const struct fielderr_list *e, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (i)
			strbuf_addch(sb, '\n');
		fielderr_format(&e->v[i], sb);
	}
}
