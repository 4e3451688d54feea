/* k8spb.c - Kubernetes' protobuf request bodies to JSON (k8spb.h).
 *
 * Each message is a table of (field number, JSON name, kind), sorted by
 * number, copied from Kubernetes' generated.proto files
 * (k8s.io/apimachinery/pkg/apis/meta/v1, k8s.io/api/policy/v1). At first
 * use a protobuf-c descriptor is made from it, with one 24-byte slot per
 * field in the unpacked message: the quantifier (has_X, or n_X of a
 * repeated field) at +0 and the value at +8 (a string or message
 * pointer, an integer, an array pointer). protobuf-c unpacks into that
 * layout; the walk below turns it into JSON. Fields a table leaves out
 * (selfLink, managedFields) are skipped as unknown fields. */
#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8spb.h"
#include "xalloc.h"

#define SLOT 24

enum pbk {
	K_STR,    /* optional string */
	K_I64,    /* optional int64 */
	K_I32,    /* optional int32 */
	K_BOOL,   /* optional bool */
	K_BYTES,  /* optional bytes (runtime.Unknown's raw) */
	K_MSG,    /* optional message */
	K_TIME,   /* metav1.Time: RFC 3339 in JSON */
	K_MAP,    /* map<string, string>: repeated key/value entries */
	K_STRS,   /* repeated string */
	K_MSGS,   /* repeated message */
	K_INTSTR, /* intstr.IntOrString: a number or a string in JSON */
};

struct pbm;

/* Go writes every field that is not a pointer, empty or not, where its
 * JSON says omitempty: an empty string, a 0 or false is left out of the
 * JSON unless keep is set (a pointer field, present only when set: a
 * Deployment's replicas 0; or a field without omitempty). */
struct pbf {
	uint32_t num;
	const char *json;
	enum pbk k;
	struct pbm *sub; /* K_MSG, K_MSGS (K_TIME, K_MAP, K_INTSTR: below) */
	bool keep;
};

struct pbm {
	const char *name;
	const struct pbf *f;
	size_t n;
	/* made at first use */
	bool built;
	ProtobufCMessageDescriptor d;
	ProtobufCFieldDescriptor *fd;
	unsigned *by_name;
	ProtobufCIntRange *ranges;
};

#define MSG(var, pname, fields)                                                \
	static struct pbm var =                                                \
	    {pname, fields, sizeof(fields) / sizeof(fields[0]),                \
	     false, {0},    NULL,                                              \
	     NULL,  NULL}

/* k8s.io/apimachinery/pkg/runtime: Unknown and TypeMeta. */
static const struct pbf typemeta_f[] = {
    {1, "apiVersion", K_STR, NULL, false},
    {2, "kind", K_STR, NULL, false},
};
MSG(typemeta_m, "k8s.io.apimachinery.pkg.runtime.TypeMeta", typemeta_f);

static const struct pbf unknown_f[] = {
    {1, "typeMeta", K_MSG, &typemeta_m, false},
    {2, "raw", K_BYTES, NULL, false},
    {3, "contentEncoding", K_STR, NULL, false},
    {4, "contentType", K_STR, NULL, false},
};
MSG(unknown_m, "k8s.io.apimachinery.pkg.runtime.Unknown", unknown_f);

/* meta/v1 */
static const struct pbf time_f[] = {
    {1, "seconds", K_I64, NULL, false},
    {2, "nanos", K_I32, NULL, false},
};
MSG(time_m, "k8s.io.apimachinery.pkg.apis.meta.v1.Time", time_f);

static const struct pbf entry_f[] = {
    {1, "key", K_STR, NULL, false},
    {2, "value", K_STR, NULL, false},
};
MSG(entry_m, "k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry", entry_f);

static const struct pbf ownerref_f[] = {
    {1, "kind", K_STR, NULL, false},
    {3, "name", K_STR, NULL, false},
    {4, "uid", K_STR, NULL, false},
    {5, "apiVersion", K_STR, NULL, false},
    {6, "controller", K_BOOL, NULL, false},
    {7, "blockOwnerDeletion", K_BOOL, NULL, false},
};
MSG(ownerref_m, "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference",
    ownerref_f);

static const struct pbf objectmeta_f[] = {
    {1, "name", K_STR, NULL, false},
    {2, "generateName", K_STR, NULL, false},
    {3, "namespace", K_STR, NULL, false},
    {5, "uid", K_STR, NULL, false},
    {6, "resourceVersion", K_STR, NULL, false},
    {7, "generation", K_I64, NULL, false},
    {8, "creationTimestamp", K_TIME, NULL, false},
    {9, "deletionTimestamp", K_TIME, NULL, false},
    {10, "deletionGracePeriodSeconds", K_I64, NULL, true},
    {11, "labels", K_MAP, NULL, false},
    {12, "annotations", K_MAP, NULL, false},
    {13, "ownerReferences", K_MSGS, &ownerref_m, false},
    {14, "finalizers", K_STRS, NULL, false},
};
MSG(objectmeta_m, "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    objectmeta_f);

static const struct pbf preconditions_f[] = {
    {1, "uid", K_STR, NULL, false},
    {2, "resourceVersion", K_STR, NULL, false},
};
MSG(preconditions_m, "k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions",
    preconditions_f);

static const struct pbf deleteoptions_f[] = {
    {1, "gracePeriodSeconds", K_I64, NULL, true},
    {2, "preconditions", K_MSG, &preconditions_m, false},
    {3, "orphanDependents", K_BOOL, NULL, true},
    {4, "propagationPolicy", K_STR, NULL, false},
    {5, "dryRun", K_STRS, NULL, false},
    {6, "ignoreStoreReadErrorWithClusterBreakingPotential", K_BOOL, NULL, true},
};
MSG(deleteoptions_m, "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    deleteoptions_f);

/* policy/v1 */
static const struct pbf eviction_f[] = {
    {1, "metadata", K_MSG, &objectmeta_m, false},
    {2, "deleteOptions", K_MSG, &deleteoptions_m, false},
};
MSG(eviction_m, "k8s.io.api.policy.v1.Eviction", eviction_f);

/* k8s.io/apimachinery/pkg/util/intstr */
static const struct pbf intstr_f[] = {
    {1, "type", K_I64, NULL, true},
    {2, "intVal", K_I32, NULL, true},
    {3, "strVal", K_STR, NULL, true},
};
MSG(intstr_m, "k8s.io.apimachinery.pkg.util.intstr.IntOrString", intstr_f);

static const struct pbf requirement_f[] = {
    {1, "key", K_STR, NULL, true},
    {2, "operator", K_STR, NULL, true},
    {3, "values", K_STRS, NULL, false},
};
MSG(requirement_m,
    "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    requirement_f);

static const struct pbf selector_f[] = {
    {1, "matchLabels", K_MAP, NULL, false},
    {2, "matchExpressions", K_MSGS, &requirement_m, false},
};
MSG(selector_m, "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
    selector_f);

/* core/v1: what the pods of kubectl's generators hold, and Services
 * (`kubectl create deployment`, `create service`). */
static const struct pbf port_f[] = {
    {1, "name", K_STR, NULL, false},
    {2, "hostPort", K_I32, NULL, false},
    {3, "containerPort", K_I32, NULL, true},
    {4, "protocol", K_STR, NULL, false},
    {5, "hostIP", K_STR, NULL, false},
};
MSG(port_m, "k8s.io.api.core.v1.ContainerPort", port_f);

static const struct pbf env_f[] = {
    {1, "name", K_STR, NULL, true},
    {2, "value", K_STR, NULL, false},
};
MSG(env_m, "k8s.io.api.core.v1.EnvVar", env_f);

static const struct pbf container_f[] = {
    {1, "name", K_STR, NULL, true},
    {2, "image", K_STR, NULL, false},
    {3, "command", K_STRS, NULL, false},
    {4, "args", K_STRS, NULL, false},
    {5, "workingDir", K_STR, NULL, false},
    {6, "ports", K_MSGS, &port_m, false},
    {7, "env", K_MSGS, &env_m, false},
    {13, "terminationMessagePath", K_STR, NULL, false},
    {14, "imagePullPolicy", K_STR, NULL, false},
    {20, "terminationMessagePolicy", K_STR, NULL, false},
};
MSG(container_m, "k8s.io.api.core.v1.Container", container_f);

static const struct pbf podspec_f[] = {
    {2, "containers", K_MSGS, &container_m, true},
    {3, "restartPolicy", K_STR, NULL, false},
    {4, "terminationGracePeriodSeconds", K_I64, NULL, true},
    {5, "activeDeadlineSeconds", K_I64, NULL, true},
    {6, "dnsPolicy", K_STR, NULL, false},
    {7, "nodeSelector", K_MAP, NULL, false},
    {8, "serviceAccountName", K_STR, NULL, false},
    {10, "nodeName", K_STR, NULL, false},
    {16, "hostname", K_STR, NULL, false},
    {19, "schedulerName", K_STR, NULL, false},
};
MSG(podspec_m, "k8s.io.api.core.v1.PodSpec", podspec_f);

static const struct pbf template_f[] = {
    {1, "metadata", K_MSG, &objectmeta_m, false},
    {2, "spec", K_MSG, &podspec_m, false},
};
MSG(template_m, "k8s.io.api.core.v1.PodTemplateSpec", template_f);

static const struct pbf svcport_f[] = {
    {1, "name", K_STR, NULL, false},
    {2, "protocol", K_STR, NULL, false},
    {3, "port", K_I32, NULL, true},
    {4, "targetPort", K_INTSTR, NULL, false},
    {5, "nodePort", K_I32, NULL, false},
    {6, "appProtocol", K_STR, NULL, false},
};
MSG(svcport_m, "k8s.io.api.core.v1.ServicePort", svcport_f);

static const struct pbf svcspec_f[] = {
    {1, "ports", K_MSGS, &svcport_m, false},
    {2, "selector", K_MAP, NULL, false},
    {3, "clusterIP", K_STR, NULL, false},
    {4, "type", K_STR, NULL, false},
    {10, "externalName", K_STR, NULL, false},
    {18, "clusterIPs", K_STRS, NULL, false},
};
MSG(svcspec_m, "k8s.io.api.core.v1.ServiceSpec", svcspec_f);

/* The status a client sends is not read (the server keeps its own). */
static const struct pbf service_f[] = {
    {1, "metadata", K_MSG, &objectmeta_m, false},
    {2, "spec", K_MSG, &svcspec_m, false},
};
MSG(service_m, "k8s.io.api.core.v1.Service", service_f);

/* apps/v1 */
static const struct pbf rollingupdate_f[] = {
    {1, "maxUnavailable", K_INTSTR, NULL, false},
    {2, "maxSurge", K_INTSTR, NULL, false},
};
MSG(rollingupdate_m, "k8s.io.api.apps.v1.RollingUpdateDeployment",
    rollingupdate_f);

static const struct pbf strategy_f[] = {
    {1, "type", K_STR, NULL, false},
    {2, "rollingUpdate", K_MSG, &rollingupdate_m, false},
};
MSG(strategy_m, "k8s.io.api.apps.v1.DeploymentStrategy", strategy_f);

static const struct pbf dspec_f[] = {
    {1, "replicas", K_I32, NULL, true},
    {2, "selector", K_MSG, &selector_m, false},
    {3, "template", K_MSG, &template_m, false},
    {4, "strategy", K_MSG, &strategy_m, false},
    {5, "minReadySeconds", K_I32, NULL, false},
    {6, "revisionHistoryLimit", K_I32, NULL, true},
    {7, "paused", K_BOOL, NULL, false},
    {9, "progressDeadlineSeconds", K_I32, NULL, true},
};
MSG(dspec_m, "k8s.io.api.apps.v1.DeploymentSpec", dspec_f);

static const struct pbf deployment_f[] = {
    {1, "metadata", K_MSG, &objectmeta_m, false},
    {2, "spec", K_MSG, &dspec_m, false},
};
MSG(deployment_m, "k8s.io.api.apps.v1.Deployment", deployment_f);

/* policy/v1 PodDisruptionBudget (`kubectl create pdb`) */
static const struct pbf pdbspec_f[] = {
    {1, "minAvailable", K_INTSTR, NULL, false},
    {2, "selector", K_MSG, &selector_m, false},
    {3, "maxUnavailable", K_INTSTR, NULL, false},
    {4, "unhealthyPodEvictionPolicy", K_STR, NULL, false},
};
MSG(pdbspec_m, "k8s.io.api.policy.v1.PodDisruptionBudgetSpec", pdbspec_f);

static const struct pbf pdb_f[] = {
    {1, "metadata", K_MSG, &objectmeta_m, false},
    {2, "spec", K_MSG, &pdbspec_m, false},
};
MSG(pdb_m, "k8s.io.api.policy.v1.PodDisruptionBudget", pdb_f);

/* The kinds drover reads in protobuf, by TypeMeta.kind. */
static const struct {
	const char *kind;
	struct pbm *m;
} kinds[] = {
    {"DeleteOptions", &deleteoptions_m}, {"Eviction", &eviction_m},
    {"Deployment", &deployment_m},       {"Service", &service_m},
    {"PodDisruptionBudget", &pdb_m},
};

static struct pbm *
sub_of(const struct pbf *f)
{
	return f->k == K_TIME     ? &time_m
	       : f->k == K_MAP    ? &entry_m
	       : f->k == K_INTSTR ? &intstr_m
				  : f->sub;
}

/* m->by_name: the field indexes in the order of their names (a few
 * fields: an insertion sort). */
static void
sort_by_name(struct pbm *m)
{
	size_t i, j;

	for (i = 0; i < m->n; i++)
		m->by_name[i] = (unsigned)i;
	for (i = 1; i < m->n; i++)
		for (j = i; j > 0 && strcmp(m->f[m->by_name[j - 1]].json,
					    m->f[m->by_name[j]].json) > 0;
		     j--) {
			unsigned t = m->by_name[j];

			m->by_name[j] = m->by_name[j - 1];
			m->by_name[j - 1] = t;
		}
}

/* The descriptor of m (and of the messages it holds), made once. */
static const ProtobufCMessageDescriptor *
build(struct pbm *m)
{
	size_t i, nr = 0;

	if (m->built)
		return &m->d;
	m->built = true; /* a message that holds itself ends here */
	m->fd = xcalloc(m->n, sizeof(*m->fd));
	m->by_name = xcalloc(m->n, sizeof(*m->by_name));
	m->ranges = xcalloc(m->n + 1, sizeof(*m->ranges));
	for (i = 0; i < m->n; i++) {
		const struct pbf *f = &m->f[i];
		ProtobufCFieldDescriptor *fd = &m->fd[i];
		unsigned slot = (unsigned)(sizeof(ProtobufCMessage) + SLOT * i);
		bool rep = f->k == K_MAP || f->k == K_STRS || f->k == K_MSGS;

		fd->name = f->json;
		fd->id = f->num;
		fd->label =
		    rep ? PROTOBUF_C_LABEL_REPEATED : PROTOBUF_C_LABEL_OPTIONAL;
		fd->type = f->k == K_STR || f->k == K_STRS
			       ? PROTOBUF_C_TYPE_STRING
			   : f->k == K_I64   ? PROTOBUF_C_TYPE_INT64
			   : f->k == K_I32   ? PROTOBUF_C_TYPE_INT32
			   : f->k == K_BOOL  ? PROTOBUF_C_TYPE_BOOL
			   : f->k == K_BYTES ? PROTOBUF_C_TYPE_BYTES
					     : PROTOBUF_C_TYPE_MESSAGE;
		/* an optional string or message is there when not NULL */
		fd->quantifier_offset = f->k == K_STR || f->k == K_MSG ||
						f->k == K_TIME ||
						f->k == K_INTSTR
					    ? 0
					    : slot;
		fd->offset = slot + 8;
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
			fd->descriptor = build(sub_of(f));
		if (i == 0 || f->num != m->f[i - 1].num + 1)
			m->ranges[nr++] =
			    (ProtobufCIntRange){(int)f->num, (unsigned)i};
	}
	m->ranges[nr] = (ProtobufCIntRange){0, (unsigned)m->n};
	sort_by_name(m);
	m->d = (ProtobufCMessageDescriptor){
	    .magic = PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC,
	    .name = m->name,
	    .short_name = strrchr(m->name, '.') + 1,
	    .c_name = strrchr(m->name, '.') + 1,
	    .package_name = "",
	    .sizeof_message = sizeof(ProtobufCMessage) + SLOT * m->n,
	    .n_fields = (unsigned)m->n,
	    .fields = m->fd,
	    .fields_sorted_by_name = m->by_name,
	    .n_field_ranges = (unsigned)nr,
	    .field_ranges = m->ranges,
	};
	return &m->d;
}

static json_t *to_json(const struct pbm *m, const ProtobufCMessage *msg);

/* metav1.Time's JSON: RFC 3339 in seconds, UTC. */
static json_t *
time_json(const ProtobufCMessage *t)
{
	const char *s = (const char *)t + sizeof(ProtobufCMessage);
	time_t secs = *(const protobuf_c_boolean *)s
			  ? (time_t) * (const int64_t *)(s + 8)
			  : 0;
	struct tm tm;
	char buf[40];

	if (secs == 0 || gmtime_r(&secs, &tm) == NULL)
		return NULL; /* the zero time: null in JSON, left out */
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

/* IntOrString: type 0 is intVal, 1 strVal. */
static json_t *
intstr_json(const ProtobufCMessage *m)
{
	const char *s = (const char *)m + sizeof(ProtobufCMessage);
	int64_t type = *(const int64_t *)(s + 8);
	const char *str = *(char *const *)(s + 2 * SLOT + 8);

	if (type == 1)
		return json_string(str ? str : "");
	return json_integer(*(const int32_t *)(s + SLOT + 8));
}

static json_t *
field_json(const struct pbf *f, const char *slot)
{
	const void *v = slot + 8;
	size_t n = *(const size_t *)slot, i;
	json_t *out;

	switch (f->k) {
	case K_STR:
		return *(char *const *)v && (f->keep || **(char *const *)v)
			   ? json_string(*(char *const *)v)
			   : NULL;
	case K_I64:
		return *(const protobuf_c_boolean *)slot &&
			       (f->keep || *(const int64_t *)v)
			   ? json_integer(*(const int64_t *)v)
			   : NULL;
	case K_I32:
		return *(const protobuf_c_boolean *)slot &&
			       (f->keep || *(const int32_t *)v)
			   ? json_integer(*(const int32_t *)v)
			   : NULL;
	case K_BOOL:
		return *(const protobuf_c_boolean *)slot &&
			       (f->keep || *(const protobuf_c_boolean *)v)
			   ? json_boolean(*(const protobuf_c_boolean *)v)
			   : NULL;
	case K_INTSTR:
		return *(ProtobufCMessage *const *)v
			   ? intstr_json(*(ProtobufCMessage *const *)v)
			   : NULL;
	case K_BYTES:
		return NULL; /* runtime.Unknown's raw: read by k8spb_decode */
	case K_MSG:
		return *(ProtobufCMessage *const *)v
			   ? to_json(f->sub, *(ProtobufCMessage *const *)v)
			   : NULL;
	case K_TIME:
		return *(ProtobufCMessage *const *)v
			   ? time_json(*(ProtobufCMessage *const *)v)
			   : NULL;
	case K_MAP:
		if (n == 0 && !f->keep)
			return NULL;
		out = json_object();
		for (i = 0; i < n; i++) {
			const char *e =
			    (const char *)(*(ProtobufCMessage * *const *)v)[i] +
			    sizeof(ProtobufCMessage);
			const char *key = *(char *const *)(e + 8);
			const char *val = *(char *const *)(e + SLOT + 8);

			json_object_set_new(out, key ? key : "",
					    json_string(val ? val : ""));
		}
		return out;
	case K_STRS:
		if (n == 0 && !f->keep)
			return NULL;
		out = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(
			    out, json_string((*(char **const *)v)[i]));
		return out;
	case K_MSGS:
		if (n == 0 && !f->keep)
			return NULL;
		out = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(
			    out, to_json(f->sub,
					 (*(ProtobufCMessage * *const *)v)[i]));
		return out;
	}
	return NULL;
}

static json_t *
to_json(const struct pbm *m, const ProtobufCMessage *msg)
{
	json_t *o = json_object(), *v;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const char *slot =
		    (const char *)msg + sizeof(ProtobufCMessage) + SLOT * i;

		if ((v = field_json(&m->f[i], slot)) != NULL)
			json_object_set_new(o, m->f[i].json, v);
	}
	return o;
}

int
k8spb_decode(const void *body, size_t len, json_t **out, char *err,
	     size_t errlen)
{
	static const unsigned char magic[4] = {'k', '8', 's', 0};
	const char *slot, *apiv = NULL, *kind = NULL;
	ProtobufCMessage *u, *obj, *tm;
	ProtobufCBinaryData raw = {0, NULL};
	struct pbm *m = NULL;
	size_t i;
	int r = -1;

	*out = NULL;
	if (len < sizeof(magic) || memcmp(body, magic, sizeof(magic))) {
		snprintf(err, errlen,
			 "the body is not Kubernetes protobuf: it does not "
			 "start with \"k8s\\x00\"");
		return -1;
	}
	u = protobuf_c_message_unpack(build(&unknown_m), NULL,
				      len - sizeof(magic),
				      (const uint8_t *)body + sizeof(magic));
	if (u == NULL) {
		snprintf(err, errlen, "the body is not a runtime.Unknown");
		return -1;
	}
	slot = (const char *)u + sizeof(ProtobufCMessage);
	tm = *(ProtobufCMessage **)(slot + 8);
	if (tm) {
		const char *ts = (const char *)tm + sizeof(ProtobufCMessage);

		apiv = *(char **)(ts + 8);
		kind = *(char **)(ts + SLOT + 8);
	}
	if (*(const protobuf_c_boolean *)(slot + SLOT))
		raw = *(const ProtobufCBinaryData *)(slot + SLOT + 8);
	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			m = kinds[i].m;
	if (m == NULL) {
		snprintf(err, errlen,
			 "the body is %s in protobuf, which this server reads "
			 "only in JSON - accepted media types include: "
			 "application/json",
			 kind ? kind : "an object without a kind");
		r = 1;
	} else if ((obj = protobuf_c_message_unpack(build(m), NULL, raw.len,
						    raw.data)) == NULL) {
		snprintf(err, errlen,
			 "the %s in the body is not valid protobuf", kind);
	} else {
		*out = to_json(m, obj);
		if (apiv)
			json_object_set_new(*out, "apiVersion",
					    json_string(apiv));
		json_object_set_new(*out, "kind", json_string(kind));
		protobuf_c_message_free_unpacked(obj, NULL);
		r = 0;
	}
	protobuf_c_message_free_unpacked(u, NULL);
	return r;
}
