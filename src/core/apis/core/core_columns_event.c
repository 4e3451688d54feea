/* core_columns_event.c - the table of core/v1 Events (printers.go printEvent
 * and eventColumnDefinitions), what `kubectl get events` and `drover get
 * events` print:
 *
 *   LAST SEEN  TYPE     REASON     OBJECT               MESSAGE
 *   12s        Warning  Unhealthy  pod/web-6d4cf-x2k9p  Readiness probe failed: ...
 *
 * and with -o wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME. The one
 * table whose Name column is not first: Kubernetes puts it last, wide
 * (columns.c, invariant 1). */
#include <stdio.h>

#include "core_columns.h"

static const struct event_v1 *
ev(const struct object *o)
{
	return o->obj;
}

static void
add(struct strbuf *out, const char *s)
{
	strbuf_addstr(out, s ? s : "");
}

/* A message on one line: a tab or newline would break the table, so
 * each becomes a space ("probe failed:\nHTTP 500" prints "probe failed:
 * HTTP 500"); nothing else is changed. */
static void
one_line(struct strbuf *out, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(out, *s == '\t' || *s == '\n' ? ' ' : *s);
}

static void
cell_age_of(dtime t, dtime now, struct strbuf *out)
{
	char buf[32];

	columns_age(t, now, buf, sizeof(buf));
	strbuf_addstr(out, buf);
}

/* LAST SEEN: lastTimestamp, else firstTimestamp (eventTime is not set
 * by drover's recorder, as by client-go's core/v1 one). An Event whose
 * count went to 5 over the last minute shows the age of the fifth
 * occurrence, FIRST SEEN (wide) that of the first. */
static void
cell_last_seen(const struct object *o, dtime now, struct strbuf *out)
{
	const struct event_v1 *e = ev(o);

	cell_age_of(e->last_timestamp ? e->last_timestamp : e->first_timestamp,
		    now, out);
}

static void
cell_first_seen(const struct object *o, dtime now, struct strbuf *out)
{
	cell_age_of(ev(o)->first_timestamp, now, out);
}

static void
cell_type(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	add(out, ev(o)->type);
}

static void
cell_reason(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	add(out, ev(o)->reason);
}

/* "deployment/web": the kind lower-cased, then the name (ASCII only,
 * as kinds are): ReplicaSet web-6d4cf gives "replicaset/web-6d4cf". */
static void
cell_object(const struct object *o, dtime now, struct strbuf *out)
{
	const struct object_ref *r = &ev(o)->involved_object;
	const char *k;

	(void)now;
	for (k = r->kind ? r->kind : ""; *k; k++)
		strbuf_addch(out, *k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
	strbuf_addf(out, "/%s", r->name ? r->name : "");
}

static void
cell_subobject(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	add(out, ev(o)->involved_object.field_path);
}

/* formatEventSource: "kubelet, node-1"; the reporting fields when the
 * source is empty; "<unknown>" when both are. Examples: source
 * {component: deployment-controller} gives "deployment-controller" (no
 * host, no comma); an empty source with reportingComponent "kubelet"
 * and reportingInstance "node-1" (an Event written through the
 * events.k8s.io API) gives "kubelet, node-1". */
static void
cell_source(const struct object *o, dtime now, struct strbuf *out)
{
	const struct event_v1 *e = ev(o);
	const char *comp = e->source.component && *e->source.component
			       ? e->source.component
			       : e->reporting_component;
	const char *host = e->source.host && *e->source.host
			       ? e->source.host
			       : e->reporting_instance;

	(void)now;
	if (comp == NULL || !*comp) {
		strbuf_addstr(out, "<unknown>");
		return;
	}
	strbuf_addstr(out, comp);
	if (host && *host)
		strbuf_addf(out, ", %s", host);
}

static void
cell_message(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	one_line(out, ev(o)->message);
}

/* As stored: 1 for an Event the correlator never bumped, 0 if the
 * client that wrote it left count out. */
static void
cell_count(const struct object *o, dtime now, struct strbuf *out)
{
	(void)now;
	strbuf_addf(out, "%lld", (long long)ev(o)->count);
}

const struct column columns_event[] = {
    {"Last Seen", "string", "", 0,
     "The time at which the most recent occurrence of this event was "
     "recorded.",
     cell_last_seen},
    {"Type", "string", "", 0, "Type of this event (Normal, Warning).",
     cell_type},
    {"Reason", "string", "", 0,
     "This should be a short, machine understandable string that gives the "
     "reason for the transition into the object's current status.",
     cell_reason},
    {"Object", "string", "", 0, "The object that this event is about.",
     cell_object},
    {"Subobject", "string", "", 1,
     "The field of the object this event is about (fieldPath).",
     cell_subobject},
    {"Source", "string", "", 1, "The component reporting this event.",
     cell_source},
    {"Message", "string", "", 0,
     "A human-readable description of the status of this operation.",
     cell_message},
    {"First Seen", "string", "", 1,
     "The time at which the event was first recorded.", cell_first_seen},
    {"Count", "string", "", 1, "The number of times this event has occurred.",
     cell_count},
    {"Name", "string", "name", 1, "Name must be unique within a namespace.",
     column_cell_name},
};
const size_t columns_event_n = COLUMNS_N(columns_event);
