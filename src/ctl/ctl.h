/* ctl.h - the controllers of the control plane, each a thin shell over a
 * core planner: read objects through the API client, call the planner,
 * write what it returns. Level-triggered: watch events only enqueue keys.
 *
 * Ownership: controllers borrow the loop and the client; ctl_stop()
 * stops them and frees them. */
#ifndef DROVER_CTL_H
#define DROVER_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "client.h"
#include "dtime.h"
#include "kinds.h"
#include "plan_nodelife.h"
#include "recorder.h"

struct controllers;

struct informer;

/* The controllers ctl_start starts, each with a client of its own: the
 * hot-write guard (src/client/guard.h) of the component names
 * replicaset-controller, replication-controller, deployment-controller,
 * garbage-collector, default-scheduler, endpoint-controller, event-ttl,
 * disruption-controller, node-controller. */
#define CTL_NGUARDS 9

struct ctl_config {
	uv_loop_t *loop;
	struct client *client;
	dtime (*now)(void);
	/* Every object is synced again this often (client-go's resync: a
	 * safety net for an event lost anyhow); 0: never. Each controller
	 * syncs every object once at start in any case. */
	int64_t resync_ms;
	/* Where the controllers record Events (recorder.h), each with its
	 * own component name; NULL: none recorded. */
	struct event_broadcaster *events;
	/* Events whose lastTimestamp is older than this are deleted
	 * (kube-apiserver's --event-ttl, 1 h); 0: never. */
	int64_t event_ttl_ms;
	/* After each batch of a controller's syncs (queue_set_settle);
	 * NULL: nothing. */
	void (*settle)(void *arg);
	void *settle_arg;
	/* Which controllers run: kube-controller-manager's --controllers
	 * list ("*", "*,-disruption", "deployment,replicaset"); NULL: "*".
	 * Checked with ctl_controllers_check first. */
	const char *controllers;
	/* The shared caches (informer.h), made by ctl_start(). */
	struct informer *deploys, *rss, *pods, *nodes;
	struct informer *services, *slices, *endpoints;
	struct informer *rcs;    /* ReplicationControllers */
	struct informer *pdbs;   /* PodDisruptionBudgets */
	struct informer *leases; /* coordination.k8s.io Leases */
	/* The node lifecycle controller's settings (kube-controller-
	 * manager's --node-monitor-grace-period, --node-eviction-rate...;
	 * grace_ms 0: the defaults) and how often it looks at the nodes
	 * (--node-monitor-period; 0: 5 s). */
	struct nodelife_config nodelife;
	int64_t node_monitor_period_ms;
};

/* The controllers' names, kube-controller-manager's, as --help lists them
 * (NULL-ended). */
extern const char *const ctl_controller_names[];
/* 0 if list is a valid --controllers value; else -1 and Kubernetes'
 * message in err ("\"foo\" is not in the list of known controllers"). */
int ctl_controllers_check(const char *list, char *err, size_t errlen);
/* Whether the controller `name` runs under list (NULL: "*"), as
 * kube-controller-manager's IsControllerEnabled decides: the first entry
 * naming it ("name" or "-name") wins, else "*" enables it. */
bool ctl_controller_enabled(const char *list, const char *name);

/* Starts the controllers the config's list enables (Deployment,
 * ReplicaSet, ReplicationController, endpoints, garbage collector,
 * disruption) and the scheduler, which always runs.
 * Returns NULL if a watch could not be opened. */
struct controllers *ctl_start(const struct ctl_config *cfg);
void ctl_stop(struct controllers *c);
/* Enqueues every object each controller owns, as at start. */
void ctl_resync(struct controllers *c);
/* Binds the pods waiting for the scheduler now (queue_run_now), from a
 * settle: a pod created by a ReplicaSet's batch is bound before the
 * Deployment and ReplicaSet syncs that the same batch set off, so that
 * its process starts while they run. c NULL: nothing. */
void ctl_schedule_now(struct controllers *c);

#define CTL_RESYNC_DEFAULT_MS    (5 * 60 * 1000)
#define CTL_EVENT_TTL_DEFAULT_MS ((int64_t)60 * 60 * 1000)

/* The Event TTL sweep (events_ttl.c): every minute (or every TTL, if
 * shorter) deletes the Events whose lastTimestamp (else firstTimestamp,
 * else creationTimestamp) is more than ttl_ms ago, found on a heap of
 * the writes an informer of Events saw, at most 100 deletions a loop
 * turn. NULL if ttl_ms is 0 or the informer could not list. */
struct ctl_event_ttl;
struct ctl_event_ttl *ctl_event_ttl_start(const struct ctl_config *cfg);
void ctl_event_ttl_stop(struct ctl_event_ttl *t);
/* One sweep now; the number of Events deleted. */
int ctl_event_ttl_sweep(struct ctl_event_ttl *t);

/* One controller; each file exports its start/stop. */
struct ctl_deploy;
struct ctl_rs;
struct ctl_gc;
struct ctl_sched;
struct ctl_endpoints;
struct ctl_disruption;
struct ctl_deploy *ctl_deploy_start(const struct ctl_config *cfg);
void ctl_deploy_stop(struct ctl_deploy *d);
struct ctl_rs *ctl_rs_start(const struct ctl_config *cfg);
/* The ReplicationController controller: the same shell (rs.c) over the
 * RC's ReplicaSet view (rc_as_replicaset); stop/resync with ctl_rs_*. */
struct ctl_rs *ctl_rc_start(const struct ctl_config *cfg);
void ctl_rs_stop(struct ctl_rs *r);
struct ctl_gc *ctl_gc_start(const struct ctl_config *cfg);
void ctl_gc_stop(struct ctl_gc *g);
struct ctl_sched *ctl_sched_start(const struct ctl_config *cfg);
void ctl_sched_stop(struct ctl_sched *s);
struct ctl_endpoints *ctl_endpoints_start(const struct ctl_config *cfg);
void ctl_endpoints_stop(struct ctl_endpoints *e);
/* The disruption controller (disruption.c): every budget's status. */
struct ctl_disruption *ctl_disruption_start(const struct ctl_config *cfg);
void ctl_disruption_stop(struct ctl_disruption *d);
void ctl_disruption_resync(struct ctl_disruption *d);
/* The node lifecycle and taint eviction controllers (nodelifecycle.c):
 * nodes whose agent stopped posting go Ready Unknown and are tainted,
 * and the pods that do not tolerate the taint are deleted. */
struct ctl_nodelife;
struct ctl_nodelife *ctl_nodelife_start(const struct ctl_config *cfg);
void ctl_nodelife_stop(struct ctl_nodelife *n);
void ctl_nodelife_resync(struct ctl_nodelife *n);
/* Each enqueues every key it owns from the shared caches. */
void ctl_deploy_resync(struct ctl_deploy *d);
void ctl_rs_resync(struct ctl_rs *r);
void ctl_gc_resync(struct ctl_gc *g);
void ctl_sched_resync(struct ctl_sched *s);
void ctl_sched_run_now(struct ctl_sched *s);
void ctl_endpoints_resync(struct ctl_endpoints *e);

struct queue;

/* Watch-event handlers shared by the controllers: enqueue the key of the
 * event's object; or enqueue its controlling owner of kind owner_kind (an
 * orphan: every object of owner_id in its namespace, which may adopt it;
 * one controlled by another kind: nothing). */
void ctl_enqueue_object(struct queue *q, json_t *ev);
void ctl_enqueue_owner(struct informer *owners, struct queue *q, json_t *ev,
		       const char *owner_kind);
/* Records a planner's events (action.h: plan_deploy's ScalingReplicaSet,
 * DeploymentRollback, ...) about o, from component; nothing if events is
 * NULL. */
struct event_list;
void ctl_record_events(struct event_broadcaster *events, const char *component,
		       const struct object *o, const struct event_list *l);
/* Enqueues the key of every cached object of inf. */
void ctl_enqueue_all(struct informer *inf, struct queue *q);

/* A sync that has run this long, or that runs in a loop turn past its
 * budget of CPU (QUEUE_TURN_BUDGET_MS, turn.h), stops where it is and
 * asks to run again at once, which waits until the loop has polled for
 * I/O (queue.h): a
 * controller acting on a hundred thousand objects never holds the API
 * up for long. started is uv_hrtime() at the start of the sync. (At
 * 20 ms, one turn of a scale to 100,000 pods, with the scheduler's
 * bindings, the ReplicaSet's creations and the events of both, held
 * GET /version up to 0.11 s; at 10 ms, with the ReplicaSet controller's
 * 50 writes a turn (rs.c), 0.06-0.07 s.) */
#define CTL_SYNC_BUDGET_MS 10
bool ctl_overtime(uint64_t started);

#endif
