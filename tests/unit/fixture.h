/* fixture.h - builders for unit tests (Kubernetes' newDeployment/newRS
 * helpers, Nomad's mock.Job): small worlds in a few lines.
 *
 * Every builder returns a heap object the caller frees with fx_free_*(),
 * or that a struct fx_world owns (fx_world_release frees it all). The
 * builders use the core alone: bench/plan builds its worlds with them. */
#ifndef DROVER_TEST_FIXTURE_H
#define DROVER_TEST_FIXTURE_H

#include <stdint.h>

#include "fielderr.h"
#include "model.h"
#include "plan_deploy.h"

#define T0 ((dtime)1767225600000) /* 2026-01-01T00:00:00Z */

/* A defaulted RollingUpdate Deployment "web" with `replicas`, template
 * image `image`, maxSurge/maxUnavailable given as strings ("25%", "1") or
 * NULL for the default. */
struct deployment *fx_deployment(int64_t replicas, const char *image,
				 const char *surge, const char *unavail);
/* Turns d (from fx_deployment) into a Recreate Deployment. */
void fx_recreate(struct deployment *d);
/* A ReplicaSet owned by d with the template of d but image `image`, the
 * given size, available pods and revision (0: no annotation); created at
 * T0 + created_s seconds. */
struct replicaset *fx_rs(const struct deployment *d, const char *name,
			 const char *image, int64_t replicas, int64_t available,
			 int64_t revision, int64_t created_s);
/* An intstr from "25%" or "3". */
struct intstr fx_intstr(const char *s);
/* Appends the errors as kubectl prints them, one a line. */
void fx_render_errors(const struct fielderr_list *e, struct strbuf *sb);

struct fx_world {
	struct deployment *d;
	struct replicaset *rs[32];
	size_t nrs;
	struct pod *pods[64];
	size_t npods;
	dtime now;
};

/* Runs one plan_deploy over the world; out must be released. */
void fx_plan(struct fx_world *w, struct plan_deploy_out *out);
void fx_world_release(struct fx_world *w);
void fx_free_deployment(struct deployment *d);
void fx_free_rs(struct replicaset *rs);

/* Finds an RS in a plan result by name (NULL if none). */
const struct replicaset *fx_out_rs(const struct plan_deploy_out *o,
				   const char *name);
/* Renders the actions as "create rs web-x 3; scale rs a 10->8; status"
 * for compact comparisons in tables. */
char *fx_actions(const struct plan_deploy_out *o);

#endif
