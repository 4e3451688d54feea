/* logs.c - a container's log from its file (see logs.h).
 *
 * offset=N (drover logs -f) gives the bytes from N on; an offset past the
 * end means the file started again (rotated, or a new run) and gives it
 * from the start. At most LOGS_MAX_ANSWER bytes, the end of the log;
 * then limitBytes, then tailLines (the last N lines of what was read),
 * as the kubelet applies them. Example: a 100-byte log of 10 lines, with
 * offset 0, limitBytes 50 and tailLines 2, answers lines 4 and 5 (the
 * last two of its first 50 bytes) and says a follower goes on at 50. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logs.h"

/* Keeps the last n lines of out (all of them if n < 0). */
static void
keep_tail(struct strbuf *out, int64_t n)
{
	size_t pos = out->len;
	int64_t lines = 0;

	if (n < 0)
		return;
	if (pos && out->buf[pos - 1] == '\n')
		pos--;
	while (pos > 0) {
		if (out->buf[pos - 1] == '\n' && ++lines == n)
			break;
		pos--;
	}
	if (n == 0)
		pos = out->len;
	memmove(out->buf, out->buf + pos, out->len - pos);
	out->len -= pos;
	out->buf[out->len] = '\0';
}

int
logs_read(void *dir, const struct podlog_req *rq, struct strbuf *out,
	  int64_t *end, char *msg, size_t msglen)
{
	char path[1400];
	struct stat st;
	off_t from = rq->offset, size;
	int fd;

	if (podlog_path(path, sizeof(path), dir, rq->ns, rq->pod,
			rq->uid ? rq->uid : "", rq->container, rq->previous))
		path[0] = '\0'; /* too long: no such file */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(msg, msglen,
			 rq->previous ? "previous terminated container \"%s\" "
					"in pod \"%s\" not found"
				      : "container \"%s\" in pod \"%s\" has no "
					"log yet",
			 rq->container, rq->pod);
		if (fd >= 0)
			close(fd);
		return rq->previous ? 400 : 404;
	}
	size = st.st_size;
	if (from < 0 || from > size)
		from = 0; /* rotated or a new run: the file starts again */
	if (size - from > LOGS_MAX_ANSWER)
		from = size - LOGS_MAX_ANSWER;
	if (rq->limit >= 0 && size - from > rq->limit)
		size = from + rq->limit;
	if (lseek(fd, from, SEEK_SET) == from) {
		char buf[65536];
		ssize_t n;
		off_t left = size - from;

		while (left > 0 && (n = read(fd, buf,
					     left < (off_t)sizeof(buf)
						 ? (size_t)left
						 : sizeof(buf))) > 0) {
			strbuf_add(out, buf, (size_t)n);
			left -= n;
		}
	}
	close(fd);
	keep_tail(out, rq->tail);
	*end = (int64_t)size;
	return 0;
}
