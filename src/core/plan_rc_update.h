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
 *   relabel-old   foo: template label deployment=G-orig, annotations
 *                 next-controller-id=foo-H, original-replicas=3
 *   label-pods    foo's pods that lack deployment=G-orig get it
 *   select-old    foo: selector += deployment=G-orig (its pods already
 *                 carry it, so the controller neither adopts nor
 *                 creates: no extra pod at any time)
 *   create-next   foo-H: replicas 0, selector and template with
 *                 deployment=H, annotations desired-replicas=3 and
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
 * Ownership: the caller owns `in`; plan_rcu_step_release() frees what a
 * step owns (its object, its pod names). */
#ifndef DROVER_PLAN_RC_UPDATE_H
#define DROVER_PLAN_RC_UPDATE_H

#include "model.h"

/* The recovery annotations, under kubectl's names. */
#define ANN_RCU_DESIRED   "kubectl.kubernetes.io/desired-replicas"
#define ANN_RCU_SOURCE    "kubectl.kubernetes.io/update-source-id"
#define ANN_RCU_NEXT      "kubectl.kubernetes.io/next-controller-id"
#define ANN_RCU_ORIGINAL  "kubectl.kubernetes.io/original-replicas"
#define FINALIZER_RCU     "drover.io/rolling-update"
#define RCU_LABEL_KEY_DEF "deployment"

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
	char message[768]; /* the human line of the step, or the error */
};

void plan_rcu(const struct plan_rcu_in *in, struct plan_rcu_step *out);
void plan_rcu_step_release(struct plan_rcu_step *s);

/* The replica count an RC's annotation holds: 0 and *v, or -1. */
int rcu_ann_int(const struct replication_controller *rc, const char *key,
		int64_t *v);

/* Previews the whole update (drover rolling-update --dry-run): plays
 * plan_rcu on copies where every write takes effect at once and every
 * new pod is available at once; appends each step's line to out (a
 * strbuf's buf, caller frees with strbuf_release). Returns 0, or -1
 * when the plan ends in an error (its message is the last line). */
struct strbuf;
int plan_rcu_preview(const struct plan_rcu_in *in, struct strbuf *out);

#endif
