/* io.c - the proxy's socket helpers: the loop's one read buffer, writes
 * that try the kernel first and copy only what it leaves, TCP_NODELAY,
 * and the list of open connections proxy_stop() ends. */
#include <stdlib.h>
#include <string.h>

#include "pstate.h"

/* A queued write owns its copy of the bytes; freed in its callback
 * (libuv calls it with UV_ECANCELED when the stream closes first). */
struct pwrite {
	uv_write_t req;
	char data[];
};

void
px_link(struct proxy *p, struct plink *l, void (*kill)(struct plink *))
{
	l->kill = kill;
	l->next = p->conns.next;
	l->prev = &p->conns;
	p->conns.next->prev = l;
	p->conns.next = l;
}

void
px_unlink(struct plink *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = l;
}

/* Every read of the loop lands in p->slab: libuv calls the read callback
 * right after this one, and the callback copies out whatever it cannot
 * hand to the kernel at once, so one buffer serves every connection and
 * no read allocates (notes/proxy-measure.md: a malloc per read was the
 * largest cost). */
void
px_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct proxy *p = h->loop->data;

	(void)hint;
	buf->base = p->slab;
	buf->len = sizeof(p->slab);
}

int
px_write(uv_stream_t *s, const char *data, size_t len, uv_write_cb cb,
	 void *ctx)
{
	uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
	struct pwrite *w;
	int n, rc;

	/* uv_try_write says UV_EAGAIN while older bytes are queued, which
	 * keeps the order. */
	n = uv_try_write(s, &b, 1);
	if (n == UV_EAGAIN || n == UV_ENOSYS)
		n = 0;
	if (n < 0)
		return n;
	if ((size_t)n == len)
		return 0;
	w = malloc(sizeof(*w) + len - n);
	if (w == NULL)
		return UV_ENOMEM;
	memcpy(w->data, data + n, len - n);
	w->req.data = ctx;
	b = uv_buf_init(w->data, (unsigned)(len - n));
	rc = uv_write(&w->req, s, &b, 1, cb);
	if (rc < 0)
		free(w);
	return rc;
}

void
px_free_write(uv_write_t *req)
{
	free((struct pwrite *)req);
}

void
px_nodelay(uv_tcp_t *t)
{
	/* Without it a backend that writes headers and body apart waits for
	 * the client's delayed ACK: p99 37 ms instead of 1.5. */
	uv_tcp_nodelay(t, 1);
}
