/* xalloc.c - allocation wrappers that abort on out-of-memory. */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* A request of 0 bytes asks for 1: malloc(0) may return NULL, which
 * would read as out-of-memory here, and callers size arrays as n + 1 or
 * n without checking n for 0. */
void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

/* As with xmalloc, 0 becomes 1: realloc(p, 0) may free p and return
 * NULL, which would abort here as if memory had run out. */
void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		abort();
	return q;
}

/* NULL in, NULL out: the model's optional strings are NULL when
 * absent, and copying an object copies that absence. */
char *
xstrdup(const char *s)
{
	if (s == NULL)
		return NULL;
	return xstrndup(s, strlen(s));
}

/* Exactly n bytes and a NUL; s need not be NUL-terminated within them
 * (read_word in labels.c hands it a slice of a longer string). */
char *
xstrndup(const char *s, size_t n)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}
