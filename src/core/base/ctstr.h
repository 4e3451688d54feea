/* ctstr.h - string comparison in constant time, for secrets (the API's
 * bearer token): the time taken depends on the lengths of the strings
 * only, never on where they differ. */
#ifndef DROVER_CTSTR_H
#define DROVER_CTSTR_H

#include <stdbool.h>

/* True if the NUL-terminated strings given and secret are equal. Reads
 * max(strlen(given), strlen(secret)) bytes of each (past its end a string
 * reads as NUL bytes) whatever their contents: a client that sends a
 * longer token than the secret learns nothing of its length either. */
bool ct_streq(const char *given, const char *secret);

#endif
