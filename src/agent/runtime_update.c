/* runtime_update.c - in-place updates of a running pod's containers: a
 * new image, command or args in the pod's spec restarts the container in
 * the same pod (same name, uid, host ports, log file), as the kubelet
 * does for a Pod whose container image changed. The decisions are the
 * state machine's (pod_status.h, IN-PLACE UPDATE); this file keeps the
 * new spec until the next start takes it, and the hash of each run that
 * the status reports (imageID) so that a restarted agent can tell an
 * update left half done.
 *
 * The sequence, for a container whose spec changed (runtime_ensure):
 *   1. cont_notice_spec(): the new image/command/args are kept as
 *      pending, the container is DRAINed (not ready: the status says
 *      Ready=False and the endpoints controller takes it out of its
 *      Services);
 *   2. the agent waits for the drain handshake (agent.c, bounded by the
 *      pod's terminationGracePeriodSeconds) and calls runtime_update():
 *      UPDATE, i.e. SIGTERM (SIGKILL after the grace period);
 *   3. the exit leads to CA_SPAWN: cont_spawn() takes the pending spec
 *      (cont_take_pending) and starts it; its probes start afresh.
 *
 * Crash safety: the status reports imageID "drover-spec://<hash>" (the
 * ctr_spec_hash() of the run). At a live restore, a running container
 * whose reported hash is not its spec's was being updated
 * (cont_adopt_mid_update): the new spec becomes pending again and the
 * status keeps the old image; an adopted process is updated again from
 * step 1, a gone one ends as an update (ADOPTED_GONE, updating) and the
 * new spec starts at once. A process of the new spec that the dead agent
 * started but never reported is killed by the sweep (runtime.h): never
 * two processes for one container. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashpoint.h"
#include "log.h"
#include "runtime_int.h"
#include "xalloc.h"

/* The container spec c runs, writable (c->spec points here). */
static struct container *
spec_of(struct rcont *c)
{
	return &c->pod->pod.spec.containers.v[c - c->pod->c];
}

void
cont_pending_release(struct rcont *c)
{
	free(c->next_image);
	c->next_image = NULL;
	strlist_release(&c->next_command);
	strlist_release(&c->next_args);
	c->pending = false;
}

void
cont_take_pending(struct rcont *c)
{
	struct container *s = spec_of(c);

	if (!c->pending)
		return;
	log_info("agent: %s/%s container %s: in-place update to image %s",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 s->name, c->next_image ? c->next_image : "");
	free(s->image);
	s->image = c->next_image;
	c->next_image = NULL;
	strlist_release(&s->command);
	s->command = c->next_command;
	c->next_command = (struct strlist){0};
	strlist_release(&s->args);
	s->args = c->next_args;
	c->next_args = (struct strlist){0};
	c->pending = false;
}

/* Keeps nw's image, command and args as the next start's. */
static void
set_pending(struct rcont *c, const struct container *nw)
{
	bool was = c->pending;

	cont_pending_release(c);
	c->next_image = nw->image ? xstrdup(nw->image) : NULL;
	strlist_copy(&c->next_command, &nw->command);
	strlist_copy(&c->next_args, &nw->args);
	c->pending = true;
	if (!was)
		c->pending_since = c->pod->rt->cfg.now();
}

/* The hash of what the next start of c will run. */
static uint64_t
wanted_hash(const struct rcont *c)
{
	struct container t;

	if (!c->pending)
		return ctr_spec_hash(c->spec);
	t = *c->spec;
	t.image = c->next_image;
	t.command = c->next_command;
	t.args = c->next_args;
	return ctr_spec_hash(&t);
}

void
cont_notice_spec(struct rcont *c, const struct container *nw)
{
	if (ctr_spec_hash(nw) == wanted_hash(c))
		return;
	log_info("agent: %s/%s container %s: spec changed (image %s): "
		 "leaving its Services for an in-place update",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name, nw->image ? nw->image : "");
	set_pending(c, nw);
	crashpoint("inplace-intent-seen");
	cont_step(c, &(struct ctr_event){.type = CEV_DRAIN});
}

bool
cont_adopt_mid_update(struct rcont *c, const struct container_status *cs)
{
	unsigned long long h;
	struct container *s = spec_of(c);

	if (cs->image_id == NULL ||
	    sscanf(cs->image_id, "drover-spec://%llx", &h) != 1) {
		c->run_hash = ctr_spec_hash(c->spec);
		return false; /* no hash reported: taken as this spec's */
	}
	c->run_hash = (uint64_t)h;
	if (c->run_hash == ctr_spec_hash(c->spec))
		return false;
	/* the spec is the new one; the run is the old one */
	set_pending(c, c->spec);
	if (cs->image) {
		free(s->image);
		s->image = xstrdup(cs->image);
	}
	log_info("agent: %s/%s container %s: an in-place update was under "
		 "way: it is finished",
		 c->pod->pod.metadata.namespace, c->pod->pod.metadata.name,
		 c->spec->name);
	return true;
}

void
cont_image_id(const struct rcont *c, char *buf, size_t len)
{
	snprintf(buf, len, "drover-spec://%016" PRIx64,
		 c->run_hash ? c->run_hash : ctr_spec_hash(c->spec));
}

bool
runtime_update_due(struct runtime *rt, const char *uid, dtime *since)
{
	struct rpod *p = rt_find(rt, uid);
	bool due = false;
	size_t i;

	for (i = 0; p && !p->stopping && i < p->n; i++) {
		const struct rcont *c = &p->c[i];

		if (!c->pending || c->m.state == CTR_UPDATING)
			continue;
		if (!due || c->pending_since < *since)
			*since = c->pending_since;
		due = true;
	}
	return due;
}

void
runtime_update(struct runtime *rt, const char *uid, int64_t grace_s)
{
	struct rpod *p = rt_find(rt, uid);
	size_t i;

	for (i = 0; p && !p->stopping && i < p->n; i++) {
		struct rcont *c = &p->c[i];
		uint64_t h;

		if (!c->pending || c->m.state == CTR_UPDATING)
			continue;
		h = wanted_hash(c);
		/* nothing runs the old spec: the new one applies now */
		if (!ctr_runs(c->m.state))
			cont_take_pending(c);
		cont_step(c, &(struct ctr_event){.type = CEV_UPDATE,
						 .grace_s = grace_s,
						 .spec_hash = h});
		if (c->m.state == CTR_UPDATING)
			crashpoint("inplace-after-sigterm");
	}
}
