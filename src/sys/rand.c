/* rand.c - getrandom(2). */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "rand.h"

void
rand_bytes(unsigned char *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = getrandom(buf + off, n - off, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			abort();
		}
		off += (size_t)r;
	}
}

void
rand_hex(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[64];
	size_t i;

	if (n > sizeof(b))
		n = sizeof(b);
	rand_bytes(b, n);
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[2 * n] = '\0';
}
