/* server.c - libmicrohttpd on the libuv loop (see server.h and
 * shared/notes/http-server-spike.md §4 and §9 for the rules followed
 * here: reply on the second handler call, MHD_run after every resume,
 * a connection limit, resume everything before stopping), with the
 * limits of server.h: the budget of what watch and list streams hold
 * that their clients have not taken, and the deadlines, counts and
 * eviction order of TCP connections that have not presented the token,
 * and large bodies parsed off the loop. */
#define _GNU_SOURCE /* POLLRDHUP */
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "auth.h"
#include "ctstr.h"
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
	uint64_t run_started;  /* uv_hrtime() at this MHD_run */
	struct conn *paused;   /* answer streams waiting for the next run */
	struct conn *awaiting; /* answers waiting for the turn's commit */
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
	bool midline; /* MHD has the first part of the line at out_off */
	/* The first bytes of out still to send that are the watch's initial
	 * state (not counted in its lag). */
	size_t exempt;
	/* uv_hrtime() when the client last took bytes of the stream (MHD
	 * asked for more), or, for a watch, when it last went from nothing
	 * to send to something: a stream with something to send whose
	 * progress_at is older than its listener's last MHD_run had a
	 * chance to send and its client took nothing (stalled). */
	uint64_t progress_at;
	size_t counted;       /* what it adds to srv->held_total */
	uv_timer_t *deadline; /* timeoutSeconds */
	struct conn *next;    /* in srv->watches */
	/* an answer held until the turn's group commit (see handler) */
	struct api_resp resp;
	bool has_resp;
	/* an answer that comes later (api_deferred), under way */
	struct api_deferred *deferred;
	struct conn *next_deferring; /* in srv->deferring */
	int64_t write_rv;            /* the last rv when it was written */
	struct conn *next_awaiting;  /* in l->awaiting */
	/* answers in pieces (api_stream: long lists) */
	struct api_stream *stream;
	bool stream_done;
	bool listed;              /* in srv->lists */
	struct conn *next_list;   /* in srv->lists */
	struct conn *next_paused; /* in l->paused */
	/* a large body parsed off the loop (parse_start) */
	struct parse_work *parsing; /* under way; the body is its own */
	struct conn *next_parsing;  /* in srv->parsing */
	bool parse_done, parse_abandoned;
	json_t *parsed; /* owned; NULL with perr when it was not JSON */
	char *node;     /* the node it acts for (auth.h), owned; NULL: admin */
	json_error_t perr;
};

/* A body at least this large is parsed on libuv's thread pool while its
 * connection waits, suspended: jansson reads about 50 MB/s, so a body at
 * the 3 MiB limit parsed on the loop would hold every other request for
 * some 60 ms (a 1.6 MB merge patch took /version's answer to 104 ms).
 * Smaller ones are parsed by the API on the loop, at once (a few
 * hundred microseconds, less than the hand-over). */
#define PARSE_OFF_LOOP_MIN (64u << 10)

/* One parse on the thread pool: it holds the body meanwhile (the
 * connection may go: c is then NULL, and parse_done frees everything). */
struct parse_work {
	uv_work_t w;
	struct conn *c;
	struct strbuf body;
	json_t *value;
	json_error_t err;
};

/* An answer in pieces is printed for at most this long per MHD_run; then
 * its connection waits (suspended) for the next run, after the loop has
 * polled: a 20,000-pod list (25 MB) does not hold the API up. */
#define STREAM_RUN_BUDGET_NS (3 * 1000000ull)

/* One accepted TCP connection (MHD's socket context), from accept until
 * MHD closes it. Until it presents the token, it is in srv->unauth,
 * oldest first. */
struct sock {
	struct listener *l;
	struct MHD_Connection *conn;
	int fd;
	struct in_addr addr;
	uint64_t deadline; /* uv_now() ms */
	bool unauth;       /* in srv->unauth */
	bool request;      /* its request line has come (on_uri) */
	struct sock *prev, *next;
};

/* How far a connection that has not presented the token has got: the
 * one closed to make room for a new one is the one that got least far
 * (sock_stage). */
enum sock_stage {
	SOCK_SILENT,    /* nothing received that MHD or GnuTLS has seen */
	SOCK_STARTED,   /* bytes received: a TLS handshake under way */
	SOCK_SECURE,    /* its TLS handshake is finished */
	SOCK_REQUESTED, /* its request line has come: headers are coming */
};

struct http_server {
	struct http_server_config cfg;
	struct listener ls[2];
	int nls;
	int tcp_port;
	char *unix_path;
	struct stat unix_st; /* the socket file bound: unlinked only if so */
	struct conn *watches;
	struct conn *lists;     /* answers in pieces under way */
	struct conn *parsing;   /* bodies being parsed off the loop */
	struct conn *deferring; /* answers that come later (api_deferred) */
	/* What the streams hold that their clients have not taken: the
	 * watches' lags, the lists' rows read ahead and cursors. */
	size_t held_total;
	/* enforce_total found nothing it may end: not again before a run. */
	bool nothing_stalled;
	struct sock *unauth_head, *unauth_tail;
	unsigned nunauth;
	uv_timer_t unauth_timer; /* the head's deadline */
	uv_timer_t bookmark;
	uv_timer_t sweep; /* suspended streams whose client left */
	int closing;
	bool stopping; /* http_server_stop: a new watch ends at once */
};

static void run_listener(struct listener *l);
static bool enforce_total(struct http_server *s);

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

/* One commit for every answer of the turn that waits on it; the handler
 * is called again for each once it is resumed. The turn's commit may have
 * run before this flush (and failed): what counts is whether each answer's
 * own write is on disk. A write still being synced in the background
 * (store.h) stays until http_server_durable(); at the end (final), what
 * is not durable is answered 500. */
static void
release_awaiting(struct listener *l, bool final)
{
	struct api *api = l->srv->cfg.api;
	struct conn **p = &l->awaiting;

	if (l->awaiting == NULL)
		return;
	api_flush(api, NULL);
	while (*p) {
		struct conn *c = *p;

		if (!api_durable(api, c->write_rv) && !final &&
		    !api_lost(api, c->write_rv)) {
			p = &c->next_awaiting;
			continue;
		}
		*p = c->next_awaiting;
		c->next_awaiting = NULL;
		if (!api_durable(api, c->write_rv))
			api_resp_rolled_back(&c->resp);
		c->suspended = false;
		MHD_resume_connection(c->c);
	}
}

/* The answers in pieces that waited for this run go on. */
static void
resume_paused(struct listener *l)
{
	while (l->paused) {
		struct conn *c = l->paused;

		l->paused = c->next_paused;
		c->next_paused = NULL;
		c->suspended = false;
		MHD_resume_connection(c->c);
	}
}

static void
run_listener(struct listener *l)
{
	l->pending_run = false;
	release_awaiting(l, false);
	resume_paused(l);
	/* Commits the turn's writes, which hands their events to the watch
	 * streams; a group that fails to commit is rolled back and never
	 * reaches them (store.h), so the answers still go out. */
	api_flush(l->srv->cfg.api, NULL);
	/* Every stream of l with something to send has a chance to send it
	 * in this run: one that takes nothing is stalled after it. */
	l->run_started = uv_hrtime();
	l->srv->nothing_stalled = false;
	MHD_run(l->d);
	if (l->srv->held_total > l->srv->cfg.watch_buffer_total &&
	    enforce_total(l->srv))
		MHD_run(l->d); /* the ends of the streams it ended */
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

/* How far a watch stream is behind: its bytes not yet handed to MHD,
 * less those of its initial state. */
static size_t
lag(const struct conn *c)
{
	size_t pending = c->out.len - c->out_off;

	return pending > c->exempt ? pending - c->exempt : 0;
}

/* What a stream holds that its client has not taken: a watch's lag; a
 * list's printed piece not yet handed to MHD, and its rows read ahead
 * and cursor. */
static size_t
held(const struct conn *c)
{
	if (c->watch)
		return lag(c);
	return c->out.len - c->out_off + (c->stream ? c->stream->held : 0);
}

/* Keeps srv->held_total in step after c changed. */
static void
recount(struct conn *c)
{
	struct http_server *s = c->l->srv;
	size_t now = held(c);

	s->held_total = s->held_total - c->counted + now;
	c->counted = now;
}

/* A buffer that grew for a burst is given back once it is drained. */
#define OUT_KEEP (64 * 1024)

static void
out_drained(struct conn *c)
{
	if (c->out.alloc > OUT_KEEP)
		strbuf_release(&c->out);
	else
		strbuf_reset(&c->out);
	c->out_off = 0;
}

/* Ends a stream that lags too much: its pending events are dropped (all
 * but the rest of the line MHD has begun to send, so that the client
 * reads whole events and then the end of the stream), and the connection
 * gets the idle timeout back, so that a client that reads nothing at all
 * is closed too and MHD's buffers go with it. */
static void
overflow(struct conn *c)
{
	size_t keep = 0;

	if (c->midline) {
		const char *nl = memchr(c->out.buf + c->out_off, '\n',
					c->out.len - c->out_off);

		keep = nl ? (size_t)(nl + 1 - (c->out.buf + c->out_off)) : 0;
	}
	if (keep) {
		struct strbuf rest = STRBUF_INIT;

		strbuf_add(&rest, c->out.buf + c->out_off, keep);
		strbuf_release(&c->out);
		c->out = rest;
		c->out_off = 0;
	} else {
		strbuf_release(&c->out);
		c->out_off = 0;
	}
	c->exempt = 0;
	c->ended = true;
	recount(c);
	MHD_set_connection_option(c->c, MHD_CONNECTION_OPTION_TIMEOUT,
				  c->l->srv->cfg.idle_timeout);
	resume(c);
}

/* Closes a stream's connection at once: a watch without the rest of
 * its event, a list in the middle (the client sees the answer cut
 * short). What the stream held is let go now, not when MHD closes the
 * connection. */
static void
cut(struct conn *c)
{
	const union MHD_ConnectionInfo *fd =
	    MHD_get_connection_info(c->c, MHD_CONNECTION_INFO_CONNECTION_FD);

	out_drained(c);
	c->exempt = 0;
	c->ended = true;
	if (c->stream) {
		c->stream->free(c->stream);
		c->stream = NULL;
	}
	recount(c);
	if (fd)
		shutdown(fd->connect_fd, SHUT_RDWR);
	if (c->watch)
		resume(c);
	else /* a list paused for the next run (l->paused) ends in it */
		run_soon(c->l);
}

/* Whether c's client has taken nothing of what it holds since its
 * listener's last MHD_run began: MHD had a chance to send it. A burst
 * of events lands in every watch at once, before any is sent: those are
 * not stalled until a run has passed. */
static bool
stalled(const struct conn *c)
{
	return c->counted > 0 && c->progress_at < c->l->run_started;
}

/* Of two stalled streams: the one whose client has gone longer without
 * taking anything, then the one that holds more. */
static bool
stalled_longer(const struct conn *a, const struct conn *b)
{
	if (a->progress_at != b->progress_at)
		return a->progress_at < b->progress_at;
	return a->counted > b->counted;
}

/* The stream to end for the total: an ended watch that holds the rest of
 * an event first, then the live stream, watch or list, stalled the
 * longest. NULL if none is stalled: every client with something to
 * take took some in the last run. */
static struct conn *
victim(struct http_server *s)
{
	struct conn *c, *worst = NULL, *held = NULL;

	for (c = s->watches; c; c = c->next) {
		if (!stalled(c))
			continue;
		if (c->ended && (held == NULL || c->counted > held->counted))
			held = c;
		if (!c->ended && (worst == NULL || stalled_longer(c, worst)))
			worst = c;
	}
	for (c = s->lists; c; c = c->next_list)
		if (c->stream && stalled(c) &&
		    (worst == NULL || stalled_longer(c, worst)))
			worst = c;
	return held ? held : worst;
}

/* While all streams together hold more than the budget, ends stalled
 * ones (victim), never one whose client took bytes in the last run.
 * Whether it ended any. */
static bool
enforce_total(struct http_server *s)
{
	bool any = false;

	while (s->held_total > s->cfg.watch_buffer_total) {
		struct conn *c = victim(s);

		if (c == NULL) {
			s->nothing_stalled = true;
			break;
		}
		if (c->watch && !c->ended)
			overflow(c);
		else
			cut(c);
		any = true;
	}
	return any;
}

/* Appends an event to a stream's buffer: what was sent goes first, and
 * the buffer grows by a quarter rather than doubling, so that what is
 * held stays close to what is counted. */
static void
out_add(struct conn *c, const char *line, size_t len)
{
	size_t need;

	if (c->out_off) {
		memmove(c->out.buf, c->out.buf + c->out_off,
			c->out.len - c->out_off);
		c->out.len -= c->out_off;
		c->out.buf[c->out.len] = '\0';
		c->out_off = 0;
	}
	need = c->out.len + len + 1;
	if (need > c->out.alloc) {
		size_t alloc = need + need / 4;

		if (c->out.alloc == 0) {
			c->out.buf = xmalloc(alloc);
			c->out.buf[0] = '\0';
		} else {
			c->out.buf = xrealloc(c->out.buf, alloc);
		}
		c->out.alloc = alloc;
	}
	strbuf_add(&c->out, line, len);
}

/* Watch events arrive here (synchronously from the store fan-out). The
 * initial state comes before the stream starts and is exempt from the
 * lag bound; one event alone never exceeds it. */
static int
on_watch_line(void *arg, const char *line, size_t len)
{
	struct conn *c = arg;
	struct http_server *s = c->l->srv;

	if (c->ended)
		return 1;
	out_add(c, line, len);
	if (!c->started) {
		c->exempt += len;
		return 0;
	}
	if (c->counted == 0)
		c->progress_at = uv_hrtime();
	recount(c);
	if (lag(c) > s->cfg.watch_buffer && lag(c) > len)
		overflow(c);
	else
		resume(c);
	/* The total is enforced after the next MHD_run (run_listener),
	 * once every client could take its share of the burst; past twice
	 * the bound, the streams stalled since before this burst are ended
	 * at once (never one the burst has just reached). */
	if (s->held_total > 2 * s->cfg.watch_buffer_total &&
	    !s->nothing_stalled)
		enforce_total(s);
	return c->ended;
}

static ssize_t
reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct conn *c = cls;
	size_t n;

	(void)pos;
	if (c->out_off == c->out.len) {
		out_drained(c);
		c->exempt = 0;
		recount(c);
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
	c->midline = buf[n - 1] != '\n';
	c->exempt = c->exempt > n ? c->exempt - n : 0;
	/* What was sent is dropped from the front now and then, so that a
	 * stream that never quite drains does not keep it all. */
	if (c->out_off >= OUT_KEEP && c->out_off * 2 >= c->out.len) {
		memmove(c->out.buf, c->out.buf + c->out_off,
			c->out.len - c->out_off);
		c->out.len -= c->out_off;
		c->out.buf[c->out.len] = '\0';
		c->out_off = 0;
	}
	c->progress_at = uv_hrtime();
	recount(c);
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
unlink_list(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->l->srv->lists; *pp; pp = &(*pp)->next_list)
		if (*pp == c) {
			*pp = c->next_list;
			break;
		}
	c->listed = false;
}

static void
free_timer(uv_handle_t *h)
{
	free(h);
}

/* ---- large bodies parsed off the loop ---- */

/* The work leaves c: the connection goes before its parse ends. */
static void
parse_unlink(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->l->srv->parsing; *pp; pp = &(*pp)->next_parsing)
		if (*pp == c) {
			*pp = c->next_parsing;
			break;
		}
	c->parsing->c = NULL;
	c->parsing = NULL;
}

/* Whether a request's body is parsed before the API sees it: a write
 * whose body is JSON (or says no type: JSON is the default) and large. */
static bool
parse_first(const struct conn *c, const char *method, const char *ct)
{
	if (c->parse_done || c->too_large || c->body.len < PARSE_OFF_LOOP_MIN)
		return false;
	if (strcmp(method, "POST") && strcmp(method, "PUT") &&
	    strcmp(method, "PATCH"))
		return false;
	return ct == NULL || strcasestr(ct, "json") != NULL;
}

static void
parse_run(uv_work_t *w)
{
	struct parse_work *p = w->data;

	p->value = json_loadb(p->body.buf, p->body.len, 0, &p->err);
}

static void
parse_end(uv_work_t *w, int status)
{
	struct parse_work *p = w->data;
	struct conn *c = p->c;

	(void)status;
	if (c == NULL) {
		json_decref(p->value);
		strbuf_release(&p->body);
		free(p);
		return;
	}
	parse_unlink(c);
	strbuf_release(&c->body);
	c->body = p->body; /* back to the connection */
	c->parsed = p->value;
	c->perr = p->err;
	c->parse_done = true;
	free(p);
	c->suspended = false;
	MHD_resume_connection(c->c);
	run_soon(c->l);
}

/* Hands c's body to the thread pool and suspends c; false if the pool
 * refused it (the API then parses it on the loop). */
static bool
parse_start(struct conn *c)
{
	struct http_server *srv = c->l->srv;
	struct parse_work *p = xcalloc(1, sizeof(*p));

	p->c = c;
	p->body = c->body; /* the work's while it runs */
	p->w.data = p;
	if (uv_queue_work(srv->cfg.loop, &p->w, parse_run, parse_end) < 0) {
		free(p);
		return false;
	}
	strbuf_init(&c->body);
	c->parsing = p;
	c->next_parsing = srv->parsing;
	srv->parsing = c;
	c->suspended = true;
	MHD_suspend_connection(c->c);
	return true;
}

static void
deferring_unlink(struct conn *c)
{
	struct conn **p;

	for (p = &c->l->srv->deferring; *p; p = &(*p)->next_deferring)
		if (*p == c) {
			*p = c->next_deferring;
			c->next_deferring = NULL;
			return;
		}
}

static void
conn_free(struct conn *c)
{
	if (c->watch) {
		api_watch_close(c->watch);
		unlink_watch(c);
	}
	if (c->listed)
		unlink_list(c);
	c->l->srv->held_total -= c->counted;
	if (c->deadline) {
		uv_timer_stop(c->deadline);
		uv_close((uv_handle_t *)c->deadline, free_timer);
	}
	if (c->stream)
		c->stream->free(c->stream);
	if (c->deferred) {
		deferring_unlink(c);
		c->deferred->cancel(c->deferred);
	}
	if (c->has_resp)
		api_resp_release(&c->resp);
	if (c->parsing)
		parse_unlink(c);
	json_decref(c->parsed);
	strbuf_release(&c->body);
	strbuf_release(&c->out);
	free(c->node);
	free(c);
}

/* The content reader of an answer in pieces: each piece the API prints
 * goes out through c->out, and the next is printed only once MHD has
 * taken the last (its socket took the bytes before); past this run's
 * budget the connection waits for the next run. A stream cut for the
 * budget (cut) ends with an error. */
static ssize_t
stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct conn *c = cls;
	struct listener *l = c->l;
	size_t n;

	(void)pos;
	c->progress_at = uv_hrtime();
	if (c->out_off == c->out.len) {
		out_drained(c);
		if (c->stream_done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (c->stream == NULL)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (uv_hrtime() - l->run_started > STREAM_RUN_BUDGET_NS) {
			c->suspended = true;
			MHD_suspend_connection(c->c);
			c->next_paused = l->paused;
			l->paused = c;
			run_soon(l);
			recount(c);
			return 0;
		}
		if (!c->stream->next(c->stream, &c->out))
			c->stream_done = true;
		recount(c);
		if (c->stream_done)
			return MHD_CONTENT_READER_END_OF_STREAM;
	}
	n = c->out.len - c->out_off;
	if (n > max)
		n = max;
	memcpy(buf, c->out.buf + c->out_off, n);
	c->out_off += n;
	recount(c);
	return (ssize_t)n;
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
	struct conn *c = *con_cls;

	(void)cls;
	if (c == NULL)
		return;
	/* A watch's connection may serve further requests: they have the
	 * idle timeout again. */
	if (c->watch && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		MHD_set_connection_option(connection,
					  MHD_CONNECTION_OPTION_TIMEOUT,
					  c->l->srv->cfg.idle_timeout);
	conn_free(c);
	*con_cls = NULL;
}

/* ---- TCP connections that have not presented the token ---- */

static void
unauth_unlink(struct http_server *s, struct sock *k)
{
	if (!k->unauth)
		return;
	if (k->prev)
		k->prev->next = k->next;
	else
		s->unauth_head = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		s->unauth_tail = k->prev;
	k->prev = k->next = NULL;
	k->unauth = false;
	s->nunauth--;
}

/* Closes a connection under MHD: shutdown(2) makes its socket readable
 * at end of file, and MHD closes it (and frees its buffers) on its next
 * run. */
static void
unauth_drop(struct http_server *s, struct sock *k)
{
	unauth_unlink(s, k);
	shutdown(k->fd, SHUT_RDWR);
}

static void on_unauth_timer(uv_timer_t *t);

static void
unauth_arm(struct http_server *s)
{
	uint64_t now = uv_now(s->cfg.loop);

	if (s->unauth_head == NULL)
		uv_timer_stop(&s->unauth_timer);
	else
		uv_timer_start(&s->unauth_timer, on_unauth_timer,
			       s->unauth_head->deadline > now
				   ? s->unauth_head->deadline - now
				   : 0,
			       0);
}

/* The list is in accept order, so deadlines are in order too. */
static void
on_unauth_timer(uv_timer_t *t)
{
	struct http_server *s = t->data;
	uint64_t now = uv_now(s->cfg.loop);

	while (s->unauth_head && s->unauth_head->deadline <= now)
		unauth_drop(s, s->unauth_head);
	unauth_arm(s);
}

static enum sock_stage
sock_stage(const struct sock *k)
{
	const union MHD_ConnectionInfo *ci;
	int waiting = 0;

	if (k->request)
		return SOCK_REQUESTED;
	if (k->l->srv->cfg.tls_cert) {
		ci = MHD_get_connection_info(
		    k->conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
		if (ci && ci->tls_session) {
			gnutls_session_t ss = ci->tls_session;
			int in = (int)gnutls_handshake_get_last_in(ss);
			int cipher = (int)gnutls_cipher_get(ss);

			/* The last handshake message received is -1 before
			 * the first and again once the handshake is over;
			 * the cipher is NULL until keys are agreed. */
			if (in >= (int)GNUTLS_HANDSHAKE_CLIENT_HELLO)
				return SOCK_STARTED;
			if (cipher != GNUTLS_CIPHER_NULL &&
			    cipher != GNUTLS_CIPHER_UNKNOWN)
				return SOCK_SECURE;
		}
	}
	if (ioctl(k->fd, FIONREAD, &waiting) == 0 && waiting > 0)
		return SOCK_STARTED;
	return SOCK_SILENT;
}

/* The connection to close to make room, among those from addr (from
 * any address when addr is NULL): the one that got least far, and of
 * those the oldest. A client that finished its handshake and sends its
 * headers is not closed for connections that have done less. */
static struct sock *
unauth_victim(struct http_server *s, const struct in_addr *addr)
{
	struct sock *p, *best = NULL;
	enum sock_stage best_stage = SOCK_REQUESTED;

	for (p = s->unauth_head; p; p = p->next) {
		enum sock_stage st;

		if (addr && p->addr.s_addr != addr->s_addr)
			continue;
		st = sock_stage(p);
		if (best == NULL || st < best_stage) {
			best = p;
			best_stage = st;
		}
		if (best_stage == SOCK_SILENT)
			break;
	}
	return best;
}

/* A new connection: counted as unauthenticated, making room if it is one
 * too many in all or from its address (unauth_victim goes). */
static void
unauth_add(struct http_server *s, struct sock *k)
{
	struct sock *p;
	unsigned same = 0;

	for (p = s->unauth_head; p; p = p->next)
		if (p->addr.s_addr == k->addr.s_addr)
			same++;
	if (same && same >= s->cfg.max_unauth_per_addr)
		unauth_drop(s, unauth_victim(s, &k->addr));
	if (s->unauth_head && s->nunauth >= s->cfg.max_unauth)
		unauth_drop(s, unauth_victim(s, NULL));
	k->deadline =
	    uv_now(s->cfg.loop) + (uint64_t)s->cfg.header_timeout * 1000;
	k->unauth = true;
	k->prev = s->unauth_tail;
	if (s->unauth_tail)
		s->unauth_tail->next = k;
	else
		s->unauth_head = k;
	s->unauth_tail = k;
	s->nunauth++;
	if (s->unauth_head == k)
		unauth_arm(s);
}

static void
on_connection(void *cls, struct MHD_Connection *connection,
	      void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct listener *l = cls;
	struct sock *k = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd, *sa;

		k = xcalloc(1, sizeof(*k));
		k->l = l;
		k->conn = connection;
		fd = MHD_get_connection_info(connection,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		sa = MHD_get_connection_info(
		    connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		k->fd = fd ? fd->connect_fd : -1;
		if (sa && sa->client_addr &&
		    sa->client_addr->sa_family == AF_INET)
			k->addr = ((const struct sockaddr_in *)sa->client_addr)
				      ->sin_addr;
		*socket_context = k;
		if (k->fd >= 0)
			unauth_add(l->srv, k);
	} else if (k) {
		bool head = l->srv->unauth_head == k;

		unauth_unlink(l->srv, k);
		if (head)
			unauth_arm(l->srv);
		free(k);
		*socket_context = NULL;
	}
}

/* MHD has the request line of a connection (MHD_OPTION_URI_LOG_CALLBACK):
 * its headers are coming. Returns no request context. */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct sock *k = ci ? ci->socket_context : NULL;

	(void)cls;
	(void)uri;
	if (k)
		k->request = true;
	return NULL;
}

/* The connection presented the token: it is no longer counted. */
static void
authenticated(struct listener *l, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct sock *k = ci ? ci->socket_context : NULL;

	if (k && k->unauth) {
		bool head = l->srv->unauth_head == k;

		unauth_unlink(l->srv, k);
		if (head)
			unauth_arm(l->srv);
	}
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
	if (code == 401)
		MHD_add_response_header(r, "Connection", "close");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static int
queue_api(struct MHD_Connection *conn, struct api_resp *resp)
{
	/* The body is handed over, not copied: a list can be tens of MB. */
	char *body = resp->body ? resp->body : xstrdup("");
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(body), body, MHD_RESPMEM_MUST_FREE);
	char off[32];
	int ret;

	resp->body = NULL;

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

/* The query arguments as MHD decoded them (the api takes them so:
 * api_req.args), pointers into the connection's own copies. */
struct qs {
	const char **v; /* key, value, key, value, ... */
	size_t n;       /* pairs */
	size_t alloc;
};

static const char *const no_args[] = {NULL};

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
	    const char *value)
{
	struct qs *q = cls;

	(void)kind;
	ALLOC_GROW(q->v, 2 * q->n + 2, q->alloc);
	q->v[2 * q->n] = key;
	q->v[2 * q->n + 1] = value ? value : "";
	q->n++;
	return MHD_YES;
}

/* Queues resp (taken): whole, or in pieces (api_stream). */
static int
answer(struct MHD_Connection *conn, struct conn *c, struct api_resp *resp)
{
	struct MHD_Response *r;
	int ret;

	if (!(resp->stream && resp->status == 200))
		return queue_api(conn, resp);
	c->stream = resp->stream;
	resp->stream = NULL;
	c->next_list = c->l->srv->lists;
	c->l->srv->lists = c;
	c->listed = true;
	c->progress_at = uv_hrtime();
	recount(c);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024,
					      stream_reader, c, reader_free);
	MHD_add_response_header(r, "Content-Type",
				resp->content_type ? resp->content_type
						   : "application/json");
	ret = MHD_queue_response(conn, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	api_resp_release(resp);
	return ret;
}

/* The request's bearer token, or NULL. */
static const char *
bearer_of(struct MHD_Connection *conn)
{
	const char *h =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	return h && !strncmp(h, "Bearer ", 7) ? h + 7 : NULL;
}

/* Who may ask (auth.h): the unix socket is the admin's; over TCP the
 * admin's token or a node's credential (its name into node), or nobody
 * for the open paths (cluster-info, join). */
static bool
authorized(struct listener *l, struct MHD_Connection *conn, const char *url,
	   const char *method, char node[API_NODE_NAME_MAX + 1])
{
	const char *b, *tok = l->srv->cfg.token;

	node[0] = '\0';
	if (!l->tcp)
		return true;
	b = bearer_of(conn);
	if (b && tok && ct_streq(b, tok)) {
		authenticated(l, conn);
		return true;
	}
	if (b && l->srv->cfg.auth &&
	    api_auth_who(l->srv->cfg.auth, b, node) == API_WHO_NODE) {
		authenticated(l, conn);
		return true;
	}
	node[0] = '\0';
	return api_is_open_path(method, url);
}

/* A deferred answer has come: the handler, called again once the
 * connection is resumed, sends it. */
static void
on_deferred(void *arg, struct api_resp *r)
{
	struct conn *c = arg;

	deferring_unlink(c);
	c->deferred = NULL;
	c->resp = *r;
	c->has_resp = true;
	resume(c);
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
	struct qs q = {0};

	(void)version;
	if (c == NULL) {
		const char *cl;
		char node[API_NODE_NAME_MAX + 1];

		if (!authorized(l, conn, url, method, node))
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
		c->node = node[0] ? xstrdup(node) : NULL;
		strbuf_init(&c->body);
		strbuf_init(&c->out);
		*con_cls = c;
		return MHD_YES;
	}
	if (c->has_resp) { /* resumed after the turn's commit */
		c->has_resp = false;
		return answer(conn, c, &c->resp);
	}
	if (*upload_size) {
		if (c->body.len + *upload_size > API_MAX_BODY)
			c->too_large = true;
		else
			strbuf_add(&c->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (c->parse_abandoned) /* the server stops */
		return MHD_NO;
	if (parse_first(c, method,
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						    "Content-Type")) &&
	    parse_start(c))
		return MHD_YES; /* parse_end resumes it */
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &q);
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = url;
	req.args = q.v ? q.v : no_args;
	req.nargs = q.n;
	req.content_type =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
	req.accept =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");
	req.body = c->body.buf;
	req.body_len = c->too_large ? API_MAX_BODY + 1 : c->body.len;
	req.node = c->node;
	req.bearer = bearer_of(conn);
	if (c->parse_done) {
		req.parsed = c->parsed;
		req.parse_error = c->parsed ? NULL : &c->perr;
	}
	if (api_is_watch(&req)) {
		struct MHD_Response *r;
		const char *ts;
		int ret;

		c->watch =
		    api_watch_open(srv->cfg.api, &req, on_watch_line, c, &resp);
		free(q.v);
		if (c->watch == NULL)
			return queue_api(conn, &resp);
		api_resp_release(&resp);
		c->next = srv->watches;
		srv->watches = c;
		c->ended = srv->stopping;
		/* Long-lived: the lag bound replaces the idle timeout. */
		MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT,
					  0u);
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
	free(q.v);
	if (resp.deferred) { /* held until it comes: on_deferred */
		c->deferred = resp.deferred;
		resp.deferred = NULL;
		api_resp_release(&resp);
		c->next_deferring = srv->deferring;
		srv->deferring = c;
		c->suspended = true;
		MHD_suspend_connection(conn);
		c->deferred->start(c->deferred, on_deferred, c);
		return MHD_YES;
	}
	/* Nothing is answered before the writes behind it are durable. The
	 * writes of one loop turn, HTTP and in-process alike, share one
	 * commit: a write's answer waits, its connection suspended, until
	 * the turn's run_listener has flushed (etcd batches concurrent
	 * writes into one fsync the same way). A read flushes what it may
	 * have seen and is answered at once, without waiting for the rest
	 * of the turn. */
	if (resp.stateless)
		; /* nothing it says depends on the writes */
	else if (!strcmp(method, "GET"))
		api_flush(srv->cfg.api, &resp);
	else if (api_pending(srv->cfg.api)) {
		c->resp = resp;
		c->has_resp = true;
		c->write_rv = api_last_rv(srv->cfg.api);
		c->suspended = true;
		MHD_suspend_connection(conn);
		c->next_awaiting = l->awaiting;
		l->awaiting = c;
		run_soon(l);
		return MHD_YES;
	}
	return answer(conn, c, &resp);
}

static void
on_bookmark(uv_timer_t *t)
{
	struct http_server *s = t->data;
	struct conn *c;

	for (c = s->watches; c; c = c->next)
		api_watch_bookmark(c->watch);
}

/* MHD does not watch the socket of a suspended connection: a client
 * that leaves a watch on which nothing happens would hold its connection
 * until the next event or timeoutSeconds. Every few seconds, such streams
 * whose peer has hung up are ended (MHD then closes them). */
#define SWEEP_MS 3000

static void
on_sweep(uv_timer_t *t)
{
	struct http_server *s = t->data;
	struct conn *c;

	for (c = s->watches; c; c = c->next) {
		const union MHD_ConnectionInfo *fd;
		struct pollfd p = {.events = POLLRDHUP};

		if (!c->suspended || c->ended)
			continue;
		fd = MHD_get_connection_info(c->c,
					     MHD_CONNECTION_INFO_CONNECTION_FD);
		if (fd == NULL)
			continue;
		p.fd = fd->connect_fd;
		if (poll(&p, 1, 0) == 1 &&
		    (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
			c->ended = true;
			resume(c);
		}
	}
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
	    chmod(path, 0600) < 0 || listen(fd, SOMAXCONN) < 0) {
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
	/* The unix socket is authenticated by its permissions: only TCP
	 * connections are counted and timed before the token. */
	if (fd >= 0)
		l->d = MHD_start_daemon(
		    flags, 0, NULL, NULL, handler, l,
		    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL,
		    MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
		    on_completed, l, MHD_OPTION_CONNECTION_LIMIT,
		    s->cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
		    s->cfg.idle_timeout, MHD_OPTION_END);
	else {
		/* TLS on TCP (GnuTLS inside libmicrohttpd). The handshake
		 * happens after the accept that starts the connection's
		 * header timeout, so it counts as time before the token. */
		struct MHD_OptionItem tls[] = {
		    {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)s->cfg.tls_key},
		    {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)s->cfg.tls_cert},
		    {MHD_OPTION_HTTPS_PRIORITIES, 0,
		     (void *)s->cfg.tls_priorities},
		    {MHD_OPTION_END, 0, NULL},
		};

		if (s->cfg.tls_priorities == NULL)
			tls[2].option = MHD_OPTION_END;
		if (s->cfg.tls_cert)
			flags |= MHD_USE_TLS;
		else
			tls[0].option = MHD_OPTION_END;
		l->d = MHD_start_daemon(
		    flags, 0, NULL, NULL, handler, l,
		    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL, MHD_OPTION_ARRAY,
		    tls, MHD_OPTION_SOCK_ADDR, sin, MHD_OPTION_NOTIFY_COMPLETED,
		    on_completed, l, MHD_OPTION_NOTIFY_CONNECTION,
		    on_connection, l, MHD_OPTION_URI_LOG_CALLBACK, on_uri, l,
		    MHD_OPTION_CONNECTION_LIMIT, s->cfg.max_connections,
		    MHD_OPTION_CONNECTION_TIMEOUT, s->cfg.idle_timeout,
		    MHD_OPTION_END);
	}
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
	if (s->cfg.watch_buffer == 0)
		s->cfg.watch_buffer = HTTP_WATCH_BUFFER;
	if (s->cfg.watch_buffer_total == 0)
		s->cfg.watch_buffer_total = HTTP_WATCH_BUFFER_TOTAL;
	if (s->cfg.header_timeout == 0)
		s->cfg.header_timeout = HTTP_HEADER_TIMEOUT;
	if (s->cfg.idle_timeout == 0)
		s->cfg.idle_timeout = HTTP_IDLE_TIMEOUT;
	if (s->cfg.max_unauth == 0)
		s->cfg.max_unauth = HTTP_MAX_UNAUTH;
	if (s->cfg.max_unauth_per_addr == 0)
		s->cfg.max_unauth_per_addr = HTTP_MAX_UNAUTH_PER_ADDR;
	uv_timer_init(cfg->loop, &s->unauth_timer);
	s->unauth_timer.data = s;
	if (cfg->unix_path) {
		int fd = unix_listen(cfg->unix_path, err, errlen);

		if (fd < 0 ||
		    start_listener(s, &s->ls[s->nls], fd, NULL, err, errlen)) {
			http_server_stop(s);
			return -1;
		}
		s->unix_path = xstrdup(cfg->unix_path);
		if (lstat(s->unix_path, &s->unix_st))
			memset(&s->unix_st, 0, sizeof(s->unix_st));
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
	uv_timer_init(cfg->loop, &s->sweep);
	s->sweep.data = s;
	uv_timer_start(&s->sweep, on_sweep, SWEEP_MS, SWEEP_MS);
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
http_server_durable(struct http_server *s)
{
	int i;

	for (i = 0; s && i < s->nls; i++)
		if (s->ls[i].awaiting)
			run_soon(&s->ls[i]);
}

/* Every suspended connection goes on (http_server_stop): the watches
 * end, the deferred answers are 503, the parses are abandoned, the
 * writes waiting to be durable and the paused streams go on. */
static void
resume_all(struct http_server *s)
{
	struct conn *c;
	int i;

	for (c = s->watches; c; c = c->next) {
		c->ended = true;
		if (c->suspended) {
			c->suspended = false;
			MHD_resume_connection(c->c);
		}
	}
	while ((c = s->deferring) != NULL) { /* answered: the server stops */
		s->deferring = c->next_deferring;
		c->next_deferring = NULL;
		c->deferred->cancel(c->deferred);
		c->deferred = NULL;
		c->resp = (struct api_resp){
		    .status = 503,
		    .content_type = "application/json",
		    .body = xstrdup(
			"{\"kind\":\"Status\",\"apiVersion\":\"v1\","
			"\"metadata\":{},\"status\":\"Failure\",\"message\":"
			"\"the server is shutting down\",\"reason\":"
			"\"ServiceUnavailable\",\"code\":503}")};
		c->has_resp = true;
		c->suspended = false;
		MHD_resume_connection(c->c);
	}
	while ((c = s->parsing) != NULL) { /* the work finishes alone */
		parse_unlink(c);
		c->parse_abandoned = c->parse_done = true;
		c->suspended = false;
		MHD_resume_connection(c->c);
	}
	for (i = 0; i < s->nls; i++) {
		release_awaiting(&s->ls[i], true);
		resume_paused(&s->ls[i]);
	}
}

static bool
any_suspended(const struct http_server *s)
{
	const struct conn *c;
	int i;

	for (c = s->watches; c; c = c->next)
		if (c->suspended)
			return true;
	if (s->deferring || s->parsing)
		return true;
	for (i = 0; i < s->nls; i++)
		if (s->ls[i].awaiting || s->ls[i].paused)
			return true;
	return false;
}

void
http_server_stop(struct http_server *s)
{
	int i, round;

	if (s == NULL)
		return;
	/* MHD_stop_daemon with suspended connections is a violation (an
	 * abort). The last runs of MHD may suspend some again: a request
	 * that came with them (a watch, which then ends at once; a write
	 * waiting to be durable), an answer in pieces past its budget. So:
	 * resume, run, and again while any is suspended. */
	s->stopping = true;
	for (round = 0; round < 16; round++) {
		resume_all(s);
		for (i = 0; i < s->nls; i++)
			MHD_run(s->ls[i].d);
		if (!any_suspended(s))
			break;
	}
	for (i = 0; i < s->nls; i++)
		MHD_stop_daemon(s->ls[i].d);
	if (s->unix_path) {
		struct stat st;

		/* Only the file bound: not one another server put there. */
		if (lstat(s->unix_path, &st) == 0 &&
		    st.st_ino == s->unix_st.st_ino &&
		    st.st_dev == s->unix_st.st_dev)
			unlink(s->unix_path);
	}
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
	if (s->sweep.loop) {
		s->closing++;
		uv_close((uv_handle_t *)&s->sweep, on_closed);
	}
	if (s->unauth_timer.loop) {
		s->closing++;
		uv_close((uv_handle_t *)&s->unauth_timer, on_closed);
	}
	if (s->closing == 0) {
		free(s->unix_path);
		free(s);
	}
}
