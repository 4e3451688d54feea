/* queue.h - the keyed work queue of a controller (client-go's workqueue
 * on one libuv loop, no threads).
 *
 * - De-duplication: a key added many times before it runs is synced once,
 *   in the place of its first add: keys run first in, first out.
 * - A key is never synced re-entrantly: adds during its sync mark it dirty
 *   and it runs again on a later loop turn.
 * - A sync that asks to run again at once (requeue 0: a burst with more
 *   to do) yields: it runs after the loop has polled for I/O; so do all
 *   keys once the loop's turn has used QUEUE_TURN_BUDGET_MS of CPU
 *   (turn.h, whatever used it), so that neither a long job nor a cascade
 *   between controllers starves the API.
 * - Delayed adds (requeue-after), and rate-limited retries on failure:
 *   5 ms doubling up to 1000 s, dropped after 15 failures until the next
 *   add (Kubernetes' DefaultControllerRateLimiter per item).
 *
 * - Metrics: Kubernetes' workqueue metrics per queue name, under
 *   drover_ (depth, adds_total, retries_total, queue_duration_seconds,
 *   work_duration_seconds), written by queue_metrics_collect. As in
 *   client-go an add counts when the key was not waiting already, and a
 *   retry is every delayed add: queue_add_after, a sync's requeue after
 *   some time, a back-off after a failure.
 *
 * Ownership: the queue copies keys; queue_free() stops its timers and
 * frees everything once the loop has run the close callbacks. */
#ifndef DROVER_CLIENT_QUEUE_H
#define DROVER_CLIENT_QUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* Returns 0 on success, non-zero to retry with back-off. *requeue_ms may
 * be set (>= 0) to sync again after that many milliseconds. */
typedef int (*queue_sync_cb)(void *arg, const char *key, int64_t *requeue_ms);

struct queue;

struct queue *queue_new(uv_loop_t *loop, const char *name, queue_sync_cb cb,
			void *arg);
/* fn(arg) runs after each batch of syncs, once no sync is running: in
 * `drover serve` it commits the batch's writes and delivers their events
 * (store.h), so that the controller a write concerns (the Deployment
 * controller for a ReplicaSet's status) syncs in the same loop turn
 * instead of the next. NULL: nothing. */
void queue_set_settle(struct queue *q, void (*fn)(void *arg), void *arg);
void queue_add(struct queue *q, const char *key);
/* Runs the keys waiting for the next kick now, from another queue's
 * settle: a queue downstream of the others (the scheduler) goes first,
 * before the upstream chain it is waiting behind. Nothing if its batch is
 * running, nothing is kicked (only yielded keys, which wait for the
 * poll), or the loop turn is over its budget. */
void queue_run_now(struct queue *q);
void queue_add_after(struct queue *q, const char *key, int64_t ms);
/* Number of keys waiting (dirty now), for tests and status. */
size_t queue_pending(const struct queue *q);
void queue_free(struct queue *q);

/* "ns/name" keys (client-go's MetaNamespaceKeyFunc and
 * SplitMetaNamespaceKey); "" for no namespace. */
void queue_key(char *buf, size_t len, const char *ns, const char *name);
int queue_split_key(const char *key, char *ns, size_t nslen, char *name,
		    size_t namelen);

/* More than ms have passed since started (a uv_hrtime()): the budget
 * check of work that yields to the loop (syncs, the agent's kick). */
bool queue_overtime_ms(uint64_t started, int64_t ms);

/* A metrics_collect_fn (src/sys/metrics.h; arg unused): the workqueue
 * families of every queue name used in this process. Example:
 *   drover_workqueue_adds_total{name="deployment"} 3 */
struct strbuf;
void queue_metrics_collect(void *arg, struct strbuf *out);

#define QUEUE_MAX_RETRIES 15
/* Past this much CPU in one turn of the loop (turn.h), the queues wait
 * for the loop to poll for I/O before they run again. */
#define QUEUE_TURN_BUDGET_MS 20

#endif
