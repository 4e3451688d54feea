/* drain_pods.h - which pods of a node `drain` evicts, skips or refuses
 * to touch: kubectl's pkg/drain filters (Kubernetes 1.28), pure, in
 * their order, the first that does not delete deciding:
 *
 *   1. skip-deleted: deleting for longer than --skip-wait-for-delete-
 *      timeout seconds (when > 0): skipped, silently;
 *   2. DaemonSet: a pod a DaemonSet controls (not finished): its
 *      DaemonSet not found -> with --force deleted with the lookup's
 *      error as warning, else an error; found -> an error without
 *      --ignore-daemonsets, else skipped with "ignoring DaemonSet-managed
 *      Pods";
 *   3. mirror pods (annotation kubernetes.io/config.mirror): skipped;
 *   4. local storage: a pod with an emptyDir volume (not finished) ->
 *      an error without --delete-emptydir-data ("cannot delete Pods
 *      with local storage (use --delete-emptydir-data to override):
 *      default/a"), else deleted with "deleting Pods with local
 *      storage" (a warning the next filter always replaces, below);
 *   5. unreplicated: no controller (not finished) -> with --force
 *      deleted with "deleting Pods that declare no controller", else an
 *      error.
 *
 * A pod keeps the verdict of the last filter it went through: a warning
 * an earlier filter gave is lost when a later one says plain delete, as
 * in kubectl. So an emptyDir pod a ReplicaSet owns is evicted under
 * --delete-emptydir-data without a warning, and a naked one with
 * --force shows "deleting Pods that declare no controller" only. Errors and warnings are grouped by message:
 * "cannot delete Pods declare no controller (use --force to override):
 * default/a, default/b".
 *
 * Ownership: out->v points into the caller's pods; the messages are
 * static or owned by out (drain_pods_release). */
#ifndef DROVER_DRAIN_PODS_H
#define DROVER_DRAIN_PODS_H

#include <stdbool.h>

#include "model.h"

struct drain_opts {
	bool force, ignore_daemonsets, delete_emptydir;
	int64_t skip_wait_s; /* 0: never skip deleting pods */
};

enum drain_verdict { DRAIN_DELETE, DRAIN_SKIP, DRAIN_ERROR };

struct drain_pod {
	const struct pod *pod;
	enum drain_verdict verdict;
	bool warning;  /* DRAIN_DELETE/SKIP with a warning */
	char *message; /* the warning or the error; NULL none */
};

struct drain_pods {
	struct drain_pod *v;
	size_t n;
};

/* ds_exists(arg, ns, name): whether the DaemonSet exists (drover serves
 * none yet: always false, its lookup a NotFound). */
void drain_pods_filter(const struct drain_opts *o, struct pod *const *pods,
		       size_t n, dtime now,
		       bool (*ds_exists)(void *arg, const char *ns,
					 const char *name),
		       void *arg, struct drain_pods *out);
void drain_pods_release(struct drain_pods *out);
/* kubectl's texts: the errors, each "cannot delete MSG: ns/a, ns/b",
 * joined by ", " (a list of several errors is put in [...] by the
 * caller); the warnings "MSG: ns/a, ns/b" joined by "; ". Messages in
 * the order they first occur. Empty strbuf: none. */
void drain_pods_errors(const struct drain_pods *l, struct strbuf *sb,
		       size_t *count);
void drain_pods_warnings(const struct drain_pods *l, struct strbuf *sb);

#endif
