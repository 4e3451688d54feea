/* server.c - libmicrohttpd on the libuv loop (see server.h and
 * shared/notes/http-server-spike.md §4 and §9 for the rules followed
 * here: reply on the second handler call, MHD_run after every resume,
 * a connection limit, resume everything before stopping). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"
#include "strbuf.h"
#include "xalloc.h"

struct listener {
	struct http_server *srv;
	struct MHD_Daemon *d;
	uv_poll_t poll;
	uv_timer_t timer;
	/* A resumed watch is run after the loop turn's group commit: the
	 * check phase, with an idle handle so that the poll does not wait. */
	uv_check_t check;
	uv_idle_t idle;
	bool tcp;
	bool pending_run;
};

struct conn {
	struct listener *l;
	struct MHD_Connection *c;
	struct strbuf body;
	bool started;
	bool too_large;
	/* watch streams */
	struct api_watch *watch;
	struct strbuf out;
	size_t out_off;
	bool suspended;
	bool ended;
	uv_timer_t *deadline; /* timeoutSeconds */
	struct conn *next;    /* in srv->watches */
};

struct http_server {
	struct http_server_config cfg;
	struct listener ls[2];
	int nls;
	int tcp_port;
	char *unix_path;
	struct conn *watches;
	uv_timer_t bookmark;
	int closing;
};

static void run_listener(struct listener *l);

static void
on_timer(uv_timer_t *t)
{
	run_listener(t->data);
}

static void
log_cb(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	/* A client leaving a watch is normal, not an error. */
	if (strstr(fmt, "chunked") || strstr(fmt, "Failed to send"))
		return;
	vfprintf(stderr, fmt, ap);
}

/* Re-arms the listener's timer: at once while a resumed connection waits
 * for MHD_run (MHD does not count it in its timeout), else from
 * MHD_get_timeout. */
static void
on_idle(uv_idle_t *h)
{
	(void)h;
}

static void
on_check(uv_check_t *h)
{
	struct listener *l = h->data;

	uv_check_stop(&l->check);
	uv_idle_stop(&l->idle);
	run_listener(l);
}

/* MHD_run for resumed connections, after this loop turn's writes are
 * committed (serve's prepare handle): one commit serves every event the
 * turn produced. */
static void
run_soon(struct listener *l)
{
	l->pending_run = true;
	uv_idle_start(&l->idle, on_idle);
	uv_check_start(&l->check, on_check);
}

static void
schedule(struct listener *l)
{
	MHD_UNSIGNED_LONG_LONG to;

	if (l->pending_run) {
		run_soon(l);
	} else if (MHD_get_timeout(l->d, &to) == MHD_YES) {
		if (to == 0) /* work at once: after the turn's commit too */
			run_soon(l);
		else
			uv_timer_start(&l->timer, on_timer, to, 0);
	} else {
		uv_timer_stop(&l->timer);
	}
}

static void
run_listener(struct listener *l)
{
	l->pending_run = false;
	/* Commits the turn's writes, which hands their events to the watch
	 * streams; a group that fails to commit is rolled back and never
	 * reaches them (store.h), so the answers still go out. */
	api_flush(l->srv->cfg.api, NULL);
	MHD_run(l->d);
	schedule(l);
}

static void
on_poll(uv_poll_t *h, int status, int events)
{
	(void)status;
	(void)events;
	run_listener(h->data);
}

/* Resumes a suspended watch. MHD_run is deferred (run_soon): this runs
 * inside the store's event fan-out, and running MHD here could complete
 * and free connections under our feet. */
static void
resume(struct conn *c)
{
	if (c->suspended) {
		c->suspended = false;
		MHD_resume_connection(c->c);
		run_soon(c->l);
	}
}

/* Watch events arrive here (synchronously from the store fan-out). */
static int
on_watch_line(void *arg, const char *line, size_t len)
{
	struct conn *c = arg;

	strbuf_add(&c->out, line, len);
	if (c->started)
		resume(c);
	return 0;
}

static ssize_t
reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct conn *c = cls;
	size_t n;

	(void)pos;
	if (c->out_off == c->out.len) {
		strbuf_reset(&c->out);
		c->out_off = 0;
		if (c->ended)
			return MHD_CONTENT_READER_END_OF_STREAM;
		c->suspended = true;
		MHD_suspend_connection(c->c);
		return 0;
	}
	n = c->out.len - c->out_off;
	if (n > max)
		n = max;
	memcpy(buf, c->out.buf + c->out_off, n);
	c->out_off += n;
	return (ssize_t)n;
}

static void
unlink_watch(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->l->srv->watches; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
}

static void
free_timer(uv_handle_t *h)
{
	free(h);
}

static void
conn_free(struct conn *c)
{
	if (c->watch) {
		api_watch_close(c->watch);
		unlink_watch(c);
	}
	if (c->deadline) {
		uv_timer_stop(c->deadline);
		uv_close((uv_handle_t *)c->deadline, free_timer);
	}
	strbuf_release(&c->body);
	strbuf_release(&c->out);
	free(c);
}

static void
reader_free(void *cls)
{
	/* The connection context is freed in on_completed. */
	(void)cls;
}

static void
on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
	     enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)connection;
	(void)toe;
	if (*con_cls)
		conn_free(*con_cls);
	*con_cls = NULL;
}

static void
on_deadline(uv_timer_t *t)
{
	struct conn *c = t->data;

	c->ended = true;
	resume(c);
}

static int
queue_plain(struct MHD_Connection *conn, unsigned code, const char *ct,
	    const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	int ret;

	MHD_add_response_header(r, "Content-Type", ct);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static int
queue_api(struct MHD_Connection *conn, struct api_resp *resp)
{
	const char *body = resp->body ? resp->body : "";
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	char off[32];
	int ret;

	MHD_add_response_header(r, "Content-Type",
				resp->content_type ? resp->content_type
						   : "application/json");
	if (resp->log_end) {
		snprintf(off, sizeof(off), "%lld", (long long)resp->log_end);
		MHD_add_response_header(r, "X-Drover-Log-Offset", off);
	}
	ret = MHD_queue_response(conn, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	api_resp_release(resp);
	return ret;
}

/* Re-encodes the (decoded) query arguments as a query string. */
struct qs {
	struct strbuf sb;
};

static void
add_encoded(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    ch == '.' || ch == '~') {
			strbuf_addch(sb, (char)ch);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[ch >> 4]);
			strbuf_addch(sb, hex[ch & 15]);
		}
	}
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
	    const char *value)
{
	struct qs *q = cls;

	(void)kind;
	if (q->sb.len)
		strbuf_addch(&q->sb, '&');
	add_encoded(&q->sb, key);
	strbuf_addch(&q->sb, '=');
	add_encoded(&q->sb, value);
	return MHD_YES;
}

static bool
authorized(struct listener *l, struct MHD_Connection *conn)
{
	const char *h;
	const char *tok = l->srv->cfg.token;

	if (!l->tcp)
		return true;
	h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	return h && tok && !strncmp(h, "Bearer ", 7) && !strcmp(h + 7, tok);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url,
	const char *method, const char *version, const char *upload,
	size_t *upload_size, void **con_cls)
{
	struct listener *l = cls;
	struct http_server *srv = l->srv;
	struct conn *c = *con_cls;
	struct api_req req;
	struct api_resp resp;
	struct qs q = {STRBUF_INIT};

	(void)version;
	if (c == NULL) {
		const char *cl;

		if (!authorized(l, conn))
			return queue_plain(
			    conn, 401, "application/json",
			    "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
			    "\"metadata\":{},\"status\":\"Failure\","
			    "\"message\":\"Unauthorized\",\"reason\":"
			    "\"Unauthorized\",\"code\":401}");
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						 "Content-Length");
		if (cl && strtoll(cl, NULL, 10) > API_MAX_BODY) {
			char msg[200];

			snprintf(msg, sizeof(msg),
				 "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
				 "\"metadata\":{},\"status\":\"Failure\","
				 "\"message\":\"Request entity too large: "
				 "limit is %d\",\"reason\":"
				 "\"RequestEntityTooLarge\",\"code\":413}",
				 API_MAX_BODY);
			return queue_plain(conn, 413, "application/json", msg);
		}
		c = xcalloc(1, sizeof(*c));
		c->l = l;
		c->c = conn;
		strbuf_init(&c->body);
		strbuf_init(&c->out);
		*con_cls = c;
		return MHD_YES;
	}
	if (*upload_size) {
		if (c->body.len + *upload_size > API_MAX_BODY)
			c->too_large = true;
		else
			strbuf_add(&c->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &q);
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = url;
	req.query = q.sb.len ? q.sb.buf : NULL;
	req.content_type =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
	req.body = c->body.buf;
	req.body_len = c->too_large ? API_MAX_BODY + 1 : c->body.len;
	if (api_is_watch(&req)) {
		struct MHD_Response *r;
		const char *ts;
		int ret;

		c->watch =
		    api_watch_open(srv->cfg.api, &req, on_watch_line, c, &resp);
		strbuf_release(&q.sb);
		if (c->watch == NULL)
			return queue_api(conn, &resp);
		api_resp_release(&resp);
		c->next = srv->watches;
		srv->watches = c;
		ts = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
						 "timeoutSeconds");
		c->deadline = xcalloc(1, sizeof(*c->deadline));
		uv_timer_init(srv->cfg.loop, c->deadline);
		c->deadline->data = c;
		uv_timer_start(c->deadline, on_deadline,
			       (ts ? strtoull(ts, NULL, 10) : 1800) * 1000, 0);
		c->started = true;
		r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384,
						      reader, c, reader_free);
		MHD_add_response_header(r, "Content-Type", "application/json");
		MHD_add_response_header(r, "Cache-Control", "no-cache");
		ret = MHD_queue_response(conn, 200, r);
		MHD_destroy_response(r);
		return ret;
	}
	api_handle(srv->cfg.api, &req, &resp);
	api_flush(srv->cfg.api, &resp); /* durable before it is answered */
	strbuf_release(&q.sb);
	return queue_api(conn, &resp);
}

static void
on_bookmark(uv_timer_t *t)
{
	struct http_server *s = t->data;
	struct conn *c;

	for (c = s->watches; c; c = c->next)
		api_watch_bookmark(c->watch);
}

static int
unix_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || fchmod(fd, 0600) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, 128) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
start_listener(struct http_server *s, struct listener *l, int fd,
	       struct sockaddr_in *sin, char *err, size_t errlen)
{
	const union MHD_DaemonInfo *info;
	unsigned flags =
	    MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

	l->srv = s;
	if (fd >= 0)
		l->d = MHD_start_daemon(
		    flags, 0, NULL, NULL, handler, l,
		    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL,
		    MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
		    on_completed, l, MHD_OPTION_CONNECTION_LIMIT,
		    s->cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
		    (unsigned)0, MHD_OPTION_END);
	else
		l->d = MHD_start_daemon(
		    flags, 0, NULL, NULL, handler, l,
		    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL,
		    MHD_OPTION_SOCK_ADDR, sin, MHD_OPTION_NOTIFY_COMPLETED,
		    on_completed, l, MHD_OPTION_CONNECTION_LIMIT,
		    s->cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
		    (unsigned)0, MHD_OPTION_END);
	if (l->d == NULL) {
		snprintf(err, errlen, "cannot start the HTTP listener");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_EPOLL_FD);
	uv_poll_init(s->cfg.loop, &l->poll, info->epoll_fd);
	l->poll.data = l;
	uv_poll_start(&l->poll, UV_READABLE, on_poll);
	uv_timer_init(s->cfg.loop, &l->timer);
	l->timer.data = l;
	uv_check_init(s->cfg.loop, &l->check);
	l->check.data = l;
	uv_idle_init(s->cfg.loop, &l->idle);
	run_listener(l);
	return 0;
}

int
http_server_start(const struct http_server_config *cfg,
		  struct http_server **out, char *err, size_t errlen)
{
	struct http_server *s = xcalloc(1, sizeof(*s));

	s->cfg = *cfg;
	if (s->cfg.max_connections == 0)
		s->cfg.max_connections = 4096;
	if (cfg->unix_path) {
		int fd = unix_listen(cfg->unix_path, err, errlen);

		if (fd < 0 ||
		    start_listener(s, &s->ls[s->nls], fd, NULL, err, errlen)) {
			free(s);
			return -1;
		}
		s->unix_path = xstrdup(cfg->unix_path);
		s->nls++;
	}
	if (cfg->tcp_host) {
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port =
					      htons((uint16_t)cfg->tcp_port)};
		const union MHD_DaemonInfo *info;

		if (inet_pton(AF_INET, cfg->tcp_host, &sin.sin_addr) != 1) {
			snprintf(err, errlen, "%s: not an IPv4 address",
				 cfg->tcp_host);
			http_server_stop(s);
			return -1;
		}
		s->ls[s->nls].tcp = true;
		if (start_listener(s, &s->ls[s->nls], -1, &sin, err, errlen)) {
			http_server_stop(s);
			return -1;
		}
		info = MHD_get_daemon_info(s->ls[s->nls].d,
					   MHD_DAEMON_INFO_BIND_PORT);
		s->tcp_port = info ? info->port : cfg->tcp_port;
		s->nls++;
	}
	uv_timer_init(cfg->loop, &s->bookmark);
	s->bookmark.data = s;
	uv_timer_start(&s->bookmark, on_bookmark, 60000, 60000);
	*out = s;
	return 0;
}

int
http_server_tcp_port(const struct http_server *s)
{
	return s->tcp_port;
}

static void
on_closed(uv_handle_t *h)
{
	struct http_server *s = h->data;

	if (--s->closing == 0) {
		free(s->unix_path);
		free(s);
	}
}

void
http_server_stop(struct http_server *s)
{
	struct conn *c;
	int i;

	if (s == NULL)
		return;
	/* MHD_stop_daemon with suspended connections is a violation. */
	for (c = s->watches; c; c = c->next) {
		c->ended = true;
		if (c->suspended) {
			c->suspended = false;
			MHD_resume_connection(c->c);
		}
	}
	for (i = 0; i < s->nls; i++) {
		MHD_run(s->ls[i].d);
		MHD_stop_daemon(s->ls[i].d);
	}
	if (s->unix_path)
		unlink(s->unix_path);
	s->closing = 0;
	for (i = 0; i < s->nls; i++) {
		s->ls[i].poll.data = s;
		s->ls[i].timer.data = s;
		s->ls[i].check.data = s;
		s->ls[i].idle.data = s;
		s->closing += 4;
		uv_close((uv_handle_t *)&s->ls[i].poll, on_closed);
		uv_close((uv_handle_t *)&s->ls[i].timer, on_closed);
		uv_close((uv_handle_t *)&s->ls[i].check, on_closed);
		uv_close((uv_handle_t *)&s->ls[i].idle, on_closed);
	}
	if (s->bookmark.loop) {
		s->bookmark.data = s;
		s->closing++;
		uv_close((uv_handle_t *)&s->bookmark, on_closed);
	}
	if (s->closing == 0) {
		free(s->unix_path);
		free(s);
	}
}
