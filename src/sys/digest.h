/* digest.h - SHA-256 and HMAC-SHA-256 (GnuTLS's), as lowercase hex: the
 * hashes of join tokens, the node credentials' signatures, and the CA's
 * public-key hash that a join token carries (tlsca.h).
 *
 * out holds DIGEST_HEX bytes (64 hex digits and a NUL). 0, or -1 if
 * GnuTLS refused (it does not for these algorithms). */
#ifndef DROVER_SYS_DIGEST_H
#define DROVER_SYS_DIGEST_H

#include <stddef.h>

#define DIGEST_HEX 65

int digest_sha256_hex(const void *data, size_t len, char *out);
int digest_hmac_sha256_hex(const void *key, size_t klen, const void *data,
			   size_t len, char *out);

#endif
