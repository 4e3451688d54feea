/* fsx.h - file helpers. */
#ifndef DROVER_SYS_FSX_H
#define DROVER_SYS_FSX_H

#include <stddef.h>

/* Reads a whole file ("-" is stdin) into a NUL-terminated buffer the
 * caller frees. Returns 0, or a negative errno. */
int fsx_read_all(const char *path, char **buf, size_t *len);

/* Writes len bytes to path atomically: to path.tmp with the given mode,
 * synced, then renamed over path. Returns 0, or a negative errno (the
 * temporary file is removed). */
int fsx_write_atomic(const char *path, const void *data, size_t len,
		     unsigned mode);

#endif
