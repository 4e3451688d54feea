/* digest.c - SHA-256 and HMAC-SHA-256 as hex, over GnuTLS (digest.h). */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "digest.h"

static void
to_hex(const unsigned char *b, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int
digest_sha256_hex(const void *data, size_t len, char *out)
{
	unsigned char md[32];

	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, md) < 0)
		return -1;
	to_hex(md, sizeof(md), out);
	return 0;
}

int
digest_hmac_sha256_hex(const void *key, size_t klen, const void *data,
		       size_t len, char *out)
{
	unsigned char md[32];

	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, key, klen, data, len, md) < 0)
		return -1;
	to_hex(md, sizeof(md), out);
	return 0;
}
