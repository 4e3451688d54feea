/* print.c - output helpers of the client verbs: Go's tabwriter, kubectl's
 * ages, selectors and labels, sorted JSON/YAML, the pod template block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "xalloc.h"
#include "yaml_out.h"

/* ---- tabwriter ---- */

struct tw_line {
	char **cell;
	size_t n;
};

struct tw {
	struct tw_line *line;
	size_t nlines;
	size_t minwidth, padding;
	size_t widths[64];
	size_t nwidths;
	struct strbuf *out;
};

/* Display width: UTF-8 code points. */
static size_t
text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static void
tw_write_lines(struct tw *t, size_t line0, size_t line1)
{
	size_t i, j, w;

	for (i = line0; i < line1; i++) {
		struct tw_line *l = &t->line[i];

		for (j = 0; j < l->n; j++) {
			strbuf_addstr(t->out, l->cell[j]);
			if (j < t->nwidths && j + 1 < l->n) {
				for (w = text_width(l->cell[j]);
				     w < t->widths[j]; w++)
					strbuf_addch(t->out, ' ');
			}
		}
		strbuf_addch(t->out, '\n');
	}
}

/* text/tabwriter's format(): a column block is a run of lines that have
 * a cell in this column; its width is the widest cell plus padding. */
static void
tw_format(struct tw *t, size_t line0, size_t line1)
{
	size_t column = t->nwidths, this;

	for (this = line0; this < line1; this ++) {
		size_t width = t->minwidth;

		if (column + 1 >= t->line[this].n)
			continue;
		tw_write_lines(t, line0, this);
		line0 = this;
		for (; this < line1; this ++) {
			struct tw_line *l = &t->line[this];
			size_t w;

			if (column + 1 >= l->n)
				break;
			w = text_width(l->cell[column]) + t->padding;
			if (w > width)
				width = w;
		}
		if (t->nwidths < 64)
			t->widths[t->nwidths++] = width;
		tw_format(t, line0, this);
		t->nwidths--;
		line0 = this;
	}
	tw_write_lines(t, line0, line1);
}

void
cli_tabwrite(const char *text, size_t minwidth, size_t padding,
	     struct strbuf *out)
{
	struct tw t = {.minwidth = minwidth, .padding = padding, .out = out};
	size_t alloc = 0, i, j;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *s = xstrndup(p, len), *c;
		struct tw_line l = {0};
		size_t ncell = 0;

		for (c = s;;) {
			char *tab = strchr(c, '\t');

			ALLOC_GROW(l.cell, l.n + 1, ncell);
			if (tab)
				*tab = '\0';
			l.cell[l.n++] = xstrdup(c);
			if (!tab)
				break;
			c = tab + 1;
		}
		free(s);
		ALLOC_GROW(t.line, t.nlines + 1, alloc);
		t.line[t.nlines++] = l;
		p = nl ? nl + 1 : p + len;
	}
	tw_format(&t, 0, t.nlines);
	for (i = 0; i < t.nlines; i++) {
		for (j = 0; j < t.line[i].n; j++)
			free(t.line[i].cell[j]);
		free(t.line[i].cell);
	}
	free(t.line);
}

/* ---- JSON and YAML ---- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of j with every object's keys in sorted order (jansson keeps
 * insertion order, and yaml_emit follows it). */
static json_t *
sorted_copy(json_t *j)
{
	if (json_is_object(j)) {
		json_t *o = json_object(), *v;
		const char *key, **keys;
		size_t n = json_object_size(j), i = 0;

		keys = xcalloc(n + 1, sizeof(*keys));
		json_object_foreach(j, key, v) keys[i++] = key;
		qsort(keys, n, sizeof(*keys), cmp_str);
		for (i = 0; i < n; i++)
			json_object_set_new(
			    o, keys[i],
			    sorted_copy(json_object_get(j, keys[i])));
		free(keys);
		return o;
	}
	if (json_is_array(j)) {
		json_t *a = json_array(), *v;
		size_t i;

		json_array_foreach(j, i, v)
		    json_array_append_new(a, sorted_copy(v));
		return a;
	}
	return json_incref(j);
}

void
cli_print_json(json_t *j, const char *format)
{
	json_t *s = sorted_copy(j);

	if (!strcmp(format, "yaml")) {
		struct strbuf sb = STRBUF_INIT;

		yaml_emit(s, &sb);
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	} else {
		char *text = json_dumps(s, JSON_INDENT(4));

		puts(text);
		free(text);
	}
	json_decref(s);
}

/* ---- kubectl describe: the pod template ---- */

static void
describe_map(struct strbuf *sb, const char *indent, const char *title,
	     const struct strmap *m, const char *sep)
{
	size_t i, shown = 0;

	strbuf_addf(sb, "%s%s:\t", indent, title);
	for (i = 0; i < m->n; i++) {
		if (!strcmp(m->v[i].key, ANN_LAST_APPLIED))
			continue;
		if (shown++)
			strbuf_addf(sb, "%s\t", indent);
		strbuf_addf(sb, "%s%s%s\n", m->v[i].key, sep, m->v[i].value);
	}
	if (shown == 0)
		strbuf_addstr(sb, "<none>\n");
}

/* kubectl's "    Limits:" / "    Requests:" block of a container, one
 * "      cpu:\t500m" line a resource; nothing when there are none. */
static void
describe_resources(struct strbuf *sb, const char *title, const struct strmap *m)
{
	size_t i;

	if (m->n)
		strbuf_addf(sb, "    %s:\n", title);
	for (i = 0; i < m->n; i++)
		strbuf_addf(sb, "      %s:\t%s\n", m->v[i].key, m->v[i].value);
}

/* The host port the agent gave container port p of a pod's container
 * (status.containerStatuses[].ports, matched by containerPort), else
 * the one the spec declares (0: none, printed 0/TCP as kubectl does). */
static int64_t
host_port_of(const struct container_port *p, const struct container_status *st)
{
	size_t i;

	for (i = 0; st && i < st->ports.n; i++)
		if (st->ports.v[i].container_port == p->container_port &&
		    st->ports.v[i].host_port)
			return st->ports.v[i].host_port;
	return p->host_port;
}

/* kubectl's describeContainerPorts and describeContainerHostPorts, with
 * the port's name after the container port: "8080/TCP (http)". Host
 * ports come from st when the pod has a status (its allocated ports:
 * "31234/TCP"), from the spec in a template. */
static void
describe_ports(struct strbuf *sb, const struct container *c,
	       const struct container_status *st, bool host)
{
	size_t i, start = sb->len;

	for (i = 0; i < c->ports.n; i++) {
		const struct container_port *p = &c->ports.v[i];

		if (sb->len > start)
			strbuf_addstr(sb, ", ");
		strbuf_addf(
		    sb, "%lld/%s",
		    (long long)(host ? host_port_of(p, st) : p->container_port),
		    p->protocol ? p->protocol : "TCP");
		if (!host && p->name && *p->name)
			strbuf_addf(sb, " (%s)", p->name);
	}
	if (sb->len == start)
		strbuf_addstr(sb, "<none>");
}

static const struct container_status *
status_of(const struct container_status_list *l, const char *name)
{
	size_t i;

	for (i = 0; l && name && i < l->n; i++)
		if (l->v[i].name && !strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void
cli_describe_template(const struct pod_template *t, struct strbuf *sb)
{
	cli_describe_containers(t, NULL, sb);
}

void
cli_describe_labels(struct strbuf *sb, const char *title,
		    const struct strmap *m)
{
	size_t i;

	strbuf_addf(sb, "%s:\t", title);
	for (i = 0; i < m->n; i++)
		strbuf_addf(sb, "%s%s=%s\n", i ? "\t" : "", m->v[i].key,
			    m->v[i].value);
	if (m->n == 0)
		strbuf_addstr(sb, "<none>\n");
}

/* kubectl's maxAnnotationLen: a longer "key: value" is printed as the
 * key, then the value's lines under it, each cut at 138 bytes. */
#define MAX_ANNOTATION_LEN 140

void
cli_describe_annotations(struct strbuf *sb, const char *title,
			 const struct strmap *m)
{
	size_t i, shown = 0;

	strbuf_addf(sb, "%s:\t", title);
	for (i = 0; i < m->n; i++) {
		const char *k = m->v[i].key, *v = m->v[i].value, *nl;
		size_t vlen = strlen(v);

		if (!strcmp(k, ANN_LAST_APPLIED))
			continue;
		if (shown++)
			strbuf_addstr(sb, "\t");
		if (vlen && v[vlen - 1] == '\n')
			vlen--;
		if (vlen + strlen(k) + 2 <= MAX_ANNOTATION_LEN &&
		    !memchr(v, '\n', vlen)) {
			strbuf_addf(sb, "%s: %.*s\n", k, (int)vlen, v);
			continue;
		}
		strbuf_addf(sb, "%s:\n", k);
		for (;;) {
			size_t n;

			nl = memchr(v, '\n', vlen);
			n = nl ? (size_t)(nl - v) : vlen;
			strbuf_addf(sb, "\t  %.*s%s\n",
				    (int)(n > MAX_ANNOTATION_LEN - 2
					      ? MAX_ANNOTATION_LEN - 2
					      : n),
				    v, n > MAX_ANNOTATION_LEN - 2 ? "..." : "");
			if (!nl)
				break;
			vlen -= n + 1;
			v = nl + 1;
		}
	}
	if (shown == 0)
		strbuf_addstr(sb, "<none>\n");
}

void
cli_describe_go_time(struct strbuf *sb, dtime t)
{
	if (t == 0)
		strbuf_addstr(sb, "Mon, 01 Jan 0001 00:00:00 +0000");
	else
		cli_describe_time(sb, t);
}

void
cli_describe_time(struct strbuf *sb, dtime t)
{
	time_t s = (time_t)(t / 1000);
	struct tm tm;
	char buf[64];

	if (t == 0) {
		strbuf_addstr(sb, "<unset>");
		return;
	}
	localtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S %z", &tm);
	strbuf_addstr(sb, buf);
}

/* kubectl's describeStatus: one state under `name` ("State", "Last
 * State"). A state with none of the three set is Waiting. */
static void
describe_state(struct strbuf *sb, const char *name,
	       const struct container_state *s)
{
	const struct state_terminated *t = s->terminated;

	if (s->running) {
		strbuf_addf(sb, "    %s:\tRunning\n      Started:\t", name);
		cli_describe_time(sb, s->running->started_at);
		strbuf_addch(sb, '\n');
	} else if (s->waiting || t == NULL) {
		strbuf_addf(sb, "    %s:\tWaiting\n", name);
		if (s->waiting && s->waiting->reason && *s->waiting->reason)
			strbuf_addf(sb, "      Reason:\t%s\n",
				    s->waiting->reason);
	} else {
		strbuf_addf(sb, "    %s:\tTerminated\n", name);
		if (t->reason && *t->reason)
			strbuf_addf(sb, "      Reason:\t%s\n", t->reason);
		if (t->message && *t->message)
			strbuf_addf(sb, "      Message:\t%s\n", t->message);
		strbuf_addf(sb, "      Exit Code:\t%lld\n",
			    (long long)t->exit_code);
		if (t->signal > 0)
			strbuf_addf(sb, "      Signal:\t%lld\n",
				    (long long)t->signal);
		strbuf_addstr(sb, "      Started:\t");
		cli_describe_time(sb, t->started_at);
		strbuf_addstr(sb, "\n      Finished:\t");
		cli_describe_time(sb, t->finished_at);
		strbuf_addch(sb, '\n');
	}
}

/* kubectl's describeContainerState: State, Last State when the
 * container terminated before, Ready, Restart Count. */
static void
describe_container_state(struct strbuf *sb, const struct container_status *st)
{
	describe_state(sb, "State", &st->state);
	if (st->last_state.terminated)
		describe_state(sb, "Last State", &st->last_state);
	strbuf_addf(sb, "    Ready:\t%s\n", st->ready ? "True" : "False");
	strbuf_addf(sb, "    Restart Count:\t%lld\n",
		    (long long)st->restart_count);
}

void
cli_describe_containers(const struct pod_template *t,
			const struct container_status_list *statuses,
			struct strbuf *sb)
{
	size_t i, j;

	strbuf_addstr(sb, "Pod Template:\n");
	describe_map(sb, "  ", "Labels", &t->metadata.labels, "=");
	if (t->metadata.annotations.n)
		describe_map(sb, "  ", "Annotations", &t->metadata.annotations,
			     ": ");
	if (t->spec.service_account_name)
		strbuf_addf(sb, "  Service Account:\t%s\n",
			    t->spec.service_account_name);
	strbuf_addf(sb, "  Containers:%s\n",
		    t->spec.containers.n ? "" : " <none>");
	for (i = 0; i < t->spec.containers.n; i++) {
		const struct container *c = &t->spec.containers.v[i];
		const struct container_status *st =
		    status_of(statuses, c->name);

		strbuf_addf(sb, "   %s:\n", c->name ? c->name : "");
		strbuf_addf(sb, "    Image:\t%s\n", c->image ? c->image : "");
		strbuf_addf(sb, "    Port%s:\t", c->ports.n > 1 ? "s" : "");
		describe_ports(sb, c, st, false);
		strbuf_addf(sb, "\n    Host Port%s:\t",
			    c->ports.n > 1 ? "s" : "");
		describe_ports(sb, c, st, true);
		strbuf_addch(sb, '\n');
		if (c->command.n) {
			strbuf_addstr(sb, "    Command:\n");
			for (j = 0; j < c->command.n; j++)
				strbuf_addf(sb, "      %s\n", c->command.v[j]);
		}
		if (c->args.n) {
			strbuf_addstr(sb, "    Args:\n");
			for (j = 0; j < c->args.n; j++)
				strbuf_addf(sb, "      %s\n", c->args.v[j]);
		}
		if (st)
			describe_container_state(sb, st);
		/* kubectl: Limits, then Requests, name: quantity */
		describe_resources(sb, "Limits", &c->resources.limits);
		describe_resources(sb, "Requests", &c->resources.requests);
		if (c->env.n == 0) {
			strbuf_addstr(sb, "    Environment:\t<none>\n");
		} else {
			strbuf_addstr(sb, "    Environment:\n");
			for (j = 0; j < c->env.n; j++)
				strbuf_addf(
				    sb, "      %s:\t%s\n", c->env.v[j].name,
				    c->env.v[j].value ? c->env.v[j].value : "");
		}
		strbuf_addstr(sb, "    Mounts:\t<none>\n");
	}
	strbuf_addstr(sb, "  Volumes:\t<none>\n");
	if (t->spec.node_selector.n)
		describe_map(sb, "  ", "Node-Selectors", &t->spec.node_selector,
			     "=");
}
