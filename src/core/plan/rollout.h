/* rollout.h - the client-side rollout verbs of kubectl, as pure functions
 * (spec/deployment.md §13.1 and §15): what `rollout status` prints and
 * whether it is done, the revision history, and what `rollout undo`
 * writes. The CLI does the I/O around them. */
#ifndef DROVER_ROLLOUT_H
#define DROVER_ROLLOUT_H

#include "model.h"
#include "strbuf.h"

enum rollout_state {
	ROLLOUT_WAITING, /* print the message, keep watching */
	ROLLOUT_DONE,    /* print the message, exit 0 */
	ROLLOUT_FAILED,  /* print "error: <message>", exit 1 */
};

/* kubectl's DeploymentStatusViewer: msg gets one line (with '\n' for the
 * non-error states). revision 0: any. */
enum rollout_state rollout_status(const struct deployment *d, int64_t revision,
				  struct strbuf *msg);

/* The revisioned ReplicaSets of d, ascending by revision; *out is
 * allocated (pointers into rs), *n its length. */
void rollout_history(struct replicaset *const *rs, size_t nrs,
		     struct replicaset ***out, size_t *n);

enum undo_kind {
	UNDO_ERROR,   /* message: why not (exit 1) */
	UNDO_SKIPPED, /* message: "... skipped rollback (...)" */
	UNDO_PATCH,   /* write template and annotations */
};

struct undo_result {
	enum undo_kind kind;
	struct strbuf message;
	int64_t revision;             /* the target revision */
	struct pod_template template; /* UNDO_PATCH: the new template */
	struct strmap annotations;    /* UNDO_PATCH: the new annotations */
};

/* kubectl rollout undo [--to-revision N]; kind_name is
 * "deployment.apps/web" for the messages. */
void rollout_undo(const struct deployment *d, struct replicaset *const *rs,
		  size_t nrs, int64_t to_revision, const char *kind_name,
		  struct undo_result *r);
void undo_result_release(struct undo_result *r);

#endif
