/* fuzz_decode.c - libFuzzer target: manifest decoding and its round trip. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "object.h"
#include "strbuf.h"
#include "yaml_out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Loads text (printed from the encoded object j) back: it must give exactly
 * one object that encodes to j again. */
static void
reload(const char *how, json_t *j, const char *text)
{
	struct object_list again = {0};
	struct manifest_errors errs;
	json_t *j2;

	if (manifest_load(text, strlen(text), true, &again, &errs) != 0 ||
	    again.n != 1) {
		struct strbuf sb = STRBUF_INIT;

		manifest_errors_format(&errs, &sb);
		fprintf(stderr, "fuzz_decode: %s round trip failed for\n%s\n%s",
			how, text, sb.buf);
		abort();
	}
	j2 = object_encode(&again.v[0]);
	if (!json_equal(j, j2)) {
		char *t1 = json_dumps(j, JSON_COMPACT);
		char *t2 = json_dumps(j2, JSON_COMPACT);

		fprintf(stderr,
			"fuzz_decode: %s round trip changed the object\n"
			"first:  %s\nsecond: %s\n",
			how, t1 ? t1 : "(null)", t2 ? t2 : "(null)");
		abort();
	}
	json_decref(j2);
	object_list_release(&again);
	manifest_errors_release(&errs);
}

/* The encoder's output of a valid, defaulted object must decode again, as
 * JSON (what the API serves) and as YAML (`-o yaml`). */
static void
round_trip(const struct object *o)
{
	struct strbuf yaml = STRBUF_INIT;
	json_t *j = object_encode(o);
	char *text = json_dumps(j, JSON_COMPACT);

	if (text == NULL) {
		fprintf(stderr, "fuzz_decode: cannot dump an encoded %s\n",
			o->k->kind);
		abort();
	}
	reload("JSON", j, text);
	if (yaml_emit(j, &yaml) != 0) {
		fprintf(stderr, "fuzz_decode: cannot print as YAML\n%s\n",
			text);
		abort();
	}
	reload("YAML", j, yaml.buf);
	strbuf_release(&yaml);
	json_decref(j);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct object_list out = {0};
	struct manifest_errors errs;
	size_t i;

	if (manifest_load((const char *)data, size, true, &out, &errs) == 0) {
		for (i = 0; i < out.n; i++)
			round_trip(&out.v[i]);
	} else {
		struct strbuf sb = STRBUF_INIT;

		/* Formatting the errors is part of the decoder's output. */
		manifest_errors_format(&errs, &sb);
		strbuf_release(&sb);
	}
	object_list_release(&out);
	manifest_errors_release(&errs);
	return 0;
}
