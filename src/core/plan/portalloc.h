/* portalloc.h - the host ports of a node agent: a range it owns, the
 * ports held by its pods, and a quarantine for the ports released
 * recently, so that a port goes to one pod at a time and is not handed
 * out again while the last holder may still be closing it.
 *
 * Pure: time is an argument, and whether something else on the host uses
 * a port is asked of the caller (`busy`, the OS check at the edge).
 * Ports are handed out round-robin through the range, skipping the held,
 * the quarantined and the busy ones (a busy port is quarantined, so that
 * it is not tried again at once).
 *
 * Ownership: a portalloc owns its tables; portalloc_release() frees
 * them. */
#ifndef DROVER_CORE_PORTALLOC_H
#define DROVER_CORE_PORTALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "dtime.h"

/* The documented defaults: Kubernetes' NodePort range, below Linux's
 * default ephemeral range (32768-60999), so that outgoing connections
 * never take these ports; a port released is not reused for a minute. */
#define PORTALLOC_DEFAULT_LO         30000
#define PORTALLOC_DEFAULT_HI         32767
#define PORTALLOC_DEFAULT_QUARANTINE DTIME_SEC(60)

struct portalloc {
	int lo, hi; /* inclusive */
	dtime quarantine;
	int next;            /* where the round-robin goes on */
	unsigned char *held; /* per port of the range: held by a pod */
	dtime *released;     /* per port: when it was last released, or 0 */
	size_t nheld;
};

/* 0, or -1 if the range is not 1 <= lo <= hi <= 65535. */
int portalloc_init(struct portalloc *pa, int lo, int hi, dtime quarantine);
void portalloc_release(struct portalloc *pa);
/* Parses "A-B" into *lo and *hi: 0, or -1 if it is not a valid range. */
int portalloc_parse_range(const char *s, int *lo, int *hi);
/* Marks a port held (a pod's declared hostPort, a port found in a pod's
 * status at start). A port outside the range is not tracked. Returns
 * false if it was held already. */
bool portalloc_hold(struct portalloc *pa, int port);
/* Marks a port released at `now`: not handed out again before
 * now + quarantine. */
void portalloc_put(struct portalloc *pa, int port, dtime now);
/* A port released at `now` without ever being held here (seen in the
 * journal of a previous run): quarantined the same way. */
void portalloc_quarantine(struct portalloc *pa, int port, dtime now);
/* Hands out a port (marked held): the next one after the last handed out
 * that is neither held nor quarantined and that `busy` does not report in
 * use (busy may be NULL). 0 if there is none. */
int portalloc_get(struct portalloc *pa, dtime now,
		  bool (*busy)(void *arg, int port), void *arg);
/* Ports held, and ports free to hand out at `now` (not counting busy). */
size_t portalloc_held(const struct portalloc *pa);
size_t portalloc_available(const struct portalloc *pa, dtime now);

#endif
