/* node_flags.c - the agent's flags shared by serve and agent (see
 * node_flags.h). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "fit.h"
#include "log.h"
#include "node_flags.h"
#include "portalloc.h"
#include "strbuf.h"

int
node_flag_default_user(const char *arg, struct agent_config *agc)
{
	const struct passwd *pw = getpwnam(arg);
	char *end;
	long long uid;

	if (pw == NULL) {
		errno = 0;
		uid = strtoll(arg, &end, 10);
		if (*arg == '\0' || *end || errno || uid < 0 ||
		    uid > 0xfffffffeLL) {
			fprintf(stderr,
				"error: --default-user: \"%s\": no such user\n",
				arg);
			return -1;
		}
		pw = getpwuid((uid_t)uid);
		agc->default_uid = uid;
		agc->default_gid = pw ? (long long)pw->pw_gid : uid;
	} else {
		agc->default_uid = pw->pw_uid;
		agc->default_gid = pw->pw_gid;
	}
	agc->default_user = true;
	/* Only root can run processes as another user. */
	if (geteuid() != 0 && (uid_t)agc->default_uid != geteuid()) {
		fprintf(stderr, "error: --default-user: running pods as "
				"another user needs drover to run as root\n");
		return -1;
	}
	return 0;
}

int
node_flag_port_range(const char *arg, struct agent_config *agc)
{
	if (portalloc_parse_range(arg, &agc->port_lo, &agc->port_hi) == 0)
		return 0;
	fprintf(stderr,
		"error: --host-port-range: \"%s\": expected A-B with 1 <= A "
		"<= B <= 65535\n",
		arg);
	return -1;
}

int
node_flag_allocatable(const char *arg, struct strmap *map,
		      struct agent_config *agc)
{
	struct strbuf why = STRBUF_INIT;

	strmap_release(map);
	if (fit_parse_allocatable(arg, map, &why)) {
		fprintf(stderr, "error: --allocatable: %s\n", why.buf);
		strbuf_release(&why);
		strmap_release(map);
		return -1;
	}
	strbuf_release(&why);
	agc->allocatable = map;
	return 0;
}

void
node_runtime_paths(const char *who, const char *dir, struct node_paths *paths,
		   struct agent_config *agc)
{
	snprintf(paths->pods, sizeof(paths->pods), "%s/pods", dir);
	agc->pod_dir = paths->pods;
	snprintf(paths->proxy_sock, sizeof(paths->proxy_sock), "%s/proxy.sock",
		 dir);
	snprintf(paths->proxy_log, sizeof(paths->proxy_log), "%s/proxy.log",
		 dir);
	if (strlen(paths->proxy_sock) <
	    sizeof(((struct sockaddr_un *)0)->sun_path)) {
		agc->proxy_socket = paths->proxy_sock;
		agc->proxy_log = paths->proxy_log;
	} else {
		log_error("%s: %s: too long for a unix socket: Services are "
			  "not served",
			  who, paths->proxy_sock);
	}
}
