/* openapi_pb.c - the Swagger 2.0 document in the protobuf form kubectl
 * asks /openapi/v2 for (Accept:
 * application/com.github.proto-openapi.spec.v2@v1.0+protobuf): gnostic's
 * openapi_v2.Document, the message client-go unmarshals and kubectl 1.20
 * reads its schemas from (client-side validation, explain, apply's patch
 * strategies).
 *
 * Only what kubectl reads is encoded: swagger, info, the definitions,
 * and of the paths their operations' ids, query parameters and
 * extensions. The field numbers are those of gnostic's
 * openapiv2/OpenAPIv2.proto:
 *
 *   Document     1 swagger, 2 info, 8 paths, 9 definitions
 *   Paths        2 repeated NamedPathItem (1 name, 2 PathItem)
 *   PathItem     2 get, 3 put, 4 post, 5 delete, 8 patch (Operation)
 *   Operation    5 operation_id, 8 repeated ParametersItem (1 Parameter:
 *                2 NonBodyParameter: 3 QueryParameterSubSchema: 2 in,
 *                4 name, 6 type), 13 repeated vendor_extension
 *   Info         1 title, 2 version
 *   Definitions  1 repeated NamedSchema additional_properties
 *   NamedSchema  1 name, 2 value (Schema)
 *   Schema       1 _ref, 2 format, 4 description, 19 repeated required,
 *                21 additional_properties (AdditionalPropertiesItem:
 *                1 schema, 2 boolean), 22 type (TypeItem: 1 repeated
 *                value), 23 items (ItemsItem: 1 repeated schema),
 *                25 properties (Properties: 1 repeated NamedSchema),
 *                31 repeated vendor_extension (NamedAny: 1 name,
 *                2 value (Any: 2 yaml))
 *
 * A vendor extension's value is YAML text; JSON is YAML, so an extension
 * is its JSON text (kube-openapi unmarshals it with a YAML parser).
 *
 * Why by hand: protobuf-c needs code generated from gnostic's .proto at
 * build time for one output-only message tree; the wire format used here
 * is two rules (a varint; a tag, a length, bytes), below.
 *
 * No NUL byte: nothing empty or zero is encoded (every tag is >= 0x08, a
 * varint's bytes are non-zero unless its value is 0, and every length
 * and boolean written is >= 1), so the document is also a C string, as
 * the API's answers are. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "openapi.h"
#include "xalloc.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void
varint(struct strbuf *out, uint64_t v)
{
	while (v >= 0x80) {
		strbuf_addch(out, (char)(0x80 | (v & 0x7f)));
		v >>= 7;
	}
	strbuf_addch(out, (char)v);
}

/* Field `field` as bytes (a string or an encoded message); nothing for
 * an empty one. */
static void
bytes_field(struct strbuf *out, unsigned field, const char *b, size_t n)
{
	if (n == 0)
		return;
	varint(out, (uint64_t)field << 3 | WIRE_LEN);
	varint(out, n);
	strbuf_add(out, b, n);
}

static void
string_field(struct strbuf *out, unsigned field, const char *s)
{
	if (s)
		bytes_field(out, field, s, strlen(s));
}

/* Field `field` holding the message sub (then emptied). */
static void
message_field(struct strbuf *out, unsigned field, struct strbuf *sub)
{
	bytes_field(out, field, sub->buf, sub->len);
	strbuf_reset(sub);
}

static void schema(json_t *s, struct strbuf *out);

/* The "x-..." keys of obj as repeated NamedAny in `field`: name, and
 * the value as Any.yaml (its JSON text). */
static void
vendor_extensions(json_t *obj, unsigned field, struct strbuf *out)
{
	struct strbuf sub = STRBUF_INIT, any = STRBUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v)
	{
		char *text;

		if (strncmp(k, "x-", 2))
			continue;
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		string_field(&any, 2, text);
		free(text);
		string_field(&sub, 1, k);
		message_field(&sub, 2, &any);
		message_field(out, field, &sub);
	}
	strbuf_release(&sub);
	strbuf_release(&any);
}

/* A NamedSchema: name, the schema. */
static void
named_schema(const char *name, json_t *s, struct strbuf *out)
{
	struct strbuf sub = STRBUF_INIT;

	string_field(out, 1, name);
	schema(s, &sub);
	message_field(out, 2, &sub);
	strbuf_release(&sub);
}

/* A map of schemas (properties, definitions): repeated NamedSchema in
 * field 1. */
static void
schema_map(json_t *m, struct strbuf *out)
{
	struct strbuf sub = STRBUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach(m, k, v)
	{
		named_schema(k, v, &sub);
		message_field(out, 1, &sub);
	}
	strbuf_release(&sub);
}

static void
schema(json_t *s, struct strbuf *out)
{
	struct strbuf sub = STRBUF_INIT;
	json_t *v;
	size_t i;

	string_field(out, 1, json_string_value(json_object_get(s, "$ref")));
	string_field(out, 2, json_string_value(json_object_get(s, "format")));
	string_field(out, 4,
		     json_string_value(json_object_get(s, "description")));
	json_array_foreach(json_object_get(s, "required"), i, v)
	    string_field(out, 19, json_string_value(v));
	v = json_object_get(s, "additionalProperties");
	if (json_is_object(v)) {
		struct strbuf inner = STRBUF_INIT;

		schema(v, &inner);
		message_field(&sub, 1, &inner);
		strbuf_release(&inner);
		message_field(out, 21, &sub);
	} else if (json_is_true(v)) {
		varint(&sub, 2 << 3 | WIRE_VARINT);
		varint(&sub, 1);
		message_field(out, 21, &sub);
	}
	if (json_is_string(json_object_get(s, "type"))) {
		string_field(&sub, 1,
			     json_string_value(json_object_get(s, "type")));
		message_field(out, 22, &sub);
	}
	if (json_is_object(json_object_get(s, "items"))) {
		struct strbuf inner = STRBUF_INIT;

		schema(json_object_get(s, "items"), &inner);
		message_field(&sub, 1, &inner);
		strbuf_release(&inner);
		message_field(out, 23, &sub);
	}
	if (json_is_object(json_object_get(s, "properties"))) {
		schema_map(json_object_get(s, "properties"), &sub);
		/* kept even when empty would be: kube-openapi tells a kind
		 * from a map by properties being present */
		message_field(out, 25, &sub);
	}
	vendor_extensions(s, 31, out);
	strbuf_release(&sub);
}

/* An Operation: operation_id, its query parameters (ParametersItem >
 * Parameter > NonBodyParameter > QueryParameterSubSchema: in, name,
 * type) and its extensions (x-kubernetes-action and
 * x-kubernetes-group-version-kind: kubectl 1.20's dry-run check, used by
 * `kubectl diff`, looks for the PATCH of a kind with a dryRun
 * parameter). Body and path parameters are left out. */
static void
operation(json_t *op, struct strbuf *out)
{
	struct strbuf q = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	json_t *p;
	size_t i;

	string_field(out, 5,
		     json_string_value(json_object_get(op, "operationId")));
	json_array_foreach(json_object_get(op, "parameters"), i, p)
	{
		const char *in = json_string_value(json_object_get(p, "in"));

		if (in == NULL || strcmp(in, "query"))
			continue;
		string_field(&q, 2, in);
		string_field(&q, 4,
			     json_string_value(json_object_get(p, "name")));
		string_field(&q, 6,
			     json_string_value(json_object_get(p, "type")));
		message_field(&a, 3, &q);  /* NonBodyParameter.query */
		message_field(&b, 2, &a);  /* Parameter.non_body */
		message_field(&a, 1, &b);  /* ParametersItem.parameter */
		message_field(out, 8, &a); /* Operation.parameters */
	}
	vendor_extensions(op, 13, out);
	strbuf_release(&q);
	strbuf_release(&a);
	strbuf_release(&b);
}

/* Paths: repeated NamedPathItem (name, PathItem: get 2, put 3, post 4,
 * delete 5, patch 8). */
static void
paths(json_t *m, struct strbuf *out)
{
	static const struct {
		const char *method;
		unsigned field;
	} ops[] = {
	    {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
	struct strbuf item = STRBUF_INIT, sub = STRBUF_INIT,
		      named = STRBUF_INIT;
	const char *k;
	json_t *v;
	size_t i;

	json_object_foreach(m, k, v)
	{
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			json_t *op = json_object_get(v, ops[i].method);

			if (op == NULL)
				continue;
			operation(op, &sub);
			message_field(&item, ops[i].field, &sub);
		}
		string_field(&named, 1, k);
		message_field(&named, 2, &item);
		message_field(out, 2, &named);
	}
	strbuf_release(&item);
	strbuf_release(&sub);
	strbuf_release(&named);
}

void
openapi_v2_protobuf(json_t *doc, struct strbuf *out)
{
	struct strbuf sub = STRBUF_INIT;
	json_t *info = json_object_get(doc, "info");

	string_field(out, 1,
		     json_string_value(json_object_get(doc, "swagger")));
	string_field(&sub, 1,
		     json_string_value(json_object_get(info, "title")));
	string_field(&sub, 2,
		     json_string_value(json_object_get(info, "version")));
	message_field(out, 2, &sub);
	paths(json_object_get(doc, "paths"), &sub);
	message_field(out, 8, &sub);
	schema_map(json_object_get(doc, "definitions"), &sub);
	message_field(out, 9, &sub);
	strbuf_release(&sub);
}
