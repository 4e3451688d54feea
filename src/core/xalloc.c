/* xalloc.c - allocation wrappers that abort on out-of-memory. */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

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

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		abort();
	return q;
}

char *
xstrdup(const char *s)
{
	if (s == NULL)
		return NULL;
	return xstrndup(s, strlen(s));
}

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
