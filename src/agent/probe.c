/* probe.c - tcpSocket, httpGet and exec checks on the loop. An exec check
 * is started by proc_spawn with the container's rights (t->sec) and
 * waited for on a pidfd; its output goes to /dev/null. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <http_parser.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"
#include "proc.h"
#include "strbuf.h"
#include "xalloc.h"

struct check {
	uv_loop_t *loop;
	enum probe_type type;
	probe_cb cb;
	void *arg;
	uv_timer_t timer;
	uv_tcp_t tcp;
	uv_connect_t conn;
	uv_write_t wr;
	uv_poll_t exited; /* the exec check's pidfd */
	pid_t pid;
	int pidfd;
	struct strbuf req;
	http_parser parser;
	http_parser_settings settings;
	int handles; /* open handles; freed when 0 */
	bool done;
	bool tcp_open, proc_open;
	int status; /* HTTP status seen */
};

static void
on_close(uv_handle_t *h)
{
	struct check *c = h->data;

	if (h == (uv_handle_t *)&c->exited)
		close(c->pidfd);
	if (--c->handles == 0) {
		strbuf_release(&c->req);
		free(c);
	}
}

static void
finish(struct check *c, bool ok, const char *why)
{
	if (c->done)
		return;
	c->done = true;
	c->cb(c->arg, ok, why);
	uv_timer_stop(&c->timer);
	uv_close((uv_handle_t *)&c->timer, on_close);
	if (c->tcp_open && !uv_is_closing((uv_handle_t *)&c->tcp))
		uv_close((uv_handle_t *)&c->tcp, on_close);
	if (c->proc_open && !uv_is_closing((uv_handle_t *)&c->exited)) {
		/* the command and what it started: its session */
		kill(-c->pid, SIGKILL);
		/* closed once it has exited (on_exited) */
	}
}

static void
on_timeout(uv_timer_t *t)
{
	struct check *c = t->data;

	finish(c, false, "timeout");
}

static int
on_headers_complete(http_parser *p)
{
	struct check *c = p->data;

	c->status = (int)p->status_code;
	return 1; /* stop: the status is all we need */
}

static void
alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)h;
	buf->base = xmalloc(hint);
	buf->len = hint;
}

static void
on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct check *c = s->data;
	char why[64];

	if (n > 0) {
		http_parser_execute(&c->parser, &c->settings, buf->base,
				    (size_t)n);
		if (c->status) {
			snprintf(why, sizeof(why), "HTTP %d", c->status);
			finish(c, c->status >= 200 && c->status < 400, why);
		} else if (HTTP_PARSER_ERRNO(&c->parser) != HPE_OK) {
			finish(c, false, "malformed HTTP response");
		}
	} else if (n < 0) {
		finish(c, false,
		       n == UV_EOF ? "connection closed" : uv_strerror((int)n));
	}
	free(buf->base);
}

static void
on_written(uv_write_t *w, int status)
{
	struct check *c = w->data;

	if (status)
		finish(c, false, uv_strerror(status));
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct check *c = req->data;
	uv_buf_t b;

	if (c->done)
		return;
	if (status) {
		finish(c, false, uv_strerror(status));
		return;
	}
	if (c->type == PROBE_TCP) {
		finish(c, true, "connected");
		return;
	}
	http_parser_init(&c->parser, HTTP_RESPONSE);
	c->parser.data = c;
	http_parser_settings_init(&c->settings);
	c->settings.on_headers_complete = on_headers_complete;
	b = uv_buf_init(c->req.buf, (unsigned)c->req.len);
	c->wr.data = c;
	uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, on_written);
	uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

static void
on_exited(uv_poll_t *w, int status, int events)
{
	struct check *c = w->data;
	char why[64];
	int code = 0, sig = 0, r;

	(void)status;
	(void)events;
	/* readable: it has exited, so this does not wait */
	r = proc_reap(c->pidfd, &code, &sig);
	if (r)
		snprintf(why, sizeof(why), "wait: %s", strerror(r));
	else
		snprintf(why, sizeof(why), "exit status %d%s", code,
			 sig ? " (killed)" : "");
	finish(c, r == 0 && code == 0 && sig == 0, why);
	uv_close((uv_handle_t *)w, on_close);
}

/* Starts the exec check; false (with c finished) if it could not. */
static bool
start_exec(struct check *c, const struct probe_target *t)
{
	struct proc_spawn o = {0};
	char err[256];
	int r, out = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (out < 0) {
		finish(c, false, strerror(errno));
		return false;
	}
	o.file = t->argv[0];
	o.argv = t->argv;
	o.env = t->env;
	o.cwd = t->cwd;
	o.out_fd = out;
	o.sec = t->sec;
	o.err = err;
	o.errlen = sizeof(err);
	r = proc_spawn(&o, &c->pid, &c->pidfd);
	close(out);
	if (r) {
		finish(c, false, *err ? err : strerror(r));
		return false;
	}
	uv_poll_init(c->loop, &c->exited, c->pidfd);
	c->exited.data = c;
	c->handles++;
	c->proc_open = true;
	if ((r = uv_poll_start(&c->exited, UV_READABLE, on_exited))) {
		/* unseen exit: kill it and wait here */
		kill(-c->pid, SIGKILL);
		finish(c, false, uv_strerror(r));
		waitpid(c->pid, NULL, 0);
		uv_close((uv_handle_t *)&c->exited, on_close);
		return false;
	}
	return true;
}

void
probe_check(uv_loop_t *loop, enum probe_type type, const struct probe_target *t,
	    unsigned timeout_ms, probe_cb cb, void *arg)
{
	struct check *c = xcalloc(1, sizeof(*c));
	struct sockaddr_in sa;
	int r;

	c->loop = loop;
	c->type = type;
	c->cb = cb;
	c->arg = arg;
	strbuf_init(&c->req);
	uv_timer_init(loop, &c->timer);
	c->timer.data = c;
	c->handles = 1;
	uv_timer_start(&c->timer, on_timeout, timeout_ms ? timeout_ms : 1000,
		       0);
	if (type == PROBE_EXEC) {
		start_exec(c, t);
		return;
	}
	if (uv_ip4_addr(t->host && *t->host ? t->host : "127.0.0.1", t->port,
			&sa)) {
		finish(c, false, "bad address");
		return;
	}
	if (type == PROBE_HTTP)
		strbuf_addf(&c->req,
			    "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: "
			    "drover-probe/1.0\r\nAccept: */*\r\nConnection: "
			    "close\r\n\r\n",
			    t->path && *t->path ? t->path : "/",
			    t->host && *t->host ? t->host : "127.0.0.1",
			    t->port);
	uv_tcp_init(loop, &c->tcp);
	c->tcp.data = c;
	c->handles++;
	c->tcp_open = true;
	c->conn.data = c;
	r = uv_tcp_connect(&c->conn, &c->tcp, (struct sockaddr *)&sa,
			   on_connect);
	if (r)
		finish(c, false, uv_strerror(r));
}
