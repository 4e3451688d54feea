/* plan_rc_update.h - the legacy ReplicationController rolling update
 * (`kubectl rolling-update`, spec/rc-rolling-update.md) as a pure
 * planner: given OLD and NEXT as stored (either may be absent), the pods
 * of NEXT that are available, and the options, the ONE next step the
 * client must take. The client (cli/cmd_rolling_update.c) is a loop:
 * read, plan, write, poll. Because every step is decided from the stored
 * objects alone, a client killed at any point and run again with the
 * same arguments resumes where the first one stopped.
 *
 * The steps, in the order a fresh `drover rolling-update foo
 * --image=web:2` takes them (foo: 3 replicas, template hash of the next
 * controller H, of foo G):
 *
 *   relabel-old   foo: template label kubernetes.io/deployment=G-orig,
 *                 annotations update-partner=foo-H, original-replicas=3
 *   label-pods    foo's pods that lack the label get it
 *   select-old    foo: selector += the label (its pods already carry
 *                 it, so the controller neither adopts nor creates: no
 *                 extra pod at any time)
 *   create-next   foo-H: replicas 0, selector and template with
 *                 kubernetes.io/deployment=H, annotations
 *                 desired-replicas=3, update-partner=foo and
 *                 update-source-id=foo:<uid of foo>
 *   scale-next    foo-H 0 → 1 (maxSurge 1: at most 4 pods)
 *   scale-old     once foo-H's pod is available: foo 3 → 2 (maxUnavailable
 *                 0: never fewer than 3 available) ... until foo-H has 3
 *                 and foo 0
 *   delete-old    foo (no pods left)
 *   hold-next     foo-H gets the finalizer drover.io/rolling-update
 *   orphan-next   DELETE foo-H, propagationPolicy Orphan: the garbage
 *                 collector releases its pods; the finalizer keeps foo-H
 *                 (being deleted, so inert) until the rename is done
 *   create-final  foo, identical to foo-H (replicas 3): adopts the
 *                 released pods, creates none
 *   release-next  foo-H's finalizer dropped: foo-H goes
 *
 * With NEXT named on the command line (no rename), the end is
 * delete-old then clean-next (the recovery annotations dropped). With
 * --rollback the client swaps the roles (OLD is the in-flight next,
 * NEXT is the original) and sets rollback: the original's
 * desired-replicas comes from its original-replicas and its
 * update-source-id is re-pointed, then the same rollout runs.
 *
 * A NEXT that exists without the partner annotations (made by hand or
 * by another tool) is a partial rollout, as the seed says, once
 * check_pair() finds the two fit to be partners (selectors apart, NEXT's
 * containers those the update asks for): adopt-old then adopt-next
 * write the annotations, and the rollout goes on. Otherwise it is
 * refused with what to do.
 *
 * Ownership: the caller owns `in`; plan_rcu_step_release() frees what a
 * step owns (its object, its pod names). */
#ifndef DROVER_PLAN_RC_UPDATE_H
#define DROVER_PLAN_RC_UPDATE_H

#include "model.h"

/* The recovery annotations and the label. The seed's names, written:
 * desired-replicas (on NEXT) and update-partner (each names the other)
 * in the kubernetes.io/ namespace, and the unique-ifying label's default
 * key. OLD's desired count is always 0 and is not written: a written 0
 * would be a trap for a run that takes OLD for a NEXT. */
#define ANN_RCU_DESIRED   "kubernetes.io/desired-replicas"
#define ANN_RCU_PARTNER   "kubernetes.io/update-partner"
#define RCU_LABEL_KEY_DEF "kubernetes.io/deployment"
/* kubectl's own two, which the seed lacks and which make the update
 * safer, written under kubectl's names: NEXT's "OLD:<uid of OLD>" (a
 * NEXT left by an earlier OLD of that name is refused) and OLD's size
 * before the update (the size a --rollback returns to). */
#define ANN_RCU_SOURCE   "kubectl.kubernetes.io/update-source-id"
#define ANN_RCU_ORIGINAL "kubectl.kubernetes.io/original-replicas"
/* The later kubectl's (1.0 to 1.17) names of the seed's two: read, never
 * written, so that an update a real kubectl began can be resumed. */
#define ANN_KUBECTL_DESIRED   "kubectl.kubernetes.io/desired-replicas"
#define ANN_KUBECTL_NEXT      "kubectl.kubernetes.io/next-controller-id"
#define RCU_LABEL_KEY_KUBECTL "deployment"
#define FINALIZER_RCU         "drover.io/rolling-update"

enum rcu_op {
	RCU_ERROR,        /* stop; message says why */
	RCU_DONE,         /* the update is complete */
	RCU_WAIT,         /* nothing to write now: poll again */
	RCU_CREATE,       /* create obj */
	RCU_UPDATE,       /* update obj (read before: a compare-and-swap) */
	RCU_SCALE,        /* set target's spec.replicas from → to */
	RCU_LABEL_PODS,   /* add label_key=label_value to pods[] */
	RCU_DELETE,       /* delete target (its pods go with it) */
	RCU_DELETE_ORPHAN /* delete target, propagationPolicy Orphan */
};

/* What the client knows. old/next: as stored, NULL if absent. */
struct plan_rcu_in {
	const char *old_name;  /* OLD */
	const char *next_name; /* NEW, or OLD-<hash>, or from the annotation */
	bool rename;           /* NEXT takes OLD's name at the end */
	bool rollback;         /* roles already swapped by the caller */
	const struct replication_controller *old, *next;
	/* The next controller to create when it does not exist yet (name,
	 * labels, selector, template; the deployment label included when
	 * label_key is set); NULL when it cannot be made (rollback). */
	const struct replication_controller *proto;
	/* The unique-ifying label (--deployment-label-key) and its values:
	 * the next's hash, and the value the old gets ("<G>-orig") if it
	 * has none yet. label_key NULL or "": no relabelling (-f). */
	const char *label_key, *label_value, *old_label_value;
	int64_t desired;        /* size of NEXT if it must be created */
	int64_t next_available; /* NEXT's pods available now */
	/* This run has written a step already: on --rollback, the
	 * in-flight controller gone and the original without annotations
	 * is then the rollback's end, not "nothing to roll back". */
	bool acted;
	/* OLD's live pods that lack label_key=old label value. */
	const char *const *old_unlabeled;
	size_t nold_unlabeled;
};

struct plan_rcu_step {
	enum rcu_op op;
	const char *name; /* "create-next", "scale-old", ... (the hook name) */
	const char *target; /* name of the RC acted on (into in or obj) */
	struct replication_controller obj; /* CREATE, UPDATE */
	bool has_obj;
	int64_t from, to;                    /* SCALE */
	const char *label_key, *label_value; /* LABEL_PODS (into in) */
	struct strlist pods;                 /* LABEL_PODS */
	/* Rollout summary (kubectl's line), set on rollout steps:
	 * "Scaling up foo-H from 0 to 3, scaling down foo from 3 to 0
	 * (keep 3 pods available, don't exceed 4 pods)". */
	char summary[512];
	char message[1536]; /* the human line of the step, or the error */
};

void plan_rcu(const struct plan_rcu_in *in, struct plan_rcu_step *out);
void plan_rcu_step_release(struct plan_rcu_step *s);

/* The replica count an RC's annotation holds: 0 and *v, or -1. */
int rcu_ann_int(const struct replication_controller *rc, const char *key,
		int64_t *v);

/* desired-replicas under the seed's name, else kubectl's: 0 and *v, or
 * -1. */
int rcu_desired(const struct replication_controller *rc, int64_t *v);

/* OLD's pointer to its next controller: update-partner, else kubectl's
 * next-controller-id; NULL if none (a string of rc's). */
const char *rcu_next_of(const struct replication_controller *old);

/* Whether rc's update-source-id names `name` ("foo:<uid>" names foo):
 * rc is the next controller of an update of `name`. */
bool rcu_source_names(const struct replication_controller *rc,
		      const char *name);

/* The label key of an update in progress whose NEXT exists, when the
 * run was given no --deployment-label-key (`key` is the default): key
 * if NEXT's selector has it, else the later kubectl's default
 * "deployment" if NEXT's has that (an update a real kubectl began),
 * else key. */
const char *rcu_key_in_progress(const struct replication_controller *next,
				const char *key);

/* Whether a run whose first step is `first` resumes an update another
 * run began: NEXT exists as it starts (not a rollback), and there is
 * work left. The client then says kubectl's "Continuing update with
 * existing controller NEXT." before anything else. */
bool plan_rcu_resumes(const struct plan_rcu_in *in,
		      const struct plan_rcu_step *first);

/* Previews the whole update (drover rolling-update --dry-run): plays
 * plan_rcu on copies where every write takes effect at once and every
 * new pod is available at once; appends each step's line to out (a
 * strbuf's buf, caller frees with strbuf_release). Returns 0, or -1
 * when the plan ends in an error (its message is the last line). */
struct strbuf;
int plan_rcu_preview(const struct plan_rcu_in *in, struct strbuf *out);

#endif
