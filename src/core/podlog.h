/* podlog.h - where a container's output goes on its node:
 * DIR/<namespace>_<pod>_<uid>_<container>.log, and the run before a
 * restart in DIR/<namespace>_<pod>_<uid>_<container>.previous.log. One
 * flat directory, a file per container and no directory per pod:
 * creating inodes is the slowest part of starting a pod. None of the
 * parts can hold '_' (DNS labels and a UUID), so a name maps back to its
 * pod. The agent writes these files and the API's pods/log reads them. */
#ifndef DROVER_PODLOG_H
#define DROVER_PODLOG_H

#include <stdbool.h>
#include <stddef.h>

/* 0, or -1 if the path does not fit in len. */
int podlog_path(char *buf, size_t len, const char *dir, const char *ns,
		const char *pod, const char *uid, const char *container,
		bool previous);

#endif
