/* portalloc.c - host port allocation from an owned range (see
 * portalloc.h).
 *
 * Layout: two arrays indexed by port - lo, one byte "held" and one dtime
 * "released at" per port of the range; the default range 30000-32767
 * costs 2768 * 9 bytes, about 25 KB. A port is in one of three states:
 *
 *   held          held[i] = 1                   (some pod has it)
 *   quarantined   held[i] = 0, now - released[i] < quarantine
 *   free          held[i] = 0, released[i] = 0 or old enough
 *
 * Worked example, range 30000-30002, quarantine 60 s:
 *   get at t=0   -> 30000 (next = 30001)
 *   get at t=0   -> 30001 (next = 30002)
 *   put 30000 at t=10
 *   get at t=20  -> 30002 (next = 30000)
 *   get at t=30  -> 0: 30000 is quarantined until t=70, 30001 and 30002
 *                   are held
 *   get at t=70  -> 30000 (70 - 10 >= 60)
 * (t in seconds.) Round-robin rather than lowest-free spreads reuse over
 * the range: a port given up is picked again only when the cursor comes
 * back round to it, usually long after its quarantine, which protects
 * clients still talking to the old holder. */
#include <stdlib.h>

#include "portalloc.h"
#include "xalloc.h"

/* pa needs no prior initialization; on -1 it is left untouched and must
 * not be released. */
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

/* After release the allocator hands out nothing (held == NULL is the
 * "not initialized" state every function checks). */
void
portalloc_release(struct portalloc *pa)
{
	free(pa->held);
	free(pa->released);
	pa->held = NULL;
	pa->released = NULL;
	pa->nheld = 0;
}

/* Strictly "A-B", digits only: "30000-32767" yes; " 1-2", "1-", "-5",
 * "1-2x", "5-1", "0-10" no. strtol alone would accept leading spaces
 * and signs, hence the digit checks first. */
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

/* Ports outside the range are not ours: declared hostPorts there are the
 * user's business and are neither tracked nor refused. */
static bool
in_range(const struct portalloc *pa, int port)
{
	return pa->held && port >= pa->lo && port <= pa->hi;
}

/* Holding does not look at the quarantine: a pod that declares a
 * hostPort, or a pod re-adopted at start, has it regardless. */
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

/* Releasing a port that was not held still starts its quarantine, so a
 * double put is harmless. */
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

/* Neither held nor quarantined. released 0 means "never released" (dtime
 * 0 is no real time). */
static bool
usable(const struct portalloc *pa, int port, dtime now)
{
	size_t i = (size_t)(port - pa->lo);

	return !pa->held[i] && (pa->released[i] == 0 ||
				now - pa->released[i] >= pa->quarantine);
}

/* Tries each port of the range at most once, starting at next; next
 * always moves past a port tried, so successive calls walk the range
 * instead of hammering the same busy port. A busy port (another program
 * has it) is quarantined as if released now: it is skipped for the
 * quarantine and asked about again after. O(range) in the worst case. */
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

/* A scan of the range, for status and metrics, not the hot path. */
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
