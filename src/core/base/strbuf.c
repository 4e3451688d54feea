/* strbuf.c - growable string; see strbuf.h for the invariants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

/* The "" every empty strbuf points at, so that buf is never NULL. It is
 * never written: grow() allocates before the first byte goes in, and
 * strbuf_reset writes only into an allocated buffer. */
char strbuf_empty_[1];

void
strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void
strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

/* The caller owns the result and frees it. An empty strbuf gives a
 * fresh "" (never strbuf_empty_, which must not be freed); sb is left
 * empty and usable. */
char *
strbuf_detach(struct strbuf *sb)
{
	char *r = sb->alloc ? sb->buf : xstrdup("");

	strbuf_init(sb);
	return r;
}

/* Room for extra more bytes and the NUL. Capacity starts at 32 and
 * doubles: 33 bytes of text (34 with the NUL) get 64. buf is set to
 * NULL before the first realloc because it pointed at strbuf_empty_,
 * which realloc must never see. */
static void
grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc)
		return;
	if (sb->alloc == 0) {
		sb->buf = NULL;
	}
	sb->alloc = sb->alloc ? sb->alloc : 32;
	while (sb->alloc < need)
		sb->alloc *= 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	/* Two passes: measure on a copy of ap, then format into the room
	 * made for it. A format error (n < 0) appends nothing. */
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* Escapes what JSON requires and nothing more: the quote, the
 * backslash, and control characters (\n, \t and \r by name, the others
 * as \u00XX). Bytes from 0x80 up pass through, so UTF-8 stays UTF-8.
 * Example: a"b, a newline, then byte 0x01 give "a\"b\n\u0001". For
 * printable ASCII this is also Go's %q, which the validation relies on. */
void
strbuf_addjsonstr(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(sb, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}
