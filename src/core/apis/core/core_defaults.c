/* core_defaults.c - SetDefaults_* of Kubernetes for the core/v1 kinds
 * drover serves (pkg/apis/core/v1/defaults.go; spec/deployment.md §1):
 *
 *   SetDefaults_PodSpec        restartPolicy Always, dnsPolicy
 *                              ClusterFirst, terminationGracePeriodSeconds
 *                              30, schedulerName default-scheduler, an
 *                              empty securityContext
 *   SetDefaults_Container      terminationMessagePath, -Policy,
 *                              imagePullPolicy from the image tag
 *   SetDefaults_Volume         a volume without a source: emptyDir {}
 *   SetDefaults_ContainerPort  protocol TCP
 *   SetDefaults_ObjectFieldSelector  fieldRef.apiVersion v1
 *   SetDefaults_Probe          timeout 1, period 10, success 1, failure 3
 *   SetDefaults_HTTPGetAction  path "/", scheme HTTP
 *   SetDefaults_ReplicationController  replicas 1, selector and labels
 *                              from the template
 *   SetDefaults_Service, SetDefaults_EndpointPort
 *
 * Defaulting runs before validation on every create and update (through
 * the kind registry), so the validation may assume these fields are set.
 * It only fills what is absent and never overwrites a value the user
 * wrote; running it twice changes nothing (idempotent), which matters
 * because an update re-defaults an already-defaulted stored object. A
 * defaulted field is part of the pod template, hence of its hash: these
 * values are the same as Kubernetes' so that a manifest means the same
 * thing. */
#include <stdlib.h>
#include <string.h>

#include "core_defaults.h"
#include "defaulting.h"
#include "xalloc.h"

/* The image's tag is "latest" or absent: Kubernetes pulls Always.
 * A digest ("app@sha256:...") pins the image: IfNotPresent. The tag is
 * looked for after the last '/', so a registry port is not a tag:
 *   "nginx"                     -> latest -> Always
 *   "nginx:1.25"                -> IfNotPresent
 *   "registry:5000/app"         -> latest -> Always
 *   "registry:5000/app:2"       -> IfNotPresent
 * (parsers.ParseImageName in SetDefaults_Container.) */
static bool
image_is_latest(const char *image)
{
	const char *slash, *colon;

	if (image == NULL || strchr(image, '@'))
		return false;
	slash = strrchr(image, '/');
	colon = strrchr(slash ? slash : image, ':');
	return colon == NULL || strcmp(colon, ":latest") == 0;
}

/* Difference: Kubernetes' probe fields are plain int32 and it replaces a
 * 0 by the default ("periodSeconds: 0" becomes 10); here only an absent
 * field is defaulted and an explicit 0 is kept. */
static void
defaults_probe(struct probe *p)
{
	if (p == NULL)
		return;
	/* SetDefaults_Probe: Go's int32 has no "unset", so 0 is defaulted
	 * too (periodSeconds: 0 would otherwise probe without pause). */
	def_int_or_zero(&p->timeout_seconds, 1);
	def_int_or_zero(&p->period_seconds, 10);
	def_int_or_zero(&p->success_threshold, 1);
	def_int_or_zero(&p->failure_threshold, 3);
	if (p->http_get) {
		def_str(&p->http_get->path, "/");
		def_str(&p->http_get->scheme, "HTTP");
	}
}

/* Shared by the three kinds: a template's spec is defaulted when its
 * Deployment or ReplicaSet is written, so the pods created from it
 * already carry the defaults (and an RS copied from a defaulted
 * Deployment compares equal to it). */
void
defaults_pod_spec(struct pod_spec *s)
{
	size_t i, j;

	def_str(&s->restart_policy, "Always");
	def_int(&s->termination_grace_period_seconds, 30);
	def_str(&s->dns_policy, "ClusterFirst");
	def_str(&s->scheduler_name, "default-scheduler");
	if (s->security_context == NULL)
		s->security_context = xcalloc(1, sizeof(*s->security_context));
	/* SetDefaults_Volume: `volumes: [{name: cache}]` is an emptyDir
	 * (emptyDir is the only source modelled, so "no source" is
	 * emptyDir absent). */
	for (i = 0; i < s->volumes.n; i++)
		if (s->volumes.v[i].empty_dir == NULL)
			s->volumes.v[i].empty_dir =
			    xcalloc(1, sizeof(*s->volumes.v[i].empty_dir));
	for (i = 0; i < s->containers.n; i++) {
		struct container *c = &s->containers.v[i];

		def_str(&c->termination_message_path, "/dev/termination-log");
		def_str(&c->termination_message_policy, "File");
		/* "" is kept (validation then refuses it), unlike the
		 * def_str fields. */
		if (c->image_pull_policy == NULL)
			c->image_pull_policy =
			    xstrdup(image_is_latest(c->image) ? "Always"
							      : "IfNotPresent");
		for (j = 0; j < c->ports.n; j++)
			def_str(&c->ports.v[j].protocol, "TCP");
		for (j = 0; j < c->env.n; j++)
			if (c->env.v[j].value_from &&
			    c->env.v[j].value_from->field_ref)
				def_str(
				    &c->env.v[j]
					 .value_from->field_ref->api_version,
				    "v1");
		defaults_probe(c->liveness_probe);
		defaults_probe(c->readiness_probe);
		defaults_probe(c->startup_probe);
	}
}

/* SetDefaults_ReplicationController (pkg/apis/core/v1/defaults.go): an
 * empty selector becomes the template's labels, and so do empty
 * metadata.labels; replicas 1. Example: template labels {app: web} and
 * no selector → selector {app: web}, labels {app: web}. */
void
defaults_rc(struct replication_controller *rc)
{
	const struct strmap *tl = &rc->spec.template.metadata.labels;

	if (tl->n > 0) {
		if (rc->spec.selector.n == 0)
			strmap_copy(&rc->spec.selector, tl);
		if (rc->metadata.labels.n == 0)
			strmap_copy(&rc->metadata.labels, tl);
	}
	def_int(&rc->spec.replicas, 1);
	defaults_pod_spec(&rc->spec.template.spec);
}

/* The Pending phase is the registry's PrepareForCreate in Kubernetes,
 * not a default; drover sets it here too so that a pod read from a file
 * (drover plan) counts as Pending. */
void
defaults_pod(struct pod *p)
{
	defaults_pod_spec(&p->spec);
	def_str(&p->status.phase, "Pending");
}

/* SetDefaults_Service (pkg/apis/core/v1/defaults.go): type ClusterIP;
 * each port's protocol TCP and its targetPort the port itself, as
 * Kubernetes does (`ports: [{port: 80}]` becomes `{port: 80, protocol:
 * TCP, targetPort: 80}`). A targetPort of 0 or "" counts as unset. */
void
defaults_service(struct service *s)
{
	size_t i;

	def_str(&s->spec.type, "ClusterIP");
	for (i = 0; i < s->spec.ports.n; i++) {
		struct service_port *p = &s->spec.ports.v[i];

		def_str(&p->protocol, "TCP");
		if (p->target_port.type == INTSTR_UNSET ||
		    (p->target_port.type == INTSTR_INT &&
		     p->target_port.ival == 0) ||
		    (p->target_port.type == INTSTR_STRING &&
		     (p->target_port.sval == NULL ||
		      *p->target_port.sval == '\0'))) {
			intstr_release(&p->target_port);
			p->target_port = intstr_int(p->port);
		}
	}
}

/* SetDefaults_EndpointPort of both endpoint kinds: protocol TCP; an
 * EndpointSlice's addressType has no default (it is required). */
void
defaults_endpoint_ports(struct endpoint_port_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		def_str(&l->v[i].protocol, "TCP");
}

void
defaults_endpoints(struct endpoints *e)
{
	size_t i;

	for (i = 0; i < e->subsets.n; i++)
		defaults_endpoint_ports(&e->subsets.v[i].ports);
}
