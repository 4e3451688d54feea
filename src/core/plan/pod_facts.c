/* pod_facts.c - the facts of a pod the ReplicaSet planner ranks and
 * counts by, derived once (see pod_facts.h for why).
 *
 * Each fact mirrors one input of Kubernetes' ReplicaSet controller
 * (pkg/controller/controller_utils.go, ActivePodsWithRanks.Less, and
 * replica_set_utils.go for the status counts): active (IsPodActive),
 * ready and ready_time (IsPodReady, the Ready condition's
 * lastTransitionTime), unassigned (no spec.nodeName), phase ordinal,
 * creation time, deletion cost, the largest restart count, and the
 * controller reference. The facts are a pure function of the pod, so
 * the caller may cache them per pod version (resourceVersion) and reuse
 * them across plans.
 *
 * Strings (uid, controller uid, node, name) are copied inline when
 * shorter than POD_FACTS_INLINE (the name: POD_FACTS_NAME_INLINE), so
 * ranking compares bytes inside the struct; longer ones are flagged and
 * read from the pod on demand, which is why the pod must outlive its
 * facts. */
#include <stdlib.h>
#include <string.h>

#include "plan_rs.h"
#include "pod_facts.h"
#include "strmap.h"
#include "tmplhash.h"

/* FNV-1a, 64 bits, over s including its NUL: "a"+"bc" and "ab"+"c"
 * differ. */
static uint64_t
fnv_str(uint64_t h, const char *s)
{
	return fnv1a64(h, s, strlen(s) + 1);
}

/* A 64-bit hash of the label map in key order (strmap is sorted), so
 * equal maps give equal fingerprints whatever order they were written
 * in. plan_rs compares it with the fingerprint of the template's labels
 * to skip the label subset check for pods that carry exactly the
 * template's labels, the usual case (see pod_facts.h on collisions). */
uint64_t
labels_fingerprint(const struct strmap *labels)
{
	uint64_t h = FNV1A64_BASIS;
	size_t i;

	for (i = 0; i < labels->n; i++) {
		h = fnv_str(h, labels->v[i].key);
		h = fnv_str(h, labels->v[i].value ? labels->v[i].value : "");
	}
	return h;
}

/* Pending < Unknown < Running, the second key of the victim order
 * (after unassigned): a pod not yet running is the cheapest to delete.
 * Succeeded and Failed pods are not active and never ranked, so they
 * fall in "anything else". */
static int
phase_ordinal(const struct pod *p)
{
	const char *ph = p->status.phase ? p->status.phase : "";

	if (!strcmp(ph, "Unknown"))
		return 1;
	if (!strcmp(ph, "Running"))
		return 2;
	return 0; /* Pending and anything else */
}

/* The annotation's value when it is an int32, else 0 (Kubernetes ignores
 * a malformed cost). controller.kubernetes.io/pod-deletion-cost: lower
 * cost is deleted first; "-100", "0", "2147483647" are costs, "1.5",
 * "abc", "3000000000" count as 0. strtoll also takes leading blanks
 * (" 5" is 5) where Go's ParseInt would refuse them; a '+' both take. */
static int64_t
deletion_cost(const struct pod *p)
{
	const char *v = strmap_get(&p->metadata.annotations, ANN_DELETION_COST);
	char *end;
	long long x;

	if (v == NULL)
		return 0;
	x = strtoll(v, &end, 10);
	if (*end || x < -2147483648LL || x > 2147483647LL)
		return 0;
	return x;
}

/* maxContainerRestarts: the most restarted container, not the sum. A pod
 * whose containers restarted 3 and 4 times ranks as 4. */
static int64_t
max_restarts(const struct pod *p)
{
	int64_t m = 0;
	size_t i;

	for (i = 0; i < p->status.container_statuses.n; i++)
		if (p->status.container_statuses.v[i].restart_count > m)
			m = p->status.container_statuses.v[i].restart_count;
	return m;
}

/* Copies s into buf (size bytes) when it fits; returns false (buf "")
 * when not. */
static bool
inline_copy(char *buf, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n >= size) {
		buf[0] = '\0';
		return false;
	}
	memcpy(buf, s, n + 1);
	return true;
}

/* f is overwritten entirely; f->pod keeps a pointer to p (borrowed). */
void
pod_facts_init(struct pod_facts *f, const struct pod *p)
{
	const struct owner_ref *ref = meta_controller_ref(&p->metadata);

	memset(f, 0, sizeof(*f));
	f->pod = p;
	f->active = pod_is_active(p);
	f->ready = pod_is_ready(p);
	f->ready_time = pod_ready_time(p);
	f->unassigned = p->spec.node_name == NULL || !*p->spec.node_name;
	f->phase = phase_ordinal(p);
	f->created = p->metadata.creation_timestamp;
	f->cost = deletion_cost(p);
	f->restarts = max_restarts(p);
	f->labels_fp = labels_fingerprint(&p->metadata.labels);
	f->has_controller = ref != NULL;
	/* owner_ref_is: a reference without a kind matches any kind */
	f->controller_kind_rs =
	    ref && (!ref->kind || !strcmp(ref->kind, "ReplicaSet"));
	f->controller_kind_rc =
	    ref && (!ref->kind || !strcmp(ref->kind, "ReplicationController"));
	f->long_uid = !inline_copy(f->uid, sizeof(f->uid),
				   p->metadata.uid ? p->metadata.uid : "");
	f->long_controller = !inline_copy(f->controller, sizeof(f->controller),
					  ref && ref->uid ? ref->uid : "");
	f->long_node = !inline_copy(f->node, sizeof(f->node),
				    p->spec.node_name ? p->spec.node_name : "");
	f->long_name = !inline_copy(f->name, sizeof(f->name),
				    p->metadata.name ? p->metadata.name : "");
}

/* The accessors give the string whether it was inlined or not;
 * the result points into f or into the pod. */
const char *
pod_facts_uid(const struct pod_facts *f)
{
	if (!f->long_uid)
		return f->uid;
	return f->pod->metadata.uid ? f->pod->metadata.uid : "";
}

const char *
pod_facts_controller(const struct pod_facts *f)
{
	const struct owner_ref *ref;

	if (!f->long_controller)
		return f->controller;
	ref = meta_controller_ref(&f->pod->metadata);
	return ref && ref->uid ? ref->uid : "";
}

const char *
pod_facts_node(const struct pod_facts *f)
{
	if (!f->long_node)
		return f->node;
	return f->pod->spec.node_name ? f->pod->spec.node_name : "";
}

const char *
pod_facts_name(const struct pod_facts *f)
{
	if (!f->long_name)
		return f->name;
	return f->pod->metadata.name ? f->pod->metadata.name : "";
}
