/* openapi_pb.c - the Swagger 2.0 document in the protobuf form kubectl
 * asks /openapi/v2 for (Accept:
 * application/com.github.proto-openapi.spec.v2@v1.0+protobuf): gnostic's
 * openapi_v2.Document, the message client-go unmarshals and kubectl 1.20
 * reads its schemas from (client-side validation, explain, apply's patch
 * strategies).
 *
 * Only what kubectl reads is encoded: swagger, info and the definitions
 * (not the paths). The field numbers are those of gnostic's
 * openapiv2/OpenAPIv2.proto:
 *
 *   Document     1 swagger, 2 info, 9 definitions
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
	struct strbuf sub = STRBUF_INIT, any = STRBUF_INIT;
	const char *k;
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
	json_object_foreach(s, k, v)
	{
		char *text;

		if (strncmp(k, "x-", 2))
			continue;
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		string_field(&any, 2, text);
		free(text);
		string_field(&sub, 1, k);
		message_field(&sub, 2, &any);
		message_field(out, 31, &sub);
	}
	strbuf_release(&sub);
	strbuf_release(&any);
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
	schema_map(json_object_get(doc, "definitions"), &sub);
	message_field(out, 9, &sub);
	strbuf_release(&sub);
}
