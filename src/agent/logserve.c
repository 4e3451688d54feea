/* logserve.c - the agent's /containerLogs over HTTPS (logserve.h), on
 * libmicrohttpd's own thread. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ctstr.h"
#include "log.h"
#include "logs.h"
#include "logserve.h"
#include "strbuf.h"
#include "xalloc.h"

#define PREFIX "/containerLogs/"

struct logserve {
	struct MHD_Daemon *d;
	char *cert, *key, *bearer, *pod_dir;
	int port;
};

static enum MHD_Result
answer(struct MHD_Connection *conn, unsigned status, const char *text,
       size_t len, int64_t end)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	char buf[32];

	MHD_add_response_header(r, "Content-Type", "text/plain");
	if (end >= 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)end);
		MHD_add_response_header(r, "X-Drover-Log-Offset", buf);
	}
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
plain(struct MHD_Connection *conn, unsigned status, const char *msg)
{
	return answer(conn, status, msg, strlen(msg), -1);
}

static int64_t
arg_int(struct MHD_Connection *conn, const char *name, int64_t none)
{
	const char *v =
	    MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);

	return v && *v ? strtoll(v, NULL, 10) : none;
}

/* "ns/pod/container" into its three parts (each a DNS name: no '/'). */
static int
split_path(const char *p, char ns[256], char pod[256], char container[256])
{
	const char *a = strchr(p, '/'), *b = a ? strchr(a + 1, '/') : NULL;

	if (!a || !b || a == p || b == a + 1 || !b[1] || strchr(b + 1, '/') ||
	    (size_t)(a - p) >= 256 || (size_t)(b - a - 1) >= 256 ||
	    strlen(b + 1) >= 256)
		return -1;
	snprintf(ns, 256, "%.*s", (int)(a - p), p);
	snprintf(pod, 256, "%.*s", (int)(b - a - 1), a + 1);
	snprintf(container, 256, "%s", b + 1);
	return 0;
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url,
	const char *method, const char *version, const char *upload,
	size_t *upload_size, void **con_cls)
{
	struct logserve *s = cls;
	const char *auth =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	const char *prev = MHD_lookup_connection_value(
	    conn, MHD_GET_ARGUMENT_KIND, "previous");
	char ns[256], pod[256], container[256], msg[600];
	struct podlog_req rq = {0};
	struct strbuf out = STRBUF_INIT;
	int64_t end = 0;
	enum MHD_Result ret;
	int r;

	(void)version;
	(void)upload;
	if (*con_cls == NULL) { /* the headers: wait for the end */
		*con_cls = s;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* no body is read */
		return MHD_YES;
	}
	if (auth == NULL || strncmp(auth, "Bearer ", 7) ||
	    !ct_streq(auth + 7, s->bearer))
		return plain(conn, 401, "Unauthorized");
	if (strcmp(method, "GET") || strncmp(url, PREFIX, strlen(PREFIX)) ||
	    split_path(url + strlen(PREFIX), ns, pod, container))
		return plain(conn, 404, "Not Found");
	rq.ns = ns;
	rq.pod = pod;
	rq.container = container;
	rq.uid =
	    MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "uid");
	if (rq.uid == NULL)
		rq.uid = "";
	rq.previous = prev && !strcmp(prev, "true");
	rq.offset = arg_int(conn, "offset", 0);
	rq.limit = arg_int(conn, "limitBytes", -1);
	rq.tail = arg_int(conn, "tailLines", -1);
	r = logs_read(s->pod_dir, &rq, &out, &end, msg, sizeof(msg));
	if (r)
		ret = plain(conn, (unsigned)r, msg);
	else
		ret = answer(conn, 200, out.buf ? out.buf : "", out.len, end);
	strbuf_release(&out);
	return ret;
}

static void
log_cb(void *arg, const char *fmt, va_list ap)
{
	char buf[512];

	(void)arg;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("agent log server: %s", buf);
}

struct logserve *
logserve_start(const char *address, int port, const char *cert_pem,
	       const char *key_pem, const char *credential, const char *pod_dir,
	       char *err, size_t errlen)
{
	struct logserve *s;
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;

	if (inet_pton(AF_INET, address, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
	} else if (inet_pton(AF_INET6, address, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, errlen, "%s: not an IP address", address);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->cert = xstrdup(cert_pem);
	s->key = xstrdup(key_pem);
	s->bearer = xstrdup(credential);
	s->pod_dir = xstrdup(pod_dir);
	s->d = MHD_start_daemon(
	    flags, 0, NULL, NULL, handler, s, MHD_OPTION_EXTERNAL_LOGGER,
	    log_cb, NULL, MHD_OPTION_HTTPS_MEM_KEY, s->key,
	    MHD_OPTION_HTTPS_MEM_CERT, s->cert, MHD_OPTION_SOCK_ADDR, &ss,
	    MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_CONNECTION_LIMIT,
	    64u, MHD_OPTION_END);
	if (s->d == NULL) {
		snprintf(err, errlen,
			 "cannot serve the node's logs on %s:%d (is the port "
			 "in use? drover agent --port chooses another)",
			 address, port);
		logserve_stop(s);
		return NULL;
	}
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : port;
	return s;
}

int
logserve_port(const struct logserve *s)
{
	return s->port;
}

void
logserve_stop(struct logserve *s)
{
	if (s == NULL)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	free(s->cert);
	if (s->key)
		memset(s->key, 0, strlen(s->key));
	free(s->key);
	if (s->bearer)
		memset(s->bearer, 0, strlen(s->bearer));
	free(s->bearer);
	free(s->pod_dir);
	free(s);
}
