/* tcp.c - TCP mode: one client connection spliced to one endpoint
 * (nginx's stream proxy, haproxy's mode tcp).
 *
 * A connection goes:
 *
 *   accepted ──pick──▶ connecting ──ok──▶ pumping ──both directions──▶ closed
 *                        │  ▲                │        ended, or error,
 *          failed or     │  │ next endpoint  │        or idle timeout
 *          timed out     ▼  │                │
 *                   backend closed ──────────┘ (no endpoint left: closed)
 *
 * Connecting: the client is not read yet (the kernel holds what it
 * sends), so a failed connect is retried on the next endpoint, each at
 * most once, and nothing is lost. Pumping: bytes from one side are
 * written to the other (px_write: the kernel first, a copy of the rest
 * queued); a side stops being read while its peer's queue holds more than
 * PX_QUEUE_HIGH bytes. A side's EOF is passed on as uv_shutdown of the
 * other side while the other direction keeps flowing (half-close); the
 * pair is closed once both shutdowns are done. */
#include <stdlib.h>

#include "pstate.h"

struct tconn {
	struct plink link;
	struct psvc *svc;
	struct pep *ep; /* referenced while the backend handle is open */
	uv_tcp_t cli, be;
	uv_timer_t timer; /* connect timeout, then idle timeout */
	uv_connect_t creq;
	uv_shutdown_t sreq[2]; /* [0] of cli, [1] of be */
	int open_handles;
	bool be_open, connected, closing;
	bool eof[2]; /* [0] the client sent EOF, [1] the backend did */
	bool shut_done[2];
	bool paused[2]; /* reading of [0] cli, [1] be stopped */
	uint64_t last;  /* uv_now of the last byte either way */
	struct pep *tried[PX_MAX_TRIES];
	int ntried;
};

static void tc_close(struct tconn *c);
static void tc_connect_next(struct tconn *c);
static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static uv_stream_t *
side(struct tconn *c, int i)
{
	return i == 0 ? (uv_stream_t *)&c->cli : (uv_stream_t *)&c->be;
}

/* A handle of c closed; the last one frees c. */
static void
tc_release(struct tconn *c)
{
	if (--c->open_handles > 0)
		return;
	CNT_SUB(c->svc->active, 1);
	px_unlink(&c->link);
	px_svc_unref(c->svc);
	free(c);
}

static void
on_handle_closed(uv_handle_t *h)
{
	tc_release(h->data);
}

/* The backend handle closed: its endpoint is let go. */
static void
on_be_closed(uv_handle_t *h)
{
	struct tconn *c = h->data;

	px_ep_unref(c->ep);
	c->ep = NULL;
	if (!c->closing) {
		/* a failed attempt: the next endpoint */
		c->open_handles--;
		tc_connect_next(c);
		return;
	}
	tc_release(c);
}

static void
tc_close(struct tconn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	uv_close((uv_handle_t *)&c->cli, on_handle_closed);
	uv_close((uv_handle_t *)&c->timer, on_handle_closed);
	if (c->be_open) {
		c->be_open = false;
		uv_close((uv_handle_t *)&c->be, on_be_closed);
	}
}

static void
tc_kill(struct plink *l)
{
	tc_close((struct tconn *)l);
}

/* A connect failed or timed out: count it, close the backend handle (its
 * callback tries the next endpoint; a pending connect sees
 * UV_ECANCELED). */
static void
tc_attempt_failed(struct tconn *c)
{
	CNT_ADD(c->ep->fails, 1);
	CNT_ADD(c->svc->fails, 1);
	uv_timer_stop(&c->timer);
	c->be_open = false;
	uv_close((uv_handle_t *)&c->be, on_be_closed);
}

static void
on_write(uv_write_t *req, int status)
{
	struct tconn *c = req->data;
	int dst = req->handle == (uv_stream_t *)&c->cli ? 0 : 1;

	px_free_write(req);
	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		tc_close(c);
		return;
	}
	/* The peer of dst is the source of these bytes. */
	if (c->paused[!dst] && !c->eof[!dst] &&
	    uv_stream_get_write_queue_size(side(c, dst)) <= PX_QUEUE_LOW) {
		c->paused[!dst] = false;
		uv_read_start(side(c, !dst), px_alloc, on_read);
	}
}

static void
on_shutdown(uv_shutdown_t *req, int status)
{
	struct tconn *c = req->data;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		tc_close(c);
		return;
	}
	c->shut_done[req == &c->sreq[0] ? 0 : 1] = true;
	if (c->shut_done[0] && c->shut_done[1])
		tc_close(c);
}

static void
on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct tconn *c = s->data;
	int src = s == (uv_stream_t *)&c->cli ? 0 : 1, dst = !src;
	uv_stream_t *out = side(c, dst);

	if (c->closing)
		return;
	if (nread > 0) {
		c->last = uv_now(s->loop);
		if (px_write(out, buf->base, (size_t)nread, on_write, c) < 0) {
			tc_close(c);
			return;
		}
		if (uv_stream_get_write_queue_size(out) > PX_QUEUE_HIGH) {
			c->paused[src] = true;
			uv_read_stop(s);
		}
		return;
	}
	if (nread == 0)
		return;
	if (nread != UV_EOF) {
		tc_close(c);
		return;
	}
	/* Half-close: pass the EOF on once the queued bytes are written,
	 * and keep pumping the other way. */
	c->eof[src] = true;
	uv_read_stop(s);
	c->sreq[dst].data = c;
	if (uv_shutdown(&c->sreq[dst], out, on_shutdown) < 0)
		tc_close(c);
}

static void
on_timer(uv_timer_t *t)
{
	struct tconn *c = t->data;
	uint64_t now = uv_now(t->loop), idle = c->svc->idle_ms;

	if (c->closing)
		return;
	if (!c->connected) {
		tc_attempt_failed(c);
		return;
	}
	if (now - c->last >= idle)
		tc_close(c);
	else
		uv_timer_start(&c->timer, on_timer, idle - (now - c->last), 0);
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct tconn *c = req->data;

	if (status == UV_ECANCELED || c->closing)
		return;
	if (status < 0) {
		tc_attempt_failed(c);
		return;
	}
	c->connected = true;
	px_nodelay(&c->be);
	c->last = uv_now(c->be.loop);
	uv_timer_start(&c->timer, on_timer, c->svc->idle_ms, 0);
	if (uv_read_start((uv_stream_t *)&c->cli, px_alloc, on_read) < 0 ||
	    uv_read_start((uv_stream_t *)&c->be, px_alloc, on_read) < 0)
		tc_close(c);
}

/* Connects to the next endpoint not tried yet, or closes the client when
 * none is left (each endpoint at most once per connection). */
static void
tc_connect_next(struct tconn *c)
{
	struct pep *e = NULL;

	if (c->ntried < PX_MAX_TRIES)
		e = px_pick(c->svc, c->tried, c->ntried);
	if (e == NULL) {
		CNT_ADD(c->svc->rejected, 1);
		px_no_endpoint(c->svc);
		tc_close(c);
		return;
	}
	c->tried[c->ntried++] = e;
	uv_tcp_init(c->cli.loop, &c->be);
	c->be.data = c;
	c->be_open = true;
	c->open_handles++;
	c->ep = e;
	px_ep_ref(e);
	c->creq.data = c;
	if (uv_tcp_connect(&c->creq, &c->be, (struct sockaddr *)&e->sa,
			   on_connect) < 0) {
		tc_attempt_failed(c); /* its close callback comes back here */
		return;
	}
	uv_timer_start(&c->timer, on_timer, c->svc->connect_ms, 0);
}

void
px_tcp_accept(struct psvc *s)
{
	struct proxy *p = s->p;
	struct tconn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return;
	c->svc = s;
	px_svc_ref(s);
	px_link(p, &c->link, tc_kill);
	CNT_ADD(s->active, 1);
	CNT_ADD(s->total, 1);
	uv_tcp_init(&p->loop, &c->cli);
	uv_timer_init(&p->loop, &c->timer);
	c->cli.data = c->timer.data = c;
	c->open_handles = 2;
	if (uv_accept((uv_stream_t *)s->listener, (uv_stream_t *)&c->cli) < 0) {
		tc_close(c);
		return;
	}
	px_nodelay(&c->cli);
	tc_connect_next(c);
}
