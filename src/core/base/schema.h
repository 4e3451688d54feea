/* schema.h - field descriptors for the model structs, and the generic
 * walkers built on them.
 *
 * Every object type of the model (model.h) is described once by a table of
 * fields: the JSON name, the storage type and the offset in the struct. From
 * that one table drover derives release, deep copy, semantic equality and a
 * canonical dump (for the pod-template hash) here in the core, and JSON
 * encoding and decoding with unknown-field detection, and the reading of
 * protobuf bodies, in src/codec. Adding a field to a kind is one line in
 * its group's field table, its protobuf number included (schema_rows.h).
 *
 * Storage conventions by type (the struct member must have this C type):
 *   FT_STR      char *                 NULL = absent
 *   FT_INT      int64_t                absent = 0
 *   FT_OPTINT   struct opt_int         pointer semantics (*int32 in Go)
 * Every FT_INT and FT_OPTINT field carries its Kubernetes width, FF_INT32
 * or FF_INT64: the decoder refuses a number that does not fit it.
 * FT_INTSTR integers are int32 (IntOrString.IntVal).
 *   FT_BOOL     bool
 *   FT_OPTBOOL  struct opt_bool
 *   FT_TIME     dtime                  0 = absent (serialized as null)
 *   FT_INTSTR   struct intstr
 *   FT_STRMAP   struct strmap
 *   FT_STRLIST  struct strlist
 *   FT_INTLIST  struct intlist         ([]int64)
 *   FT_STRUCT   an inline struct described by `sub`
 *   FT_PTR      pointer to a struct described by `sub`, NULL = absent
 *   FT_LIST     struct anylist of structs described by `sub`
 *   FT_RAW      char *, canonical JSON text of a value drover accepts but
 *               does not interpret (e.g. securityContext)
 *
 * Each row also carries the field's number in Kubernetes' protobuf
 * encoding (struct field.pb, from the generated.proto files of k8s.io/api
 * and k8s.io/apimachinery), which src/codec/k8spb.c reads request bodies
 * with: ObjectMeta's name is 1, a Container's readinessProbe 11.
 */
#ifndef DROVER_SCHEMA_H
#define DROVER_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum field_type {
	FT_STR,
	FT_INT,
	FT_OPTINT,
	FT_BOOL,
	FT_OPTBOOL,
	FT_TIME,
	FT_INTSTR,
	FT_STRMAP,
	FT_STRLIST,
	FT_STRUCT,
	FT_PTR,
	FT_LIST,
	FT_RAW,
	FT_INTLIST,
};

enum field_flags {
	FF_OMITEMPTY = 1 << 0, /* not encoded when zero / empty */
	FF_NULLTIME = 1 << 1,  /* an unset time is encoded as null */
	FF_SKIPHASH = 1 << 2,  /* not part of the canonical dump */
	FF_INT32 = 1 << 3,     /* an int32 in Kubernetes' types */
	FF_INT64 = 1 << 4,     /* an int64 in Kubernetes' types */
	/* An FT_PTR that was an FT_RAW before it was interpreted: absent or
	 * empty, it dumps as the raw text did (nothing, "{}"), so that the
	 * pod-template-hash of templates that do not use it is unchanged. */
	FF_HASHRAW = 1 << 5,
	/* An FT_TIME that is a metav1.MicroTime: six fractional digits. */
	FF_MICROTIME = 1 << 6,
	/* A row added to a table under pod_template after hashes were in
	 * use (pod_spec.volumes, container.volumeMounts): when empty (an
	 * empty list, an absent pointer or string) the canonical dump
	 * leaves it out entirely, name and all, so that the
	 * pod-template-hash of templates that do not use it is unchanged;
	 * when set it is dumped as any other row. */
	FF_HASHNEW = 1 << 7,
	/* An FT_STR (or the values of an FT_STRMAP) that is a
	 * resource.Quantity in Go ("500m", "64Mi"): kept as the string
	 * written, a message of its own in protobuf. */
	FF_QUANTITY = 1 << 8,
	/* An FT_STRMAP whose values are metav1.Time in Go (a budget's
	 * disruptedPods): RFC 3339 strings here, messages in protobuf. */
	FF_TIMEMAP = 1 << 9,
	/* An FT_OPTINT that is a plain value in Go, not a pointer (Probe's
	 * timings): Go's protobuf always writes it, and its 0 is read as
	 * unset, as Go's JSON leaves a 0 out (omitempty). */
	FF_NOPTR = 1 << 10,
};

struct opt_int {
	int64_t v;
	bool set;
};

struct opt_bool {
	bool v;
	bool set;
};

struct strlist {
	char **v;
	size_t n;
	size_t alloc;
};

struct intlist {
	int64_t *v;
	size_t n;
	size_t alloc;
};

/* The layout every FT_LIST member shares: items, count, capacity. */
struct anylist {
	void *v;
	size_t n;
	size_t alloc;
};

/* A field's patch strategy in a strategic merge patch, Kubernetes'
 * patchStrategy struct tag (k8s.io/api core/v1 and apps/v1 types.go):
 *   PS_MERGE        a list merges element by element: lists of objects
 *                   by merge_key (containers by "name"), lists of strings
 *                   as a set (metadata.finalizers);
 *   PS_RETAIN_KEYS  a map honours "$retainKeys" (DeploymentSpec.strategy:
 *                   applying {type: Recreate} drops rollingUpdate);
 *   PS_REPLACE      a map or list is replaced whole, never merged.
 * 0: maps merge key by key, lists are replaced (atomic). */
enum patch_strategy {
	PS_MERGE = 1 << 0,
	PS_RETAIN_KEYS = 1 << 1,
	PS_REPLACE = 1 << 2,
};

struct schema;

struct field {
	const char *json; /* JSON member name */
	enum field_type type;
	size_t off; /* offsetof in the parent struct */
	unsigned flags;
	const struct schema *sub; /* FT_STRUCT, FT_PTR, FT_LIST */
	/* FT_LIST of objects with PS_MERGE: the member that names an
	 * element in a strategic merge patch (Kubernetes' patchMergeKey:
	 * containers by "name", ports by "containerPort", conditions by
	 * "type"). */
	const char *merge_key;
	unsigned patch; /* enum patch_strategy flags */
	/* The field's number in Kubernetes' protobuf encoding (the
	 * generated.proto of its Go type), 0 for none: a kind's apiVersion
	 * and kind (protobuf carries them in runtime.Unknown) and drover's
	 * own fields. A field of a Go struct embedded inline (flattened in
	 * JSON, a message of its own in protobuf: Probe's ProbeHandler,
	 * Volume's VolumeSource) is PB_INLINE(outer, inner). Numbers are
	 * below PB_INLINE_MIN, and unique within a table (tests/unit
	 * test_schema_pb.c checks it). */
	unsigned pb;
};

/* Field `inner` of the message in field `outer`: Probe's exec is
 * PB_INLINE(1, 1), field 1 (exec) of Probe's field 1 (the ProbeHandler
 * Go embeds inline). PB_OUTER is 0 for a plain number. */
#define PB_INLINE_MIN           (1u << 16)
#define PB_INLINE(outer, inner) ((unsigned)(outer) << 16 | (unsigned)(inner))
#define PB_OUTER(pb)            ((unsigned)(pb) >> 16)
#define PB_INNER(pb)            ((unsigned)(pb) & (PB_INLINE_MIN - 1))

struct schema {
	const char *name; /* Go-ish type name, for messages */
	size_t size;      /* sizeof the struct */
	const struct field *fields;
	size_t nfields;
};

#define SCHEMA(type, tbl)                                                      \
	{                                                                      \
#type, sizeof(struct type), tbl,                               \
		    sizeof(tbl) / sizeof((tbl)[0])                             \
	}

/* The field of s whose JSON name is json, or NULL. */
const struct field *schema_field(const struct schema *s, const char *json);
/* Frees everything obj owns and zeroes it; obj itself is not freed. */
void schema_release(const struct schema *s, void *obj);
/* Deep copy: dst (uninitialized) receives its own copies of src. */
void schema_copy(const struct schema *s, void *dst, const void *src);
/* Semantic equality: absent and empty maps/lists are equal, as in
 * Kubernetes' apiequality.Semantic.DeepEqual. */
bool schema_equal(const struct schema *s, const void *a, const void *b);
/* Appends a canonical, deterministic text form of obj (used for hashing). */
void schema_dump(const struct schema *s, const void *obj, struct strbuf *sb);
/* True if every field is zero / absent. */
bool schema_is_empty(const struct schema *s, const void *obj);

void strlist_release(struct strlist *l);
void strlist_copy(struct strlist *dst, const struct strlist *src);
void strlist_push(struct strlist *l, const char *s);
void intlist_push(struct intlist *l, int64_t v);

/* Appends one zeroed element to an FT_LIST member and returns it. */
void *anylist_push(struct anylist *l, size_t elem_size);

#endif
