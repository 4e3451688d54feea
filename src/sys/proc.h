/* proc.h - process identity for re-adoption: a pid alone can be reused,
 * a pid with its start time (clock ticks since boot, /proc/PID/stat field
 * 22) cannot. */
#ifndef DROVER_SYS_PROC_H
#define DROVER_SYS_PROC_H

#include <stdint.h>
#include <sys/types.h>

/* The start time of pid; 0, or -1 if there is no such process (or it is
 * a zombie). */
int proc_start_time(pid_t pid, uint64_t *ticks);
/* A pidfd for pid if it is alive and started at `ticks`, else -1. The
 * caller closes it; it becomes readable when the process exits. */
int proc_adopt(pid_t pid, uint64_t ticks);

#endif
