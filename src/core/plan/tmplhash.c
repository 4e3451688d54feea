/* tmplhash.c - pod-template-hash and template equality ignoring it.
 *
 * Kubernetes' controller.ComputeHash (pkg/controller/controller_utils.go):
 *
 *   h = FNV-1a-32(DeepHashObject(template))
 *   if collisionCount != nil: h = FNV-1a-32 continued over 8 bytes,
 *       the little-endian uint32 collisionCount then 4 zero bytes
 *   return rand.SafeEncodeString(fmt.Sprint(h))
 *
 * drover follows it step for step except for the first input: Kubernetes
 * hashes a spew dump of the Go struct, drover the canonical dump of
 * schema_dump(). The same template therefore gets a different hash in
 * drover than in a real cluster; what the controller needs, and what
 * holds, is that equal templates (per schema_equal, apart from the NULL
 * vs "" string case noted in schema.c) hash the same on every host and
 * every run, and that a collision count changes the hash. */
#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "tmplhash.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME  16777619u

/* FNV-1a, 32 bits: for each byte, xor then multiply by 16777619, from
 * the offset basis 2166136261 (pass FNV_OFFSET as h to start, a previous
 * result to continue: fnv1a32(fnv1a32(o, a, n), b, m) equals the hash of
 * a followed by b). hash/fnv's New32a in Go. */
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

uint64_t
fnv1a64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* out receives at most 10 characters plus the NUL: the decimal digits of
 * a uint32 (at most 4294967295), each mapped through SafeEncodeString,
 * which indexes the 27-letter alphabet with the byte value modulo 27.
 * Only ten letters can come out, one per digit:
 *
 *   digit  0 1 2 3 4 5 6 7 8 9
 *   char   4 5 6 7 8 9 b c d f
 *
 * ('0' is byte 48, 48 % 27 = 21, alphabet[21] = '4'.) Example: the
 * README's RS web-f4d48c756 has hash "f4d48c756", i.e. h = 908047312.
 * The result is what the RS name and the pod-template-hash label carry
 * (plan_deploy.c). A set collisionCount of 0 still changes the hash
 * (Kubernetes hashes the 8 bytes whenever the pointer is non-nil). */
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

/* EqualIgnoreHash (deployment_util.go): the templates are equal once the
 * pod-template-hash label is removed from both; this is how the new RS
 * is recognized, and why a Deployment whose template goes back to an
 * old one reuses that old RS. Works on copies, so the inputs stay
 * untouched; the label is deleted, not blanked, so a template that never
 * had it equals one that has it. */
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
