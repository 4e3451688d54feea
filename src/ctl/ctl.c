/* ctl.c - starts and stops the controllers together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "xalloc.h"

struct controllers {
	struct ctl_deploy *deploy;
	struct ctl_rs *rs;
	struct ctl_gc *gc;
	struct ctl_sched *sched;
};

void
ctl_key(char *buf, size_t len, const char *ns, const char *name)
{
	snprintf(buf, len, "%s/%s", ns ? ns : "", name ? name : "");
}

int
ctl_split_key(const char *key, char *ns, size_t nslen, char *name,
	      size_t namelen)
{
	const char *slash = strchr(key, '/');

	if (slash == NULL)
		return -1;
	snprintf(ns, nslen, "%.*s", (int)(slash - key), key);
	snprintf(name, namelen, "%s", slash + 1);
	return 0;
}

struct controllers *
ctl_start(const struct ctl_config *cfg)
{
	struct controllers *c = xcalloc(1, sizeof(*c));

	c->deploy = ctl_deploy_start(cfg);
	c->rs = ctl_rs_start(cfg);
	c->gc = ctl_gc_start(cfg);
	c->sched = ctl_sched_start(cfg);
	if (!c->deploy || !c->rs || !c->gc || !c->sched) {
		ctl_stop(c);
		return NULL;
	}
	return c;
}

void
ctl_stop(struct controllers *c)
{
	if (c == NULL)
		return;
	ctl_deploy_stop(c->deploy);
	ctl_rs_stop(c->rs);
	ctl_gc_stop(c->gc);
	ctl_sched_stop(c->sched);
	free(c);
}
