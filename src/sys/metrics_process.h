/* metrics_process.h - the process's own metrics, from /proc/self, as
 * Prometheus' Go client exports them for every Kubernetes component
 * (its process collector): process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_start_time_seconds, process_open_fds, process_max_fds. */
#ifndef DROVER_SYS_METRICS_PROCESS_H
#define DROVER_SYS_METRICS_PROCESS_H

#include "strbuf.h"

/* A metrics_collect_fn (arg unused). A family whose /proc file cannot
 * be read is left out. */
void metrics_process_collect(void *arg, struct strbuf *out);

#endif
