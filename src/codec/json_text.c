/* json_text.c - model structs straight to JSON text (json_text.h).
 *
 * Each member is written tentatively, its key first; when its value
 * turns out to be absent (an omitted empty value, a NULL, a string that
 * is not UTF-8) the text goes back to where the member began, which is
 * how jansson leaves out a member whose value it could not make. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtime.h"
#include "intstr.h"
#include "json_text.h"
#include "strmap.h"

#define CAT(obj, f) ((const char *)(obj) + (f)->off)

/* The length of the UTF-8 sequence that begins with byte c, 0 if none
 * may (jansson's utf8_check_first: no continuation byte, no overlong
 * two-byte lead, nothing past U+10FFFF). */
static int
utf8_len(unsigned char c)
{
	return c < 0x80   ? 1
	       : c < 0xC2 ? 0
	       : c < 0xE0 ? 2
	       : c < 0xF0 ? 3
	       : c < 0xF5 ? 4
			  : 0;
}

/* Whether the n bytes at s are one UTF-8 character as jansson accepts
 * it (utf8_check_full: no overlong form, no surrogate, not past
 * U+10FFFF). */
static bool
utf8_char_ok(const unsigned char *s, int n)
{
	uint32_t v = s[0] & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
	int i;

	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return false;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return false;
	return !((n == 2 && v < 0x80) || (n == 3 && v < 0x800) ||
		 (n == 4 && v < 0x10000));
}

/* Appends s as jansson prints a string; false (nothing appended) if s
 * is not valid UTF-8. */
static bool
add_string(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run = s;
	size_t at = sb->len;
	char esc[8];

	strbuf_addch(sb, '"');
	while (*s) {
		unsigned char c = *s;
		const char *e = NULL;
		int n;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_len(c);
			if (n == 0 || !utf8_char_ok(s, n)) {
				sb->len = at;
				sb->buf[at] = '\0';
				return false;
			}
			s += n;
			continue;
		}
		strbuf_add(sb, run, (size_t)(s - run));
		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04X", c);
			e = esc;
		}
		strbuf_addstr(sb, e);
		run = ++s;
	}
	strbuf_add(sb, run, (size_t)(s - run));
	strbuf_addch(sb, '"');
	return true;
}

static void
add_int(struct strbuf *sb, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof(b), "%lld", (long long)v);

	strbuf_add(sb, b, (size_t)n);
}

/* A value jansson holds as text of its own (FT_RAW): parsed and printed
 * by jansson, as codec_encode does. */
static bool
add_raw(struct strbuf *sb, const char *raw)
{
	json_t *v = json_loads(raw, JSON_DECODE_ANY, NULL);
	char *s;

	if (v == NULL)
		return false;
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(v);
	if (s == NULL)
		return false;
	strbuf_addstr(sb, s);
	free(s);
	return true;
}

static void encode_struct(const struct schema *s, const void *obj,
			  const char *skip, struct strbuf *sb);

/* Appends f's value at p; false (nothing appended) if jansson would
 * leave the member out. */
static bool
encode_value(const struct field *f, const void *p, struct strbuf *sb)
{
	bool omit = f->flags & FF_OMITEMPTY;
	size_t i, at;
	char tb[40];

	switch (f->type) {
	case FT_STR: {
		const char *s = *(char *const *)p;

		return s && !(omit && !*s) && add_string(sb, s);
	}
	case FT_RAW: {
		const char *s = *(char *const *)p;

		return s && add_raw(sb, s);
	}
	case FT_INT: {
		int64_t v = *(const int64_t *)p;

		if (v == 0 && omit)
			return false;
		add_int(sb, v);
		return true;
	}
	case FT_OPTINT: {
		const struct opt_int *o = p;

		if (o->set)
			add_int(sb, o->v);
		return o->set;
	}
	case FT_BOOL: {
		bool v = *(const bool *)p;

		if (!v && omit)
			return false;
		strbuf_addstr(sb, v ? "true" : "false");
		return true;
	}
	case FT_OPTBOOL: {
		const struct opt_bool *o = p;

		if (o->set)
			strbuf_addstr(sb, o->v ? "true" : "false");
		return o->set;
	}
	case FT_TIME: {
		dtime t = *(const dtime *)p;

		if (t == DTIME_UNSET) {
			if (f->flags & FF_NULLTIME)
				strbuf_addstr(sb, "null");
			return f->flags & FF_NULLTIME;
		}
		if (f->flags & FF_MICROTIME)
			dtime_format_micro(t, tb);
		else
			dtime_format(t, tb);
		return add_string(sb, tb);
	}
	case FT_INTSTR: {
		const struct intstr *v = p;

		if (v->type == INTSTR_INT) {
			add_int(sb, v->ival);
			return true;
		}
		return v->type == INTSTR_STRING && v->sval &&
		       add_string(sb, v->sval);
	}
	case FT_STRMAP: {
		const struct strmap *m = p;

		if (m->n == 0 && omit)
			return false;
		strbuf_addch(sb, '{');
		for (i = 0; i < m->n; i++) {
			at = sb->len;
			if (at > 0 && sb->buf[at - 1] != '{')
				strbuf_addch(sb, ',');
			if (add_string(sb, m->v[i].key)) {
				strbuf_addch(sb, ':');
				if (add_string(sb, m->v[i].value))
					continue;
			}
			sb->len = at; /* jansson leaves the member out */
			sb->buf[at] = '\0';
		}
		strbuf_addch(sb, '}');
		return true;
	}
	case FT_STRLIST: {
		const struct strlist *l = p;

		if (l->n == 0 && omit)
			return false;
		strbuf_addch(sb, '[');
		for (i = 0; i < l->n; i++) {
			at = sb->len;
			if (sb->buf[at - 1] != '[')
				strbuf_addch(sb, ',');
			if (!add_string(sb, l->v[i])) {
				sb->len = at;
				sb->buf[at] = '\0';
			}
		}
		strbuf_addch(sb, ']');
		return true;
	}
	case FT_INTLIST: {
		const struct intlist *l = p;

		if (l->n == 0 && omit)
			return false;
		strbuf_addch(sb, '[');
		for (i = 0; i < l->n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			add_int(sb, l->v[i]);
		}
		strbuf_addch(sb, ']');
		return true;
	}
	case FT_STRUCT:
		if (omit && schema_is_empty(f->sub, p))
			return false;
		encode_struct(f->sub, p, NULL, sb);
		return true;
	case FT_PTR: {
		const void *s = *(void *const *)p;

		if (s)
			encode_struct(f->sub, s, NULL, sb);
		return s != NULL;
	}
	case FT_LIST: {
		const struct anylist *l = p;

		if (l->n == 0 && omit)
			return false;
		strbuf_addch(sb, '[');
		for (i = 0; i < l->n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			encode_struct(f->sub,
				      (const char *)l->v + i * f->sub->size,
				      NULL, sb);
		}
		strbuf_addch(sb, ']');
		return true;
	}
	}
	return false;
}

/* Appends one member, "name":value, after a ',' unless it is the first;
 * nothing if the value is absent. */
static void
encode_member(const struct field *f, const void *obj, struct strbuf *sb)
{
	size_t at = sb->len;

	if (sb->buf[at - 1] != '{')
		strbuf_addch(sb, ',');
	strbuf_addch(sb, '"');
	strbuf_addstr(sb, f->json); /* the tables' names need no escape */
	strbuf_addstr(sb, "\":");
	if (!encode_value(f, CAT(obj, f), sb)) {
		sb->len = at;
		sb->buf[at] = '\0';
	}
}

/* Appends obj as an object; skip names a member left out (NULL: none). */
static void
encode_struct(const struct schema *s, const void *obj, const char *skip,
	      struct strbuf *sb)
{
	size_t i;

	strbuf_addch(sb, '{');
	for (i = 0; i < s->nfields; i++)
		if (skip == NULL || strcmp(s->fields[i].json, skip))
			encode_member(&s->fields[i], obj, sb);
	strbuf_addch(sb, '}');
}

void
codec_encode_text(const struct schema *s, const void *obj, struct strbuf *sb)
{
	encode_struct(s, obj, NULL, sb);
}

void
object_encode_text(const struct object *o, bool no_rv, struct strbuf *sb)
{
	const struct schema *s = o->k->schema;
	size_t i;

	strbuf_addstr(sb, "{\"apiVersion\":");
	add_string(sb, o->k->api_version);
	strbuf_addstr(sb, ",\"kind\":");
	add_string(sb, o->k->kind);
	for (i = 0; i < s->nfields; i++) {
		const struct field *f = &s->fields[i];
		size_t at = sb->len;

		if (!strcmp(f->json, "apiVersion") || !strcmp(f->json, "kind"))
			continue;
		if (no_rv && f->type == FT_STRUCT &&
		    f->sub == &schema_object_meta) {
			strbuf_addf(sb, ",\"%s\":", f->json);
			if (f->flags & FF_OMITEMPTY &&
			    schema_is_empty(f->sub, CAT(o->obj, f))) {
				sb->len = at;
				sb->buf[at] = '\0';
			} else {
				encode_struct(f->sub, CAT(o->obj, f),
					      "resourceVersion", sb);
			}
			continue;
		}
		encode_member(f, o->obj, sb);
	}
	strbuf_addch(sb, '}');
}
