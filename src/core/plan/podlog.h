/* podlog.h - where a container's output goes on its node:
 * DIR/<namespace>_<pod>_<uid>_<container>.log, and the run before a
 * restart in DIR/<namespace>_<pod>_<uid>_<container>.previous.log. One
 * flat directory, a file per container and no directory per pod:
 * creating inodes is the slowest part of starting a pod. None of the
 * parts can hold '_' (DNS labels and a UUID), so a name maps back to its
 * pod. The agent writes these files and serves them (the kubelet's
 * /containerLogs); the API's pods/log reaches it through podlog_read_fn,
 * never the files. */
#ifndef DROVER_PODLOG_H
#define DROVER_PODLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* 0, or -1 if the path does not fit in len. */
int podlog_path(char *buf, size_t len, const char *dir, const char *ns,
		const char *pod, const char *uid, const char *container,
		bool previous);

/* A request for a container's log, as the kubelet's /containerLogs takes
 * it (the API has checked the pod and the container's name). */
struct podlog_req {
	const char *ns, *pod, *uid, *container;
	bool previous;  /* the run before the last restart */
	int64_t offset; /* drover's offset=N: the bytes from N on; 0 */
	int64_t limit;  /* limitBytes; -1: none */
	int64_t tail;   /* tailLines; -1: every line */
};

/* How a node's agent answers one: 0 with the text appended to out and
 * *end the offset a follower goes on from (`drover logs -f`), or an HTTP
 * status with a message in msg (404: no log yet; 400: no previous run). */
typedef int (*podlog_read_fn)(void *arg, const struct podlog_req *rq,
			      struct strbuf *out, int64_t *end, char *msg,
			      size_t msglen);

#endif
