/* podlog.c - the path of a container's log (see podlog.h). */
#include <stdio.h>

#include "podlog.h"

/* The uid is part of the name so that a pod deleted and re-created
 * under its name never appends to its predecessor's log. Example:
 * DIR/default_web-x2k9p_<uid>_web.log, and ..._web.previous.log for the
 * run before the last restart. -1 if it does not fit in buf. */
int
podlog_path(char *buf, size_t len, const char *dir, const char *ns,
	    const char *pod, const char *uid, const char *container,
	    bool previous)
{
	int n = snprintf(buf, len, "%s/%s_%s_%s_%s%s.log", dir, ns, pod, uid,
			 container, previous ? ".previous" : "");

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
