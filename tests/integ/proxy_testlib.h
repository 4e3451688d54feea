/* proxy_testlib.h - what the proxy's integration tests share: backends on
 * a libuv loop of their own thread (greeting+echo, half-closing, HTTP),
 * blocking clients with timeouts, a dead port, and polling. Included by
 * one test file each (static functions). */
#include <errno.h>
#include <http_parser.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "proxy.h"

enum bmode {
	B_ECHO,         /* "ID\n" on accept, echoes, "bye\n" on EOF, then EOF */
	B_SHUTFIRST,    /* "ID\n" then EOF at once; records what it receives */
	B_HTTP,         /* HTTP/1.1 keep-alive: "/" answers the ID, "/chunked"
			a chunked body */
	B_HTTP_ONESHOT, /* the same, but a connection's second request is
			   not answered: the connection is closed (a
			   backend closing an idle keep-alive connection
			   as the request arrives) */
};

struct backend {
	struct bpool *pool;
	uv_tcp_t srv;
	int port;
	char id[16];
	enum bmode mode;
	_Atomic int accepted;
	_Atomic int requests;
	_Atomic size_t nreceived;
	char received[4096];
};

struct bpool {
	uv_loop_t loop;
	uv_thread_t th;
	uv_async_t stop;
	struct backend b[4];
	int n;
	int open; /* connections still open */
};

struct bconnx {
	uv_tcp_t h;
	struct backend *b;
	http_parser hp;
	char url[64];
	size_t nurl;
	int served;
	bool raw; /* switched protocols: echoes */
	uv_shutdown_t sreq;
};

static void
tl_closed(uv_handle_t *h)
{
	struct bconnx *c = h->data;

	c->b->pool->open--;
	free(c);
}

static void
tl_write_done(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void
tl_write(struct bconnx *c, const char *data, size_t len)
{
	uv_write_t *w = malloc(sizeof(*w) + len);
	uv_buf_t buf = uv_buf_init((char *)(w + 1), (unsigned)len);

	memcpy(w + 1, data, len);
	if (uv_write(w, (uv_stream_t *)&c->h, &buf, 1, tl_write_done) < 0)
		free(w);
}

static void
tl_close(struct bconnx *c)
{
	if (!uv_is_closing((uv_handle_t *)&c->h))
		uv_close((uv_handle_t *)&c->h, tl_closed);
}

static void
tl_shut_done(uv_shutdown_t *r, int status)
{
	struct bconnx *c = r->data;

	(void)status;
	if (c->b->mode != B_SHUTFIRST)
		tl_close(c);
}

static void
tl_shutdown(struct bconnx *c)
{
	c->sreq.data = c;
	uv_shutdown(&c->sreq, (uv_stream_t *)&c->h, tl_shut_done);
}

static void
tl_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char slab[65536];

	(void)h;
	(void)hint;
	*buf = uv_buf_init(slab, sizeof(slab));
}

static int
tl_on_url(http_parser *hp, const char *at, size_t len)
{
	struct bconnx *c = hp->data;

	if (c->nurl + len < sizeof(c->url)) {
		memcpy(c->url + c->nurl, at, len);
		c->nurl += len;
		c->url[c->nurl] = '\0';
	}
	return 0;
}

static int
tl_on_complete(http_parser *hp)
{
	struct bconnx *c = hp->data;
	char out[512];
	int n;

	if (c->b->mode == B_HTTP_ONESHOT && c->served++ > 0) {
		tl_close(c);
		return 0;
	}
	atomic_fetch_add(&c->b->requests, 1);
	if (strcmp(c->url, "/upgrade") == 0) {
		const char *sw = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Connection: Upgrade\r\nUpgrade: echo\r\n\r\n";

		tl_write(c, sw, strlen(sw));
		c->raw = true;
		return 0;
	}
	if (strcmp(c->url, "/chunked") == 0) {
		/* in two writes: the proxy streams what it has */
		tl_write(c,
			 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
			 "\r\n5\r\nhello\r\n",
			 57);
		n = snprintf(out, sizeof(out),
			     "1\r\n \r\n%zx\r\n%s\r\n0\r\n\r\n",
			     strlen(c->b->id), c->b->id);
		tl_write(c, out, n);
	} else {
		n = snprintf(out, sizeof(out),
			     "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s",
			     strlen(c->b->id), c->b->id);
		tl_write(c, out, n);
	}
	c->nurl = 0;
	if (!http_should_keep_alive(hp))
		tl_shutdown(c);
	return 0;
}

static const http_parser_settings tl_http = {
    .on_url = tl_on_url,
    .on_message_complete = tl_on_complete,
};

static void
tl_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct bconnx *c = s->data;
	struct backend *b = c->b;

	if (nread > 0) {
		size_t have = atomic_load(&b->nreceived);

		if (have + nread <= sizeof(b->received)) {
			memcpy(b->received + have, buf->base, nread);
			atomic_store(&b->nreceived, have + nread);
		}
		if (b->mode == B_ECHO)
			tl_write(c, buf->base, nread);
		if (b->mode >= B_HTTP && c->raw) {
			tl_write(c, buf->base, nread);
		} else if (b->mode >= B_HTTP) {
			size_t n = http_parser_execute(&c->hp, &tl_http,
						       buf->base, nread);
			if (c->raw && n < (size_t)nread)
				tl_write(c, buf->base + n, nread - n);
			else if (n != (size_t)nread)
				tl_close(c);
		}
		return;
	}
	if (nread == 0)
		return;
	uv_read_stop(s);
	if (nread == UV_EOF && b->mode == B_ECHO) {
		tl_write(c, "bye\n", 4);
		tl_shutdown(c);
		return;
	}
	tl_close(c);
}

static void
tl_accept(uv_stream_t *srv, int status)
{
	struct backend *b = srv->data;
	struct bconnx *c = calloc(1, sizeof(*c));
	char hello[20];

	(void)status;
	c->b = b;
	uv_tcp_init(srv->loop, &c->h);
	c->h.data = c;
	b->pool->open++;
	if (uv_accept(srv, (uv_stream_t *)&c->h) < 0) {
		tl_close(c);
		return;
	}
	atomic_fetch_add(&b->accepted, 1);
	http_parser_init(&c->hp, HTTP_REQUEST);
	c->hp.data = c;
	if (b->mode < B_HTTP) {
		snprintf(hello, sizeof(hello), "%s\n", b->id);
		tl_write(c, hello, strlen(hello));
	}
	if (b->mode == B_SHUTFIRST)
		tl_shutdown(c);
	uv_read_start((uv_stream_t *)&c->h, tl_alloc, tl_read);
}

static void
tl_walk_close(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		/* a connection's handle is the first member of its bconnx */
		uv_close(h, h->data && (void *)h == h->data ? tl_closed : NULL);
}

static void
tl_stop(uv_async_t *a)
{
	uv_walk(a->loop, tl_walk_close, NULL);
}

static void
tl_run(void *arg)
{
	struct bpool *p = arg;

	uv_run(&p->loop, UV_RUN_DEFAULT);
}

/* Starts n backends named A, B, ... (ids "A", "B"...) on free ports. */
static void
bpool_start(struct bpool *p, int n, enum bmode mode)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->n = n;
	uv_loop_init(&p->loop);
	uv_async_init(&p->loop, &p->stop, tl_stop);
	for (i = 0; i < n; i++) {
		struct backend *b = &p->b[i];
		struct sockaddr_in sa;
		int len = sizeof(sa);

		b->pool = p;
		b->mode = mode;
		snprintf(b->id, sizeof(b->id), "%c", 'A' + i);
		uv_tcp_init(&p->loop, &b->srv);
		b->srv.data = b;
		uv_ip4_addr("127.0.0.1", 0, &sa);
		if (uv_tcp_bind(&b->srv, (struct sockaddr *)&sa, 0) != 0 ||
		    uv_listen((uv_stream_t *)&b->srv, 128, tl_accept) != 0)
			abort();
		uv_tcp_getsockname(&b->srv, (struct sockaddr *)&sa, &len);
		b->port = ntohs(sa.sin_port);
	}
	{
		/* The backends' writes to a proxy that closed raise SIGPIPE
		 * on their thread: blocked there, so that the process
		 * dies of it only if the proxy's thread raises it. */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		uv_thread_create(&p->th, tl_run, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
}

static void
bpool_stop(struct bpool *p)
{
	uv_async_send(&p->stop);
	uv_thread_join(&p->th);
	if (uv_loop_close(&p->loop) != 0)
		abort(); /* a handle left open */
}

/* A port where nothing listens (bound, then released). */
static int
dead_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(fd, (struct sockaddr *)&sa, &len);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* A port whose connects hang: a listener with a backlog of 0 that never
 * accepts, its queue filled by the connections left in fill[3] (the
 * kernel then drops further SYNs). Close fill[] and *fd after. */
static int __attribute__((unused)) blackhole_port(int *fd, int fill[3])
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int i;

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(*fd, (struct sockaddr *)&sa, sizeof(sa));
	listen(*fd, 0);
	getsockname(*fd, (struct sockaddr *)&sa, &len);
	for (i = 0; i < 3; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fill[i], (struct sockaddr *)&sa, sizeof(sa));
	}
	usleep(50000);
	return ntohs(sa.sin_port);
}

/* A free port for a proxy listener (same trick: a race with other
 * programs is possible but unlikely on a test machine). */
#define free_port dead_port

/* Connects to 127.0.0.1:port with 5 s receive and send timeouts. */
static int
client(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 5};
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads one line ("A\n") into buf; its length, 0 on EOF, -1 on error. */
static int __attribute__((unused)) read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, 1);

		if (r <= 0)
			return r == 0 && n == 0 ? 0 : (r < 0 ? -1 : (int)n);
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return (int)n;
}

/* Reads until EOF (or cap); the length, -1 on error or timeout. */
static ssize_t __attribute__((unused)) read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += r;
		if (n + 1 >= cap)
			break;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Polls cond(arg) every 5 ms for up to ms; its last value. */
static bool __attribute__((unused))
wait_for(bool (*cond)(void *), void *arg, int ms)
{
	int i;

	for (i = 0; i < ms / 5; i++) {
		if (cond(arg))
			return true;
		sleep_ms(5);
	}
	return cond(arg);
}

/* ---- an HTTP client on a blocking socket ---- */

struct hresp {
	int status;
	bool done, keep;
	char body[1024];
	size_t nbody;
	char raw[4096];
	size_t nraw;
};

static int
hr_body(http_parser *hp, const char *at, size_t len)
{
	struct hresp *r = hp->data;

	if (r->nbody + len < sizeof(r->body)) {
		memcpy(r->body + r->nbody, at, len);
		r->nbody += len;
		r->body[r->nbody] = '\0';
	}
	return 0;
}

static int
hr_done(http_parser *hp)
{
	struct hresp *r = hp->data;

	r->status = hp->status_code;
	r->keep = http_should_keep_alive(hp);
	r->done = true;
	http_parser_pause(hp, 1);
	return 0;
}

static const http_parser_settings hr_settings = {
    .on_body = hr_body,
    .on_message_complete = hr_done,
};

/* Reads one response from fd (one byte at a time, so that nothing of a
 * later response is taken). 0, or -1. */
static int
http_read(int fd, struct hresp *r)
{
	http_parser hp;

	memset(r, 0, sizeof(*r));
	http_parser_init(&hp, HTTP_RESPONSE);
	hp.data = r;
	while (!r->done) {
		char ch;

		if (read(fd, &ch, 1) != 1)
			return -1;
		if (r->nraw + 1 < sizeof(r->raw))
			r->raw[r->nraw++] = ch;
		if (http_parser_execute(&hp, &hr_settings, &ch, 1) != 1 &&
		    !r->done)
			return -1;
	}
	return 0;
}

/* Sends a GET of path on fd and reads its response. 0, or -1. */
static int __attribute__((unused))
http_get(int fd, const char *path, const char *extra, struct hresp *r)
{
	char req[256];
	int n =
	    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n%s\r\n",
		     path, extra ? extra : "");

	if (write(fd, req, n) != n)
		return -1;
	return http_read(fd, r);
}

/* ---- what the proxy tests share: the idle notifications seen, and a
 * table of one service set and waited for ---- */

struct idle_seen {
	uv_mutex_t mu;
	int n;
	char key[64];
};

static void __attribute__((unused))
on_idle(void *arg, const char *service, const char *key)
{
	struct idle_seen *s = arg;

	uv_mutex_lock(&s->mu);
	s->n++;
	snprintf(s->key, sizeof(s->key), "%s", key);
	uv_mutex_unlock(&s->mu);
}

static bool __attribute__((unused))
idle_fired(void *arg)
{
	struct idle_seen *s = arg;
	bool r;

	uv_mutex_lock(&s->mu);
	r = s->n > 0;
	uv_mutex_unlock(&s->mu);
	return r;
}

static int __attribute__((unused))
idle_count(struct idle_seen *s)
{
	int n;

	uv_mutex_lock(&s->mu);
	n = s->n;
	uv_mutex_unlock(&s->mu);
	return n;
}

static bool __attribute__((unused))
applied(void *arg)
{
	void **a = arg;

	return proxy_applied(a[0]) >= *(int64_t *)a[1];
}

/* Sets a table of the one service svc and waits until applied. */
static void __attribute__((unused))
set_one(struct proxy *p, struct proxy_service *svc)
{
	struct proxy_table t = {.services = svc, .n_services = 1};
	int64_t gen = proxy_set_table(p, &t);
	void *a[2] = {p, &gen};

	assert_true(gen > 0);
	assert_true(wait_for(applied, a, 2000));
}
