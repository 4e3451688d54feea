/* manifest.h - YAML manifests (one or many documents) to jansson values.
 *
 * libyaml does the parsing; this file only maps YAML nodes onto JSON with
 * the YAML 1.2 core schema for plain scalars (null, booleans, integers,
 * floats), which is what Kubernetes manifests rely on. Quoted scalars are
 * always strings. Anchors and aliases are supported. */
#ifndef DROVER_CODEC_MANIFEST_H
#define DROVER_CODEC_MANIFEST_H

#include <jansson.h>
#include <stddef.h>

/* Parses every document of buf into a JSON array (one element per
 * non-empty document). On a syntax error returns NULL and writes a message
 * ("line 3, column 5: mapping values are not allowed here") to err. The
 * caller owns the returned reference. */
json_t *yaml_to_json(const char *buf, size_t len, char *err, size_t errlen);

/* Parses buf as JSON or YAML (JSON is tried first when the first non-space
 * byte is '{' or '['), returning an array of documents; a JSON document
 * that is a Kubernetes List is not expanded here. */
json_t *manifest_parse(const char *buf, size_t len, char *err, size_t errlen);

#endif
