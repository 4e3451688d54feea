/* log.c - timestamped log lines on stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "clock.h"
#include "log.h"

static enum log_level level = LOG_INFO;

void
log_set_level(enum log_level l)
{
	level = l;
}

void
log_msg(enum log_level l, const char *fmt, ...)
{
	static const char *names[] = {"debug", "info", "warn", "error"};
	char ts[32];
	va_list ap;

	if (l < level)
		return;
	dtime_format(clock_now(), ts);
	fprintf(stderr, "%s %s ", ts, names[l]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
