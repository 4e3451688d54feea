/* print_event.c - the Events section that ends every `describe`, as
 * kubectl prints it (describe.go DescribeEvents); the Events of the object
 * are listed with kubectl's field selector. (`get events` is the column
 * registry's, src/core/apis/core/core_columns_event.c.)
 *
 *   Events:
 *     Type     Reason             Age                From                   Message
 *     ----     ------             ----               ----                   -------
 *     Normal   ScalingReplicaSet  2m                 deployment-controller  Scaled up replica set web-6d4cf to 3
 *     Warning  Unhealthy          12s (x5 over 52s)  kubelet                Readiness probe failed: ...
 */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "columns.h"
#include "common.h"
#include "object.h"
#include "xalloc.h"

static void
one_line(const char *msg, struct strbuf *sb)
{
	const char *s;

	/* a tab or newline would break the table */
	for (s = msg ? msg : ""; *s; s++)
		strbuf_addch(sb, *s == '\t' || *s == '\n' ? ' ' : *s);
}

static dtime
last_seen(const struct event_v1 *e)
{
	return e->last_timestamp ? e->last_timestamp : e->first_timestamp;
}

static int
by_last_seen(const void *a, const void *b)
{
	const struct event_v1 *e = *(struct event_v1 *const *)a;
	const struct event_v1 *f = *(struct event_v1 *const *)b;
	dtime x = last_seen(e), y = last_seen(f);

	/* a tie (whole seconds): the names, "<object>.<hex time in ns>",
	 * put one object's Events in the order they were made */
	if (x != y)
		return x < y ? -1 : 1;
	return strcmp(e->metadata.name ? e->metadata.name : "",
		      f->metadata.name ? f->metadata.name : "");
}

/* kubectl's interval: "2m", or "12s (x5 over 52s)" for a repeated one. */
static void
interval(const struct event_v1 *e, dtime now, struct strbuf *sb)
{
	char a[32], b[32];

	if (e->count > 1) {
		columns_age(e->last_timestamp, now, a, sizeof(a));
		columns_age(e->first_timestamp, now, b, sizeof(b));
		strbuf_addf(sb, "%s (x%lld over %s)", a, (long long)e->count,
			    b);
	} else {
		columns_age(e->first_timestamp ? e->first_timestamp
					       : last_seen(e),
			    now, a, sizeof(a));
		strbuf_addstr(sb, a);
	}
}

void
cli_describe_events(struct client *c, const struct kind_info *k,
		    const struct object_meta *m, struct strbuf *sb)
{
	const struct kind_info *ek = kind_by_id(KIND_EVENT);
	struct strbuf fs = STRBUF_INIT, q = STRBUF_INIT;
	struct event_v1 **v = NULL;
	struct client_resp r;
	struct object_list l = {0};
	char path[1024], *enc;
	json_t *it;
	size_t i, n = 0;
	dtime now = clock_now();

	/* kubectl's query: name, namespace, kind and uid of the object */
	strbuf_addf(&fs,
		    "involvedObject.name=%s,involvedObject.namespace=%s,"
		    "involvedObject.kind=%s",
		    m->name ? m->name : "", m->namespace ? m->namespace : "",
		    k->kind);
	/* the kubelet records a Node's Events with the node's name as its
	 * uid (kubectl asks for both): no uid term for a Node */
	if (m->uid && k->id != KIND_NODE)
		strbuf_addf(&fs, ",involvedObject.uid=%s", m->uid);
	enc = cli_urlencode(fs.buf);
	strbuf_addf(&q, "fieldSelector=%s", enc);
	free(enc);
	strbuf_release(&fs);
	/* a Node's Events are in "default": ask every namespace */
	cli_path(path, sizeof(path), ek, k->namespaced ? m->namespace : NULL,
		 NULL, NULL);
	client_request(c, "GET", path, q.buf, NULL, NULL, &r);
	strbuf_release(&q);
	if (r.status == 200)
		json_array_foreach(json_object_get(r.body, "items"), i, it)
		{
			struct object o = {0};
			struct fielderr_list errs = {0};

			if (object_decode(it, false, &o, &errs) == 0 &&
			    o.k->id == KIND_EVENT)
				object_list_push(&l, o);
			else if (o.obj)
				object_release(&o);
			fielderr_list_release(&errs);
		}
	client_resp_release(&r);
	if (l.n == 0) {
		strbuf_addstr(sb, "Events:\t<none>\n");
		return;
	}
	v = xcalloc(l.n, sizeof(*v));
	for (i = 0; i < l.n; i++)
		v[n++] = l.v[i].obj;
	qsort(v, n, sizeof(*v), by_last_seen);
	strbuf_addstr(sb, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n"
			  "  ----\t------\t----\t----\t-------\n");
	for (i = 0; i < n; i++) {
		const struct event_v1 *e = v[i];
		/* DescribeEvents: the component alone, else the reporting
		 * controller (the host is only in `get events`' SOURCE) */
		const char *comp = e->source.component && *e->source.component
				       ? e->source.component
				       : e->reporting_component;

		strbuf_addf(sb, "  %s\t%s\t", e->type ? e->type : "",
			    e->reason ? e->reason : "");
		interval(e, now, sb);
		strbuf_addf(sb, "\t%s\t", comp ? comp : "");
		one_line(e->message, sb);
		strbuf_addch(sb, '\n');
	}
	free(v);
	object_list_release(&l);
}
