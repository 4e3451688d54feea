/* manifest.c - libyaml event stream -> jansson trees (YAML 1.2 core schema). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "xalloc.h"
#include "manifest.h"

/* An anchored node. value is NULL while the node is being parsed: an alias
 * to it then would make a cycle, which JSON cannot hold. */
struct anchor {
	char *name;
	json_t *value;
	size_t nodes; /* nodes of value, aliases expanded */
};

struct yctx {
	yaml_parser_t p;
	struct anchor *anchors; /* of the current document (YAML scoping) */
	size_t nanchors, alloc;
	char *err;
	size_t errlen;
	int depth;
	size_t nodes; /* nodes of the current document, aliases expanded */
};

#define MAX_DEPTH 200
/* Aliases share their node, but everything after the parser (decoding,
 * encoding, printing) walks the expanded tree: a few hundred bytes of
 * nested aliases ("billion laughs") would expand to billions of nodes. A
 * document may expand to at most this many. */
#define MAX_NODES 1000000

static void
set_err(struct yctx *c, const char *msg, size_t line, size_t col)
{
	snprintf(c->err, c->errlen, "line %zu, column %zu: %s", line + 1,
		 col + 1, msg);
}

/* Declares an anchor whose node starts now; returns its index for
 * anchor_end(), or SIZE_MAX when the node has no anchor. */
static size_t
anchor_begin(struct yctx *c, const char *name)
{
	if (name == NULL)
		return SIZE_MAX;
	ALLOC_GROW(c->anchors, c->nanchors + 1, c->alloc);
	c->anchors[c->nanchors].name = xstrdup(name);
	c->anchors[c->nanchors].value = NULL;
	c->anchors[c->nanchors].nodes = 0;
	return c->nanchors++;
}

/* The anchored node is complete: aliases may now refer to it. */
static void
anchor_end(struct yctx *c, size_t i, json_t *v, size_t nodes)
{
	if (i == SIZE_MAX || v == NULL)
		return;
	c->anchors[i].value = json_incref(v);
	c->anchors[i].nodes = nodes;
}

/* The most recent anchor called name, or NULL. */
static const struct anchor *
anchor_get(struct yctx *c, const char *name)
{
	size_t i;

	for (i = c->nanchors; i-- > 0;)
		if (strcmp(c->anchors[i].name, name) == 0)
			return &c->anchors[i];
	return NULL;
}

static void
anchors_clear(struct yctx *c)
{
	size_t i;

	for (i = 0; i < c->nanchors; i++) {
		free(c->anchors[i].name);
		json_decref(c->anchors[i].value);
	}
	c->nanchors = 0;
}

static bool
all_digits(const char *s, int base)
{
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (base == 10 && (*s < '0' || *s > '9'))
			return false;
		if (base == 8 && (*s < '0' || *s > '7'))
			return false;
		if (base == 16 &&
		    !((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		      (*s >= 'A' && *s <= 'F')))
			return false;
	}
	return true;
}

/* A hexadecimal or octal integer; NULL (an error) if int64 cannot hold
 * it, rather than strtoll's silent LLONG_MAX. */
static json_t *
based_int(const char *digits, int base)
{
	long long v;

	errno = 0;
	v = strtoll(digits, NULL, base);
	if (errno != 0)
		return NULL;
	return json_integer(v);
}

/* YAML 1.2 core schema resolution of a plain scalar. Returns NULL for a
 * number JSON cannot represent (out of range, or infinite like 1e999):
 * jansson refuses non-finite reals. */
static json_t *
plain_scalar(const char *s)
{
	const char *d = s;
	char *end;

	if (!strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") ||
	    !strcmp(s, "Null") || !strcmp(s, "NULL"))
		return json_null();
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		return json_true();
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return json_false();
	if (*d == '-' || *d == '+')
		d++;
	if (all_digits(d, 10)) {
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno == 0 && *end == '\0')
			return json_integer(v);
		/* Too big for int64: a float, as YAML 1.2 would have it. */
		return json_real(strtod(s, NULL));
	}
	if (!strncmp(s, "0x", 2) && all_digits(s + 2, 16))
		return based_int(s + 2, 16);
	if (!strncmp(s, "0o", 2) && all_digits(s + 2, 8))
		return based_int(s + 2, 8);
	/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	{
		const char *q = d;
		bool mant = false;

		while (*q >= '0' && *q <= '9') {
			q++;
			mant = true;
		}
		if (*q == '.') {
			q++;
			while (*q >= '0' && *q <= '9') {
				q++;
				mant = true;
			}
		}
		if (mant && (*q == 'e' || *q == 'E')) {
			q++;
			if (*q == '-' || *q == '+')
				q++;
			if (!(*q >= '0' && *q <= '9'))
				mant = false;
			while (*q >= '0' && *q <= '9')
				q++;
		}
		if (mant && *q == '\0')
			return json_real(strtod(s, NULL));
	}
	if (!strcmp(d, ".inf") || !strcmp(d, ".Inf") || !strcmp(d, ".INF") ||
	    !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return json_string(s); /* JSON has no infinities */
	return json_string(s);
}

static json_t *parse_node(struct yctx *c, yaml_event_t *ev);

static int
next(struct yctx *c, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&c->p, ev)) {
		set_err(c, c->p.problem ? c->p.problem : "syntax error",
			c->p.problem_mark.line, c->p.problem_mark.column);
		return -1;
	}
	return 0;
}

/* Counts n more nodes of the current document against MAX_NODES. */
static int
count_nodes(struct yctx *c, size_t n, const yaml_mark_t *m)
{
	char msg[128];

	if (n > MAX_NODES - c->nodes) {
		snprintf(msg, sizeof(msg),
			 "document expands to more than %d nodes "
			 "(too many aliases)",
			 MAX_NODES);
		set_err(c, msg, m->line, m->column);
		return -1;
	}
	c->nodes += n;
	return 0;
}

static json_t *
parse_mapping(struct yctx *c)
{
	json_t *obj = json_object();
	yaml_event_t ev;

	for (;;) {
		json_t *k, *v;

		if (next(c, &ev))
			goto fail;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return obj;
		}
		k = parse_node(c, &ev);
		if (k == NULL)
			goto fail;
		if (next(c, &ev)) {
			json_decref(k);
			goto fail;
		}
		v = parse_node(c, &ev);
		if (v == NULL) {
			json_decref(k);
			goto fail;
		}
		if (json_is_string(k) && !strcmp(json_string_value(k), "<<") &&
		    json_is_object(v)) {
			json_object_update_missing(obj, v);
			json_decref(v);
		} else if (json_is_string(k)) {
			json_object_set_new(obj, json_string_value(k), v);
		} else if (json_is_integer(k) || json_is_real(k) ||
			   json_is_boolean(k) || json_is_null(k)) {
			char *ks = json_dumps(k, JSON_ENCODE_ANY);

			json_object_set_new(obj, ks ? ks : "", v);
			free(ks);
		} else {
			set_err(c, "mapping keys must be scalars",
				c->p.mark.line, c->p.mark.column);
			json_decref(k);
			json_decref(v);
			goto fail;
		}
		json_decref(k);
	}
fail:
	json_decref(obj);
	return NULL;
}

static json_t *
parse_sequence(struct yctx *c)
{
	json_t *arr = json_array();
	yaml_event_t ev;

	for (;;) {
		json_t *v;

		if (next(c, &ev))
			goto fail;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return arr;
		}
		v = parse_node(c, &ev);
		if (v == NULL)
			goto fail;
		json_array_append_new(arr, v);
	}
fail:
	json_decref(arr);
	return NULL;
}

static json_t *
parse_scalar(struct yctx *c, yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	const char *tag = (const char *)ev->data.scalar.tag;
	size_t len = ev->data.scalar.length;
	json_t *r, *str;

	/* "\0" escapes: C strings (and so every decoded field) would
	 * silently cut the value there. */
	if (memchr(v, '\0', len) != NULL) {
		set_err(c, "NUL character in scalar", ev->start_mark.line,
			ev->start_mark.column);
		return NULL;
	}
	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (tag == NULL || !strcmp(tag, "!")))
		r = plain_scalar(v);
	else if (tag && !strcmp(tag, "tag:yaml.org,2002:int"))
		r = plain_scalar(v);
	else
		r = json_stringn(v, len);
	if (r != NULL)
		return r;
	/* Either jansson refused the bytes, or plain_scalar the number. */
	str = json_stringn(v, len);
	set_err(c, str ? "number out of range" : "invalid UTF-8 in scalar",
		ev->start_mark.line, ev->start_mark.column);
	json_decref(str);
	return NULL;
}

/* Consumes ev (deletes it) and returns the node it starts. */
static json_t *
parse_node(struct yctx *c, yaml_event_t *ev)
{
	const struct anchor *a;
	json_t *r = NULL;
	size_t start = c->nodes, ai = SIZE_MAX;

	if (++c->depth > MAX_DEPTH) {
		set_err(c, "document nested too deeply", ev->start_mark.line,
			ev->start_mark.column);
		goto out;
	}
	if (ev->type != YAML_ALIAS_EVENT && count_nodes(c, 1, &ev->start_mark))
		goto out;
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		ai = anchor_begin(c, (const char *)ev->data.scalar.anchor);
		r = parse_scalar(c, ev);
		break;
	case YAML_ALIAS_EVENT:
		a = anchor_get(c, (const char *)ev->data.alias.anchor);
		if (a == NULL)
			set_err(c, "unknown anchor", ev->start_mark.line,
				ev->start_mark.column);
		else if (a->value == NULL)
			set_err(c, "alias refers to a node that contains it",
				ev->start_mark.line, ev->start_mark.column);
		else if (count_nodes(c, a->nodes, &ev->start_mark) == 0)
			r = json_incref(a->value);
		break;
	case YAML_MAPPING_START_EVENT:
		ai = anchor_begin(c,
				  (const char *)ev->data.mapping_start.anchor);
		yaml_event_delete(ev);
		r = parse_mapping(c);
		goto done;
	case YAML_SEQUENCE_START_EVENT:
		ai = anchor_begin(c,
				  (const char *)ev->data.sequence_start.anchor);
		yaml_event_delete(ev);
		r = parse_sequence(c);
		goto done;
	default:
		set_err(c, "unexpected YAML event", ev->start_mark.line,
			ev->start_mark.column);
		break;
	}
out:
	yaml_event_delete(ev);
done:
	anchor_end(c, ai, r, c->nodes - start);
	c->depth--;
	return r;
}

json_t *
yaml_to_json(const char *buf, size_t len, char *err, size_t errlen)
{
	struct yctx c = {.err = err, .errlen = errlen};
	json_t *docs = json_array();
	yaml_event_t ev;
	bool ok = false;

	yaml_parser_initialize(&c.p);
	yaml_parser_set_input_string(&c.p, (const unsigned char *)buf, len);
	for (;;) {
		if (next(&c, &ev))
			break;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			ok = true;
			break;
		}
		if (ev.type == YAML_DOCUMENT_START_EVENT) {
			json_t *root;

			yaml_event_delete(&ev);
			/* Anchors and the node budget are per document. */
			anchors_clear(&c);
			c.nodes = 0;
			if (next(&c, &ev))
				break;
			if (ev.type == YAML_DOCUMENT_END_EVENT) {
				yaml_event_delete(&ev);
				continue;
			}
			root = parse_node(&c, &ev);
			if (root == NULL)
				break;
			if (!json_is_null(root))
				json_array_append(docs, root);
			json_decref(root);
			if (next(&c, &ev))
				break;
			yaml_event_delete(&ev); /* DOCUMENT_END */
			continue;
		}
		yaml_event_delete(&ev); /* STREAM_START */
	}
	yaml_parser_delete(&c.p);
	anchors_clear(&c);
	free(c.anchors);
	if (!ok) {
		json_decref(docs);
		return NULL;
	}
	return docs;
}

json_t *
manifest_parse(const char *buf, size_t len, char *err, size_t errlen)
{
	size_t i = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
			   buf[i] == '\r'))
		i++;
	if (i < len && (buf[i] == '{' || buf[i] == '[')) {
		json_error_t je;
		json_t *j = json_loadb(buf, len, 0, &je);

		if (j) {
			json_t *arr;

			if (json_is_array(j))
				return j;
			arr = json_array();
			json_array_append_new(arr, j);
			return arr;
		}
		/* Not JSON after all: YAML flow style is a superset. */
	}
	return yaml_to_json(buf, len, err, errlen);
}
