/* k8spb.c - Kubernetes' protobuf request bodies to JSON (k8spb.h).
 *
 * A message is a table of (field number, JSON name, kind) sorted by
 * number, struct pbm. The kinds' messages, and every message their field
 * tables reach (ObjectMeta, PodSpec, Container, Probe, ...), are made at
 * first use from the kind registry's field tables (schema.h): each row
 * with a protobuf number (struct field.pb) is a field, its kind given by
 * the row's type:
 *
 *   FT_STR                 string (FF_QUANTITY: a resource.Quantity)
 *   FT_INT, FT_OPTINT      int32 or int64, by FF_INT32 / FF_INT64
 *   FT_BOOL, FT_OPTBOOL    bool
 *   FT_TIME                a metav1.Time (FF_MICROTIME: MicroTime)
 *   FT_INTSTR              an intstr.IntOrString
 *   FT_STRMAP              map entries, string values (FF_QUANTITY:
 *                          Quantity ones, FF_TIMEMAP: Time ones)
 *   FT_STRLIST, FT_INTLIST repeated string, repeated int64
 *   FT_STRUCT, FT_PTR      the message of the row's sub-table
 *   FT_LIST                repeated, of the row's sub-table
 *   FT_RAW                 left out: skipped as an unknown field
 *
 * Rows of a struct Go embeds inline (PB_INLINE: Probe's exec is field 1
 * of the ProbeHandler in Probe's field 1) make a message of their own,
 * whose JSON members join the parent's. A kind's status is left out: the
 * server keeps its own (the API drops the status a create sends).
 * Hand-written tables remain for the wire's own messages, which no kind
 * has a field table for: runtime.Unknown and TypeMeta, metav1.Time,
 * Quantity, IntOrString, the map entries, and DeleteOptions,
 * Preconditions and Eviction (the bodies of a DELETE and of the
 * eviction subresource).
 *
 * At first use a protobuf-c descriptor is made from a table, with one
 * 24-byte slot per field in the unpacked message: the quantifier
 * (has_X, or n_X of a repeated field) at +0 and the value at +8 (a
 * string or message pointer, an integer, an array pointer). protobuf-c
 * unpacks into that layout; the walk below turns it into JSON. Fields no
 * table has (selfLink, managedFields, the fields drover does not model)
 * are skipped as unknown fields, as Kubernetes' own protobuf decoding
 * skips them.
 *
 * Go writes every field that is not a pointer, empty or not; the JSON
 * leaves out what Go's JSON would with omitempty: a row without
 * FF_OMITEMPTY keeps its empty value, and so does a pointer (FT_OPTINT,
 * FT_OPTBOOL: present on the wire only when set, a Deployment's replicas
 * 0; but not an FF_NOPTR one, which is a plain value in Go).
 *
 * Ownership: the tables and descriptors made at first use live as long
 * as the process (reachable from `made`); not thread-safe at first use,
 * the API decodes on its loop thread. */
#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "k8spb.h"
#include "kinds.h"
#include "meta.h"
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
	K_MTIME,  /* metav1.MicroTime: RFC 3339 with microseconds */
	K_QTY,    /* resource.Quantity: its string in JSON */
	K_MAP,    /* map<string, V>: repeated key/value entries (sub) */
	K_STRS,   /* repeated string */
	K_I64S,   /* repeated int64 */
	K_MSGS,   /* repeated message */
	K_INTSTR, /* intstr.IntOrString: a number or a string in JSON */
	K_INLINE, /* a message whose members join the parent's JSON */
};

struct pbm;

/* A message field is sub's, or (sub NULL) the message made from the
 * field table `schema`. keep: an empty value is written to the JSON
 * (see the top of the file). */
struct pbf {
	uint32_t num;
	const char *json;
	enum pbk k;
	struct pbm *sub;
	bool keep;
	const struct schema *schema;
};

struct pbm {
	const char *name;
	const struct pbf *f;
	size_t n;
	/* made from a field table: which, without which row (the status) */
	const struct schema *s;
	const struct field *skip;
	struct pbm *next; /* in `made` */
	/* made at first use */
	bool built;
	ProtobufCMessageDescriptor d;
	ProtobufCFieldDescriptor *fd;
	unsigned *by_name;
	ProtobufCIntRange *ranges;
};

#define MSG(var, pname, fields)                                                \
	static struct pbm var = {.name = pname,                                \
				 .f = fields,                                  \
				 .n = sizeof(fields) / sizeof(fields[0])}

/* k8s.io/apimachinery/pkg/runtime: Unknown and TypeMeta. */
static const struct pbf typemeta_f[] = {
    {1, "apiVersion", K_STR, NULL, false, NULL},
    {2, "kind", K_STR, NULL, false, NULL},
};
MSG(typemeta_m, "k8s.io.apimachinery.pkg.runtime.TypeMeta", typemeta_f);

static const struct pbf unknown_f[] = {
    {1, "typeMeta", K_MSG, &typemeta_m, false, NULL},
    {2, "raw", K_BYTES, NULL, false, NULL},
    {3, "contentEncoding", K_STR, NULL, false, NULL},
    {4, "contentType", K_STR, NULL, false, NULL},
};
MSG(unknown_m, "k8s.io.apimachinery.pkg.runtime.Unknown", unknown_f);

/* meta/v1 Time and MicroTime (the same fields), api/resource Quantity,
 * util/intstr IntOrString */
static const struct pbf time_f[] = {
    {1, "seconds", K_I64, NULL, false, NULL},
    {2, "nanos", K_I32, NULL, false, NULL},
};
MSG(time_m, "k8s.io.apimachinery.pkg.apis.meta.v1.Time", time_f);

static const struct pbf quantity_f[] = {
    {1, "string", K_STR, NULL, false, NULL},
};
MSG(quantity_m, "k8s.io.apimachinery.pkg.api.resource.Quantity", quantity_f);

static const struct pbf intstr_f[] = {
    {1, "type", K_I64, NULL, true, NULL},
    {2, "intVal", K_I32, NULL, true, NULL},
    {3, "strVal", K_STR, NULL, true, NULL},
};
MSG(intstr_m, "k8s.io.apimachinery.pkg.util.intstr.IntOrString", intstr_f);

/* The entries of a map<string, V>: V a string, a Quantity or a Time.
 * The value is kept: a label's "" is a value. */
static const struct pbf entry_f[] = {
    {1, "key", K_STR, NULL, true, NULL},
    {2, "value", K_STR, NULL, true, NULL},
};
MSG(entry_m, "drover.StringEntry", entry_f);

static const struct pbf qentry_f[] = {
    {1, "key", K_STR, NULL, true, NULL},
    {2, "value", K_QTY, &quantity_m, true, NULL},
};
MSG(qentry_m, "drover.QuantityEntry", qentry_f);

static const struct pbf tentry_f[] = {
    {1, "key", K_STR, NULL, true, NULL},
    {2, "value", K_TIME, &time_m, true, NULL},
};
MSG(tentry_m, "drover.TimeEntry", tentry_f);

/* meta/v1 DeleteOptions (the body of a DELETE) */
static const struct pbf preconditions_f[] = {
    {1, "uid", K_STR, NULL, false, NULL},
    {2, "resourceVersion", K_STR, NULL, false, NULL},
};
MSG(preconditions_m, "k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions",
    preconditions_f);

static const struct pbf deleteoptions_f[] = {
    {1, "gracePeriodSeconds", K_I64, NULL, true, NULL},
    {2, "preconditions", K_MSG, &preconditions_m, false, NULL},
    {3, "orphanDependents", K_BOOL, NULL, true, NULL},
    {4, "propagationPolicy", K_STR, NULL, false, NULL},
    {5, "dryRun", K_STRS, NULL, false, NULL},
    {6, "ignoreStoreReadErrorWithClusterBreakingPotential", K_BOOL, NULL, true,
     NULL},
};
MSG(deleteoptions_m, "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    deleteoptions_f);

/* policy/v1 Eviction (the body of pods/NAME/eviction): its metadata is
 * the ObjectMeta of the field tables. */
static const struct pbf eviction_f[] = {
    {1, "metadata", K_MSG, NULL, false, &schema_object_meta},
    {2, "deleteOptions", K_MSG, &deleteoptions_m, false, NULL},
};
MSG(eviction_m, "k8s.io.api.policy.v1.Eviction", eviction_f);

/* The bodies that are not a kind of the registry, by TypeMeta.kind. */
static const struct {
	const char *kind;
	struct pbm *m;
} wire_kinds[] = {
    {"DeleteOptions", &deleteoptions_m},
    {"Eviction", &eviction_m},
};

/* ---- messages from field tables ---- */

static struct pbm *made; /* every message made from a field table */

static struct pbm *from_schema(const struct schema *s,
			       const struct field *skip);

static struct pbm *
sub_of(const struct pbf *f)
{
	return f->sub ? f->sub : from_schema(f->schema, NULL);
}

/* The kind of a row's field on the wire, and the message it holds (*sub:
 * a hand-written one; *schema: the row's sub-table). */
static enum pbk
row_kind(const struct field *r, struct pbm **sub, const struct schema **schema)
{
	*sub = NULL;
	*schema = NULL;
	switch (r->type) {
	case FT_STR:
		*sub = r->flags & FF_QUANTITY ? &quantity_m : NULL;
		return *sub ? K_QTY : K_STR;
	case FT_INT:
	case FT_OPTINT:
		return r->flags & FF_INT32 ? K_I32 : K_I64;
	case FT_BOOL:
	case FT_OPTBOOL:
		return K_BOOL;
	case FT_TIME:
		*sub = &time_m;
		return r->flags & FF_MICROTIME ? K_MTIME : K_TIME;
	case FT_INTSTR:
		*sub = &intstr_m;
		return K_INTSTR;
	case FT_STRMAP:
		*sub = r->flags & FF_QUANTITY  ? &qentry_m
		       : r->flags & FF_TIMEMAP ? &tentry_m
					       : &entry_m;
		return K_MAP;
	case FT_STRLIST:
		return K_STRS;
	case FT_INTLIST:
		return K_I64S;
	case FT_STRUCT:
	case FT_PTR:
		*schema = r->sub;
		return K_MSG;
	case FT_LIST:
		*schema = r->sub;
		return K_MSGS;
	case FT_RAW:
		break;
	}
	return K_BYTES; /* not reached: FT_RAW rows are left out */
}

/* The row's field in a message: number, name, kind, and whether an empty
 * value is kept (no omitempty, or a pointer in Go). */
static struct pbf
row_field(const struct field *r, uint32_t num)
{
	struct pbf f = {num, r->json, K_STR, NULL, false, NULL};

	f.k = row_kind(r, &f.sub, &f.schema);
	f.keep = !(r->flags & FF_OMITEMPTY) ||
		 ((r->type == FT_OPTINT || r->type == FT_OPTBOOL) &&
		  !(r->flags & FF_NOPTR));
	return f;
}

static bool
row_in(const struct field *r, const struct field *skip)
{
	return r->pb != 0 && r->type != FT_RAW && r != skip;
}

/* Sorts a message's fields by number (a few dozen: an insertion sort). */
static void
sort_by_num(struct pbf *f, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && f[j - 1].num > f[j].num; j--) {
			struct pbf t = f[j];

			f[j] = f[j - 1];
			f[j - 1] = t;
		}
}

static struct pbm *
new_pbm(const char *name, struct pbf *f, size_t n)
{
	struct pbm *m = xcalloc(1, sizeof(*m));

	m->name = name;
	m->f = f;
	m->n = n;
	return m;
}

/* The message of the rows of s embedded inline in field `outer`. */
static struct pbm *
inline_message(const struct schema *s, unsigned outer)
{
	struct pbf *f = xcalloc(s->nfields, sizeof(*f));
	size_t i, n = 0;

	for (i = 0; i < s->nfields; i++)
		if (row_in(&s->fields[i], NULL) &&
		    PB_OUTER(s->fields[i].pb) == outer)
			f[n++] =
			    row_field(&s->fields[i], PB_INNER(s->fields[i].pb));
	sort_by_num(f, n);
	return new_pbm(s->name, f, n);
}

/* Whether a field numbered num is among f[0..n). */
static bool
has_num(const struct pbf *f, size_t n, uint32_t num)
{
	while (n-- > 0)
		if (f[n].num == num)
			return true;
	return false;
}

/* The fields of s's message: a row with a number of its own, or the
 * inline message of each PB_INLINE group, once. */
static size_t
schema_fields(const struct schema *s, const struct field *skip, struct pbf *f)
{
	size_t i, n = 0;

	for (i = 0; i < s->nfields; i++) {
		const struct field *r = &s->fields[i];
		unsigned outer = PB_OUTER(r->pb);

		if (!row_in(r, skip))
			continue;
		if (outer == 0)
			f[n++] = row_field(r, r->pb);
		else if (!has_num(f, n, outer))
			f[n++] =
			    (struct pbf){outer,    "(inline)",
					 K_INLINE, inline_message(s, outer),
					 false,    NULL};
	}
	sort_by_num(f, n);
	return n;
}

/* The message of field table s without row skip (NULL: all of them),
 * made once. The message is listed before its fields are made, so a
 * table that holds itself ends at the listed one. */
static struct pbm *
from_schema(const struct schema *s, const struct field *skip)
{
	struct pbm *m;
	struct pbf *f;

	for (m = made; m; m = m->next)
		if (m->s == s && m->skip == skip)
			return m;
	f = xcalloc(s->nfields ? s->nfields : 1, sizeof(*f));
	m = new_pbm(s->name, f, 0);
	m->s = s;
	m->skip = skip;
	m->next = made;
	made = m;
	m->n = schema_fields(s, skip, f);
	return m;
}

/* ---- descriptors ---- */

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

static bool
repeated(enum pbk k)
{
	return k == K_MAP || k == K_STRS || k == K_I64S || k == K_MSGS;
}

static ProtobufCType
wire_type(enum pbk k)
{
	switch (k) {
	case K_STR:
	case K_STRS:
		return PROTOBUF_C_TYPE_STRING;
	case K_I64:
	case K_I64S:
		return PROTOBUF_C_TYPE_INT64;
	case K_I32:
		return PROTOBUF_C_TYPE_INT32;
	case K_BOOL:
		return PROTOBUF_C_TYPE_BOOL;
	case K_BYTES:
		return PROTOBUF_C_TYPE_BYTES;
	default:
		return PROTOBUF_C_TYPE_MESSAGE;
	}
}

static const ProtobufCMessageDescriptor *build(struct pbm *m);

/* Field i's descriptor: its slot, and the descriptor of its message. */
static void
build_field(const struct pbf *f, size_t i, ProtobufCFieldDescriptor *fd)
{
	unsigned slot = (unsigned)(sizeof(ProtobufCMessage) + SLOT * i);

	fd->name = f->json;
	fd->id = f->num;
	fd->label = repeated(f->k) ? PROTOBUF_C_LABEL_REPEATED
				   : PROTOBUF_C_LABEL_OPTIONAL;
	fd->type = wire_type(f->k);
	/* an optional string or message is there when not NULL */
	fd->quantifier_offset =
	    !repeated(f->k) && (fd->type == PROTOBUF_C_TYPE_STRING ||
				fd->type == PROTOBUF_C_TYPE_MESSAGE)
		? 0
		: slot;
	fd->offset = slot + 8;
	if (fd->type == PROTOBUF_C_TYPE_MESSAGE)
		fd->descriptor = build(sub_of(f));
}

static const char *
short_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

/* The descriptor of m (and of the messages it holds), made once. */
static const ProtobufCMessageDescriptor *
build(struct pbm *m)
{
	size_t i, nr = 0;

	if (m->built)
		return &m->d;
	m->built = true; /* a message that holds itself ends here */
	m->fd = xcalloc(m->n + 1, sizeof(*m->fd));
	m->by_name = xcalloc(m->n + 1, sizeof(*m->by_name));
	m->ranges = xcalloc(m->n + 1, sizeof(*m->ranges));
	for (i = 0; i < m->n; i++) {
		build_field(&m->f[i], i, &m->fd[i]);
		if (i == 0 || m->f[i].num != m->f[i - 1].num + 1)
			m->ranges[nr++] =
			    (ProtobufCIntRange){(int)m->f[i].num, (unsigned)i};
	}
	m->ranges[nr] = (ProtobufCIntRange){0, (unsigned)m->n};
	sort_by_name(m);
	m->d = (ProtobufCMessageDescriptor){
	    .magic = PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC,
	    .name = m->name,
	    .short_name = short_name(m->name),
	    .c_name = short_name(m->name),
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

/* ---- unpacked messages to JSON ---- */

static json_t *to_json(const struct pbm *m, const ProtobufCMessage *msg);

/* Slot i of an unpacked message. */
static const char *
slot_of(const ProtobufCMessage *msg, size_t i)
{
	return (const char *)msg + sizeof(ProtobufCMessage) + SLOT * i;
}

/* metav1.Time's JSON: RFC 3339 in seconds, UTC; MicroTime's with six
 * fractional digits. The zero time is left out (Go writes it as no
 * bytes at all). */
static json_t *
time_json(const ProtobufCMessage *t, bool micro)
{
	const char *s = slot_of(t, 0), *ns = slot_of(t, 1);
	time_t secs = *(const protobuf_c_boolean *)s
			  ? (time_t) * (const int64_t *)(s + 8)
			  : 0;
	int32_t nanos =
	    *(const protobuf_c_boolean *)ns ? *(const int32_t *)(ns + 8) : 0;
	struct tm tm;
	char buf[64];

	if (secs == 0 || gmtime_r(&secs, &tm) == NULL)
		return NULL;
	if (!micro) {
		strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
		return json_string(buf);
	}
	if (nanos < 0 || nanos > 999999999)
		nanos = 0;
	strftime(buf, sizeof(buf) - 12, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), 12, ".%06dZ", (int)(nanos / 1000));
	return json_string(buf);
}

/* IntOrString: type 0 is intVal, 1 strVal. */
static json_t *
intstr_json(const ProtobufCMessage *m)
{
	int64_t type = *(const int64_t *)(slot_of(m, 0) + 8);
	const char *str = *(char *const *)(slot_of(m, 2) + 8);

	if (type == 1)
		return json_string(str ? str : "");
	return json_integer(*(const int32_t *)(slot_of(m, 1) + 8));
}

/* A Quantity's JSON: its string ("500m"), left out when empty. */
static json_t *
qty_json(const ProtobufCMessage *m)
{
	const char *s = *(char *const *)(slot_of(m, 0) + 8);

	return s && *s ? json_string(s) : NULL;
}

/* An optional scalar: written when on the wire and (keep or not zero). */
static json_t *
scalar_json(const struct pbf *f, const char *slot)
{
	const void *v = slot + 8;

	if (!*(const protobuf_c_boolean *)slot)
		return NULL;
	switch (f->k) {
	case K_I64:
		return f->keep || *(const int64_t *)v
			   ? json_integer(*(const int64_t *)v)
			   : NULL;
	case K_I32:
		return f->keep || *(const int32_t *)v
			   ? json_integer(*(const int32_t *)v)
			   : NULL;
	case K_BOOL:
		return f->keep || *(const protobuf_c_boolean *)v
			   ? json_boolean(*(const protobuf_c_boolean *)v)
			   : NULL;
	default:
		return NULL; /* runtime.Unknown's raw: read by k8spb_decode */
	}
}

/* An optional message: the JSON of its kind. */
static json_t *
message_json(const struct pbf *f, const ProtobufCMessage *v)
{
	if (v == NULL)
		return NULL;
	switch (f->k) {
	case K_TIME:
	case K_MTIME:
		return time_json(v, f->k == K_MTIME);
	case K_QTY:
		return qty_json(v);
	case K_INTSTR:
		return intstr_json(v);
	default:
		return to_json(sub_of(f), v);
	}
}

static json_t *field_json(const struct pbf *f, const char *slot);

/* A map's JSON object: each entry's key and the JSON of its value ("" if
 * it has none). */
static json_t *
map_json(const struct pbf *f, ProtobufCMessage *const *e, size_t n)
{
	const struct pbf *vf = &sub_of(f)->f[1];
	json_t *out = json_object();
	size_t i;

	for (i = 0; i < n; i++) {
		const char *key = *(char *const *)(slot_of(e[i], 0) + 8);
		json_t *val = field_json(vf, slot_of(e[i], 1));

		json_object_set_new(out, key ? key : "",
				    val ? val : json_string(""));
	}
	return out;
}

/* A repeated field's JSON array (map: object); left out when empty
 * unless kept. */
static json_t *
repeated_json(const struct pbf *f, const char *slot)
{
	size_t n = *(const size_t *)slot, i;
	const void *v = slot + 8;
	json_t *out;

	if (n == 0 && !f->keep)
		return NULL;
	if (f->k == K_MAP)
		return map_json(f, *(ProtobufCMessage * *const *)v, n);
	out = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(
		    out, f->k == K_STRS ? json_string((*(char **const *)v)[i])
			 : f->k == K_I64S
			     ? json_integer((*(int64_t *const *)v)[i])
			     : to_json(sub_of(f),
				       (*(ProtobufCMessage * *const *)v)[i]));
	return out;
}

/* The JSON of one field of an unpacked message, NULL to leave it out. */
static json_t *
field_json(const struct pbf *f, const char *slot)
{
	const void *v = slot + 8;

	if (repeated(f->k))
		return repeated_json(f, slot);
	if (f->k == K_STR)
		return *(char *const *)v && (f->keep || **(char *const *)v)
			   ? json_string(*(char *const *)v)
			   : NULL;
	if (wire_type(f->k) == PROTOBUF_C_TYPE_MESSAGE)
		return message_json(f, *(ProtobufCMessage *const *)v);
	return scalar_json(f, slot);
}

static json_t *
to_json(const struct pbm *m, const ProtobufCMessage *msg)
{
	json_t *o = json_object(), *v;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if ((v = field_json(&m->f[i], slot_of(msg, i))) == NULL)
			continue;
		if (m->f[i].k == K_INLINE)
			json_object_update(o, v);
		else
			json_object_set(o, m->f[i].json, v);
		json_decref(v);
	}
	return o;
}

/* ---- bodies ---- */

/* The registry's kind of a body: by apiVersion and kind, or by kind
 * alone when the body has no apiVersion; NULL if none. */
static const struct kind_info *
body_kind(const char *api_version, const char *kind)
{
	const struct kind_info *all;
	size_t i, n;

	if (api_version)
		return kind_lookup(api_version, kind);
	all = kinds_all(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].kind, kind))
			return &all[i];
	return NULL;
}

/* The message of a body's kind: DeleteOptions and Eviction by name,
 * else the kind's field table without its status; NULL if the kind is
 * not one of the registry or its table has no numbered field. */
static struct pbm *
message_of(const char *api_version, const char *kind)
{
	const struct kind_info *k;
	struct pbm *m;
	size_t i;

	for (i = 0; i < sizeof(wire_kinds) / sizeof(wire_kinds[0]); i++)
		if (!strcmp(wire_kinds[i].kind, kind))
			return wire_kinds[i].m;
	if ((k = body_kind(api_version, kind)) == NULL)
		return NULL;
	m = from_schema(k->schema, kind_status_field(k));
	return m->n ? m : NULL;
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
	slot = slot_of(u, 0);
	tm = *(ProtobufCMessage **)(slot + 8);
	if (tm) {
		apiv = *(char **)(slot_of(tm, 0) + 8);
		kind = *(char **)(slot_of(tm, 1) + 8);
	}
	if (*(const protobuf_c_boolean *)slot_of(u, 1))
		raw = *(const ProtobufCBinaryData *)(slot_of(u, 1) + 8);
	if (kind)
		m = message_of(apiv, kind);
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
