/* metrics_process.c - process metrics from /proc/self (see
 * metrics_process.h), read at every collection: a scrape costs four
 * small reads and a walk of /proc/self/fd. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "metrics.h"
#include "metrics_process.h"

/* Reads a small /proc file into buf: its length, or -1. */
static long
read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (long)n;
}

/* /proc/self/stat: the fields after the command (which may hold spaces
 * and parentheses, so the last ')' ends it). Field numbers as in
 * proc(5): 14 utime, 15 stime, 22 starttime (clock ticks), 23 vsize
 * (bytes), 24 rss (pages). */
struct stat_fields {
	unsigned long long utime, stime, starttime, vsize, rss;
};

static int
read_stat(struct stat_fields *sf)
{
	char buf[1024], *p;
	int field;

	if (read_small("/proc/self/stat", buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (p == NULL)
		return -1;
	p++;
	/* field 3 (state) starts after ") " */
	for (field = 3; *p && field <= 24; field++) {
		unsigned long long v;
		char *end;

		while (*p == ' ')
			p++;
		v = strtoull(p, &end, 10);
		if (field == 14)
			sf->utime = v;
		else if (field == 15)
			sf->stime = v;
		else if (field == 22)
			sf->starttime = v;
		else if (field == 23)
			sf->vsize = v;
		else if (field == 24)
			sf->rss = v;
		p = strchr(p, ' ');
		if (p == NULL)
			return field >= 24 ? 0 : -1;
	}
	return field > 24 ? 0 : -1;
}

/* The boot time (btime in /proc/stat), seconds since the epoch. */
static int
boot_time(unsigned long long *btime)
{
	char buf[8192], *p;

	if (read_small("/proc/stat", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nbtime ");
	if (p == NULL)
		return -1;
	*btime = strtoull(p + 7, NULL, 10);
	return 0;
}

static long
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

void
metrics_process_collect(void *arg, struct strbuf *out)
{
	struct stat_fields sf = {0};
	unsigned long long btime;
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	long fds = open_fds();
	struct rlimit rl;

	(void)arg;
	if (ticks <= 0)
		ticks = 100;
	if (read_stat(&sf) == 0) {
		metrics_family(out, "process_cpu_seconds_total", "counter",
			       "Total user and system CPU time spent in "
			       "seconds.");
		metrics_sample(out, "process_cpu_seconds_total", NULL,
			       (double)(sf.utime + sf.stime) / (double)ticks);
		metrics_family(out, "process_resident_memory_bytes", "gauge",
			       "Resident memory size in bytes.");
		metrics_sample_u64(out, "process_resident_memory_bytes", NULL,
				   sf.rss * (unsigned long long)page);
		metrics_family(out, "process_virtual_memory_bytes", "gauge",
			       "Virtual memory size in bytes.");
		metrics_sample_u64(out, "process_virtual_memory_bytes", NULL,
				   sf.vsize);
		if (boot_time(&btime) == 0) {
			metrics_family(out, "process_start_time_seconds",
				       "gauge",
				       "Start time of the process since unix "
				       "epoch in seconds.");
			metrics_sample(out, "process_start_time_seconds", NULL,
				       (double)btime + (double)sf.starttime /
							   (double)ticks);
		}
	}
	if (fds >= 0) {
		metrics_family(out, "process_open_fds", "gauge",
			       "Number of open file descriptors.");
		metrics_sample_u64(out, "process_open_fds", NULL,
				   (uint64_t)fds);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		metrics_family(out, "process_max_fds", "gauge",
			       "Maximum number of open file descriptors.");
		metrics_sample_u64(out, "process_max_fds", NULL,
				   rl.rlim_cur == RLIM_INFINITY
				       ? UINT64_MAX
				       : (uint64_t)rl.rlim_cur);
	}
}
