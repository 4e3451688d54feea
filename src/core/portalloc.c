/* portalloc.c - host port allocation from an owned range (see
 * portalloc.h). */
#include <stdlib.h>

#include "portalloc.h"
#include "xalloc.h"

int
portalloc_init(struct portalloc *pa, int lo, int hi, dtime quarantine)
{
	size_t n;

	if (lo < 1 || hi > 65535 || lo > hi)
		return -1;
	n = (size_t)(hi - lo + 1);
	pa->lo = lo;
	pa->hi = hi;
	pa->quarantine = quarantine;
	pa->next = lo;
	pa->held = xcalloc(n, 1);
	pa->released = xcalloc(n, sizeof(*pa->released));
	pa->nheld = 0;
	return 0;
}

void
portalloc_release(struct portalloc *pa)
{
	free(pa->held);
	free(pa->released);
	pa->held = NULL;
	pa->released = NULL;
	pa->nheld = 0;
}

int
portalloc_parse_range(const char *s, int *lo, int *hi)
{
	char *end;
	long a, b;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtol(s, &end, 10);
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end != '\0' || a < 1 || b > 65535 || a > b)
		return -1;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
}

static bool
in_range(const struct portalloc *pa, int port)
{
	return pa->held && port >= pa->lo && port <= pa->hi;
}

bool
portalloc_hold(struct portalloc *pa, int port)
{
	if (!in_range(pa, port))
		return true;
	if (pa->held[port - pa->lo])
		return false;
	pa->held[port - pa->lo] = 1;
	pa->nheld++;
	return true;
}

void
portalloc_put(struct portalloc *pa, int port, dtime now)
{
	if (!in_range(pa, port))
		return;
	if (pa->held[port - pa->lo]) {
		pa->held[port - pa->lo] = 0;
		pa->nheld--;
	}
	pa->released[port - pa->lo] = now;
}

void
portalloc_quarantine(struct portalloc *pa, int port, dtime now)
{
	if (in_range(pa, port) && !pa->held[port - pa->lo])
		pa->released[port - pa->lo] = now;
}

static bool
usable(const struct portalloc *pa, int port, dtime now)
{
	size_t i = (size_t)(port - pa->lo);

	return !pa->held[i] && (pa->released[i] == 0 ||
				now - pa->released[i] >= pa->quarantine);
}

int
portalloc_get(struct portalloc *pa, dtime now,
	      bool (*busy)(void *arg, int port), void *arg)
{
	int n = pa->hi - pa->lo + 1, i, port;

	if (pa->held == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		port = pa->next;
		pa->next = port == pa->hi ? pa->lo : port + 1;
		if (!usable(pa, port, now))
			continue;
		if (busy && busy(arg, port)) {
			/* someone else's: not tried again for a while */
			pa->released[port - pa->lo] = now;
			continue;
		}
		pa->held[port - pa->lo] = 1;
		pa->nheld++;
		return port;
	}
	return 0;
}

size_t
portalloc_held(const struct portalloc *pa)
{
	return pa->nheld;
}

size_t
portalloc_available(const struct portalloc *pa, dtime now)
{
	size_t n = 0;
	int port;

	for (port = pa->lo; pa->held && port <= pa->hi; port++)
		if (usable(pa, port, now))
			n++;
	return n;
}
