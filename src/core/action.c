/* action.c - action and event lists. */
#include <stdarg.h>
#include <stdlib.h>

#include "action.h"
#include "xalloc.h"

void
action_list_release(struct action_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

struct action *
action_add(struct action_list *l, enum action_op op, const char *kind,
	   const char *name)
{
	struct action *a;

	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	a = &l->v[l->n++];
	a->op = op;
	a->kind = kind;
	a->name = xstrdup(name ? name : "");
	a->replicas = a->from = a->to = 0;
	return a;
}

const char *
action_op_name(enum action_op op)
{
	static const char *names[] = {"create", "scale", "update", "delete",
				      "status"};

	return names[op];
}

void
action_to_json(const struct action *a, struct strbuf *sb)
{
	strbuf_addf(sb, "{\"op\":\"%s\",\"kind\":\"%s\",\"name\":",
		    action_op_name(a->op), a->kind);
	strbuf_addjsonstr(sb, a->name);
	if (a->op == ACT_CREATE && a->kind[0] == 'R')
		strbuf_addf(sb, ",\"replicas\":%lld", (long long)a->replicas);
	if (a->op == ACT_SCALE)
		strbuf_addf(sb, ",\"from\":%lld,\"to\":%lld",
			    (long long)a->from, (long long)a->to);
	strbuf_addch(sb, '}');
}

void
event_list_release(struct event_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].reason);
		free(l->v[i].message);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

void
event_add(struct event_list *l, const char *type, const char *reason,
	  const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	struct event *e;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	e = &l->v[l->n++];
	e->type = type;
	e->reason = xstrdup(reason);
	e->message = strbuf_detach(&sb);
}
