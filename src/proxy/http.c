/* http.c - HTTP/1.1 mode: requests from a keep-alive client spread over
 * the endpoints one request at a time, with a pool of idle backend
 * connections per endpoint (haproxy's mode http with http-reuse, nginx's
 * upstream keepalive).
 *
 * Messages are forwarded as bytes, headers and body streamed as they
 * come; http_parser (libhttp-parser) only finds where each request and
 * response ends (Content-Length, chunked, close-delimited, HEAD, 1xx,
 * 204, 304) and whether the connection stays open.
 *
 * A session (one client connection) goes:
 *
 *   idle ──first byte──▶ request: pick an endpoint; a pooled connection,
 *    ▲                   or connect (bytes wait in bconn.pend; a failed
 *    │                   connect moves them to the next endpoint, each at
 *    │                   most once: nothing was sent)
 *    │                      │ request complete: the parser pauses, later
 *    │                      ▼ bytes (pipelined) wait in hsess.pend
 *    └─keep-alive─── response complete: counted by status class and
 *                    latency; the backend connection goes back to the
 *                    pool if both sides keep it open and its endpoint is
 *                    still ready, else it is closed
 *
 * A draining endpoint takes no new request; its busy connections are
 * closed after their response, its pooled ones at once, and the client
 * connection lives on: its next request goes to another endpoint. The
 * client side is closed only when the request or the response says
 * Connection: close (or is HTTP/1.0 without keep-alive), on an error, or
 * after the idle timeout between requests. A request with Upgrade
 * answered 101 turns the session into a tunnel (bytes both ways, as in
 * TCP mode). */
#include <http_parser.h>
#include <stdlib.h>
#include <string.h>

#include "pstate.h"

#define POOL_IDLE_MAX_MS 15000u /* under the usual backend keep-alive */
#define REPLAY_MAX       16384u /* the largest request kept for a replay */

struct hsess;

/* A backend connection: busy (sess set) or pooled (on ep->pool). */
struct bconn {
	struct plink link;
	struct psvc *svc;
	struct pep *ep;
	struct hsess *sess;
	uv_tcp_t h;
	uv_timer_t timer; /* connect timeout; idle timeout in the pool */
	uv_connect_t creq;
	http_parser rp;
	int open_handles;
	bool connected, closing, reading, dirty, complete, counted;
	bool eof;       /* tunnel: the backend sent EOF */
	bool reused;    /* taken from the pool for this request */
	bool copy_over; /* the request outgrew its copy: no replay */
	char *sent;     /* reused: a copy of the request bytes sent */
	size_t nsent, capsent;
	int status;
	struct bconn *pool_next;
	char *pend; /* request bytes waiting for the connect */
	size_t npend, cap;
};

/* A client connection. */
struct hsess {
	struct plink link;
	struct psvc *svc;
	uv_tcp_t cli;
	uv_timer_t timer;      /* idle timeout */
	uv_shutdown_t sreq;    /* of the client side */
	uv_shutdown_t be_sreq; /* tunnel: of the backend side */
	int shut_done;         /* tunnel: sides shut down */
	http_parser qp;
	struct bconn *be;
	int open_handles;
	bool closing, ending, reading, cli_eof;
	bool tunnel; /* after a 101: bytes both ways, as in TCP mode */
	bool in_req, req_done, resp_started, keep, no_ep, replayed;
	unsigned char method;
	char *pend; /* client bytes after a complete request (pipelining) */
	size_t npend, cap;
	uint64_t t0, last;
	struct pep *tried[PX_MAX_TRIES];
	int ntried;
};

static const char resp_400[] = "HTTP/1.1 400 Bad Request\r\n"
			       "Content-Length: 0\r\nConnection: close\r\n\r\n";
static const char resp_502[] = "HTTP/1.1 502 Bad Gateway\r\n"
			       "Content-Length: 0\r\nConnection: close\r\n\r\n";
static const char resp_503[] = "HTTP/1.1 503 Service Unavailable\r\n"
			       "Content-Length: 0\r\nConnection: close\r\n\r\n";

static void sess_close(struct hsess *s);
static void sess_end(struct hsess *s, const char *answer, size_t len);
static void sess_update(struct hsess *s);
static void bc_close(struct bconn *b);
static void on_be_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);
static void on_cli_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);
static void feed(struct hsess *s, const char *data, size_t len);
static struct bconn *backend_for(struct hsess *s, bool fresh);
static bool replay(struct hsess *s, struct bconn *b);
static void finish_request(struct hsess *s);
static void count_once(struct hsess *s, struct bconn *b);
static void tunnel_read(struct hsess *s, bool from_cli, ssize_t nread,
			const uv_buf_t *buf);
static void tunnel_start(struct hsess *s, const char *rest, size_t n);

static int
append(char **buf, size_t *n, size_t *cap, const char *data, size_t len)
{
	if (*n + len > *cap) {
		size_t c = *cap ? *cap : 4096;
		char *nb;

		while (c < *n + len)
			c *= 2;
		if ((nb = realloc(*buf, c)) == NULL)
			return -1;
		*buf = nb;
		*cap = c;
	}
	memcpy(*buf + *n, data, len);
	*n += len;
	return 0;
}

static size_t
queued(uv_tcp_t *t)
{
	return uv_stream_get_write_queue_size((uv_stream_t *)t);
}

/* ---- backend connections ---- */

static void
bc_release(struct bconn *b)
{
	if (--b->open_handles > 0)
		return;
	px_ep_unref(b->ep);
	px_unlink(&b->link);
	px_svc_unref(b->svc);
	free(b->pend);
	free(b->sent);
	free(b);
}

static void
on_bc_closed(uv_handle_t *h)
{
	bc_release(h->data);
}

static void
pool_remove(struct bconn *b)
{
	struct bconn **pp;

	for (pp = &b->ep->pool; *pp; pp = &(*pp)->pool_next)
		if (*pp == b) {
			*pp = b->pool_next;
			break;
		}
	b->pool_next = NULL;
}

/* Lets go of the session's request (the endpoint's busy count). */
static void
bc_detach(struct bconn *b)
{
	if (b->sess == NULL)
		return;
	b->ep->busy--;
	b->sess->be = NULL;
	b->sess = NULL;
}

static void
bc_close(struct bconn *b)
{
	if (b->closing)
		return;
	b->closing = true;
	bc_detach(b);
	pool_remove(b);
	uv_close((uv_handle_t *)&b->h, on_bc_closed);
	uv_close((uv_handle_t *)&b->timer, on_bc_closed);
}

static void
bc_kill(struct plink *l)
{
	bc_close((struct bconn *)l);
}

void
px_http_drop_pool(struct pep *e)
{
	while (e->pool)
		bc_close(e->pool);
}

static void
bc_read(struct bconn *b, bool on)
{
	if (on == b->reading || !b->connected || b->closing || (on && b->eof))
		return;
	b->reading = on;
	if (on)
		uv_read_start((uv_stream_t *)&b->h, px_alloc, on_be_read);
	else
		uv_read_stop((uv_stream_t *)&b->h);
}

static void
on_pool_timer(uv_timer_t *t)
{
	bc_close(t->data);
}

static void
pool_put(struct bconn *b)
{
	unsigned ms = b->svc->idle_ms;

	bc_detach(b);
	b->pool_next = b->ep->pool;
	b->ep->pool = b;
	bc_read(b, true); /* to see the backend close it */
	uv_timer_start(&b->timer, on_pool_timer,
		       ms < POOL_IDLE_MAX_MS ? ms : POOL_IDLE_MAX_MS, 0);
}

static void
on_be_write(uv_write_t *req, int status)
{
	struct bconn *b = req->data;

	px_free_write(req);
	if (status == UV_ECANCELED || b->closing)
		return;
	if (status < 0) {
		struct hsess *s = b->sess;

		if (s && replay(s, b))
			return;
		bc_close(b);
		if (s && !s->resp_started)
			sess_end(s, resp_502, sizeof(resp_502) - 1);
		else if (s)
			sess_close(s);
		return;
	}
	if (b->sess)
		sess_update(b->sess);
}

/* Sends request bytes to the session's backend, or keeps them until it
 * is connected. */
static int
bc_send(struct bconn *b, const char *data, size_t len)
{
	if (!b->connected)
		return append(&b->pend, &b->npend, &b->cap, data, len);
	if (b->reused && !b->copy_over &&
	    (b->nsent + len > REPLAY_MAX ||
	     append(&b->sent, &b->nsent, &b->capsent, data, len) < 0))
		b->copy_over = true;
	return px_write((uv_stream_t *)&b->h, data, len, on_be_write, b);
}

/* A connect failed or timed out: the request, nothing of it sent, goes
 * to the next endpoint not tried yet, with the bytes received so far. */
static void
bc_connect_failed(struct bconn *b)
{
	struct hsess *s = b->sess;
	struct bconn *nb;
	char *pend = b->pend;
	size_t npend = b->npend, cap = b->cap;

	CNT_ADD(b->ep->fails, 1);
	CNT_ADD(b->svc->fails, 1);
	b->pend = NULL;
	b->npend = b->cap = 0;
	bc_close(b);
	if (s == NULL) {
		free(pend);
		return;
	}
	nb = backend_for(s, false);
	if (nb == NULL) {
		free(pend);
		sess_end(s, resp_502, sizeof(resp_502) - 1);
		return;
	}
	if (nb->connected) {
		if (npend && bc_send(nb, pend, npend) < 0) {
			free(pend);
			bc_close(nb);
			sess_end(s, resp_502, sizeof(resp_502) - 1);
			return;
		}
		free(pend);
	} else {
		free(nb->pend);
		nb->pend = pend;
		nb->npend = npend;
		nb->cap = cap;
	}
	sess_update(s);
}

static void
on_bc_timer(uv_timer_t *t)
{
	struct bconn *b = t->data;

	if (!b->closing && !b->connected)
		bc_connect_failed(b);
}

static void
on_be_connect(uv_connect_t *req, int status)
{
	struct bconn *b = req->data;

	if (status == UV_ECANCELED || b->closing)
		return;
	if (status < 0) {
		bc_connect_failed(b);
		return;
	}
	uv_timer_stop(&b->timer);
	b->connected = true;
	px_nodelay(&b->h);
	if (b->npend) {
		int rc = px_write((uv_stream_t *)&b->h, b->pend, b->npend,
				  on_be_write, b);

		if (rc < 0) {
			/* the connection is broken: the bytes, still in
			 * pend, go to the next endpoint */
			bc_connect_failed(b);
			return;
		}
		free(b->pend);
		b->pend = NULL;
		b->npend = b->cap = 0;
	}
	bc_read(b, true);
	if (b->sess)
		sess_update(b->sess);
}

static struct bconn *
bc_connect(struct psvc *svc, struct pep *e)
{
	struct proxy *p = svc->p;
	struct bconn *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->svc = svc;
	b->ep = e;
	px_svc_ref(svc);
	px_ep_ref(e);
	px_link(p, &b->link, bc_kill);
	uv_tcp_init(&p->loop, &b->h);
	uv_timer_init(&p->loop, &b->timer);
	b->h.data = b->timer.data = b->creq.data = b;
	b->open_handles = 2;
	if (uv_tcp_connect(&b->creq, &b->h, (struct sockaddr *)&e->sa,
			   on_be_connect) < 0) {
		CNT_ADD(e->fails, 1);
		CNT_ADD(svc->fails, 1);
		bc_close(b);
		return NULL;
	}
	uv_timer_start(&b->timer, on_bc_timer, svc->connect_ms, 0);
	return b;
}

/* ---- response parsing ---- */

static int
on_resp_headers(http_parser *rp)
{
	struct bconn *b = rp->data;

	b->status = rp->status_code;
	/* A response to HEAD has no body, whatever its headers say. */
	return b->sess && b->sess->method == HTTP_HEAD ? 1 : 0;
}

static int
on_resp_complete(http_parser *rp)
{
	struct bconn *b = rp->data;

	/* An interim response (100 Continue): the final one follows. */
	if (rp->status_code >= 100 && rp->status_code < 200 &&
	    rp->status_code != 101)
		return 0;
	b->complete = true;
	http_parser_pause(rp, 1);
	return 0;
}

static const http_parser_settings resp_settings = {
    .on_headers_complete = on_resp_headers,
    .on_message_complete = on_resp_complete,
};

static void
on_cli_write(uv_write_t *req, int status)
{
	struct hsess *s = req->data;

	px_free_write(req);
	if (status == UV_ECANCELED || s->closing)
		return;
	if (status < 0) {
		sess_close(s);
		return;
	}
	sess_update(s);
}

static void
on_be_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct bconn *b = st->data;
	struct hsess *s = b->sess;
	size_t n;

	if (b->closing)
		return;
	if (s == NULL) { /* pooled: the backend closed it, or spoke */
		if (nread != 0)
			bc_close(b);
		return;
	}
	if (s->tunnel) {
		tunnel_read(s, false, nread, buf);
		return;
	}
	if (nread == 0)
		return;
	if (nread < 0) {
		/* EOF ends a close-delimited body */
		if (nread == UV_EOF && s->resp_started) {
			http_parser_execute(&b->rp, &resp_settings, NULL, 0);
			if (b->complete) {
				b->dirty = true;
				finish_request(s);
				return;
			}
		}
		if (replay(s, b))
			return;
		bc_close(b);
		if (!s->resp_started)
			sess_end(s, resp_502, sizeof(resp_502) - 1);
		else
			sess_close(s);
		return;
	}
	s->last = uv_now(st->loop);
	n = http_parser_execute(&b->rp, &resp_settings, buf->base,
				(size_t)nread);
	if (b->complete)
		count_once(s, b);
	if (n > 0) {
		s->resp_started = true;
		if (px_write((uv_stream_t *)&s->cli, buf->base, n, on_cli_write,
			     s) < 0) {
			sess_close(s);
			return;
		}
	}
	if (b->complete && b->status == 101 && s->qp.upgrade && s->req_done) {
		tunnel_start(s, buf->base + n, (size_t)nread - n);
		return;
	}
	if (b->complete) {
		if (n < (size_t)nread)
			b->dirty = true; /* bytes after the response */
		finish_request(s);
		return;
	}
	if (HTTP_PARSER_ERRNO(&b->rp) != HPE_OK) {
		bc_close(b);
		if (n == 0 && !s->resp_started)
			sess_end(s, resp_502, sizeof(resp_502) - 1);
		else
			sess_close(s);
		return;
	}
	sess_update(s);
}

/* ---- sessions ---- */

static void
sess_release(struct hsess *s)
{
	if (--s->open_handles > 0)
		return;
	CNT_SUB(s->svc->active, 1);
	px_unlink(&s->link);
	px_svc_unref(s->svc);
	free(s->pend);
	free(s);
}

static void
on_sess_closed(uv_handle_t *h)
{
	sess_release(h->data);
}

static void
sess_close(struct hsess *s)
{
	if (s->closing)
		return;
	s->closing = true;
	if (s->be)
		bc_close(s->be);
	uv_close((uv_handle_t *)&s->cli, on_sess_closed);
	uv_close((uv_handle_t *)&s->timer, on_sess_closed);
}

static void
sess_kill(struct plink *l)
{
	sess_close((struct hsess *)l);
}

/* Its service was removed: a client between requests is closed (one in
 * a request is closed after its response, by finish_request). */
static void
sess_svc_gone(struct plink *l)
{
	struct hsess *s = (struct hsess *)l;

	if (!s->in_req)
		sess_end(s, NULL, 0);
}

static void
on_sess_shutdown(uv_shutdown_t *req, int status)
{
	sess_close(req->data);
}

/* Ends the client connection once what is queued for it is written,
 * after an answer of the proxy's own (NULL: none). */
static void
sess_end(struct hsess *s, const char *answer, size_t len)
{
	if (s->closing || s->ending)
		return;
	s->ending = true;
	if (s->be)
		bc_close(s->be);
	if (answer) {
		CNT_ADD(s->svc->rejected, 1);
		if (px_write((uv_stream_t *)&s->cli, answer, len, on_cli_write,
			     s) < 0) {
			sess_close(s);
			return;
		}
	}
	if (s->reading) {
		s->reading = false;
		uv_read_stop((uv_stream_t *)&s->cli);
	}
	s->sreq.data = s;
	if (uv_shutdown(&s->sreq, (uv_stream_t *)&s->cli, on_sess_shutdown) < 0)
		sess_close(s);
}

/* Reads the client while its request can go on (the backend's queue is
 * short, and pipelined bytes kept are few) and the backend while the
 * client takes the response. */
static void
sess_update(struct hsess *s)
{
	struct bconn *b = s->be;
	bool cli = !s->closing && !s->ending && !s->cli_eof;

	if (s->in_req && s->req_done && s->npend > PX_QUEUE_HIGH)
		cli = false;
	if (b && (b->connected ? queued(&b->h) : b->npend) > PX_QUEUE_HIGH)
		cli = false;
	if (cli != s->reading) {
		s->reading = cli;
		if (cli)
			uv_read_start((uv_stream_t *)&s->cli, px_alloc,
				      on_cli_read);
		else
			uv_read_stop((uv_stream_t *)&s->cli);
	}
	if (b)
		bc_read(b, queued(&s->cli) <= PX_QUEUE_HIGH);
}

/* The endpoint for the session's request: a pooled connection of the
 * chosen endpoint, else a new one; an endpoint is tried once. */
static struct bconn *
backend_for(struct hsess *s, bool fresh)
{
	struct bconn *b = NULL;
	struct pep *e;

	while (b == NULL) {
		if (s->ntried >= PX_MAX_TRIES)
			return NULL;
		e = px_pick(s->svc, s->tried, s->ntried);
		if (e == NULL)
			return NULL;
		s->tried[s->ntried++] = e;
		if (e->pool && !fresh) {
			b = e->pool;
			pool_remove(b);
			uv_timer_stop(&b->timer);
			b->reused = true;
		} else {
			b = bc_connect(s->svc, e);
		}
	}
	b->nsent = 0;
	b->copy_over = false;
	b->sess = s;
	s->be = b;
	b->ep->busy++;
	b->dirty = b->complete = b->counted = false;
	b->status = 0;
	http_parser_init(&b->rp, HTTP_RESPONSE);
	b->rp.data = b;
	return b;
}

static bool
idempotent(unsigned char m)
{
	return m == HTTP_GET || m == HTTP_HEAD || m == HTTP_OPTIONS ||
	       m == HTTP_TRACE;
}

/* A pooled connection failed before any byte of the response: the
 * backend most likely closed it as idle while the request was on its way
 * (the race every keep-alive pool has). A GET, HEAD, OPTIONS or TRACE
 * whose bytes sent are all in the copy goes once more, on a new
 * connection (Go's http.Transport does the same for idempotent requests
 * on a reused connection). True when it went. */
static bool
replay(struct hsess *s, struct bconn *b)
{
	struct bconn *nb;
	char *copy = b->sent;
	size_t n = b->nsent, cap = b->capsent;
	int i;

	if (!b->reused || b->copy_over || s->resp_started || s->replayed ||
	    !s->in_req || !idempotent(s->method) || b->sess != s)
		return false;
	s->replayed = true;
	b->sent = NULL;
	b->nsent = b->capsent = 0;
	/* the same endpoint may take it again, on a new connection */
	for (i = 0; i < s->ntried; i++)
		if (s->tried[i] == b->ep)
			s->tried[i] = NULL;
	bc_close(b);
	nb = backend_for(s, true);
	if (nb == NULL) {
		free(copy);
		return false;
	}
	free(nb->pend);
	nb->pend = copy;
	nb->npend = n;
	nb->cap = cap;
	sess_update(s);
	return true;
}

/* ---- after a 101 Switching Protocols: a tunnel ---- */

static void
on_tunnel_shut(uv_shutdown_t *req, int status)
{
	struct hsess *s = req->data;

	if (status == UV_ECANCELED || s->closing)
		return;
	if (status < 0 || ++s->shut_done == 2)
		sess_close(s);
}

/* Bytes of one side go to the other; an EOF is passed on as a shutdown
 * (half-close) and the tunnel closes once both sides are shut, as in TCP
 * mode. */
static void
tunnel_read(struct hsess *s, bool from_cli, ssize_t nread, const uv_buf_t *buf)
{
	struct bconn *b = s->be;
	int rc;

	if (b == NULL || nread == 0)
		return;
	if (nread > 0) {
		s->last = uv_now(s->cli.loop);
		rc = from_cli ? bc_send(b, buf->base, (size_t)nread)
			      : px_write((uv_stream_t *)&s->cli, buf->base,
					 (size_t)nread, on_cli_write, s);
		if (rc < 0)
			sess_close(s);
		else
			sess_update(s);
		return;
	}
	if (nread != UV_EOF) {
		sess_close(s);
		return;
	}
	if (from_cli) {
		s->cli_eof = true;
		s->be_sreq.data = s;
		rc = uv_shutdown(&s->be_sreq, (uv_stream_t *)&b->h,
				 on_tunnel_shut);
	} else {
		b->eof = true;
		s->sreq.data = s;
		rc = uv_shutdown(&s->sreq, (uv_stream_t *)&s->cli,
				 on_tunnel_shut);
	}
	if (rc < 0)
		sess_close(s);
	else
		sess_update(s);
}

/* The backend switched protocols: the response (its head in this read)
 * is forwarded, then whatever follows, and the client's bytes kept after
 * its request go to the backend. The backend connection stays the
 * session's until the end (busy for least-connections, and holding a
 * draining endpoint until the tunnel ends, as a TCP connection would). */
static void
tunnel_start(struct hsess *s, const char *rest, size_t n)
{
	struct bconn *b = s->be;

	s->tunnel = true;
	s->in_req = false;
	b->copy_over = true; /* no replay copies */
	if (n > 0 &&
	    px_write((uv_stream_t *)&s->cli, rest, n, on_cli_write, s) < 0) {
		sess_close(s);
		return;
	}
	if (s->npend) {
		int rc = bc_send(b, s->pend, s->npend);

		free(s->pend);
		s->pend = NULL;
		s->npend = s->cap = 0;
		if (rc < 0) {
			sess_close(s);
			return;
		}
	}
	sess_update(s);
}

/* Counts the response once, before its last bytes go to the client (a
 * client that reads the counters after its response sees it). */
static void
count_once(struct hsess *s, struct bconn *b)
{
	if (b->counted)
		return;
	b->counted = true;
	px_count_response(b->ep, b->status, uv_hrtime() - s->t0);
}

static void
finish_request(struct hsess *s)
{
	struct bconn *b = s->be;
	struct pep *e = b->ep;
	bool resp_keep = http_should_keep_alive(&b->rp);
	bool reuse;

	count_once(s, b);
	/* A 101 the client did not ask for (no Upgrade): what follows is
	 * not HTTP; neither side can be reused. */
	if (b->status == 101 || b->rp.upgrade)
		resp_keep = false;
	reuse = resp_keep && s->req_done && !b->dirty &&
		e->state == PROXY_EP_READY && !e->removed && !s->svc->removed &&
		!s->svc->p->stopped;
	if (reuse)
		pool_put(b);
	else
		bc_close(b);
	s->in_req = false;
	if (!(s->keep && resp_keep && s->req_done && !s->cli_eof &&
	      !s->svc->removed)) {
		sess_end(s, NULL, 0);
		return;
	}
	http_parser_pause(&s->qp, 0);
	if (s->npend) {
		char *buf = s->pend;
		size_t n = s->npend;

		s->pend = NULL;
		s->npend = s->cap = 0;
		feed(s, buf, n);
		free(buf);
	}
	if (!s->closing)
		sess_update(s);
}

/* ---- request parsing ---- */

static int
on_req_begin(http_parser *qp)
{
	struct hsess *s = qp->data;

	s->in_req = true;
	s->req_done = s->resp_started = false;
	s->t0 = uv_hrtime();
	s->ntried = 0;
	s->replayed = false;
	s->method = HTTP_POST; /* not replayed before its headers are seen */
	if (backend_for(s, false) == NULL) {
		s->no_ep = true;
		return -1;
	}
	return 0;
}

static int
on_req_headers(http_parser *qp)
{
	struct hsess *s = qp->data;

	s->method = (unsigned char)qp->method;
	s->keep = http_should_keep_alive(qp);
	return 0;
}

static int
on_req_complete(http_parser *qp)
{
	struct hsess *s = qp->data;

	s->req_done = true;
	/* One request at a time: what follows waits for the response. */
	http_parser_pause(qp, 1);
	return 0;
}

static const http_parser_settings req_settings = {
    .on_message_begin = on_req_begin,
    .on_headers_complete = on_req_headers,
    .on_message_complete = on_req_complete,
};

/* Parses client bytes: those of the current request go to its backend;
 * after a complete request the rest is kept for later. */
static void
feed(struct hsess *s, const char *data, size_t len)
{
	size_t n = http_parser_execute(&s->qp, &req_settings, data, len);
	enum http_errno err = HTTP_PARSER_ERRNO(&s->qp);

	if (s->no_ep) {
		s->no_ep = false;
		px_no_endpoint(s->svc);
		sess_end(s, resp_503, sizeof(resp_503) - 1);
		return;
	}
	if (n > 0 && s->be && bc_send(s->be, data, n) < 0) {
		sess_close(s);
		return;
	}
	if (err == HPE_PAUSED) {
		if (n < len &&
		    append(&s->pend, &s->npend, &s->cap, data + n, len - n) < 0)
			sess_close(s);
		return;
	}
	if (err != HPE_OK || n < len) {
		if (s->in_req && s->resp_started)
			sess_close(s);
		else
			sess_end(s, resp_400, sizeof(resp_400) - 1);
	}
}

static void
on_cli_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct hsess *s = st->data;

	if (s->closing || s->ending)
		return;
	if (s->tunnel) {
		tunnel_read(s, true, nread, buf);
		return;
	}
	if (nread > 0) {
		s->last = uv_now(st->loop);
		if (s->in_req && s->req_done) {
			if (append(&s->pend, &s->npend, &s->cap, buf->base,
				   (size_t)nread) < 0)
				sess_close(s);
		} else {
			feed(s, buf->base, (size_t)nread);
		}
		if (!s->closing)
			sess_update(s);
		return;
	}
	if (nread == 0)
		return;
	if (nread == UV_EOF && s->in_req && s->req_done) {
		/* half-closed after its request: the response still goes */
		s->cli_eof = true;
		sess_update(s);
		return;
	}
	sess_close(s);
}

static void
on_sess_timer(uv_timer_t *t)
{
	struct hsess *s = t->data;
	uint64_t now = uv_now(t->loop), idle = s->svc->idle_ms;

	if (s->closing)
		return;
	if (now - s->last >= idle)
		sess_close(s);
	else
		uv_timer_start(&s->timer, on_sess_timer, idle - (now - s->last),
			       0);
}

void
px_http_accept(struct psvc *svc)
{
	struct proxy *p = svc->p;
	struct hsess *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return;
	s->svc = svc;
	px_svc_ref(svc);
	px_link(p, &s->link, sess_kill);
	s->link.svc = svc;
	s->link.svc_gone = sess_svc_gone;
	CNT_ADD(svc->active, 1);
	CNT_ADD(svc->total, 1);
	uv_tcp_init(&p->loop, &s->cli);
	uv_timer_init(&p->loop, &s->timer);
	s->cli.data = s->timer.data = s;
	s->open_handles = 2;
	http_parser_init(&s->qp, HTTP_REQUEST);
	s->qp.data = s;
	if (uv_accept((uv_stream_t *)svc->listener, (uv_stream_t *)&s->cli) <
	    0) {
		sess_close(s);
		return;
	}
	px_nodelay(&s->cli);
	s->last = uv_now(&p->loop);
	uv_timer_start(&s->timer, on_sess_timer, svc->idle_ms, 0);
	sess_update(s);
}
