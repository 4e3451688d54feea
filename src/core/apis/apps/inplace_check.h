/* inplace_check.h - what an InPlaceUpdate Deployment may change in its
 * pod template (the KEP's API validation, issue 11): the containers'
 * image, command and args, nothing else, because only those can be
 * applied by restarting the containers of the same pod (same name, uid,
 * node, host ports). Pure: two templates in, the first forbidden change
 * out.
 *
 * Ownership: the caller owns both templates (read only) and `path`. */
#ifndef DROVER_INPLACE_CHECK_H
#define DROVER_INPLACE_CHECK_H

#include <stdbool.h>

#include "fielderr.h"
#include "apps.h"
#include "strbuf.h"

#define MSG_INPLACE_ONLY                                                       \
	"an InPlaceUpdate Deployment may change only image, command and "      \
	"args of its containers"

/* True if nw differs from old in something other than the containers'
 * image, command and args; then the field path of the first such
 * difference, in schema order, is appended to path with `prefix` (e.g.
 * "spec.template") in front: "spec.template.spec.containers[0].env",
 * "spec.template.metadata.labels", "spec.template.spec.containers" (a
 * container added or removed), "spec.template.spec.containers[1].name"
 * (renamed). Both templates should be defaulted alike. */
bool inplace_template_forbidden(const struct pod_template *old,
				const struct pod_template *nw,
				const char *prefix, struct strbuf *path);

/* Whether pods of template `from` can reach template `to` in place: the
 * two, pod-template-hash labels aside, differ in the containers' image,
 * command and args at most. If not, the path of the first forbidden
 * field, under "spec.template", is appended to path. */
bool inplace_reachable(const struct pod_template *from,
		       const struct pod_template *to, struct strbuf *path);

/* ValidateDeploymentUpdate's InPlaceUpdate part: when nw's strategy is
 * InPlaceUpdate, a forbidden template change is one FE_FORBIDDEN error
 * on its path with MSG_INPLACE_ONLY. */
void validate_deployment_update(const struct deployment *old,
				const struct deployment *nw,
				struct fielderr_list *errs);

/* Kubernetes' message (ValidatePodUpdate), with drover's list: a Pod's
 * containers may get a new image, command or args (restarted in place by
 * the agent, runtime.h), nothing else of its spec. */
#define MSG_POD_UPDATE                                                         \
	"pod updates may not change fields other than "                        \
	"`spec.containers[*].image`, `spec.containers[*].command` and "        \
	"`spec.containers[*].args`"

/* ValidatePodUpdate's spec rule: a change of old's spec other than its
 * containers' image, command and args is one FE_FORBIDDEN error on the
 * path of the first such difference ("spec.containers[0].env",
 * "spec.nodeName", "spec.containers" for a container added) with
 * MSG_POD_UPDATE. Metadata is not looked at (labels, annotations and
 * ownerReferences of a pod may change). */
void validate_pod_update(const struct pod *old, const struct pod *nw,
			 struct fielderr_list *errs);

#endif
