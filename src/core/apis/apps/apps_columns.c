/* apps_columns.c - the tables of Deployments and ReplicaSets
 * (printers.go: printDeployment, printReplicaSet), apps_columns.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "apps_columns.h"
#include "core_columns.h"

/* ---- the wide columns of both ---- */

static const struct pod_template *
template_of(const struct object *o, bool deployment)
{
	return deployment ? &((const struct deployment *)o->obj)->spec.template
			  : &((const struct replicaset *)o->obj)->spec.template;
}

static void
cell_deploy_containers(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_containers(&template_of(o, true)->spec, out);
}

static void
cell_deploy_images(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_images(&template_of(o, true)->spec, out);
}

static void
cell_deploy_selector(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_selector(((const struct deployment *)o->obj)->spec.selector,
			 out);
}

static void
cell_rs_containers(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_containers(&template_of(o, false)->spec, out);
}

static void
cell_rs_images(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_images(&template_of(o, false)->spec, out);
}

static void
cell_rs_selector(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	columns_selector(((const struct replicaset *)o->obj)->spec.selector,
			 out);
}

/* ---- Deployment (printDeployment) ----
 *
 * READY is status.readyReplicas / spec.replicas (the desired count, 1 if
 * unset), UP-TO-DATE status.updatedReplicas, AVAILABLE
 * status.availableReplicas. Mid-rollout of 4 replicas with maxSurge 1:
 *
 *   NAME  READY  UP-TO-DATE  AVAILABLE  AGE
 *   web   4/4    2           4          3m
 *
 * (5 pods exist, 4 ready: READY can't exceed what status counts, and
 * the desired count stays 4.) */

static void
cell_deploy_ready(const struct object *o, dtime now, struct strbuf *out)
{
	const struct deployment *d = o->obj;

	(void)now;
	strbuf_addf(out, "%lld/%lld", (long long)d->status.ready_replicas,
		    (long long)deploy_replicas(d));
}

static void
cell_deploy_updated(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct deployment *)o->obj)
			->status.updated_replicas);
}

static void
cell_deploy_available(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct deployment *)o->obj)
			->status.available_replicas);
}

const struct column columns_deployment[] = {
    NAME_COL,
    {"Ready", "string", "", 0, "Number of the pod with ready state",
     cell_deploy_ready},
    {"Up-to-date", "integer", "", 0,
     "Total number of non-terminated pods targeted by this deployment that "
     "have the desired template spec.",
     cell_deploy_updated},
    {"Available", "integer", "", 0,
     "Total number of available pods (ready for at least minReadySeconds) "
     "targeted by this deployment.",
     cell_deploy_available},
    AGE_COL,
    WORKLOAD_WIDE_COLS(cell_deploy_containers, cell_deploy_images,
		       cell_deploy_selector),
};
const size_t columns_deployment_n = COLUMNS_N(columns_deployment);

/* ---- ReplicaSet (printReplicaSet), ReplicationController
 * (printReplicationController: the same columns) ----
 *
 * DESIRED is spec.replicas, CURRENT status.replicas (pods that exist and
 * are not terminating), READY status.readyReplicas. An old ReplicaSet
 * being scaled down: "web-6fcc  1  2  2" until its second pod is gone. */

static void
cell_rs_desired(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld", (long long)rs_replicas(o->obj));
}

static void
cell_rs_current(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(
	    out, "%lld",
	    (long long)((const struct replicaset *)o->obj)->status.replicas);
}

static void
cell_rs_ready(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld",
		    (long long)((const struct replicaset *)o->obj)
			->status.ready_replicas);
}

const struct column columns_replicaset[] = {
    NAME_COL,
    {"Desired", "integer", "", 0, "Number of desired pods.", cell_rs_desired},
    {"Current", "integer", "", 0, "Number of actual pods.", cell_rs_current},
    {"Ready", "integer", "", 0, "Number of ready pods.", cell_rs_ready},
    AGE_COL,
    WORKLOAD_WIDE_COLS(cell_rs_containers, cell_rs_images, cell_rs_selector),
};
const size_t columns_replicaset_n = COLUMNS_N(columns_replicaset);
