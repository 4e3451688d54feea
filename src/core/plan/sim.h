/* sim.h - a virtual-clock world that runs a whole rollout through the real
 * planners: the Deployment planner (plan_deploy) and the ReplicaSet planner
 * (plan_rs), with pods that become ready a fixed time after they are
 * created and vanish at once when deleted. This is what `drover plan
 * --simulate` prints and what the property tests drive.
 *
 * Determinism: the same input gives the same steps, byte for byte. Pod
 * names and uids come from counters, never from a clock or a PRNG.
 *
 * Ownership: sim_run() copies its inputs; sim_result_release() frees
 * everything the result holds. */
#ifndef DROVER_SIM_H
#define DROVER_SIM_H

#include "action.h"
#include "model.h"
#include "plan_deploy.h"

struct sim_opts {
	int64_t pod_ready_ms; /* readiness delay of created pods; <0 never */
	dtime start;          /* virtual time of the first sync */
	int64_t max_ms;       /* give up after this much virtual time */
	size_t max_steps;     /* and after this many steps */
};

struct sim_sample {
	int64_t total;     /* live pods */
	int64_t available; /* available pods (minReadySeconds counted) */
	int64_t old;       /* live pods of old ReplicaSets */
	int64_t new_;      /* live pods of the new ReplicaSet */
};

struct sim_step {
	int64_t t_ms; /* since start */
	struct action_list actions;
	struct sim_sample pods; /* after the ReplicaSet controller reacted */
};

enum sim_result_kind {
	SIM_COMPLETE,
	SIM_DEADLINE_EXCEEDED,
	SIM_STALLED, /* no deadline and nothing left to happen */
	SIM_LIMIT,   /* max_ms or max_steps reached */
};

struct sim_result {
	struct plan_budget budget;
	struct sim_step *steps;
	size_t nsteps;
	size_t alloc;
	int64_t duration_ms;
	int64_t peak_pods;
	int64_t min_available;
	enum sim_result_kind result;
	/* The world at the end. */
	struct deployment d;
	struct replicaset **rs;
	size_t nrs;
	/* Safety observations (property tests): the largest number of pods
	 * that existed and the smallest availability right after one of the
	 * Deployment planner's own scale-downs. */
	int64_t min_available_after_scale_down;
};

const char *sim_result_name(enum sim_result_kind k);

/* Runs the rollout of d. rs/pods are the stored state of its namespace.
 * Returns 0, or -1 if the world could not be built (d lacks a name). */
int sim_run(const struct deployment *d, const struct replicaset *const *rs,
	    size_t nrs, const struct pod *const *pods, size_t npods,
	    const struct sim_opts *o, struct sim_result *r);
void sim_result_release(struct sim_result *r);

#endif
