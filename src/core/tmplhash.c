/* tmplhash.c - pod-template-hash and template equality ignoring it. */
#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "tmplhash.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u

uint32_t
fnv1a32(uint32_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= FNV_PRIME;
	}
	return h;
}

void
tmplhash_compute(const struct pod_template *t,
		 const struct opt_int *collision_count, char out[16])
{
	static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
	struct strbuf sb = STRBUF_INIT;
	uint32_t h;
	char digits[16];
	size_t i;

	schema_dump(&schema_pod_template, t, &sb);
	h = fnv1a32(FNV_OFFSET, sb.buf, sb.len);
	strbuf_release(&sb);
	if (collision_count && collision_count->set) {
		uint32_t c = (uint32_t)collision_count->v;
		unsigned char b[8] = {(unsigned char)c, (unsigned char)(c >> 8),
				      (unsigned char)(c >> 16),
				      (unsigned char)(c >> 24)};

		h = fnv1a32(h, b, sizeof(b));
	}
	snprintf(digits, sizeof(digits), "%u", h);
	for (i = 0; digits[i]; i++)
		out[i] =
		    alphabet[(unsigned char)digits[i] % (sizeof(alphabet) - 1)];
	out[i] = '\0';
}

bool
tmpl_equal_ignore_hash(const struct pod_template *a,
		       const struct pod_template *b)
{
	struct pod_template ca, cb;
	bool r;

	pod_template_copy(&ca, a);
	pod_template_copy(&cb, b);
	strmap_del(&ca.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	strmap_del(&cb.metadata.labels, LABEL_POD_TEMPLATE_HASH);
	r = schema_equal(&schema_pod_template, &ca, &cb);
	pod_template_release(&ca);
	pod_template_release(&cb);
	return r;
}
