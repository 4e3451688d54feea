/* pstate.h - what the files of src/proxy share: the proxy, its services,
 * endpoints and revisions as they live on the proxy's loop, the list of
 * open connections, and the helpers each file exports to the others.
 *
 * Threads. Everything here belongs to the proxy's loop thread, except:
 * the counters (atomics, read by any thread), and the structure of the
 * service list, each service's endpoint array and revision list, and an
 * endpoint's state, which the loop changes only while holding p->mu and
 * other threads read only while holding it (proxy_*_stats, metrics).
 *
 * Lifetimes. A service or endpoint is reference-counted by the
 * connections that use it (refs): one left out of a new table is taken
 * off the lists at once (removed = true) and freed when its last
 * connection ends. A service's revisions live as long as the service. */
#ifndef DROVER_PROXY_PSTATE_H
#define DROVER_PROXY_PSTATE_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uthash.h>
#include <uv.h>

#include "proxy.h"

/* A side stops reading while its peer's write queue holds more than
 * HIGH bytes and starts again once it is down to LOW. */
#define PX_QUEUE_HIGH (256 * 1024)
#define PX_QUEUE_LOW  (64 * 1024)
#define PX_SLAB       (64 * 1024) /* the loop's one read buffer */
#define PX_MAX_TRIES  16          /* endpoints tried per connection/request */
#define PX_NBUCKETS   14          /* latency buckets, +Inf apart */

#define CNT_ADD(x, n) atomic_fetch_add_explicit(&(x), (n), memory_order_relaxed)
#define CNT_SUB(x, n) atomic_fetch_sub_explicit(&(x), (n), memory_order_relaxed)
#define CNT_GET(x)    atomic_load_explicit(&(x), memory_order_relaxed)

extern const double px_bucket_le[PX_NBUCKETS];

/* The counters of one revision (pod-template-hash) of a service. */
struct prev {
	char *name;
	_Atomic uint64_t req[5];
	_Atomic uint64_t count;
	_Atomic uint64_t sum_ns;
	_Atomic uint64_t bucket[PX_NBUCKETS + 1]; /* not cumulative; +Inf */
	struct prev *next;
};

struct bconn;

struct pep {
	struct psvc *svc;
	char *key;
	char *address;
	int port;
	struct sockaddr_storage sa;
	struct prev *rev;
	enum proxy_ep_state state;
	bool removed;       /* left out of the table: freed when refs is 0 */
	bool idle_told;     /* the idle callback ran for this drain */
	unsigned refs;      /* backend connections (= active) */
	unsigned busy;      /* HTTP: of which serving a request */
	struct bconn *pool; /* HTTP: idle backend connections, a list */
	_Atomic uint64_t active, total, fails;
	_Atomic uint64_t req[5];
	UT_hash_handle hh; /* in svc->by_key */
};

struct psvc {
	struct proxy *p;
	char *name;
	char *address;
	int port;
	struct sockaddr_storage sa;
	enum proxy_mode mode;
	enum proxy_balance balance;
	unsigned idle_ms, connect_ms;
	uv_tcp_t *listener; /* owned; freed in its close callback, so that a
			       new one may open while an old one closes */
	bool listening;
	_Atomic int listen_error;
	/* A listener that could not open: tried again at retry_at (the
	 * loop's uv_now), after retry_ms, which doubles up to
	 * PROXY_RELISTEN_MAX_MS; 0 while listening. */
	unsigned retry_ms;
	uint64_t retry_at;
	bool seen_listen; /* a first outcome was logged */
	bool tell_listen; /* a change the caller is yet to be told of */
	/* Requests or connections no endpoint could take (503 / closed),
	 * logged at most once a second and at each new table: how many
	 * since the last line, and when and under which table it was. */
	uint64_t unlogged;
	uint64_t logged_at;
	int64_t logged_gen;
	bool removed;
	uint64_t seen;    /* the last apply that had it (p->applies) */
	unsigned refs;    /* connections, and the listener while it is open */
	struct pep **eps; /* the table's endpoints, in its order */
	size_t n_eps;
	struct pep *by_key;
	unsigned rr;
	struct prev *revs;
	_Atomic uint64_t active, total, fails, rejected;
	UT_hash_handle hh; /* in p->svcs */
};

/* An open connection (TCP pair, HTTP session, backend connection), on
 * the proxy's list so that proxy_stop() can end it. */
struct plink {
	struct plink *prev, *next;
	void (*kill)(struct plink *);
	struct psvc *svc;
	/* Optional: its service was removed (HTTP: an idle client is
	 * closed). */
	void (*svc_gone)(struct plink *);
};

/* A table as proxy_set_table() copied it. */
struct tcopy {
	int64_t gen;
	struct proxy_table t; /* strings and arrays owned by the copy */
	struct sockaddr_storage *svc_sa, **ep_sa;
};

struct proxy {
	uv_thread_t thread;
	uv_loop_t loop;
	uv_async_t async;
	proxy_idle_cb on_idle;
	proxy_applied_cb on_applied;
	proxy_listen_cb on_listen;
	void *arg;
	uv_timer_t relisten; /* the next try of a listener that failed */
	int64_t generation;  /* the caller's number of the applied table */

	uv_mutex_t mu; /* the structure readers walk (see above) */
	struct psvc *svcs;

	uv_mutex_t qmu; /* the hand-over from other threads */
	struct tcopy *pending;
	int64_t gen;
	bool stopping;
	_Atomic int64_t applied;

	bool stopped;       /* loop side: proxy_stop() is under way */
	uint64_t applies;   /* tables applied, counted on the loop */
	struct plink conns; /* list head */
	char slab[PX_SLAB];
};

/* table.c */
void px_apply(struct proxy *p, struct tcopy *t);
void px_remove_all(struct proxy *p);
struct pep *px_pick(struct psvc *s, struct pep *const *tried, int ntried);
void px_ep_ref(struct pep *e);
void px_ep_unref(struct pep *e);
void px_svc_ref(struct psvc *s);
void px_svc_unref(struct psvc *s);
int px_parse_addr(const char *addr, int port, struct sockaddr_storage *out);
struct tcopy *px_copy_table(const struct proxy_table *t, int *err);
void px_free_copy(struct tcopy *c);
/* A request (HTTP: answered 503) or connection (TCP: closed) of s that
 * no endpoint could take: logged with the table's generation and its
 * endpoints, rate-limited. */
void px_no_endpoint(struct psvc *s);

/* io.c */
void px_link(struct proxy *p, struct plink *l, void (*kill)(struct plink *));
void px_unlink(struct plink *l);
void px_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf);
/* Writes data to s: what the kernel takes now, and a copy of the rest
 * queued with uv_write; cb(req->data = ctx) runs only for a queued part.
 * Returns 0 or a negative errno (the stream is then broken). */
int px_write(uv_stream_t *s, const char *data, size_t len, uv_write_cb cb,
	     void *ctx);
void px_free_write(uv_write_t *req);
void px_nodelay(uv_tcp_t *t);

/* tcp.c and http.c: a client the listener accepted. */
void px_tcp_accept(struct psvc *s);
void px_http_accept(struct psvc *s);
/* http.c: closes the idle backend connections of an endpoint. */
void px_http_drop_pool(struct pep *e);

/* metrics.c */
void px_count_response(struct pep *e, int status, uint64_t ns);

#endif
