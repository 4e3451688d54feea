/* pod_facts.c - the facts of a pod the ReplicaSet planner ranks and
 * counts by, derived once (see pod_facts.h for why). */
#include <stdlib.h>
#include <string.h>

#include "plan_rs.h"
#include "pod_facts.h"
#include "strmap.h"

#define FNV64_OFFSET 14695981039346656037ULL
#define FNV64_PRIME  1099511628211ULL

static uint64_t
fnv1a64(uint64_t h, const char *s)
{
	/* the terminating NUL too: "a"+"bc" and "ab"+"c" differ */
	do {
		h ^= (unsigned char)*s;
		h *= FNV64_PRIME;
	} while (*s++);
	return h;
}

uint64_t
labels_fingerprint(const struct strmap *labels)
{
	uint64_t h = FNV64_OFFSET;
	size_t i;

	for (i = 0; i < labels->n; i++) {
		h = fnv1a64(h, labels->v[i].key);
		h = fnv1a64(h, labels->v[i].value ? labels->v[i].value : "");
	}
	return h;
}

/* Pending < Unknown < Running, the second key of the victim order. */
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
 * a malformed cost). */
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

/* Copies s into buf when it fits; returns false (buf "") when not. */
static bool
inline_copy(char buf[POD_FACTS_INLINE], const char *s)
{
	size_t n = strlen(s);

	if (n >= POD_FACTS_INLINE) {
		buf[0] = '\0';
		return false;
	}
	memcpy(buf, s, n + 1);
	return true;
}

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
	f->long_uid =
	    !inline_copy(f->uid, p->metadata.uid ? p->metadata.uid : "");
	f->long_controller =
	    !inline_copy(f->controller, ref && ref->uid ? ref->uid : "");
	f->long_node =
	    !inline_copy(f->node, p->spec.node_name ? p->spec.node_name : "");
}

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
