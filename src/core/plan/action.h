/* action.h - what a planner asks the world to do, as data.
 *
 * A planner never performs I/O: it returns an ordered list of actions that
 * the controller shell (or the simulator, or `drover plan`) applies in
 * order, plus the events a controller would record. Action and event lists
 * own their strings (an action's name and target). */
#ifndef DROVER_ACTION_H
#define DROVER_ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum action_op {
	ACT_CREATE, /* create object `name` (replicas: its size) */
	ACT_SCALE,  /* write a ReplicaSet whose size changed from -> to */
	ACT_UPDATE, /* write an object whose size did not change */
	ACT_DELETE, /* delete object `name` */
	ACT_STATUS, /* write the status subresource of `name` */
	/* InPlaceUpdate: update Pod `name` in place to the Deployment's new
	 * ReplicaSet (same name, uid, node, host ports; its containers
	 * restarted with the new image/command/args; its label, owner and
	 * both RS sizes moved in one transaction). */
	ACT_UPDATE_IN_PLACE,
};

struct action {
	enum action_op op;
	const char *kind; /* "Deployment", "ReplicaSet", "Pod" (static) */
	char *name;
	char *target;     /* ACT_UPDATE_IN_PLACE: the new ReplicaSet */
	int64_t replicas; /* ACT_CREATE of a ReplicaSet */
	int64_t from, to; /* ACT_SCALE */
};

struct action_list {
	struct action *v;
	size_t n;
	size_t alloc;
};

struct event {
	const char *type; /* "Normal" or "Warning" (static) */
	char *reason;
	char *message;
};

struct event_list {
	struct event *v;
	size_t n;
	size_t alloc;
};

void action_list_release(struct action_list *l);
struct action *action_add(struct action_list *l, enum action_op op,
			  const char *kind, const char *name);
const char *action_op_name(enum action_op op);
/* Appends {"op":...,"kind":...,"name":...} as JSON. */
void action_to_json(const struct action *a, struct strbuf *sb);

void event_list_release(struct event_list *l);
void event_add(struct event_list *l, const char *type, const char *reason,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
