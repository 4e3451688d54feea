/* xalloc.h - the one allocation seam of drover: abort on out-of-memory.
 *
 * drover treats OOM as fatal (like tmux, git and h2o): a daemon restart
 * re-adopts its pods, so there is nothing to gain from unwinding. Every
 * function here returns memory owned by the caller, to be released with
 * free(). */
#ifndef DROVER_XALLOC_H
#define DROVER_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s); /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);

/* qsort that accepts an empty (even NULL) array, which qsort does not. */
#include <stdlib.h>
static inline void
xqsort(void *base, size_t n, size_t size,
       int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* Grow an array so that it holds at least `need` elements, doubling. */
#define ALLOC_GROW(arr, need, alloc)                                           \
	do {                                                                   \
		if ((need) > (alloc)) {                                        \
			(alloc) = (alloc) ? (alloc)*2 : 8;                     \
			if ((alloc) < (need))                                  \
				(alloc) = (need);                              \
			(arr) = xrealloc((arr), (alloc) * sizeof(*(arr)));     \
		}                                                              \
	} while (0)

#endif
