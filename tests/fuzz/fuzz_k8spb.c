/* fuzz_k8spb.c - libFuzzer target: Kubernetes' protobuf request bodies
 * (k8spb.h). Whatever the bytes, the decoder answers 0 with a JSON object
 * that prints, or refuses; it never crashes or leaks. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "k8spb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *v;
	char err[400], *text;
	int r = k8spb_decode(data, size, &v, err, sizeof(err));

	if (r == 0) {
		if (!json_is_object(v) ||
		    (text = json_dumps(v, JSON_COMPACT)) == NULL) {
			fprintf(stderr, "fuzz_k8spb: decoded to no object\n");
			abort();
		}
		free(text);
		json_decref(v);
	} else if (v != NULL || err[0] == '\0') {
		fprintf(stderr, "fuzz_k8spb: a refusal left a value or no "
				"reason\n");
		abort();
	}
	return 0;
}
