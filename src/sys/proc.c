/* proc.c - /proc/PID/stat start times and pidfds. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "proc.h"

int
proc_start_time(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	char state;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command may hold spaces and ')' */
	if (p == NULL || sscanf(p + 2, "%c", &state) != 1 || state == 'Z' ||
	    state == 'X')
		return -1;
	p += 2;
	for (i = 3; i < 22 && p; i++) { /* skip fields 3..21 */
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p == NULL || sscanf(p, "%llu", &st) != 1)
		return -1;
	*ticks = st;
	return 0;
}

int
proc_adopt(pid_t pid, uint64_t ticks)
{
	uint64_t now;
	int fd = pidfd_open(pid, 0);

	if (fd < 0)
		return -1;
	/* Checked after opening: the pidfd pins the process we compare. */
	if (proc_start_time(pid, &now) || now != ticks) {
		close(fd);
		return -1;
	}
	return fd;
}
