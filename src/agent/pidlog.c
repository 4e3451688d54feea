/* pidlog.c - the journal of started processes (see pidlog.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pidlog.h"
#include "strbuf.h"
#include "xalloc.h"

struct pidlog {
	char *path;
	int fd;
	uint64_t size;
};

struct pidlog *
pidlog_open(const char *dir)
{
	struct pidlog *l = xcalloc(1, sizeof(*l));
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/pids", dir);
	l->path = strbuf_detach(&sb);
	l->fd = open(l->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (l->fd < 0) {
		free(l->path);
		free(l);
		return NULL;
	}
	return l;
}

void
pidlog_close(struct pidlog *l)
{
	if (l == NULL)
		return;
	close(l->fd);
	free(l->path);
	free(l);
}

static void
append(struct pidlog *l, const char *line, size_t n)
{
	if (write(l->fd, line, n) == (ssize_t)n)
		l->size += n;
}

void
pidlog_started(struct pidlog *l, const char *uid, const char *container,
	       int pid, uint64_t ticks, const char *ports)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "+ %s %s %d %llu%s%s\n", uid,
			 container, pid, (unsigned long long)ticks,
			 ports && *ports ? " " : "", ports ? ports : "");

	if (n > 0 && (size_t)n < sizeof(line))
		append(l, line, (size_t)n);
}

void
pidlog_exited(struct pidlog *l, const char *uid, const char *container)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "- %s %s\n", uid, container);

	if (n > 0 && (size_t)n < sizeof(line))
		append(l, line, (size_t)n);
}

uint64_t
pidlog_size(const struct pidlog *l)
{
	return l->size;
}

struct entry {
	char *uid, *container;
	int pid;
	uint64_t ticks;
};

struct table {
	struct entry *v;
	size_t n, alloc;
};

static struct entry *
lookup(struct table *t, const char *uid, const char *container)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].uid, uid) &&
		    !strcmp(t->v[i].container, container))
			return &t->v[i];
	return NULL;
}

/* One line of the journal into the table; anything malformed (a torn
 * last line) is skipped. */
static void
apply(struct table *t, char *line)
{
	char uid[256], container[256];
	unsigned long long ticks;
	struct entry *e;
	int pid;

	if (sscanf(line, "+ %255s %255s %d %llu", uid, container, &pid,
		   &ticks) == 4) {
		if ((e = lookup(t, uid, container)) == NULL) {
			ALLOC_GROW(t->v, t->n + 1, t->alloc);
			e = &t->v[t->n++];
			e->uid = xstrdup(uid);
			e->container = xstrdup(container);
		}
		e->pid = pid;
		e->ticks = ticks;
	} else if (sscanf(line, "- %255s %255s", uid, container) == 2 &&
		   (e = lookup(t, uid, container)) != NULL) {
		free(e->uid);
		free(e->container);
		*e = t->v[--t->n];
	}
}

int
pidlog_running(const char *dir, pidlog_cb cb, void *arg)
{
	struct table t = {0};
	char path[1100], *line = NULL;
	size_t cap = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pids", dir);
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? 0 : -1;
	while (getline(&line, &cap, f) > 0)
		if (strchr(line, '\n')) /* a torn last line has none */
			apply(&t, line);
	free(line);
	fclose(f);
	for (i = 0; i < t.n; i++) {
		cb(arg, t.v[i].uid, t.v[i].container, t.v[i].pid, t.v[i].ticks);
		free(t.v[i].uid);
		free(t.v[i].container);
	}
	free(t.v);
	return 0;
}

int
pidlog_ports(const char *dir, void (*cb)(void *arg, int port), void *arg)
{
	char path[1100], *line = NULL, ports[512], *p, *end;
	size_t cap = 0;
	unsigned long long ticks;
	int pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pids", dir);
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? 0 : -1;
	while (getline(&line, &cap, f) > 0) {
		if (strchr(line, '\n') == NULL ||
		    sscanf(line, "+ %*s %*s %d %llu %511s", &pid, &ticks,
			   ports) != 3)
			continue;
		for (p = ports; *p; p = *end ? end + 1 : end) {
			long v = strtol(p, &end, 10);

			if (end == p || (*end && *end != ','))
				break;
			if (v > 0 && v <= 65535)
				cb(arg, (int)v);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

struct rewrite {
	struct pidlog *l;
	FILE *f;
};

static void
write_entry(void *arg, const char *uid, const char *container, int pid,
	    uint64_t ticks, const char *ports)
{
	struct rewrite *w = arg;

	fprintf(w->f, "+ %s %s %d %llu%s%s\n", uid, container, pid,
		(unsigned long long)ticks, ports && *ports ? " " : "",
		ports ? ports : "");
}

int
pidlog_compact(struct pidlog *l,
	       void (*each)(void *arg, pidlog_entry_cb cb, void *cb_arg),
	       void *arg)
{
	char tmp[1200];
	struct rewrite w = {l, NULL};
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", l->path);
	w.f = fopen(tmp, "we");
	if (w.f == NULL)
		return -1;
	each(arg, write_entry, &w);
	if (fclose(w.f) != 0 || rename(tmp, l->path) != 0) {
		unlink(tmp);
		return -1;
	}
	fd = open(l->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(l->fd);
	l->fd = fd;
	l->size = 0;
	return 0;
}
