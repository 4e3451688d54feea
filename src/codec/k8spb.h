/* k8spb.h - request bodies in Kubernetes' protobuf encoding
 * (Content-Type: application/vnd.kubernetes.protobuf), decoded to the
 * JSON value the API reads: kubectl 1.32 and later send some bodies so
 * (its generators' `create deployment|service|pdb`, and `kubectl drain`
 * its DeleteOptions and Evictions).
 *
 * The wire: the magic "k8s\0", then a runtime.Unknown message
 * (1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding,
 * 4 contentType) whose raw bytes are the object's message, as
 * k8s.io/apimachinery's protobuf serializer writes it. Every kind of the
 * kind registry is read, by the protobuf field numbers its field tables
 * carry beside each field's JSON name (struct field.pb, schema_rows.h,
 * from Kubernetes' generated.proto files); DeleteOptions and Eviction,
 * which have no field table, by small tables in k8spb.c. protobuf-c
 * unpacks the wire with descriptors made from the tables at first use,
 * so no varint is read by hand and nothing is generated at build time.
 * A field no table has is skipped, as Kubernetes skips unknown fields in
 * protobuf; a kind's status is not read.
 *
 * Example: kubectl 1.33 evicting pod default/web-1 sends "k8s\0" and
 * Unknown{typeMeta {apiVersion "policy/v1", kind "Eviction"}, raw
 * Eviction{metadata {name "web-1", namespace "default"}, deleteOptions
 * {}}}; the result is {"apiVersion": "policy/v1", "kind": "Eviction",
 * "metadata": {"name": "web-1", "namespace": "default"},
 * "deleteOptions": {}}.
 *
 * Ownership: *out is a new reference for the caller. */
#ifndef DROVER_CODEC_K8SPB_H
#define DROVER_CODEC_K8SPB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define K8SPB_MEDIA_TYPE "application/vnd.kubernetes.protobuf"

/* 0 with the JSON value in *out; 1 if the body's kind is one drover does
 * not read in protobuf, not a kind of the registry (err names it: the
 * caller answers 415); -1 if the body is not Kubernetes protobuf at all
 * (err says why: 400). Not thread-safe on its first calls (it makes its
 * descriptors). */
int k8spb_decode(const void *body, size_t len, json_t **out, char *err,
		 size_t errlen);

#endif
