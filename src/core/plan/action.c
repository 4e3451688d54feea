/* action.c - action and event lists: what the planners return for the
 * caller to apply (actions, in order) and to record (events, Kubernetes'
 * Event reason and message).
 *
 * Ownership: a list owns each action's name and each event's reason and
 * message; an action's kind and an event's type are borrowed static
 * strings ("ReplicaSet", "Normal"), never freed. */
#include <stdarg.h>
#include <stdlib.h>

#include "action.h"
#include "xalloc.h"

void
action_list_release(struct action_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].target);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* Appends an action and returns it for the caller to fill in replicas
 * (create) or from/to (scale); the pointer is valid until the next add.
 * A NULL name is stored as "". */
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
	a->target = NULL;
	a->replicas = a->from = a->to = 0;
	return a;
}

/* Indexed by enum action_op: keep the order of the enum. */
const char *
action_op_name(enum action_op op)
{
	static const char *names[] = {"create", "scale",  "update",
				      "delete", "status", "update-in-place"};

	return names[op];
}

/* One action as `drover plan -o json` prints it:
 *   {"op":"create","kind":"ReplicaSet","name":"web-f4d48c756",
 *    "replicas":3}
 *   {"op":"scale","kind":"ReplicaSet","name":"web-v1","from":10,"to":8}
 *   {"op":"update-in-place","kind":"Pod","name":"web-v1-x2k9q",
 *    "to":"web-v2"}
 * kind is written unescaped (it is one of drover's kind names); the
 * name is JSON-escaped. replicas is printed for created ReplicaSets only
 * (kind starting with 'R', the one such kind); the planners create no
 * other kind with a count. */
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
	if (a->op == ACT_UPDATE_IN_PLACE && a->target) {
		strbuf_addstr(sb, ",\"to\":");
		strbuf_addjsonstr(sb, a->target);
	}
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

/* Appends an event with a printf-formatted message, e.g. ("Normal",
 * "ScalingReplicaSet", "Scaled up replica set %s to %lld"), the
 * reasons and messages of Kubernetes' deployment controller. */
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
