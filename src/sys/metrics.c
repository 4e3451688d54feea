/* metrics.c - the collector registry and the Prometheus text format
 * (see metrics.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "xalloc.h"

struct collector {
	char *name;
	metrics_collect_fn fn;
	void *arg;
};

struct metrics {
	struct collector *v; /* in registration order */
	size_t n, alloc;
};

struct metrics *
metrics_new(void)
{
	return xcalloc(1, sizeof(struct metrics));
}

void
metrics_free(struct metrics *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m);
}

static struct collector *
find(struct metrics *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, name))
			return &m->v[i];
	return NULL;
}

int
metrics_register(struct metrics *m, const char *name, metrics_collect_fn fn,
		 void *arg)
{
	if (find(m, name))
		return -1;
	ALLOC_GROW(m->v, m->n + 1, m->alloc);
	m->v[m->n].name = xstrdup(name);
	m->v[m->n].fn = fn;
	m->v[m->n].arg = arg;
	m->n++;
	return 0;
}

int
metrics_unregister(struct metrics *m, const char *name)
{
	struct collector *c = find(m, name);
	size_t i;

	if (c == NULL)
		return -1;
	i = (size_t)(c - m->v);
	free(c->name);
	memmove(c, c + 1, (m->n - i - 1) * sizeof(*c));
	m->n--;
	return 0;
}

void
metrics_collect(struct metrics *m, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		m->v[i].fn(m->v[i].arg, out);
}

/* HELP text: only backslash and line feed are escaped. */
static void
escape_help(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(out, "\\\\");
		else if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
}

void
metrics_family(struct strbuf *out, const char *name, const char *type,
	       const char *help)
{
	strbuf_addf(out, "# HELP %s ", name);
	escape_help(out, help);
	strbuf_addf(out, "\n# TYPE %s %s\n", name, type);
}

void
metrics_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addstr(out, "\\\\");
		else if (*s == '"')
			strbuf_addstr(out, "\\\"");
		else if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
}

void
metrics_label(struct strbuf *labels, const char *key, const char *value)
{
	if (labels->len)
		strbuf_addch(labels, ',');
	strbuf_addf(labels, "%s=\"", key);
	metrics_escape(labels, value ? value : "");
	strbuf_addch(labels, '"');
}

void
metrics_float(struct strbuf *out, double v)
{
	char buf[40];
	int prec, exp;

	if (isnan(v)) {
		strbuf_addstr(out, "NaN");
		return;
	}
	if (isinf(v)) {
		strbuf_addstr(out, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* the fewest significant digits that read back as v (17 always
	 * do), then Go's choice for the shortest form: an exponent when it
	 * is below -4 or at least 6 (1e-08, 4.3302912e+07), else plain
	 * digits (0.005, 123456). */
	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", prec - 1, v);
	exp = atoi(strchr(buf, 'e') + 1);
	if (exp >= -4 && exp < 6)
		snprintf(buf, sizeof(buf), "%.*f",
			 prec - 1 - exp > 0 ? prec - 1 - exp : 0, v);
	strbuf_addstr(out, buf);
}

static void
name_labels(struct strbuf *out, const char *name, const char *labels)
{
	strbuf_addstr(out, name);
	if (labels && *labels)
		strbuf_addf(out, "{%s}", labels);
}

void
metrics_sample(struct strbuf *out, const char *name, const char *labels,
	       double value)
{
	name_labels(out, name, labels);
	strbuf_addch(out, ' ');
	metrics_float(out, value);
	strbuf_addch(out, '\n');
}

void
metrics_sample_u64(struct strbuf *out, const char *name, const char *labels,
		   uint64_t value)
{
	name_labels(out, name, labels);
	strbuf_addf(out, " %" PRIu64 "\n", value);
}

static void
bucket(struct strbuf *out, const char *name, const char *labels, double le,
       uint64_t n)
{
	strbuf_addf(out, "%s_bucket{", name);
	if (labels && *labels)
		strbuf_addf(out, "%s,", labels);
	strbuf_addstr(out, "le=\"");
	metrics_float(out, le);
	strbuf_addf(out, "\"} %" PRIu64 "\n", n);
}

void
metrics_histogram(struct strbuf *out, const char *name, const char *labels,
		  const struct histogram *h)
{
	uint64_t cum = 0;
	size_t i;
	char buf[256];

	for (i = 0; i < h->nbounds; i++) {
		cum += h->counts[i];
		bucket(out, name, labels, h->bounds[i], cum);
	}
	bucket(out, name, labels, INFINITY, h->count);
	snprintf(buf, sizeof(buf), "%s_sum", name);
	metrics_sample(out, buf, labels, h->sum);
	snprintf(buf, sizeof(buf), "%s_count", name);
	metrics_sample_u64(out, buf, labels, h->count);
}
