/* crashpoint.c - die at a named step when a test asks (crashpoint.h). */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "crashpoint.h"
#include "log.h"

void
crashpoint(const char *name)
{
	static const char *want;
	static bool read;

	if (!read) {
		want = getenv("DROVER_CRASHPOINT");
		read = true;
	}
	if (want == NULL || strcmp(want, name))
		return;
	log_warn("crashpoint %s: dying as a SIGKILL would", name);
	raise(SIGKILL);
}
