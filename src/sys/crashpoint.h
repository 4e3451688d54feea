/* crashpoint.h - named places where a test makes the daemon die as a
 * SIGKILL would, to prove that a crash at exactly that step loses
 * nothing (tests/e2e/test_inplace_rollout.py). With the environment
 * variable DROVER_CRASHPOINT=NAME, the first crashpoint(NAME) reached
 * logs "crashpoint NAME" and raises SIGKILL on the process; without it,
 * crashpoint() is a string compare against NULL and returns.
 *
 * The places, in the order of one pod's in-place update:
 *   inplace-before-txn     the server has checked the update, before
 *                          the transaction (h_inplace.c)
 *   inplace-intent-seen    the agent sees the new spec: the intent is
 *                          stored, no process touched (runtime_update.c)
 *   inplace-after-sigterm  the old process has been sent SIGTERM
 *   inplace-after-start    the new process runs, before its status is
 *                          written (runtime_spawn.c) */
#ifndef DROVER_CRASHPOINT_H
#define DROVER_CRASHPOINT_H

void crashpoint(const char *name);

#endif
