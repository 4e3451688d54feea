/* runtime_events.c - the kubelet's Events about a pod's containers, with
 * the kubelet's reasons and messages (pkg/kubelet/events,
 * kuberuntime_container.go, prober.go), recorded on the Pod with the
 * container as fieldPath ("spec.containers{web}"):
 *
 *   Created    Normal   "Created container web"
 *   Started    Normal   "Started container web"
 *   Killing    Normal   "Stopping container web"; after a failed
 *                       liveness probe "Container web failed liveness
 *                       probe, will be restarted"; after a new
 *                       image/command/args "Container web definition
 *                       changed, will be restarted"
 *   Unhealthy  Warning  "Readiness probe failed: HTTP probe failed with
 *                       statuscode: 500" (every failed probe; repeats
 *                       are aggregated by the recorder: count)
 *   BackOff    Warning  "Back-off restarting failed container web in pod
 *                       web-6d4cf56db6-x2k9p_default(<uid>)"
 *   Failed     Warning  "Error: <why the start failed>"
 *   HostPortInUse Warning "Host port 20005 of container port 8080 (http)
 *                       is in use by another process on the host: the
 *                       container gets host port 20017" (drover's own:
 *                       a port of the agent's range taken meanwhile,
 *                       runtime_ports.c)
 *
 * drover has no images to pull, so there is no Pulling/Pulled. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "recorder.h"
#include "runtime_int.h"
#include "strbuf.h"

static void
record(struct rcont *c, const char *type, const char *reason,
       const char *message)
{
	const struct pod *p = &c->pod->pod;
	struct strbuf fp = STRBUF_INIT;
	struct event_ref ref;

	if (c->pod->rt->cfg.rec == NULL)
		return;
	strbuf_addf(&fp, "spec.containers{%s}", c->spec->name);
	ref = (struct event_ref){
	    .kind = "Pod",
	    .namespace = p->metadata.namespace,
	    .name = p->metadata.name,
	    .uid = p->metadata.uid,
	    .api_version = "v1",
	    .field_path = fp.buf,
	};
	event_record(c->pod->rt->cfg.rec, &ref, type, reason, "%s", message);
	strbuf_release(&fp);
}

static void recordf(struct rcont *c, const char *type, const char *reason,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
recordf(struct rcont *c, const char *type, const char *reason, const char *fmt,
	...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (c->pod->rt->cfg.rec == NULL)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	record(c, type, reason, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
}

void
rt_events_step(struct rcont *c, const struct ctr_event *ev,
	       const struct ctr_out *out)
{
	const char *name = c->spec->name;
	const struct object_meta *m = &c->pod->pod.metadata;

	if (c->pod->rt->cfg.rec == NULL)
		return;
	if (ev->type == CEV_SPAWNED) {
		recordf(c, "Normal", "Created", "Created container %s", name);
		recordf(c, "Normal", "Started", "Started container %s", name);
	}
	if (ev->type == CEV_START_FAILED)
		recordf(c, "Warning", "Failed", "Error: %s",
			ev->message ? ev->message : "");
	if (out->actions & CA_SIGTERM) {
		if (ev->type == CEV_LIVENESS_FAILED)
			recordf(c, "Normal", "Killing",
				"Container %s failed liveness probe, will be "
				"restarted",
				name);
		else if (ev->type == CEV_STARTUP_FAILED)
			recordf(c, "Normal", "Killing",
				"Container %s failed startup probe, will be "
				"restarted",
				name);
		else if (ev->type == CEV_UPDATE)
			recordf(c, "Normal", "Killing",
				"Container %s definition changed, will be "
				"restarted",
				name);
		else
			recordf(c, "Normal", "Killing", "Stopping container %s",
				name);
	}
	if (out->actions & CA_ARM_BACKOFF)
		recordf(c, "Warning", "BackOff",
			"Back-off restarting failed container %s in pod "
			"%s_%s(%s)",
			name, m->name, m->namespace, m->uid ? m->uid : "");
}

void
rt_events_port_moved(struct rcont *c, const struct container_port *p, int was,
		     int now)
{
	char port[300];

	if (p->name)
		snprintf(port, sizeof(port), "%lld (%s)",
			 (long long)p->container_port, p->name);
	else
		snprintf(port, sizeof(port), "%lld",
			 (long long)p->container_port);
	if (now)
		recordf(c, "Warning", "HostPortInUse",
			"Host port %d of container port %s is in use by "
			"another process on the host: the container gets host "
			"port %d",
			was, port, now);
	else
		recordf(c, "Warning", "HostPortInUse",
			"Host port %d of container port %s is in use by "
			"another process on the host, and no other is free "
			"yet",
			was, port);
}

void
rt_events_probe_failed(struct rcont *c, enum probe_kind kind, const char *why)
{
	static const char *const names[PK_N] = {"Startup", "Readiness",
						"Liveness"};
	int code;

	if (c->pod->rt->cfg.rec == NULL || kind >= PK_N)
		return;
	/* prober.go's texts: "HTTP probe failed with statuscode: 500" */
	if (why && sscanf(why, "HTTP %d", &code) == 1)
		recordf(c, "Warning", "Unhealthy",
			"%s probe failed: HTTP probe failed with statuscode: "
			"%d",
			names[kind], code);
	else
		recordf(c, "Warning", "Unhealthy", "%s probe failed: %s",
			names[kind], why ? why : "");
}
