/* core_validate.c - ValidatePod, ValidateReplicationController,
 * ValidateService and the other core/v1 rules (core_validate.h), with
 * Kubernetes' field paths and messages. Where each rule comes from
 * (pkg/apis/core/validation/validation.go): ValidatePodSpec,
 * ValidateVolumes / validateVolumeSource, validateContainers,
 * ValidateVolumeMounts, validateContainerPorts, validateEnv /
 * validateEnvVarValueFrom, validateProbe, ValidateSecurityContext,
 * ValidatePodSecurityContext, ValidateTolerations, ValidatePodTemplateSpec,
 * ValidateReplicationController, ValidateNode, ValidateService,
 * ValidateEndpoints; IsValidPortName, IsValidUserID/IsValidGroupID
 * (apimachinery's util/validation).
 *
 * Errors are appended in Kubernetes' order. Rules Kubernetes has for
 * fields drover does not model are absent; rules drover adds are marked
 * as drover's. Defaulting (defaults.h) runs first, so an empty
 * restartPolicy or protocol never reaches here on the API path; empty
 * values of such fields are therefore accepted here, where Kubernetes
 * would say Required. The caller owns errs; every call only appends to
 * it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_validate.h"
#include "downward.h"
#include "intstr.h"
#include "labels.h"
#include "names.h"
#include "quantity.h"
#include "validation.h"
#include "xalloc.h"

/* IsValidPortName: one error per broken rule, in Kubernetes' order.
 * An IANA service name: at most 15 characters of [-a-z0-9], at least one
 * letter, no "--", no hyphen at either end. "http" and "web-8080" pass;
 * "8080" fails once (no letter); "-Web--" fails three times (charset,
 * "--", leading hyphen). */
static void
validate_port_name(const char *s, const char *path, struct fielderr_list *errs)
{
	size_t n = strlen(s), i;
	bool charset = n > 0, letter = false;

	for (i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			letter = true;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '-')
			charset = false;
	}
	if (n > 15)
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must be no more than 15 characters");
	if (!charset)
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must contain only alpha-numeric "
				  "characters (a-z, 0-9), and hyphens (-)");
	if (!letter)
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must contain at least one letter (a-z)");
	if (strstr(s, "--"))
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must not contain consecutive hyphens");
	if (n > 0 && (s[0] == '-' || s[n - 1] == '-'))
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must not begin or end with a hyphen");
}

/* A probe's port: a number 1..65535 or a port name (which the runtime
 * resolves against the container's ports). An intstr that is neither
 * (absent in the manifest) is Required with an empty detail, as
 * Kubernetes prints it. */
static void
validate_port_ref(const struct intstr *port, const char *path,
		  struct fielderr_list *errs)
{
	if (port->type == INTSTR_INT) {
		if (port->ival < 1 || port->ival > 65535)
			fielderr_addf_int(errs, FE_INVALID, path, port->ival,
					  "must be between 1 and 65535, "
					  "inclusive");
	} else if (port->type == INTSTR_STRING) {
		validate_port_name(port->sval, path, errs);
	} else {
		fielderr_add(errs, FE_REQUIRED, path, NULL, "");
	}
}

/* validateProbe and validateHandler for exec, httpGet and tcpSocket (the
 * handlers drover's agent runs; grpc is not modelled). liveness_like is
 * true for liveness and startup probes, whose successThreshold must be 1
 * (a probe that decides a restart cannot ask for several successes).
 *
 * Difference: Kubernetes reports a second handler as Forbidden on that
 * handler's own path ("livenessProbe.httpGet") and skips validating it;
 * drover validates every handler present and reports the count on the
 * probe's path. A NULL probe (not configured) is valid.
 *
 * Example: livenessProbe {httpGet {port: 0}, successThreshold: 2} gives
 * two errors, in this order: livenessProbe.httpGet.port "must be
 * between 1 and 65535, inclusive", livenessProbe.successThreshold
 * "must be 1". The same as a readinessProbe gives only the first. */
static void
validate_probe(const struct probe *pr, const char *path, bool liveness_like,
	       struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	int handlers = 0;

	if (pr == NULL)
		return;
	if (pr->exec) {
		handlers++;
		if (pr->exec->command.n == 0)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.exec.command", path),
				     NULL, "");
	}
	if (pr->http_get) {
		handlers++;
		validate_port_ref(&pr->http_get->port,
				  val_pathf(&p, "%s.httpGet.port", path), errs);
		if (pr->http_get->scheme &&
		    strcmp(pr->http_get->scheme, "HTTP") &&
		    strcmp(pr->http_get->scheme, "HTTPS"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s.httpGet.scheme", path),
			    pr->http_get->scheme,
			    "supported values: \"HTTP\", "
			    "\"HTTPS\"");
	}
	if (pr->tcp_socket) {
		handlers++;
		validate_port_ref(&pr->tcp_socket->port,
				  val_pathf(&p, "%s.tcpSocket.port", path),
				  errs);
	}
	if (handlers == 0)
		fielderr_add(errs, FE_REQUIRED, path, NULL,
			     "must specify a handler type");
	else if (handlers > 1)
		fielderr_add(errs, FE_FORBIDDEN, path, NULL,
			     "may not specify more than 1 handler type");
	val_nonneg_opt(&pr->initial_delay_seconds,
		       val_pathf(&p, "%s.initialDelaySeconds", path), errs);
	val_nonneg_opt(&pr->timeout_seconds,
		       val_pathf(&p, "%s.timeoutSeconds", path), errs);
	val_nonneg_opt(&pr->period_seconds,
		       val_pathf(&p, "%s.periodSeconds", path), errs);
	val_nonneg_opt(&pr->success_threshold,
		       val_pathf(&p, "%s.successThreshold", path), errs);
	val_nonneg_opt(&pr->failure_threshold,
		       val_pathf(&p, "%s.failureThreshold", path), errs);
	if (liveness_like && pr->success_threshold.set &&
	    pr->success_threshold.v != 1)
		fielderr_addf_int(errs, FE_INVALID,
				  val_pathf(&p, "%s.successThreshold", path),
				  pr->success_threshold.v, "must be 1");
	if (pr->termination_grace_period_seconds.set &&
	    pr->termination_grace_period_seconds.v <= 0)
		fielderr_addf_int(
		    errs, FE_INVALID,
		    val_pathf(&p, "%s.terminationGracePeriodSeconds", path),
		    pr->termination_grace_period_seconds.v,
		    "must be greater than 0");
	strbuf_release(&p);
}

/* ---- securityContext ---- */

#define MSG_ID_RANGE "must be between 0 and 2147483647, inclusive"

/* The Linux capabilities, as Kubernetes writes them (without "CAP_").
 * The index is the kernel's capability number (CAP_CHOWN = 0 ...
 * CAP_CHECKPOINT_RESTORE = 40, linux/capability.h), which is what the
 * agent passes to capset: keep the order, append new ones at the end. */
static const char *const capability_names[] = {
    "CHOWN",
    "DAC_OVERRIDE",
    "DAC_READ_SEARCH",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "LINUX_IMMUTABLE",
    "NET_BIND_SERVICE",
    "NET_BROADCAST",
    "NET_ADMIN",
    "NET_RAW",
    "IPC_LOCK",
    "IPC_OWNER",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_CHROOT",
    "SYS_PTRACE",
    "SYS_PACCT",
    "SYS_ADMIN",
    "SYS_BOOT",
    "SYS_NICE",
    "SYS_RESOURCE",
    "SYS_TIME",
    "SYS_TTY_CONFIG",
    "MKNOD",
    "LEASE",
    "AUDIT_WRITE",
    "AUDIT_CONTROL",
    "SETFCAP",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "SYSLOG",
    "WAKE_ALARM",
    "BLOCK_SUSPEND",
    "AUDIT_READ",
    "PERFMON",
    "BPF",
    "CHECKPOINT_RESTORE",
};

/* The capability number of name, CAPABILITY_ALL for "ALL", -1 if it is
 * not one. "NET_ADMIN" and "CAP_NET_ADMIN" both give 12. This check is
 * drover's: Kubernetes passes capability names through to the container
 * runtime unchecked, but drover's process runtime must turn each into a
 * number, and an unknown one is better refused at apply time than at
 * pod start. Names are case sensitive, as the runtimes treat them. */
int
validate_capability(const char *name)
{
	size_t i;

	if (name == NULL)
		return -1;
	if (!strcmp(name, "ALL"))
		return CAPABILITY_ALL;
	if (!strncmp(name, "CAP_", 4)) /* the runtimes take both forms */
		name += 4;
	for (i = 0; i < sizeof(capability_names) / sizeof(*capability_names);
	     i++)
		if (!strcmp(name, capability_names[i]))
			return (int)i;
	return -1;
}

/* IsValidUserID / IsValidGroupID: 0..2147483647 (math.MaxInt32) in the
 * int64 fields. 0 (root) is valid; -1 and 2147483648 are not, though
 * both fit the field. */
static void
valid_id(const struct opt_int *o, const char *path, struct fielderr_list *errs)
{
	if (o->set && (o->v < 0 || o->v > 2147483647))
		fielderr_addf_int(errs, FE_INVALID, path, o->v, MSG_ID_RANGE);
}

/* Every entry of capabilities.add or .drop, each error on its own index
 * ("securityContext.capabilities.add[1]"). */
static void
valid_caps(const struct strlist *l, const char *path,
	   struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (validate_capability(l->v[i]) < 0)
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s[%zu]", path, i), l->v[i],
			    "must be a Linux capability such as "
			    "\"NET_BIND_SERVICE\" (without \"CAP_\"), or "
			    "\"ALL\"");
	strbuf_release(&p);
}

/* ValidateSecurityContext (a container's): ids, procMount, capability
 * names (drover's rule, see validate_capability), and the two
 * combinations that contradict allowPrivilegeEscalation: false
 * (privileged, and adding SYS_ADMIN). The value printed for those is the
 * offending part of the context as JSON, not Go's %#v of the whole
 * struct. Kubernetes compares the added capability with the literal
 * "CAP_SYS_ADMIN"; drover refuses "SYS_ADMIN" as well, because its
 * runtime treats both spellings as the same capability. */
static void
validate_security_context(const struct security_context *sc, const char *path,
			  struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	bool no_escalation = sc->allow_privilege_escalation.set &&
			     !sc->allow_privilege_escalation.v;
	size_t i;

	valid_id(&sc->run_as_user, val_pathf(&p, "%s.runAsUser", path), errs);
	valid_id(&sc->run_as_group, val_pathf(&p, "%s.runAsGroup", path), errs);
	if (sc->proc_mount && strcmp(sc->proc_mount, "Default") &&
	    strcmp(sc->proc_mount, "Unmasked"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED,
				  val_pathf(&p, "%s.procMount", path),
				  sc->proc_mount,
				  "supported values: \"Default\", "
				  "\"Unmasked\"");
	if (sc->capabilities) {
		valid_caps(&sc->capabilities->add,
			   val_pathf(&p, "%s.capabilities.add", path), errs);
		valid_caps(&sc->capabilities->drop,
			   val_pathf(&p, "%s.capabilities.drop", path), errs);
	}
	if (no_escalation && sc->privileged.set && sc->privileged.v)
		fielderr_add(errs, FE_INVALID, path,
			     "{\"privileged\":true,"
			     "\"allowPrivilegeEscalation\":false}",
			     "cannot set `allowPrivilegeEscalation` to false "
			     "and `privileged` to true");
	for (i = 0;
	     no_escalation && sc->capabilities && i < sc->capabilities->add.n;
	     i++)
		if (validate_capability(sc->capabilities->add.v[i]) ==
		    CAPABILITY_SYS_ADMIN)
			fielderr_add(errs, FE_INVALID, path,
				     "{\"allowPrivilegeEscalation\":false}",
				     "cannot set `allowPrivilegeEscalation` to "
				     "false and `capabilities.Add` "
				     "CAP_SYS_ADMIN");
	strbuf_release(&p);
}

/* ValidatePodSecurityContext: the ids, every supplemental group with its
 * index, and supplementalGroupsPolicy (Merge or Strict). */
static void
validate_pod_security_context(const struct pod_security_context *sc,
			      const char *path, struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	valid_id(&sc->run_as_user, val_pathf(&p, "%s.runAsUser", path), errs);
	valid_id(&sc->run_as_group, val_pathf(&p, "%s.runAsGroup", path), errs);
	valid_id(&sc->fs_group, val_pathf(&p, "%s.fsGroup", path), errs);
	for (i = 0; i < sc->supplemental_groups.n; i++) {
		struct opt_int g = {sc->supplemental_groups.v[i], true};

		valid_id(&g,
			 val_pathf(&p, "%s.supplementalGroups[%zu]", path, i),
			 errs);
	}
	if (sc->supplemental_groups_policy &&
	    strcmp(sc->supplemental_groups_policy, "Merge") &&
	    strcmp(sc->supplemental_groups_policy, "Strict"))
		fielderr_addf_str(
		    errs, FE_NOT_SUPPORTED,
		    val_pathf(&p, "%s.supplementalGroupsPolicy", path),
		    sc->supplemental_groups_policy,
		    "supported values: \"Merge\", \"Strict\"");
	strbuf_release(&p);
}

/* ValidateResourceRequirements for cpu and memory (and the names
 * Kubernetes allows a container). Each name must be a standard container
 * resource (cpu, memory, ephemeral-storage, hugepages-<size>) or an
 * extended one ("example.com/gpu"); each value a quantity, not negative;
 * a request at most its limit:
 *
 *   requests {cpu: "2"}, limits {cpu: "1"}
 *   -> spec.containers[0].resources.requests: Invalid value: "2": must
 *      be less than or equal to cpu limit of 1
 *   requests {cpu: "-1"}
 *   -> spec.containers[0].resources.requests[cpu]: Invalid value: "-1":
 *      must be greater than or equal to 0
 *   limits {memory: "1Gb"}
 *   -> spec.containers[0].resources.limits[memory]: Invalid value:
 *      "1Gb": quantities must match the regular expression ...
 *
 * Kubernetes refuses a malformed quantity while decoding, and prints
 * quantities in canonical form; drover gives the field path and prints
 * them as written. */
static void
validate_resource_list(const struct strmap *m, const char *path,
		       struct fielderr_list *errs, int64_t *vals)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const char *k = m->v[i].key, *v = m->v[i].value;
		const char *fp = val_pathf(&p, "%s[%s]", path, k);
		enum qty_err qe;

		vals[i] = 0;
		if (strchr(k, '/') == NULL && strcmp(k, "cpu") &&
		    strcmp(k, "memory") && strcmp(k, "ephemeral-storage") &&
		    strncmp(k, "hugepages-", 10))
			fielderr_addf_str(
			    errs, FE_INVALID, fp, k,
			    "must be a standard resource for containers");
		qe = quantity_parse(v, strcmp(k, "cpu") ? QTY_UNIT : QTY_MILLI,
				    &vals[i]);
		if (qe == QTY_SYNTAX)
			fielderr_addf_str(errs, FE_INVALID, fp, v,
					  QTY_SYNTAX_MSG);
		else if (qe == QTY_OVERFLOW)
			fielderr_addf_str(errs, FE_INVALID, fp, v,
					  "must be less than 2^63");
		else if (vals[i] < 0)
			fielderr_addf_str(errs, FE_INVALID, fp, v,
					  "must be greater than or equal to 0");
	}
	strbuf_release(&p);
}

static void
validate_resources(const struct resources *r, const char *path,
		   struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT, d = STRBUF_INIT;
	int64_t *lim = xcalloc(r->limits.n + 1, sizeof(*lim));
	int64_t *req = xcalloc(r->requests.n + 1, sizeof(*req));
	size_t i, j;

	validate_resource_list(&r->limits, val_pathf(&p, "%s.limits", path),
			       errs, lim);
	validate_resource_list(&r->requests, val_pathf(&p, "%s.requests", path),
			       errs, req);
	for (i = 0; i < r->requests.n; i++)
		for (j = 0; j < r->limits.n; j++) {
			const char *k = r->requests.v[i].key;

			if (strcmp(k, r->limits.v[j].key) || req[i] <= lim[j])
				continue;
			strbuf_reset(&d);
			strbuf_addf(&d,
				    "must be less than or equal to %s limit "
				    "of %s",
				    k, r->limits.v[j].value);
			fielderr_addf_str(errs, FE_INVALID,
					  val_pathf(&p, "%s.requests", path),
					  r->requests.v[i].value, d.buf);
		}
	free(lim);
	free(req);
	strbuf_release(&d);
	strbuf_release(&p);
}

/* ValidateVolumes and validateVolumeSource for what drover models: a
 * volume's source (emptyDir: a sizeLimit that is not negative, a medium
 * drover can give), then its name: Required, a DNS-1123 label, unique.
 * Kubernetes only counts a volume without errors as declared (its map
 * of the volumes mounts may name), so a name that repeats an earlier
 * broken volume's is not Duplicate, and mounting a broken volume is Not
 * found as well: ok[i] says whether volume i is declared.
 *
 * Examples (a Deployment's template):
 *   spec.template.spec.volumes[1].name: Duplicate value: "cache"
 *   spec.template.spec.volumes[0].emptyDir.sizeLimit: Forbidden:
 *   SizeLimit field must be a valid resource quantity
 *
 * The medium is drover's rule: Kubernetes also takes "HugePages" and
 * "HugePages-<size>", which a directory cannot stand for. Other sources
 * than emptyDir never get here: the strict decoder refuses them as
 * unknown fields ("spec.volumes[0].configMap: Unknown field"). A volume
 * without a source is defaulted to emptyDir first (core_defaults.c), so
 * "must specify a volume type" is only seen without defaulting. */
static void
validate_volumes(const struct volume_list *vols, const char *path, bool *ok,
		 struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < vols->n; i++) {
		const struct volume *v = &vols->v[i];
		const struct empty_dir_volume_source *ed = v->empty_dir;
		size_t before = errs->n;

		if (ed && ed->size_limit) {
			int64_t q = 0;
			enum qty_err qe =
			    quantity_parse(ed->size_limit, QTY_UNIT, &q);
			const char *fp = val_pathf(
			    &p, "%s[%zu].emptyDir.sizeLimit", path, i);

			if (qe == QTY_SYNTAX)
				fielderr_addf_str(errs, FE_INVALID, fp,
						  ed->size_limit,
						  QTY_SYNTAX_MSG);
			else if (qe == QTY_OVERFLOW)
				fielderr_addf_str(errs, FE_INVALID, fp,
						  ed->size_limit,
						  "must be less than 2^63");
			else if (q < 0)
				fielderr_add(errs, FE_FORBIDDEN, fp, NULL,
					     "SizeLimit field must be a valid "
					     "resource quantity");
		}
		if (ed && ed->medium && *ed->medium &&
		    strcmp(ed->medium, "Memory"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s[%zu].emptyDir.medium", path, i),
			    ed->medium, "supported values: \"\", \"Memory\"");
		if (ed == NULL)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s[%zu]", path, i), NULL,
				     "must specify a volume type");
		if (v->name == NULL || !*v->name)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s[%zu].name", path, i),
				     NULL, "");
		else
			validate_dns1123(v->name, true,
					 val_pathf(&p, "%s[%zu].name", path, i),
					 errs);
		for (j = 0; v->name && j < i; j++)
			if (ok[j] && !strcmp(vols->v[j].name, v->name)) {
				fielderr_addf_str(
				    errs, FE_DUPLICATE,
				    val_pathf(&p, "%s[%zu].name", path, i),
				    v->name, "");
				break;
			}
		ok[i] = errs->n == before;
	}
	strbuf_release(&p);
}

/* ValidateVolumeMounts, for name, mountPath and readOnly: the name
 * Required and one of the declared volumes (else Not found, with
 * Kubernetes' text: spec.containers[0].volumeMounts[0].name: Not
 * found: "x"), the mountPath Required and unique in the container
 * ("must be unique"). Kubernetes checks the mountPath no further (the
 * kubelet refuses a relative one when it starts the container). */
static void
validate_volume_mounts(const struct volume_mount_list *l,
		       const struct volume_list *vols, const bool *ok,
		       const char *path, struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		const struct volume_mount *m = &l->v[i];
		const char *name = m->name ? m->name : "";
		bool found = false;

		if (!*name)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s[%zu].name", path, i),
				     NULL, "");
		for (j = 0; j < vols->n && !found; j++)
			found = ok[j] && !strcmp(vols->v[j].name, name);
		if (!found)
			fielderr_addf_str(
			    errs, FE_NOT_FOUND,
			    val_pathf(&p, "%s[%zu].name", path, i), name, "");
		if (m->mount_path == NULL || !*m->mount_path)
			fielderr_add(
			    errs, FE_REQUIRED,
			    val_pathf(&p, "%s[%zu].mountPath", path, i), NULL,
			    "");
		for (j = 0; j < i; j++)
			if (!strcmp(l->v[j].mount_path ? l->v[j].mount_path
						       : "",
				    m->mount_path ? m->mount_path : "")) {
				fielderr_addf_str(
				    errs, FE_INVALID,
				    val_pathf(&p, "%s[%zu].mountPath", path, i),
				    m->mount_path ? m->mount_path : "",
				    "must be unique");
				break;
			}
	}
	strbuf_release(&p);
}

/* validateContainers for one container (common fields only: name, image,
 * ports, env, volumeMounts, probes, securityContext, imagePullPolicy).
 * vols and vol_ok are the pod's volumes and which of them are declared
 * (validate_volumes).
 *
 * Port names: a name that fails IsValidPortName gets those errors and is
 * not checked for duplicates; a valid one that equals an earlier port's
 * name is Duplicate on the later port (ports[0] and ports[2] both "http":
 * the error is on ports[2].name). containerPort 0 is "missing" (the Go
 * zero value), hence Required, not Invalid. hostPort 0 means "none". */
static void
validate_container(const struct container *c, const struct volume_list *vols,
		   const bool *vol_ok, const char *path,
		   struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i, j;

	if (c->name == NULL || !*c->name)
		fielderr_add(errs, FE_REQUIRED, val_pathf(&p, "%s.name", path),
			     NULL, "");
	else
		validate_dns1123(c->name, true, val_pathf(&p, "%s.name", path),
				 errs);
	if (c->image == NULL || !*c->image)
		fielderr_add(errs, FE_REQUIRED, val_pathf(&p, "%s.image", path),
			     NULL, "");
	validate_resources(&c->resources, val_pathf(&p, "%s.resources", path),
			   errs);
	for (i = 0; i < c->ports.n; i++) {
		const struct container_port *cp = &c->ports.v[i];

		if (cp->container_port == 0)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p,
					       "%s.ports[%zu].containerPort",
					       path, i),
				     NULL, "");
		else if (cp->container_port < 1 || cp->container_port > 65535)
			fielderr_addf_int(
			    errs, FE_INVALID,
			    val_pathf(&p, "%s.ports[%zu].containerPort", path,
				      i),
			    cp->container_port,
			    "must be between 1 and 65535, inclusive");
		if (cp->host_port != 0 &&
		    (cp->host_port < 1 || cp->host_port > 65535))
			fielderr_addf_int(
			    errs, FE_INVALID,
			    val_pathf(&p, "%s.ports[%zu].hostPort", path, i),
			    cp->host_port,
			    "must be between 1 and 65535, inclusive");
		if (cp->name && *cp->name && !name_is_iana_svc(cp->name)) {
			validate_port_name(
			    cp->name,
			    val_pathf(&p, "%s.ports[%zu].name", path, i), errs);
		} else if (cp->name && *cp->name) {
			/* One error a port, however many share its name
			 * (Kubernetes checks a set of the names seen). */
			for (j = 0; j < i; j++)
				if (c->ports.v[j].name &&
				    !strcmp(c->ports.v[j].name, cp->name)) {
					fielderr_addf_str(
					    errs, FE_DUPLICATE,
					    val_pathf(&p, "%s.ports[%zu].name",
						      path, i),
					    cp->name, "");
					break;
				}
		}
		if (cp->protocol && strcmp(cp->protocol, "TCP") &&
		    strcmp(cp->protocol, "UDP") && strcmp(cp->protocol, "SCTP"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s.ports[%zu].protocol", path, i),
			    cp->protocol,
			    "supported values: \"SCTP\", \"TCP\", \"UDP\"");
	}
	for (i = 0; i < c->env.n; i++) {
		const struct env_var *e = &c->env.v[i];

		if (e->name == NULL || !*e->name)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.env[%zu].name", path, i),
				     NULL, "");
		else if (!name_is_env_var(e->name))
			fielderr_addf_str(
			    errs, FE_INVALID,
			    val_pathf(&p, "%s.env[%zu].name", path, i), e->name,
			    MSG_ENV_VAR);
		/* validateEnvVarValueFrom: no source, else a value too.
		 * Only fieldRef is modelled, so a valueFrom without one has
		 * no source as far as drover is concerned (a manifest with
		 * only a configMapKeyRef is refused here with Kubernetes'
		 * message). The value "" printed is what Kubernetes prints:
		 * it passes "" as the bad value. */
		if (e->value_from && e->value_from->field_ref == NULL)
			fielderr_add(
			    errs, FE_INVALID,
			    val_pathf(&p, "%s.env[%zu].valueFrom", path, i),
			    "\"\"",
			    "must specify one of: `fieldRef`, "
			    "`resourceFieldRef`, `configMapKeyRef` or "
			    "`secretKeyRef`");
		else if (e->value_from && e->value && *e->value)
			fielderr_add(
			    errs, FE_INVALID,
			    val_pathf(&p, "%s.env[%zu].valueFrom", path, i),
			    "\"\"",
			    "may not be specified when `value` is "
			    "not empty");
		if (e->value_from && e->value_from->field_ref)
			downward_validate_env(
			    e->value_from->field_ref,
			    val_pathf(&p, "%s.env[%zu].valueFrom.fieldRef",
				      path, i),
			    errs);
	}
	validate_volume_mounts(&c->volume_mounts, vols, vol_ok,
			       val_pathf(&p, "%s.volumeMounts", path), errs);
	/* validateLivenessProbe / validateReadinessProbe /
	 * validateStartupProbe: a readiness probe never kills, so a
	 * probe-level terminationGracePeriodSeconds makes no sense there. */
	validate_probe(c->liveness_probe,
		       val_pathf(&p, "%s.livenessProbe", path), true, errs);
	validate_probe(c->readiness_probe,
		       val_pathf(&p, "%s.readinessProbe", path), false, errs);
	if (c->readiness_probe &&
	    c->readiness_probe->termination_grace_period_seconds.set)
		fielderr_addf_int(
		    errs, FE_INVALID,
		    val_pathf(&p,
			      "%s.readinessProbe.terminationGracePeriodSeconds",
			      path),
		    c->readiness_probe->termination_grace_period_seconds.v,
		    "must not be set for readinessProbes");
	validate_probe(c->startup_probe, val_pathf(&p, "%s.startupProbe", path),
		       true, errs);
	if (c->security_context)
		validate_security_context(
		    c->security_context,
		    val_pathf(&p, "%s.securityContext", path), errs);
	if (c->image_pull_policy && strcmp(c->image_pull_policy, "Always") &&
	    strcmp(c->image_pull_policy, "IfNotPresent") &&
	    strcmp(c->image_pull_policy, "Never"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED,
				  val_pathf(&p, "%s.imagePullPolicy", path),
				  c->image_pull_policy,
				  "supported values: \"Always\", "
				  "\"IfNotPresent\", \"Never\"");
	strbuf_release(&p);
}

/* NodeSelectorRequirement in matchExpressions
 * (ValidateNodeSelectorRequirement): In and NotIn need values, Exists
 * and DoesNotExist take none, Gt and Lt exactly one (that it is an
 * integer is not checked here, as in Kubernetes: a value that is not
 * one matches no node); any other operator is invalid. The key is a
 * label name. Example, operator "Foo" at matchExpressions[0]:
 *   ...matchExpressions[0].operator: Invalid value: "Foo": not a valid
 *   selector operator */
static void
validate_node_selector_req(const struct node_selector_req *r, const char *path,
			   struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	/* (not a ?: on `operator`: clang-format takes it for C++'s) */
	const char *op = r->operator;

	if (op == NULL)
		op = "";
	if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
		if (r->values.n == 0)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.values", path), NULL,
				     "must be specified when `operator` is "
				     "'In' or 'NotIn'");
	} else if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
		if (r->values.n > 0)
			fielderr_add(errs, FE_FORBIDDEN,
				     val_pathf(&p, "%s.values", path), NULL,
				     "may not be specified when `operator` is "
				     "'Exists' or 'DoesNotExist'");
	} else if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
		if (r->values.n != 1)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.values", path), NULL,
				     "must be specified single value when "
				     "`operator` is 'Lt' or 'Gt'");
	} else {
		fielderr_addf_str(errs, FE_INVALID,
				  val_pathf(&p, "%s.operator", path), op,
				  "not a valid selector operator");
	}
	validate_label_key(r->key ? r->key : "", val_pathf(&p, "%s.key", path),
			   errs);
	strbuf_release(&p);
}

/* NodeSelectorRequirement in matchFields
 * (ValidateNodeFieldSelectorRequirement): only metadata.name, with In or
 * NotIn and one value, a node name. */
static void
validate_node_field_req(const struct node_selector_req *r, const char *path,
			struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	const char *op = r->operator;
	const char *key = r->key ? r->key : "";
	size_t i;

	if (op == NULL)
		op = "";
	if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
		if (r->values.n != 1)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.values", path), NULL,
				     "must be only one value when `operator` "
				     "is 'In' or 'NotIn' for node field "
				     "selector");
	} else {
		fielderr_addf_str(errs, FE_INVALID,
				  val_pathf(&p, "%s.operator", path), op,
				  "not a valid selector operator");
	}
	if (strcmp(key, "metadata.name")) {
		fielderr_addf_str(errs, FE_INVALID,
				  val_pathf(&p, "%s.key", path), key,
				  "not a valid field selector key");
	} else {
		for (i = 0; i < r->values.n; i++)
			validate_dns1123(
			    r->values.v[i], false,
			    val_pathf(&p, "%s.values[%zu]", path, i), errs);
	}
	strbuf_release(&p);
}

/* ValidateNodeSelectorTerm: matchExpressions, then matchFields. */
static void
validate_node_selector_term(const struct node_selector_term *t,
			    const char *path, struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	for (i = 0; i < t->match_expressions.n; i++)
		validate_node_selector_req(
		    &t->match_expressions.v[i],
		    val_pathf(&p, "%s.matchExpressions[%zu]", path, i), errs);
	for (i = 0; i < t->match_fields.n; i++)
		validate_node_field_req(
		    &t->match_fields.v[i],
		    val_pathf(&p, "%s.matchFields[%zu]", path, i), errs);
	strbuf_release(&p);
}

/* validateAffinity for nodeAffinity (validateNodeAffinity): the
 * required selector needs at least one term; every preferred term a
 * weight of 1..100. podAffinity and podAntiAffinity are kept as written
 * and not validated (drover does not act on them). */
static void
validate_affinity(const struct affinity *a, const char *path,
		  struct fielderr_list *errs)
{
	const struct node_affinity *na = a->node_affinity;
	struct strbuf p = STRBUF_INIT, q = STRBUF_INIT;
	size_t i;

	if (na == NULL)
		return;
	if (na->required) {
		const struct node_selector_term_list *l =
		    &na->required->node_selector_terms;

		if (l->n == 0)
			fielderr_add(
			    errs, FE_REQUIRED,
			    val_pathf(
				&p,
				"%s.nodeAffinity.requiredDuringScheduling"
				"IgnoredDuringExecution.nodeSelectorTerms",
				path),
			    NULL, "must have at least one node selector term");
		for (i = 0; i < l->n; i++)
			validate_node_selector_term(
			    &l->v[i],
			    val_pathf(&p,
				      "%s.nodeAffinity.requiredDuringScheduling"
				      "IgnoredDuringExecution.nodeSelectorTerms"
				      "[%zu]",
				      path, i),
			    errs);
	}
	for (i = 0; i < na->preferred.n; i++) {
		const struct preferred_scheduling_term *t = &na->preferred.v[i];

		val_pathf(&q,
			  "%s.nodeAffinity.preferredDuringScheduling"
			  "IgnoredDuringExecution[%zu]",
			  path, i);
		if (t->weight <= 0 || t->weight > 100)
			fielderr_addf_int(
			    errs, FE_INVALID, val_pathf(&p, "%s.weight", q.buf),
			    t->weight, "must be in the range 1-100");
		validate_node_selector_term(
		    &t->preference, val_pathf(&p, "%s.preference", q.buf),
		    errs);
	}
	strbuf_release(&p);
	strbuf_release(&q);
}

/* ValidatePodSpec for the fields drover models. path is where the spec
 * sits ("spec" for a Pod, "spec.template.spec" for a template), so the
 * same rules print the right paths for both. The volumes come first,
 * then the containers, whose volumeMounts name them.
 *
 * Container names must be unique: the second "web" is Duplicate on its
 * own containers[i].name (a third "web" gets one error too, not one per
 * earlier "web"). activeDeadlineSeconds must be 1..2^31-1. nodeSelector
 * follows the label rules. Tolerations: operator "" means Equal and effect
 * "" means all effects, so both are accepted empty. */
void
validate_pod_spec(const struct pod_spec *s, const char *path,
		  struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	bool *vol_ok = xcalloc(s->volumes.n + 1, sizeof(*vol_ok));
	size_t i, j;

	validate_volumes(&s->volumes, val_pathf(&p, "%s.volumes", path), vol_ok,
			 errs);
	if (s->containers.n == 0)
		fielderr_add(errs, FE_REQUIRED,
			     val_pathf(&p, "%s.containers", path), NULL, "");
	for (i = 0; i < s->containers.n; i++) {
		const char *ni = s->containers.v[i].name;

		validate_container(&s->containers.v[i], &s->volumes, vol_ok,
				   val_pathf(&p, "%s.containers[%zu]", path, i),
				   errs);
		for (j = 0; ni && j < i; j++)
			if (s->containers.v[j].name &&
			    !strcmp(s->containers.v[j].name, ni)) {
				fielderr_addf_str(
				    errs, FE_DUPLICATE,
				    val_pathf(&p, "%s.containers[%zu].name",
					      path, i),
				    ni, "");
				break; /* one error a container */
			}
	}
	if (s->restart_policy && strcmp(s->restart_policy, "Always") &&
	    strcmp(s->restart_policy, "OnFailure") &&
	    strcmp(s->restart_policy, "Never"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED,
				  val_pathf(&p, "%s.restartPolicy", path),
				  s->restart_policy,
				  "supported values: \"Always\", "
				  "\"OnFailure\", \"Never\"");
	val_nonneg_opt(&s->termination_grace_period_seconds,
		       val_pathf(&p, "%s.terminationGracePeriodSeconds", path),
		       errs);
	if (s->active_deadline_seconds.set &&
	    (s->active_deadline_seconds.v <= 0 ||
	     s->active_deadline_seconds.v > 2147483647))
		fielderr_addf_int(
		    errs, FE_INVALID,
		    val_pathf(&p, "%s.activeDeadlineSeconds", path),
		    s->active_deadline_seconds.v,
		    "must be between 1 and 2147483647, "
		    "inclusive");
	validate_labels(&s->node_selector,
			val_pathf(&p, "%s.nodeSelector", path), errs);
	if (s->security_context)
		validate_pod_security_context(
		    s->security_context,
		    val_pathf(&p, "%s.securityContext", path), errs);
	if (s->affinity)
		validate_affinity(s->affinity,
				  val_pathf(&p, "%s.affinity", path), errs);
	for (i = 0; i < s->tolerations.n; i++) {
		const struct toleration *t = &s->tolerations.v[i];

		/* an empty operator means Equal (clang-format spaces
		 * `operator` oddly: it is a C++ keyword) */
		if (t->operator&& * t->operator&&
		    strcmp(t->operator, "Equal") &&
		    strcmp(t->operator, "Exists"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s.tolerations[%zu].operator", path,
				      i),
			    t->operator,
			    "supported values: \"Equal\", \"Exists\"");
		if (t->effect && *t->effect &&
		    strcmp(t->effect, "NoSchedule") &&
		    strcmp(t->effect, "PreferNoSchedule") &&
		    strcmp(t->effect, "NoExecute"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED,
			    val_pathf(&p, "%s.tolerations[%zu].effect", path,
				      i),
			    t->effect,
			    "supported values: \"NoSchedule\", "
			    "\"PreferNoSchedule\", \"NoExecute\"");
	}
	free(vol_ok);
	strbuf_release(&p);
}

/* ValidateReplicationController = ValidateObjectMeta +
 * ValidateReplicationControllerSpec, in its order: minReadySeconds, the
 * selector non-empty (ValidateNonEmptySelector: spec.selector: Required
 * value), replicas, then ValidatePodTemplateSpecForRC: the template's
 * labels must carry the selector, the template itself, restartPolicy
 * Always and no activeDeadlineSeconds.
 *
 * Example: selector {app: web}, template labels {app: api}:
 *   spec.template.metadata.labels: Invalid value:
 *   map[string]string{"app":"api"}: `selector` does not match template
 *   `labels` */
void
validate_rc(const struct replication_controller *rc, struct fielderr_list *errs)
{
	const struct pod_template *t = &rc->spec.template;
	struct strbuf p = STRBUF_INIT;

	validate_object_meta(&rc->metadata, true, "metadata", errs);
	val_nonneg(rc->spec.min_ready_seconds, "spec.minReadySeconds", errs);
	if (rc->spec.selector.n == 0)
		fielderr_add(errs, FE_REQUIRED, "spec.selector", NULL, "");
	val_nonneg_opt(&rc->spec.replicas, "spec.replicas", errs);
	if (rc->spec.selector.n > 0 &&
	    !labels_subset(&rc->spec.selector, &t->metadata.labels)) {
		val_render_map(&t->metadata.labels, &p);
		fielderr_add(errs, FE_INVALID, "spec.template.metadata.labels",
			     p.buf,
			     "`selector` does not match template `labels`");
	}
	validate_labels(&t->metadata.labels, "spec.template.labels", errs);
	validate_annotations(&t->metadata.annotations,
			     "spec.template.annotations", errs);
	validate_pod_spec(&t->spec, "spec.template.spec", errs);
	if (t->spec.restart_policy && strcmp(t->spec.restart_policy, "Always"))
		fielderr_addf_str(
		    errs, FE_NOT_SUPPORTED, "spec.template.spec.restartPolicy",
		    t->spec.restart_policy, "supported values: \"Always\"");
	if (t->spec.active_deadline_seconds.set)
		fielderr_addf_int(errs, FE_INVALID,
				  "spec.template.spec.activeDeadlineSeconds",
				  t->spec.active_deadline_seconds.v,
				  "activeDeadlineSeconds in "
				  "ReplicationController is not Supported");
	strbuf_release(&p);
}

/* ValidatePodCreate, restricted to metadata and the pod spec. */
void
validate_pod(const struct pod *p, struct fielderr_list *errs)
{
	validate_object_meta(&p->metadata, true, "metadata", errs);
	validate_pod_spec(&p->spec, "spec", errs);
}

/* ValidateNode, for what drover's nodes carry: metadata (cluster scoped,
 * so no namespace) and taints, whose key follows the label-key rules and
 * whose effect is required and one of the three taint effects
 * (validateNodeTaints). */
void
validate_node(const struct node *n, struct fielderr_list *errs)
{
	size_t i;
	char path[64];

	validate_object_meta(&n->metadata, false, "metadata", errs);
	for (i = 0; i < n->spec.taints.n; i++) {
		const struct taint *t = &n->spec.taints.v[i];

		snprintf(path, sizeof(path), "spec.taints[%zu].key", i);
		validate_label_key(t->key ? t->key : "", path, errs);
		snprintf(path, sizeof(path), "spec.taints[%zu].effect", i);
		if (t->effect == NULL || !*t->effect)
			fielderr_add(errs, FE_REQUIRED, path, NULL, "");
		else if (strcmp(t->effect, "NoSchedule") &&
			 strcmp(t->effect, "PreferNoSchedule") &&
			 strcmp(t->effect, "NoExecute"))
			fielderr_addf_str(
			    errs, FE_NOT_SUPPORTED, path, t->effect,
			    "supported values: \"NoSchedule\", "
			    "\"PreferNoSchedule\", \"NoExecute\"");
	}
}

/* How Kubernetes prints the key of a duplicate (protocol, port) pair:
 * field.Duplicate(path, core.ServicePort{Protocol, Port}) renders the
 * Go value with %#v. */
static void
render_port_key(const struct service_port *p, struct strbuf *sb)
{
	strbuf_addf(sb,
		    "core.ServicePort{Name:\"\", Protocol:\"%s\", "
		    "AppProtocol:(*string)(nil), Port:%lld, "
		    "TargetPort:intstr.IntOrString{Type:0, IntVal:0, "
		    "StrVal:\"\"}, NodePort:0}",
		    p->protocol ? p->protocol : "", (long long)p->port);
}

/* validateServicePort: a name (a DNS-1123 label) is required and unique
 * when there is more than one port; port 1..65535; protocol TCP (drover
 * proxies TCP only: Kubernetes also accepts UDP and SCTP); targetPort a
 * port number or an IANA service name (ValidatePortNumOrName);
 * appProtocol a qualified name ("http", "kubernetes.io/h2c").
 * Example: ports [{name: web, port: 80}, {name: web, port: 81}] gives
 * spec.ports[1].name: Duplicate value: "web". */
static void
validate_service_port(const struct service_port *sp, bool require_name,
		      struct strlist *names, const char *path,
		      struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	if (sp->name == NULL || !*sp->name) {
		if (require_name)
			fielderr_add(errs, FE_REQUIRED,
				     val_pathf(&p, "%s.name", path), NULL, "");
	} else {
		bool dup = false;

		validate_dns1123(sp->name, true, val_pathf(&p, "%s.name", path),
				 errs);
		for (i = 0; i < names->n; i++)
			if (!strcmp(names->v[i], sp->name))
				dup = true;
		if (dup)
			fielderr_addf_str(errs, FE_DUPLICATE,
					  val_pathf(&p, "%s.name", path),
					  sp->name, "");
		else
			strlist_push(names, sp->name);
	}
	if (sp->port < 1 || sp->port > 65535)
		fielderr_addf_int(errs, FE_INVALID,
				  val_pathf(&p, "%s.port", path), sp->port,
				  "must be between 1 and 65535, inclusive");
	if (sp->protocol == NULL || !*sp->protocol)
		fielderr_add(errs, FE_REQUIRED,
			     val_pathf(&p, "%s.protocol", path), NULL, "");
	else if (strcmp(sp->protocol, "TCP"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED,
				  val_pathf(&p, "%s.protocol", path),
				  sp->protocol, "supported values: \"TCP\"");
	validate_port_ref(&sp->target_port,
			  val_pathf(&p, "%s.targetPort", path), errs);
	if (sp->app_protocol)
		validate_label_key(sp->app_protocol,
				   val_pathf(&p, "%s.appProtocol", path), errs);
	strbuf_release(&p);
}

/* spec.clusterIP and clusterIPs: not "None" (a headless Service, which
 * needs the cluster DNS drover has not), at most one address in
 * clusterIPs (drover serves IPv4 only), and clusterIPs[0] equal to
 * clusterIP. That it is the API server's node's address is the API's
 * check (h_service.c, with the address's syntax: the core has no
 * inet_pton). */
static void
validate_cluster_ip(const struct service_spec *sp, struct fielderr_list *errs)
{
	const char *ip = sp->cluster_ip;

	if (ip && !strcmp(ip, "None"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "spec.clusterIP", ip,
				  "a headless Service: drover serves every "
				  "Service at each node's address");
	if (sp->cluster_ips.n > 1)
		fielderr_addf_int(errs, FE_INVALID, "spec.clusterIPs",
				  (int64_t)sp->cluster_ips.n,
				  "at most one address: drover serves IPv4 "
				  "only");
	else if (sp->cluster_ips.n == 1 && ip && *ip &&
		 strcmp(sp->cluster_ips.v[0], ip))
		fielderr_addf_str(errs, FE_INVALID, "spec.clusterIPs[0]",
				  sp->cluster_ips.v[0],
				  "must match `clusterIP` when both are "
				  "specified");
}

/* ValidateService for the fields drover models: the name a DNS-1035
 * label; at least one port; each port (validate_service_port); the
 * selector's labels; type ClusterIP or NodePort (drover serves both the
 * same way, on every node's address at `port`; LoadBalancer and
 * ExternalName need what drover does not have and are refused with
 * "Unsupported value"); no two ports with the same (protocol, port).
 * Example: ports [{name: a, port: 80}, {name: b, port: 80}] gives
 * spec.ports[1]: Duplicate value: core.ServicePort{... Port:80 ...}. */
void
validate_service(const struct service *s, struct fielderr_list *errs)
{
	struct object_meta m = s->metadata;
	struct strlist names = {0};
	struct strbuf p = STRBUF_INIT;
	size_t i, j;

	/* the name's own rule replaces the subdomain rule of ObjectMeta */
	if (m.name && *m.name)
		m.name = (char *)"a";
	validate_object_meta(&m, true, "metadata", errs);
	if (s->metadata.name && *s->metadata.name)
		validate_dns1035(s->metadata.name, "metadata.name", errs);
	if (s->spec.ports.n == 0)
		fielderr_add(errs, FE_REQUIRED, "spec.ports", NULL, "");
	for (i = 0; i < s->spec.ports.n; i++)
		validate_service_port(
		    &s->spec.ports.v[i], s->spec.ports.n > 1, &names,
		    val_pathf(&p, "spec.ports[%zu]", i), errs);
	strlist_release(&names);
	validate_labels(&s->spec.selector, "spec.selector", errs);
	validate_cluster_ip(&s->spec, errs);
	if (s->spec.type && strcmp(s->spec.type, "ClusterIP") &&
	    strcmp(s->spec.type, "NodePort"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "spec.type",
				  s->spec.type,
				  "supported values: \"ClusterIP\", "
				  "\"NodePort\"");
	for (i = 0; i < s->spec.ports.n; i++) {
		const struct service_port *a = &s->spec.ports.v[i];

		for (j = 0; j < i; j++) {
			const struct service_port *b = &s->spec.ports.v[j];

			if (a->port == b->port && a->protocol && b->protocol &&
			    !strcmp(a->protocol, b->protocol))
				break;
		}
		if (j < i) {
			struct strbuf v = STRBUF_INIT;

			render_port_key(a, &v);
			fielderr_add(errs, FE_DUPLICATE,
				     val_pathf(&p, "spec.ports[%zu]", i), v.buf,
				     "");
			strbuf_release(&v);
		}
	}
	strbuf_release(&p);
}

/* ValidateEndpoints, in part: every address has an ip, every port is
 * 1..65535. */
void
validate_endpoints(const struct endpoints *e, struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i, j;

	validate_object_meta(&e->metadata, true, "metadata", errs);
	for (i = 0; i < e->subsets.n; i++) {
		const struct endpoint_subset *ss = &e->subsets.v[i];

		for (j = 0; j < ss->addresses.n; j++)
			if (ss->addresses.v[j].ip == NULL ||
			    !*ss->addresses.v[j].ip)
				fielderr_add(
				    errs, FE_REQUIRED,
				    val_pathf(&p,
					      "subsets[%zu].addresses[%zu].ip",
					      i, j),
				    NULL, "");
		for (j = 0; j < ss->ports.n; j++)
			if (ss->ports.v[j].port < 1 ||
			    ss->ports.v[j].port > 65535)
				fielderr_addf_int(
				    errs, FE_INVALID,
				    val_pathf(&p,
					      "subsets[%zu].ports[%zu].port", i,
					      j),
				    ss->ports.v[j].port,
				    "must be between 1 and 65535, inclusive");
	}
	strbuf_release(&p);
}

/* ValidateEvent (core/v1), in part. The involved object's namespace
 * must be the Event's, except for a cluster-scoped object (a Node): its
 * Events carry no involvedObject.namespace and may live in "default"
 * (where old clients wrote them) or in no namespace. Example: an Event
 * in "web" about a Pod of "web": valid; about a Pod of "db": invalid;
 * about node-1 (no namespace) in "default": valid, in "web": invalid.
 * type is optional but, if given, Normal or Warning; involvedObject.kind
 * and reason are required. */
void
validate_event(const struct event_v1 *e, struct fielderr_list *errs)
{
	const char *ins = e->involved_object.namespace;
	const char *ns = e->metadata.namespace ? e->metadata.namespace : "";

	validate_object_meta(&e->metadata, true, "metadata", errs);
	if (ins && *ins && strcmp(ins, ns))
		fielderr_addf_str(errs, FE_INVALID, "involvedObject.namespace",
				  ins, "does not match event.namespace");
	if ((!ins || !*ins) && *ns && strcmp(ns, "default"))
		fielderr_addf_str(errs, FE_INVALID, "involvedObject.namespace",
				  "", "does not match event.namespace");
	if (e->type && *e->type && strcmp(e->type, "Normal") &&
	    strcmp(e->type, "Warning"))
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, "type", e->type,
				  "supported values: \"Normal\", \"Warning\"");
	if (!e->involved_object.kind || !*e->involved_object.kind)
		fielderr_add(errs, FE_REQUIRED, "involvedObject.kind", NULL,
			     "");
	if (!e->reason || !*e->reason)
		fielderr_add(errs, FE_REQUIRED, "reason", NULL, "");
}
