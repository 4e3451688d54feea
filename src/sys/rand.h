/* rand.h - random bytes from the kernel (uids, generated names, tokens). */
#ifndef DROVER_SYS_RAND_H
#define DROVER_SYS_RAND_H

#include <stddef.h>

/* Fills buf with n random bytes; aborts if the kernel cannot (it always
 * can on Linux >= 3.17 once booted). */
void rand_bytes(unsigned char *buf, size_t n);
/* A hex token of 2*n characters into out (2*n+1 bytes). */
void rand_hex(char *out, size_t n);

#endif
