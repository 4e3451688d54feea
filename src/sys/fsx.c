/* fsx.c - file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

int
fsx_write_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	size_t n = strlen(path) + 5;
	char *tmp = xmalloc(n);
	int fd, e;

	snprintf(tmp, n, "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
	if (fd < 0)
		goto bad;
	if (fchmod(fd, (mode_t)mode) || write(fd, data, len) != (ssize_t)len ||
	    fsync(fd)) {
		e = errno;
		close(fd);
		errno = e;
		goto bad_unlink;
	}
	close(fd);
	if (rename(tmp, path) == 0) {
		free(tmp);
		return 0;
	}
bad_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
bad:
	e = errno;
	free(tmp);
	return -(e ? e : EIO);
}
