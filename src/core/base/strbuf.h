/* strbuf.h - growable string (git's strbuf invariants).
 *
 * Invariants: buf is never NULL and is always NUL-terminated; len is the
 * string length. A strbuf owns its buffer; strbuf_detach() hands the buffer
 * to the caller (who frees it) and leaves the strbuf empty. */
#ifndef DROVER_STRBUF_H
#define DROVER_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT                                                            \
	{                                                                      \
		.buf = strbuf_empty_, .len = 0, .alloc = 0                     \
	}
extern char strbuf_empty_[];

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Appends s as a JSON string literal (quotes and escapes). */
void strbuf_addjsonstr(struct strbuf *sb, const char *s);

#endif
