/* json_text.h - model structs straight to JSON text, driven by the same
 * schema tables as json.h, without building a jansson value first.
 *
 * The text is byte for byte what json_dumps(codec_encode(s, obj),
 * JSON_COMPACT) prints (jansson 2.14): members in the tables' order,
 * "," and ":" without spaces, strings escaped as jansson escapes them
 * (\" \\ \b \f \n \r \t, other control characters as \u00XX with
 * capital hex digits, '/' and non-ASCII UTF-8 as they are), and a string
 * that is not valid UTF-8 left out with its member, as json_string()
 * refuses it. tests/unit/codec_json_text.c holds the two side by side.
 *
 * Why: a write stores the object as text, and building the jansson
 * value only to print it cost more than the rest of the write (a pod:
 * 43 us to build, 47 us to print, against 10 us for this).
 *
 * Example: a Service {metadata: {name: "web", labels: {app: "web"}},
 * spec: {ports: [{port: 80}]}} prints as
 *   {"apiVersion":"v1","kind":"Service","metadata":{"name":"web",
 *   "creationTimestamp":null,"labels":{"app":"web"}},"spec":{"ports":
 *   [{"port":80}]}}
 * (one line; creationTimestamp is null when unset, as Kubernetes prints
 * it). */
#ifndef DROVER_CODEC_JSON_TEXT_H
#define DROVER_CODEC_JSON_TEXT_H

#include <stdbool.h>

#include "kinds.h"
#include "schema.h"
#include "strbuf.h"

/* Appends obj as JSON text to sb. */
void codec_encode_text(const struct schema *s, const void *obj,
		       struct strbuf *sb);
/* Appends o as object_encode() gives it (apiVersion and kind first),
 * printed; without metadata.resourceVersion when no_rv (the text the
 * store keeps). */
void object_encode_text(const struct object *o, bool no_rv, struct strbuf *sb);

#endif
