/* turn.h - the CPU the current turn of a loop has used, one clock shared
 * by all the work on that loop that stops past a budget: the work queues
 * (queue.h), a controller's sync (ctl_overtime), the node agent's kick.
 *
 * A turn ends in the loop's prepare phase, just before it waits for I/O;
 * the wait costs no CPU, so the thread's CPU time read there is the mark,
 * and the CPU used since is the turn's, whatever ran in it: the I/O
 * callbacks, the check phase, the next iteration's timers. Each budget
 * measured on its own (wall clock since the start of one batch or one
 * sync) let a turn hold several of them one after the other: a
 * ReplicaSet plan of 100,000 pods (50 ms), then a timer's batch of
 * deletions, the agent's kick and the commit of it all, 90-110 ms of CPU
 * in one turn. Measured against this clock, every unit stops once the
 * turn as a whole has used its budget.
 *
 * Example: the prepare phase reads 4.210 s of thread CPU; a request
 * handler uses 3 ms and a queue's batch 18 ms; turn_cpu_ms() is then 21
 * and turn_over_ms(QUEUE_TURN_BUDGET_MS) is true, so the batch's next
 * key waits until the loop has polled.
 *
 * One clock per thread (the loop runs on one thread; every call must come
 * from it). turn_attach() counts its users and starts the prepare handle
 * with the first; turn_detach() closes it with the last (the loop must
 * then run once more for the close). Unattached, no budget is ever over. */
#ifndef DROVER_CLIENT_TURN_H
#define DROVER_CLIENT_TURN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* (uv_prepare_init cannot fail on Unix: nothing to report.) */
void turn_attach(uv_loop_t *loop);
void turn_detach(void);

/* This thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID; 0 if
 * it cannot be read): what a turn's CPU is measured with, here and in
 * the loop's turn histogram (src/daemon/loopstat.c). */
uint64_t turn_thread_cpu_ns(void);

/* CPU milliseconds used by this thread since its loop's last prepare
 * phase (0 unattached). One system call, about 0.4 us. */
double turn_cpu_ms(void);

/* turn_cpu_ms() > ms. */
bool turn_over_ms(double ms);

#endif
