/* schema_doc.c - the descriptions of types and fields (schema_doc.h):
 * one row per documented field, {schema name, JSON name, text}; a NULL
 * JSON name documents the type. Add a row to document a field. */
#include <string.h>

#include "schema_doc.h"

static const struct doc {
	const char *schema, *json, *text;
} docs[] = {
    /* apps/v1 Deployment */
    {"deployment", NULL,
     "Deployment enables declarative updates for Pods and ReplicaSets. "
     "drover runs the pods as supervised processes."},
    {"deployment", "apiVersion",
     "APIVersion defines the versioned schema of this representation of "
     "an object: apps/v1."},
    {"deployment", "kind",
     "Kind is the REST resource this object "
     "represents: Deployment."},
    {"deployment", "metadata", "Standard object's metadata."},
    {"deployment", "spec",
     "Specification of the desired behavior of the Deployment."},
    {"deployment", "status",
     "Most recently observed status of the "
     "Deployment."},
    {"deployment_spec", NULL,
     "DeploymentSpec is the specification of the desired behavior of the "
     "Deployment."},
    {"deployment_spec", "replicas",
     "Number of desired pods. This is a pointer to distinguish between "
     "explicit zero and not specified. Defaults to 1."},
    {"deployment_spec", "selector",
     "Label selector for pods. Existing ReplicaSets whose pods are "
     "selected by this will be the ones affected by this deployment. It "
     "must match the pod template's labels."},
    {"deployment_spec", "template",
     "Template describes the pods that will be created. The only allowed "
     "template.spec.restartPolicy value is \"Always\"."},
    {"deployment_spec", "strategy",
     "The deployment strategy to use to replace existing pods with new "
     "ones."},
    {"deployment_spec", "minReadySeconds",
     "Minimum number of seconds for which a newly created pod should be "
     "ready without any of its container crashing, for it to be "
     "considered available. Defaults to 0 (pod will be considered "
     "available as soon as it is ready)"},
    {"deployment_spec", "revisionHistoryLimit",
     "The number of old ReplicaSets to retain to allow rollback. This is "
     "a pointer to distinguish between explicit zero and not specified. "
     "Defaults to 10."},
    {"deployment_spec", "paused", "Indicates that the deployment is paused."},
    {"deployment_spec", "progressDeadlineSeconds",
     "The maximum time in seconds for a deployment to make progress "
     "before it is considered to be failed. The deployment controller "
     "will continue to process failed deployments and a condition with a "
     "ProgressDeadlineExceeded reason will be surfaced in the deployment "
     "status. Defaults to 600s."},
    {"deployment_strategy", NULL,
     "DeploymentStrategy describes how to replace existing pods with new "
     "ones."},
    {"deployment_strategy", "type",
     "Type of deployment. Can be \"Recreate\" or \"RollingUpdate\" "
     "(drover also previews \"InPlaceUpdate\" with drover plan). Default "
     "is RollingUpdate."},
    {"deployment_strategy", "rollingUpdate",
     "Rolling update config params. Present only if DeploymentStrategyType "
     "= RollingUpdate."},
    {"deployment_strategy", "inPlaceUpdate",
     "drover: in-place update config params. Present only if type = "
     "InPlaceUpdate."},
    {"rolling_update", NULL,
     "Spec to control the desired behavior of rolling update."},
    {"rolling_update", "maxUnavailable",
     "The maximum number of pods that can be unavailable during the "
     "update. Value can be an absolute number (ex: 5) or a percentage of "
     "desired pods (ex: 10%). Absolute number is calculated from "
     "percentage by rounding down. This can not be 0 if MaxSurge is 0. "
     "Defaults to 25%."},
    {"rolling_update", "maxSurge",
     "The maximum number of pods that can be scheduled above the desired "
     "number of pods. Value can be an absolute number (ex: 5) or a "
     "percentage of desired pods (ex: 10%). This can not be 0 if "
     "MaxUnavailable is 0. Absolute number is calculated from percentage "
     "by rounding up. Defaults to 25%."},
    {"deployment_status", "replicas",
     "Total number of non-terminated pods targeted by this deployment "
     "(their labels match the selector)."},
    {"deployment_status", "updatedReplicas",
     "Total number of non-terminated pods targeted by this deployment "
     "that have the desired template spec."},
    {"deployment_status", "readyReplicas",
     "readyReplicas is the number of pods targeted by this Deployment "
     "with a Ready Condition."},
    {"deployment_status", "availableReplicas",
     "Total number of available pods (ready for at least "
     "minReadySeconds) targeted by this deployment."},
    {"deployment_status", "observedGeneration",
     "The generation observed by the deployment controller."},

    /* apps/v1 ReplicaSet */
    {"replicaset", NULL,
     "ReplicaSet ensures that a specified number of pod replicas are "
     "running at any given time."},
    {"replicaset_spec", "replicas",
     "Replicas is the number of desired replicas. This is a pointer to "
     "distinguish between explicit zero and unspecified. Defaults to 1."},
    {"replicaset_spec", "selector",
     "Selector is a label query over pods that should match the replica "
     "count."},
    {"replicaset_spec", "template",
     "Template is the object that describes the pod that will be created "
     "if insufficient replicas are detected."},

    /* meta/v1 */
    {"object_meta", NULL,
     "ObjectMeta is metadata that all persisted resources must have."},
    {"object_meta", "name",
     "Name must be unique within a namespace. Cannot be updated."},
    {"object_meta", "namespace",
     "Namespace defines the space within which each name must be unique. "
     "Defaults to \"default\"."},
    {"object_meta", "labels",
     "Map of string keys and values that can be used to organize and "
     "categorize (scope and select) objects."},
    {"object_meta", "annotations",
     "Annotations is an unstructured key value map stored with a resource "
     "that may be set by external tools to store and retrieve arbitrary "
     "metadata."},
    {"label_selector", NULL,
     "A label selector is a label query over a set of resources. An empty "
     "label selector matches all objects."},
    {"label_selector", "matchLabels",
     "matchLabels is a map of {key,value} pairs."},
    {"label_selector", "matchExpressions",
     "matchExpressions is a list of label selector requirements. The "
     "requirements are ANDed."},

    /* core/v1 Pod and its parts */
    {"pod", NULL,
     "Pod is a collection of containers that can run on a host. drover "
     "runs each container as a supervised process group."},
    {"pod_template", NULL,
     "PodTemplateSpec describes the data a pod should have when created "
     "from a template"},
    {"pod_template", "metadata", "Standard object's metadata."},
    {"pod_template", "spec",
     "Specification of the desired behavior of the pod."},
    {"pod_spec", "containers",
     "List of containers belonging to the pod. There must be at least "
     "one container in a Pod. Cannot be updated."},
    {"pod_spec", "restartPolicy",
     "Restart policy for all containers within the pod. One of Always, "
     "OnFailure, Never. Default to Always."},
    {"pod_spec", "terminationGracePeriodSeconds",
     "Optional duration in seconds the pod needs to terminate gracefully: "
     "the time between SIGTERM and SIGKILL. Defaults to 30 seconds."},
    {"pod_spec", "nodeName",
     "NodeName is the name of the node this pod is bound to."},
    {"container", NULL,
     "A single application container that you want to run within a pod: "
     "in drover, a process."},
    {"container", "name",
     "Name of the container specified as a DNS_LABEL. Each container in a "
     "pod must have a unique name. Cannot be updated."},
    {"container", "image",
     "Container image name. drover: the release the process runs; a "
     "change rolls the pods."},
    {"container", "command",
     "Entrypoint array: the process's argv, not run in a shell. Variable "
     "references $(VAR_NAME) are expanded using the container's "
     "environment."},
    {"container", "args", "Arguments to the entrypoint."},
    {"container", "env",
     "List of environment variables to set in the container."},
    {"container", "ports",
     "List of ports to expose from the container. drover gives each a "
     "host port, stable for the pod's life."},
    {"container", "readinessProbe",
     "Periodic probe of container service readiness. Container will be "
     "removed from service endpoints if the probe fails."},
    {"container", "livenessProbe",
     "Periodic probe of container liveness. Container will be restarted "
     "if the probe fails."},

    /* core/v1 Service */
    {"service", NULL,
     "Service is a named abstraction of software service (for example, "
     "mysql) consisting of local port (for example 3306) that the proxy "
     "listens on, and the selector that determines which pods will answer "
     "requests sent through the proxy."},
    {"service_spec", "ports",
     "The list of ports that are exposed by this service."},
    {"service_spec", "selector",
     "Route service traffic to pods with label keys and values matching "
     "this selector."},
    {"service_spec", "type",
     "type determines how the Service is exposed. Defaults to ClusterIP. "
     "drover serves both ClusterIP and NodePort on every node's address."},
    {"service_port", "port",
     "The port that will be exposed by this "
     "service."},
    {"service_port", "targetPort",
     "Number or name of the port to access on the pods targeted by the "
     "service."},

    /* core/v1 Node */
    {"node", NULL,
     "Node is a worker node: in drover, a host that runs `drover agent` "
     "(or `drover serve`'s own agent)."},
    {"node_spec", "unschedulable",
     "Unschedulable controls node schedulability of new pods. By default, "
     "node is schedulable."},
};

const char *
schema_doc(const struct schema *s, const char *json)
{
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		if (!strcmp(docs[i].schema, s->name) &&
		    (json ? docs[i].json && !strcmp(docs[i].json, json)
			  : docs[i].json == NULL))
			return docs[i].text;
	return NULL;
}
