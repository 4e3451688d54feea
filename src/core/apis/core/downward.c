/* downward.c - downward-API field paths of env values: validation and
 * values, as Kubernetes' validateObjectFieldSelector,
 * ConvertDownwardAPIFieldLabel and the kubelet's
 * podFieldSelectorRuntimeValue.
 *
 * Validation is in three layers, as in Kubernetes, and stops at the
 * first that fails:
 *   1. apiVersion and fieldPath are required;
 *   2. the path must convert (ConvertDownwardAPIFieldLabel for v1 pods):
 *      a known pod field label, or metadata.labels['k'] /
 *      metadata.annotations['k'] with a subscript;
 *   3. for env, only the paths of env_paths are supported, and a
 *      subscript must be a valid label key (annotation keys lowered
 *      first).
 * Examples:
 *   fieldPath: metadata.labels['app']   valid
 *   fieldPath: status.phase             converts, but "Unsupported value"
 *                                       for env (layer 3)
 *   fieldPath: spec.containers['x']     "field label does not support
 *                                       subscript" (layer 2)
 *   apiVersion: v2                      "unsupported pod version: v2"
 *
 * Values: drover runs pods as host processes, so status.podIP and
 * status.hostIP (and the plural forms) are the same address, the node's,
 * which the agent passes in. */
#include <stdio.h>
#include <string.h>

#include "downward.h"
#include "labels.h"
#include "strbuf.h"
#include "strmap.h"

/* validEnvDownwardAPIFieldPathExpressions. Kept sorted: the list is
 * printed in the "supported values" detail, and Kubernetes prints the
 * set sorted. */
static const char *const env_paths[] = {
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
};

/* The labels ConvertDownwardAPIFieldLabel knows for pods (v1). */
static const char *const pod_labels[] = {
    "metadata.annotations", "metadata.labels",
    "metadata.name",        "metadata.namespace",
    "metadata.uid",         "spec.nodeName",
    "spec.restartPolicy",   "spec.serviceAccountName",
    "spec.schedulerName",   "status.phase",
    "status.hostIP",        "status.hostIPs",
    "status.podIP",         "status.podIPs",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Whether s is one of set[0..n). */
static bool
in(const char *const *set, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(set[i], s))
			return true;
	return false;
}

/* SplitMaybeSubscriptedPath: "metadata.labels['app']" -> base
 * "metadata.labels", key "app". The path must end in "']" and contain
 * "['" after a non-empty base; the first "['" splits. An empty key
 * ("metadata.labels['']") splits too, as in Go, and then fails the
 * label-key check. Parts too long for the buffers are truncated by
 * snprintf (a 256-byte base is no valid path anyway). */
bool
downward_split(const char *path, char *base, size_t nbase, char *key,
	       size_t nkey)
{
	size_t n = strlen(path);
	const char *open;

	if (n < 2 || strcmp(path + n - 2, "']"))
		return false;
	open = strstr(path, "['");
	if (open == NULL || open == path || open + 2 > path + n - 2)
		return false;
	snprintf(base, nbase, "%.*s", (int)(open - path), path);
	snprintf(key, nkey, "%.*s", (int)(path + n - 2 - (open + 2)), open + 2);
	return true;
}

/* path is the fieldRef's own path ("spec.template.spec.containers[0].
 * env[1].valueFrom.fieldRef"); errors are appended to errs. */
void
downward_validate_env(const struct field_ref *ref, const char *path,
		      struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT, msg = STRBUF_INIT;
	const char *fp = ref->field_path;
	char base[256], key[512];
	size_t i;

	if (ref->api_version == NULL || !*ref->api_version) {
		strbuf_addf(&p, "%s.apiVersion", path);
		fielderr_add(errs, FE_REQUIRED, p.buf, NULL, "");
		goto out;
	}
	strbuf_addf(&p, "%s.fieldPath", path);
	if (fp == NULL || !*fp) {
		fielderr_add(errs, FE_REQUIRED, p.buf, NULL, "");
		goto out;
	}
	/* ConvertDownwardAPIFieldLabel */
	if (strcmp(ref->api_version, "v1"))
		strbuf_addf(&msg, "unsupported pod version: %s",
			    ref->api_version);
	else if (downward_split(fp, base, sizeof(base), key, sizeof(key))) {
		if (strcmp(base, "metadata.annotations") &&
		    strcmp(base, "metadata.labels"))
			strbuf_addf(&msg,
				    "field label does not support subscript: "
				    "%s",
				    fp);
	} else if (!in(pod_labels, NELEM(pod_labels), fp) &&
		   strcmp(fp, "spec.host")) {
		strbuf_addf(&msg, "field label not supported: %s", fp);
	}
	if (msg.len) {
		struct strbuf d = STRBUF_INIT;

		strbuf_addf(&d, "error converting fieldPath: %s", msg.buf);
		fielderr_addf_str(errs, FE_INVALID, p.buf, fp, d.buf);
		strbuf_release(&d);
		goto out;
	}
	if (downward_split(fp, base, sizeof(base), key, sizeof(key))) {
		if (!strcmp(base, "metadata.annotations"))
			for (i = 0; key[i]; i++)
				if (key[i] >= 'A' && key[i] <= 'Z')
					key[i] = (char)(key[i] - 'A' + 'a');
		validate_label_key(key, path, errs);
		goto out;
	}
	if (!strcmp(fp, "spec.host")) /* converted to spec.nodeName */
		goto out;
	if (!in(env_paths, NELEM(env_paths), fp)) {
		for (i = 0; i < NELEM(env_paths); i++)
			strbuf_addf(
			    &msg, "%s\"%s\"",
			    i ? ", " : "supported values: ", env_paths[i]);
		fielderr_addf_str(errs, FE_NOT_SUPPORTED, p.buf, fp, msg.buf);
	}
out:
	strbuf_release(&p);
	strbuf_release(&msg);
}

static const char *
or_empty(const char *s)
{
	return s ? s : "";
}

/* The value the agent puts in the environment for a validated path; ""
 * for what the pod lacks (a missing label is "", as the kubelet gives).
 * node overrides spec.nodeName when given (the agent knows where it
 * runs the pod); serviceAccountName defaults to "default", which
 * Kubernetes' ServiceAccount admission would have written. The result
 * points into p or is a literal: the caller copies it. Annotations are
 * looked up with the key as written (only validation lowers it). */
const char *
downward_env_value(const struct pod *p, const char *path, const char *node,
		   const char *ip)
{
	char base[256], key[512];

	if (downward_split(path, base, sizeof(base), key, sizeof(key))) {
		if (!strcmp(base, "metadata.labels"))
			return or_empty(strmap_get(&p->metadata.labels, key));
		if (!strcmp(base, "metadata.annotations"))
			return or_empty(
			    strmap_get(&p->metadata.annotations, key));
		return "";
	}
	if (!strcmp(path, "metadata.name"))
		return or_empty(p->metadata.name);
	if (!strcmp(path, "metadata.namespace"))
		return or_empty(p->metadata.namespace);
	if (!strcmp(path, "metadata.uid"))
		return or_empty(p->metadata.uid);
	if (!strcmp(path, "spec.nodeName") || !strcmp(path, "spec.host"))
		return node && *node ? node : or_empty(p->spec.node_name);
	if (!strcmp(path, "spec.serviceAccountName"))
		return p->spec.service_account_name &&
			       *p->spec.service_account_name
			   ? p->spec.service_account_name
			   : "default";
	if (!strcmp(path, "status.podIP") || !strcmp(path, "status.hostIP") ||
	    !strcmp(path, "status.podIPs") || !strcmp(path, "status.hostIPs"))
		return or_empty(ip);
	return "";
}
