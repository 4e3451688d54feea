/* h_log.c - GET pods/NAME/log: a container's log from the files the
 * agent of this host writes (container, previous, tailLines, limitBytes,
 * and drover's offset=N: the bytes from N on, for `drover logs -f`). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_int.h"
#include "podlog.h"
#include "strbuf.h"
#include "xalloc.h"

#define LOG_MAX_ANSWER (8 * 1024 * 1024)

static void
bad(struct api_resp *resp, const char *msg)
{
	resp_status(resp, 400, "BadRequest", msg, NULL, NULL, NULL);
}

void
h_log(struct api *a, struct route *rt, const struct query *q,
      struct api_resp *resp)
{
	struct store_key k = {"pods", rt->ns, rt->name};
	struct store_item it;
	json_t *pod, *cs, *c;
	const char *want = query_get(q, "container");
	const char *prev = query_get(q, "previous");
	const char *tail = query_get(q, "tailLines");
	const char *limit = query_get(q, "limitBytes");
	const char *offset = query_get(q, "offset");
	const char *uid, *name = NULL;
	struct strbuf out = STRBUF_INIT, names = STRBUF_INIT;
	char path[1400], msg[600];
	struct stat st;
	off_t from = 0, size;
	size_t i;
	int fd, r;

	if ((r = store_get(a->cfg.store, &k, &it))) {
		resp_store_error(resp, r, rt->res, rt->name);
		return;
	}
	pod = json_loads(it.value, 0, NULL);
	store_item_release(&it);
	uid = json_string_value(
	    json_object_get(json_object_get(pod, "metadata"), "uid"));
	cs = json_object_get(json_object_get(pod, "spec"), "containers");
	json_array_foreach(cs, i, c)
	{
		const char *n = json_string_value(json_object_get(c, "name"));

		strbuf_addf(&names, "%s%s", i ? " " : "", n);
		if ((want && !strcmp(want, n)) || (!want && i == 0))
			name = n;
	}
	if (name == NULL || (!want && json_array_size(cs) > 1)) {
		snprintf(msg, sizeof(msg),
			 want
			     ? "container %s is not valid for pod %s"
			     : "a container name must be specified for pod %s, "
			       "choose one of: [%s]",
			 want ? want : rt->name, want ? rt->name : names.buf);
		bad(resp, msg);
		goto out;
	}
	if (a->cfg.pod_dir == NULL) {
		resp_status(resp, 404, "NotFound",
			    "pod logs are kept by the agent of the pod's node, "
			    "not on this server",
			    rt->res, rt->name, NULL);
		goto out;
	}
	if (podlog_path(path, sizeof(path), a->cfg.pod_dir, rt->ns, rt->name,
			uid ? uid : "", name, prev && !strcmp(prev, "true")))
		path[0] = '\0'; /* too long: no such file */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(msg, sizeof(msg),
			 prev && !strcmp(prev, "true")
			     ? "previous terminated container \"%s\" in pod "
			       "\"%s\" not found"
			     : "container \"%s\" in pod \"%s\" has no log yet",
			 name, rt->name);
		resp_status(resp, prev ? 400 : 404,
			    prev ? "BadRequest" : "NotFound", msg, rt->res,
			    rt->name, NULL);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	size = st.st_size;
	if (offset)
		from = (off_t)strtoll(offset, NULL, 10);
	if (from < 0 || from > size)
		from = 0; /* rotated or a new run: the file starts again */
	if (size - from > LOG_MAX_ANSWER)
		from = size - LOG_MAX_ANSWER;
	if (limit && size - from > strtoll(limit, NULL, 10))
		size = from + strtoll(limit, NULL, 10);
	if (lseek(fd, from, SEEK_SET) == from) {
		char buf[65536];
		ssize_t n;
		off_t left = size - from;

		while (left > 0 && (n = read(fd, buf,
					     left < (off_t)sizeof(buf)
						 ? (size_t)left
						 : sizeof(buf))) > 0) {
			strbuf_add(&out, buf, (size_t)n);
			left -= n;
		}
	}
	close(fd);
	if (tail) { /* the last N lines */
		long n = strtol(tail, NULL, 10), lines = 0;
		size_t pos = out.len;

		if (pos && out.buf[pos - 1] == '\n')
			pos--;
		while (pos > 0) {
			if (out.buf[pos - 1] == '\n' && ++lines == n)
				break;
			pos--;
		}
		if (n <= 0)
			pos = out.len;
		memmove(out.buf, out.buf + pos, out.len - pos);
		out.len -= pos;
		out.buf[out.len] = '\0';
	}
	resp->status = 200;
	resp->content_type = "text/plain";
	resp->body = strbuf_detach(&out);
	resp->log_end = (int64_t)size; /* where a follower goes on */
out:
	strbuf_release(&out);
	strbuf_release(&names);
	json_decref(pod);
}
