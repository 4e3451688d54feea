/* fsx.c - file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsx.h"
#include "xalloc.h"

int
fsx_read_all(const char *path, char **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t n = 0, alloc = 4096;
	char *b;

	if (fd < 0)
		return -errno;
	b = xmalloc(alloc);
	for (;;) {
		ssize_t r;

		if (n + 1 >= alloc) {
			alloc *= 2;
			b = xrealloc(b, alloc);
		}
		r = read(fd, b + n, alloc - n - 1);
		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(b);
			if (fd)
				close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd)
		close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
