/* client_http.c - libcurl client for the drover API.
 *
 * libcurl is loaded with dlopen() the first time a client is made: only
 * the CLI talks HTTP, and the daemon then never maps libcurl and what it
 * pulls in (OpenSSL, Kerberos, LDAP, ssh2: about 3 MB of its RSS). */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client_http.h"
#include "strbuf.h"
#include "xalloc.h"

/* The libcurl entry points drover uses, resolved once. */
static struct {
	bool loaded;
	char error[256];
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	CURLcode (*easy_perform)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	char *(*easy_escape)(CURL *, const char *, int);
	void (*free)(void *);
	/* The multi interface, for clients on a loop. */
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_cleanup)(CURLM *);
	CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
	CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	/* The TLS 1.2 cipher suites in the syntax of libcurl's TLS backend
	 * (NULL: an unknown backend, its own defaults above the floor). */
	const char *ciphers;
} lc;

/* The outgoing TLS of drover's client, as client-go's: TLS 1.2 at least,
 * and for 1.2 only ECDHE with an AEAD cipher, the server's own list
 * (serve_tls.h), in OpenSSL's and in GnuTLS' words. */
#define TLS12_CIPHERS_OPENSSL                                                  \
	"ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"           \
	"ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"           \
	"ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
#define TLS12_CIPHERS_GNUTLS                                                   \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:" \
	"+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:" \
	"+ECDHE-RSA"

/* Which cipher list fits the TLS library libcurl was built with. */
static const char *
tls_ciphers(void *h)
{
	curl_version_info_data *(*version_info)(CURLversion);
	const curl_version_info_data *v;

	*(void **)&version_info = dlsym(h, "curl_version_info");
	if (version_info == NULL)
		return NULL;
	v = version_info(CURLVERSION_NOW);
	if (v == NULL || v->ssl_version == NULL)
		return NULL;
	if (!strncasecmp(v->ssl_version, "OpenSSL", 7))
		return TLS12_CIPHERS_OPENSSL;
	if (!strncasecmp(v->ssl_version, "GnuTLS", 6))
		return TLS12_CIPHERS_GNUTLS;
	return NULL;
}

static int
load_curl(void)
{
	void *h;

	if (lc.loaded)
		return 0;
	h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(lc.error, sizeof(lc.error), "cannot load libcurl: %s",
			 dlerror());
		return -1;
	}
	*(void **)&lc.easy_init = dlsym(h, "curl_easy_init");
	*(void **)&lc.easy_cleanup = dlsym(h, "curl_easy_cleanup");
	*(void **)&lc.easy_reset = dlsym(h, "curl_easy_reset");
	*(void **)&lc.easy_setopt = dlsym(h, "curl_easy_setopt");
	*(void **)&lc.easy_getinfo = dlsym(h, "curl_easy_getinfo");
	*(void **)&lc.easy_perform = dlsym(h, "curl_easy_perform");
	*(void **)&lc.easy_strerror = dlsym(h, "curl_easy_strerror");
	*(void **)&lc.slist_append = dlsym(h, "curl_slist_append");
	*(void **)&lc.slist_free_all = dlsym(h, "curl_slist_free_all");
	*(void **)&lc.easy_escape = dlsym(h, "curl_easy_escape");
	*(void **)&lc.free = dlsym(h, "curl_free");
	*(void **)&lc.multi_init = dlsym(h, "curl_multi_init");
	*(void **)&lc.multi_cleanup = dlsym(h, "curl_multi_cleanup");
	*(void **)&lc.multi_setopt = dlsym(h, "curl_multi_setopt");
	*(void **)&lc.multi_add_handle = dlsym(h, "curl_multi_add_handle");
	*(void **)&lc.multi_remove_handle =
	    dlsym(h, "curl_multi_remove_handle");
	*(void **)&lc.multi_socket_action =
	    dlsym(h, "curl_multi_socket_action");
	*(void **)&lc.multi_assign = dlsym(h, "curl_multi_assign");
	*(void **)&lc.multi_info_read = dlsym(h, "curl_multi_info_read");
	if (!lc.easy_init || !lc.easy_cleanup || !lc.easy_reset ||
	    !lc.easy_setopt || !lc.easy_getinfo || !lc.easy_perform ||
	    !lc.easy_strerror || !lc.slist_append || !lc.slist_free_all ||
	    !lc.easy_escape || !lc.free || !lc.multi_init ||
	    !lc.multi_cleanup || !lc.multi_setopt || !lc.multi_add_handle ||
	    !lc.multi_remove_handle || !lc.multi_socket_action ||
	    !lc.multi_assign || !lc.multi_info_read) {
		snprintf(lc.error, sizeof(lc.error),
			 "libcurl.so.4 lacks a function drover needs");
		return -1;
	}
	lc.ciphers = tls_ciphers(h);
	lc.loaded = true;
	return 0;
}

/* curl.h may define these as type-checking macros. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_easy_init           lc.easy_init
#define curl_easy_cleanup        lc.easy_cleanup
#define curl_easy_reset          lc.easy_reset
#define curl_easy_setopt         lc.easy_setopt
#define curl_easy_getinfo        lc.easy_getinfo
#define curl_easy_perform        lc.easy_perform
#define curl_easy_strerror       lc.easy_strerror
#define curl_slist_append        lc.slist_append
#define curl_slist_free_all      lc.slist_free_all
#define curl_easy_escape         lc.easy_escape
#define curl_free                lc.free
#define curl_multi_init          lc.multi_init
#define curl_multi_cleanup       lc.multi_cleanup
#define curl_multi_setopt        lc.multi_setopt
#define curl_multi_add_handle    lc.multi_add_handle
#define curl_multi_remove_handle lc.multi_remove_handle
#define curl_multi_socket_action lc.multi_socket_action
#define curl_multi_assign        lc.multi_assign
#define curl_multi_info_read     lc.multi_info_read

char *
client_http_escape(const char *s)
{
	char *e, *out;

	if (load_curl())
		return NULL;
	/* The handle is not used (libcurl 7.82 and later). */
	e = curl_easy_escape(NULL, s, 0);
	if (e == NULL)
		return NULL;
	out = xstrdup(e);
	curl_free(e);
	return out;
}

struct xfer;
struct sock;

struct http {
	struct client base;
	char *base_url; /* "http://localhost" for unix sockets */
	char *unix_path;
	char *auth; /* "Authorization: Bearer ..." or NULL */
	char *ca;   /* PEM of the CA to trust over https; NULL: the system's */
	size_t ca_len;
	bool insecure; /* do not verify the server's certificate */
	CURL *curl;    /* the synchronous requests' handle */
	/* On a loop (client_http_new_on_loop), NULL loop otherwise. */
	uv_loop_t *loop;
	CURLM *multi;         /* made on first use */
	uv_timer_t timer;     /* libcurl's timeout; its close frees h */
	struct xfer *xfers;   /* requests in flight, watches not unwatched */
	struct sock *socks;   /* the sockets libcurl asked us to poll */
	struct xfer *current; /* the one whose callback runs */
};

static size_t
collect(char *p, size_t size, size_t n, void *arg)
{
	strbuf_add(arg, p, size * n);
	return size * n;
}

static void
setup(struct http *h, CURL *c, const char *method, const char *path,
      const char *query, struct curl_slist **hdrs, const char *ct)
{
	struct strbuf url = STRBUF_INIT;

	strbuf_addf(&url, "%s%s", h->base_url, path);
	if (query && *query)
		strbuf_addf(&url, "?%s", query);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url.buf);
	strbuf_release(&url);
	if (h->unix_path)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, h->unix_path);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (lc.ciphers)
		curl_easy_setopt(c, CURLOPT_SSL_CIPHER_LIST, lc.ciphers);
	if (h->ca) {
		/* libcurl copies the blob */
		struct curl_blob b = {h->ca, h->ca_len, CURL_BLOB_COPY};

		curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &b);
	}
	if (h->insecure) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	*hdrs = curl_slist_append(*hdrs, "Accept: application/json");
	if (ct) {
		char buf[200];

		snprintf(buf, sizeof(buf), "Content-Type: %s", ct);
		*hdrs = curl_slist_append(*hdrs, buf);
	}
	if (h->auth)
		*hdrs = curl_slist_append(*hdrs, h->auth);
	*hdrs = curl_slist_append(*hdrs, "Expect:");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
}

static int
http_request(struct client *cl, const char *method, const char *path,
	     const char *query, const char *content_type, json_t *body,
	     struct client_resp *out)
{
	struct http *h = (struct http *)cl;
	struct curl_slist *hdrs = NULL;
	struct strbuf resp = STRBUF_INIT;
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	long code = 0;
	CURLcode rc;

	if (h->curl == NULL) {
		out->error = xstrdup(lc.error[0] ? lc.error : "no libcurl");
		free(text);
		strbuf_release(&resp);
		return -1;
	}
	setup(h, h->curl, method, path, query, &hdrs,
	      body ? (content_type ? content_type : "application/json") : NULL);
	if (text) {
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, text);
		curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(text));
	}
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &resp);
	rc = curl_easy_perform(h->curl);
	curl_slist_free_all(hdrs);
	free(text);
	if (rc != CURLE_OK) {
		char msg[600];

		snprintf(msg, sizeof(msg),
			 "cannot reach the drover API at %s: %s",
			 h->unix_path ? h->unix_path : h->base_url,
			 curl_easy_strerror(rc));
		out->error = xstrdup(msg);
		strbuf_release(&resp);
		return -1;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
	out->status = (int)code;
	out->body = resp.len ? json_loadb(resp.buf, resp.len, 0, NULL) : NULL;
	strbuf_release(&resp);
	return 0;
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	int64_t *off = arg;
	static const char h[] = "X-Drover-Log-Offset:";

	if (size * n > sizeof(h) && !strncasecmp(p, h, sizeof(h) - 1))
		*off = strtoll(p + sizeof(h) - 1, NULL, 10);
	return size * n;
}

int
client_http_get_text(struct client *cl, const char *path, const char *query,
		     struct strbuf *text, int64_t *offset, char *err,
		     size_t errlen)
{
	struct http *h = (struct http *)cl;
	struct curl_slist *hdrs = NULL;
	long code = 0;
	CURLcode rc;

	*offset = -1;
	if (h->curl == NULL) {
		snprintf(err, errlen, "%s", lc.error);
		return 0;
	}
	setup(h, h->curl, "GET", path, query, &hdrs, NULL);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, text);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, offset);
	rc = curl_easy_perform(h->curl);
	curl_slist_free_all(hdrs);
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "cannot reach the drover API at %s: %s",
			 h->unix_path ? h->unix_path : h->base_url,
			 curl_easy_strerror(rc));
		return 0;
	}
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
	return (int)code;
}

struct stream {
	struct strbuf buf;
	client_watch_cb cb;
	void *arg;
	volatile int *stop;
};

static size_t
on_stream(char *p, size_t size, size_t n, void *arg)
{
	struct stream *s = arg;
	char *nl;

	strbuf_add(&s->buf, p, size * n);
	while ((nl = memchr(s->buf.buf, '\n', s->buf.len)) != NULL) {
		size_t len = (size_t)(nl - s->buf.buf);
		json_t *ev = len ? json_loadb(s->buf.buf, len, 0, NULL) : NULL;

		if (ev) {
			s->cb(s->arg, ev);
			json_decref(ev);
		}
		memmove(s->buf.buf, nl + 1, s->buf.len - len - 1);
		s->buf.len -= len + 1;
		s->buf.buf[s->buf.len] = '\0';
		if (s->stop && *s->stop)
			return 0; /* aborts the transfer */
	}
	return size * n;
}

int
client_http_watch_blocking(struct client *cl, const char *path,
			   const char *query, client_watch_cb cb, void *arg,
			   volatile int *stop, long timeout_ms,
			   struct client_resp *out)
{
	struct http *h = (struct http *)cl;
	struct curl_slist *hdrs = NULL;
	struct stream s = {STRBUF_INIT, cb, arg, stop};
	long code = 0;
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	if (h->curl == NULL) {
		out->error = xstrdup(lc.error);
		return -1;
	}
	setup(h, h->curl, "GET", path, query, &hdrs, NULL);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_stream);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, &s);
	if (timeout_ms)
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	rc = curl_easy_perform(h->curl);
	curl_slist_free_all(hdrs);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &code);
	out->status = (int)code;
	if (code != 200 && s.buf.len)
		out->body = json_loadb(s.buf.buf, s.buf.len, 0, NULL);
	strbuf_release(&s.buf);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return 1;
	if (rc != CURLE_OK && !(stop && *stop)) {
		out->error = xstrdup(curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

/* Asynchronous transfers on a loop: libcurl's multi interface driven by
 * the loop (curl_multi_socket_action; a uv_poll_t per socket libcurl
 * names, a uv_timer_t for its timeout).
 *
 * libcurl's callbacks only gather: a request's answer, a watch's events
 * (one json_loadb per complete line). The caller's callbacks run after
 * curl_multi_socket_action has returned (deliver()), so that they may
 * start requests and watches, or unwatch, which libcurl forbids from
 * inside its own callbacks. */

struct sock {
	uv_poll_t poll; /* its close frees the sock */
	struct http *h;
	curl_socket_t fd;
	struct sock *next; /* in h->socks */
};

struct xfer {
	struct http *h;
	CURL *easy; /* NULL once finished or cancelled */
	struct curl_slist *hdrs;
	char *body;        /* the request's body text */
	struct strbuf buf; /* the answer; a watch's partial line */
	bool watch;
	long status;     /* a watch's, once its headers are in */
	json_t *events;  /* a watch's events not yet delivered */
	bool finished;   /* libcurl is done with it */
	bool reported;   /* the end was handed to the caller */
	bool cancelled;  /* unwatched while its callback ran */
	CURLcode result; /* once finished */
	client_done_cb done;
	client_watch_cb cb;
	client_text_cb text_done; /* client_http_get_text_async */
	int64_t offset;           /* its X-Drover-Log-Offset, or -1 */
	void *arg;
	char err[CURL_ERROR_SIZE];
	struct xfer *prev, *next; /* in h->xfers */
};

static void
sock_closed(uv_handle_t *p)
{
	free(p->data);
}

static void
sock_drop(struct http *h, struct sock *s)
{
	struct sock **pp;

	for (pp = &h->socks; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	uv_poll_stop(&s->poll);
	uv_close((uv_handle_t *)&s->poll, sock_closed);
}

static void deliver(struct http *h);

/* Runs libcurl on fd (or its timeout), then the callbacks. */
static void
drive(struct http *h, curl_socket_t fd, int flags)
{
	int running;
	CURLMsg *m;

	curl_multi_socket_action(h->multi, fd, flags, &running);
	while ((m = curl_multi_info_read(h->multi, &running)) != NULL) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
				  (char **)&x);
		x->result = m->data.result;
		x->finished = true;
		if (!x->watch || x->status == 0)
			curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE,
					  &x->status);
		curl_multi_remove_handle(h->multi, x->easy);
		curl_easy_cleanup(x->easy);
		x->easy = NULL;
	}
	deliver(h);
}

static void
on_poll(uv_poll_t *p, int status, int events)
{
	struct sock *s = p->data;
	int flags = 0;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	drive(s->h, s->fd, flags);
}

static void
on_timeout(uv_timer_t *t)
{
	drive(t->data, CURL_SOCKET_TIMEOUT, 0);
}

/* CURLMOPT_SOCKETFUNCTION: poll fd for what libcurl wants. */
static int
on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct http *h = userp;
	struct sock *s = socketp;
	int events = 0;

	(void)e;
	if (what == CURL_POLL_REMOVE) {
		if (s) {
			curl_multi_assign(h->multi, fd, NULL);
			sock_drop(h, s);
		}
		return 0;
	}
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		if (uv_poll_init_socket(h->loop, &s->poll, fd)) {
			free(s);
			return -1;
		}
		s->poll.data = s;
		s->h = h;
		s->fd = fd;
		s->next = h->socks;
		h->socks = s;
		curl_multi_assign(h->multi, fd, s);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	uv_poll_start(&s->poll, events, on_poll);
	return 0;
}

/* CURLMOPT_TIMERFUNCTION: call libcurl back in ms (-1: never). */
static int
on_timer(CURLM *m, long ms, void *userp)
{
	struct http *h = userp;

	(void)m;
	if (ms < 0)
		uv_timer_stop(&h->timer);
	else
		uv_timer_start(&h->timer, on_timeout, (uint64_t)ms, 0);
	return 0;
}

static void
xfer_free(struct xfer *x)
{
	struct http *h = x->h;

	if (x->easy) {
		curl_multi_remove_handle(h->multi, x->easy);
		curl_easy_cleanup(x->easy);
	}
	if (x->prev)
		x->prev->next = x->next;
	else
		h->xfers = x->next;
	if (x->next)
		x->next->prev = x->prev;
	curl_slist_free_all(x->hdrs);
	free(x->body);
	strbuf_release(&x->buf);
	json_decref(x->events);
	free(x);
}

/* Of a watch's data, the complete lines become events. */
static size_t
on_watch_data(char *p, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	char *nl;

	strbuf_add(&x->buf, p, size * n);
	if (x->status == 0)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status != 200)
		return size * n; /* a refusal: its Status, whole at the end */
	while ((nl = memchr(x->buf.buf, '\n', x->buf.len)) != NULL) {
		size_t len = (size_t)(nl - x->buf.buf);
		json_t *ev = len ? json_loadb(x->buf.buf, len, 0, NULL) : NULL;

		if (ev)
			json_array_append_new(x->events, ev);
		memmove(x->buf.buf, nl + 1, x->buf.len - len - 1);
		x->buf.len -= len + 1;
		x->buf.buf[x->buf.len] = '\0';
	}
	return size * n;
}

/* The answer of a finished transfer, which the caller releases. */
static void
xfer_resp(struct xfer *x, struct client_resp *r)
{
	memset(r, 0, sizeof(*r));
	if (x->result != CURLE_OK) {
		char msg[CURL_ERROR_SIZE + 600];

		snprintf(msg, sizeof(msg),
			 "cannot reach the drover API at %s: %s",
			 x->h->unix_path ? x->h->unix_path : x->h->base_url,
			 x->err[0] ? x->err : curl_easy_strerror(x->result));
		r->error = xstrdup(msg);
		return;
	}
	r->status = (int)x->status;
	r->body =
	    x->buf.len ? json_loadb(x->buf.buf, x->buf.len, 0, NULL) : NULL;
}

/* A refused watch's ERROR event: the server's Status, or one made from
 * the HTTP status if the body is not one. */
static json_t *
refusal_event(struct xfer *x)
{
	json_t *st = NULL;

	if (x->buf.len)
		st = json_loadb(x->buf.buf, x->buf.len, 0, NULL);
	if (!json_is_object(st)) {
		char msg[64];

		json_decref(st);
		snprintf(msg, sizeof(msg), "the server answered HTTP %ld",
			 x->status);
		st =
		    json_pack("{sssss{}sssssI}", "kind", "Status", "apiVersion",
			      "v1", "metadata", "status", "Failure", "message",
			      msg, "code", (json_int_t)x->status);
	}
	return json_pack("{ssso}", "type", "ERROR", "object", st);
}

/* Runs one callback of x; false if x is gone (freed, unwatched). */
static bool
call(struct xfer *x, json_t *ev)
{
	struct http *h = x->h;

	h->current = x;
	x->cb(x->arg, ev);
	h->current = NULL;
	if (x->cancelled) {
		xfer_free(x);
		return false;
	}
	return true;
}

/* Hands x's events, then its end, to the caller. */
static void
deliver_one(struct xfer *x)
{
	struct client_resp r;

	if (x->text_done) {
		char msg[CURL_ERROR_SIZE + 600];

		if (x->result != CURLE_OK)
			snprintf(msg, sizeof(msg), "cannot reach %s: %s",
				 x->h->base_url,
				 x->err[0] ? x->err
					   : curl_easy_strerror(x->result));
		x->h->current = x;
		x->text_done(x->arg, x->result == CURLE_OK ? (int)x->status : 0,
			     &x->buf, x->offset,
			     x->result == CURLE_OK ? NULL : msg);
		x->h->current = NULL;
		xfer_free(x);
		return;
	}
	if (!x->watch) {
		xfer_resp(x, &r);
		x->h->current = x;
		x->done(x->arg, &r);
		x->h->current = NULL;
		client_resp_release(&r);
		xfer_free(x);
		return;
	}
	while (json_array_size(x->events)) {
		json_t *ev = json_incref(json_array_get(x->events, 0));
		bool alive;

		json_array_remove(x->events, 0);
		alive = call(x, ev);
		json_decref(ev);
		if (!alive)
			return;
	}
	if (!x->finished)
		return;
	x->reported = true;
	if (x->result == CURLE_OK && x->status != 200) {
		json_t *ev = refusal_event(x);
		bool alive = call(x, ev);

		json_decref(ev);
		if (!alive)
			return;
	}
	call(x, NULL);
}

static void
deliver(struct http *h)
{
	struct xfer *x;

	/* A callback may add or free transfers: look again after each. */
	for (;;) {
		for (x = h->xfers; x; x = x->next)
			if (json_array_size(x->events) ||
			    (x->finished && !x->reported))
				break;
		if (x == NULL)
			return;
		deliver_one(x);
	}
}

/* Starts a transfer on the loop; NULL with the reason in err. */
static struct xfer *
xfer_start(struct http *h, const char *method, const char *path,
	   const char *query, const char *content_type, json_t *body,
	   bool watch, char *err, size_t errlen)
{
	struct xfer *x;

	if (h->loop == NULL) {
		snprintf(err, errlen, "this client has no event loop");
		return NULL;
	}
	if (h->curl == NULL) {
		snprintf(err, errlen, "%s",
			 lc.error[0] ? lc.error : "no libcurl");
		return NULL;
	}
	if (h->multi == NULL) {
		h->multi = curl_multi_init();
		if (h->multi == NULL) {
			snprintf(err, errlen, "curl_multi_init failed");
			return NULL;
		}
		curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
		curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h);
		curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, on_timer);
		curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h);
	}
	x = xcalloc(1, sizeof(*x));
	x->h = h;
	x->watch = watch;
	strbuf_init(&x->buf);
	x->easy = curl_easy_init();
	if (x->easy == NULL) {
		free(x);
		snprintf(err, errlen, "curl_easy_init failed");
		return NULL;
	}
	setup(h, x->easy, method, path, query, &x->hdrs,
	      body ? (content_type ? content_type : "application/json") : NULL);
	if (body) {
		x->body = json_dumps(body, JSON_COMPACT);
		curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body);
		curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(x->body));
	}
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->err);
	if (watch) {
		x->events = json_array();
		curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_watch_data);
		curl_easy_setopt(x->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	} else {
		curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, collect);
	}
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA,
			 watch ? (void *)x : (void *)&x->buf);
	x->next = h->xfers;
	if (h->xfers)
		h->xfers->prev = x;
	h->xfers = x;
	/* libcurl sets a 0 ms timer: it starts on the next loop turn. */
	if (curl_multi_add_handle(h->multi, x->easy) != CURLM_OK) {
		xfer_free(x);
		snprintf(err, errlen, "curl_multi_add_handle failed");
		return NULL;
	}
	return x;
}

static int
http_request_async(struct client *c, const char *method, const char *path,
		   const char *query, const char *content_type, json_t *body,
		   client_done_cb cb, void *arg)
{
	struct http *h = (struct http *)c;
	struct xfer *x;
	char err[300];

	x = xfer_start(h, method, path, query, content_type, body, false, err,
		       sizeof(err));
	if (x == NULL)
		return -1;
	x->done = cb;
	x->arg = arg;
	return 0;
}

int
client_http_get_text_async(struct client *c, const char *path,
			   const char *query, client_text_cb cb, void *arg)
{
	struct http *h = (struct http *)c;
	struct xfer *x;
	char err[300];

	x = xfer_start(h, "GET", path, query, NULL, NULL, false, err,
		       sizeof(err));
	if (x == NULL)
		return -1;
	x->offset = -1;
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)CLIENT_TEXT_CONNECT_MS);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS,
			 (long)CLIENT_TEXT_TIMEOUT_MS);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, &x->offset);
	x->text_done = cb;
	x->arg = arg;
	return 0;
}

/* Cancels a transfer of client_http_get_text_async or request_async
 * whose callback has not run: it never will. */
void
client_http_cancel(struct client *c, void *arg)
{
	struct http *h = (struct http *)c;
	struct xfer *x;

	for (x = h->xfers; x; x = x->next)
		if (!x->watch && x->arg == arg && x != h->current) {
			xfer_free(x);
			return;
		}
}

static struct client_watch *
http_watch(struct client *c, const char *path, const char *query,
	   client_watch_cb cb, void *arg, struct client_resp *out)
{
	struct http *h = (struct http *)c;
	struct xfer *x;
	char err[300];

	memset(out, 0, sizeof(*out));
	if (h->loop == NULL) {
		/* The CLI, without a loop, uses the blocking watch. */
		out->error = xstrdup(
		    "asynchronous watches need a client made on a loop");
		return NULL;
	}
	x = xfer_start(h, "GET", path, query, NULL, NULL, true, err,
		       sizeof(err));
	if (x == NULL) {
		out->error = xstrdup(err);
		return NULL;
	}
	x->cb = cb;
	x->arg = arg;
	return (struct client_watch *)x;
}

static void
http_unwatch(struct client *c, struct client_watch *w)
{
	struct xfer *x = (struct xfer *)w;

	if (x == NULL)
		return;
	if (((struct http *)c)->current == x)
		x->cancelled = true; /* freed when its callback returns */
	else
		xfer_free(x);
}

static void
http_closed(uv_handle_t *t)
{
	struct http *h = t->data;

	free(h->base_url);
	free(h->unix_path);
	free(h->auth);
	free(h->ca);
	free(h);
}

static void
http_free(struct client *c)
{
	struct http *h = (struct http *)c;

	if (h->curl)
		curl_easy_cleanup(h->curl);
	if (h->loop == NULL) {
		free(h->base_url);
		free(h->unix_path);
		free(h->auth);
		free(h->ca);
		free(h);
		return;
	}
	/* The polls first, while their sockets are open; libcurl then
	 * closes the sockets without telling us (assigned NULL). */
	while (h->socks) {
		curl_multi_assign(h->multi, h->socks->fd, NULL);
		sock_drop(h, h->socks);
	}
	while (h->xfers)
		xfer_free(h->xfers);
	if (h->multi)
		curl_multi_cleanup(h->multi);
	while (h->socks) /* any libcurl opened while cleaning up */
		sock_drop(h, h->socks);
	uv_timer_stop(&h->timer);
	uv_close((uv_handle_t *)&h->timer, http_closed);
}

static const struct client_ops http_ops = {
    .request = http_request,
    .watch = http_watch,
    .unwatch = http_unwatch,
    .free = http_free,
    .cancel = client_http_cancel,
    .flush = NULL, /* every answer comes after the write is durable */
    .request_async = http_request_async,
};

struct client *
client_http_new(const char *server, const char *token)
{
	return client_http_new_on_loop(NULL, server, token);
}

struct client *
client_http_new_on_loop(uv_loop_t *loop, const char *server, const char *token)
{
	struct http *h = xcalloc(1, sizeof(*h));

	h->base.ops = &http_ops;
	if (!strncmp(server, "http://", 7) || !strncmp(server, "https://", 8)) {
		size_t n = strlen(server);

		h->base_url =
		    xstrndup(server, server[n - 1] == '/' ? n - 1 : n);
	} else {
		h->base_url = xstrdup("http://localhost");
		h->unix_path = xstrdup(server);
	}
	if (token && *token) {
		char buf[300];

		snprintf(buf, sizeof(buf), "Authorization: Bearer %s", token);
		h->auth = xstrdup(buf);
	}
	if (load_curl() == 0)
		h->curl = curl_easy_init();
	h->loop = loop;
	if (loop) {
		uv_timer_init(loop, &h->timer);
		h->timer.data = h;
	}
	return &h->base;
}

void
client_http_set_tls(struct client *c, const char *ca_pem, size_t ca_len,
		    bool insecure)
{
	struct http *h = (struct http *)c;

	free(h->ca);
	h->ca = NULL;
	h->ca_len = 0;
	if (ca_pem) {
		h->ca = xmalloc(ca_len + 1);
		memcpy(h->ca, ca_pem, ca_len);
		h->ca[ca_len] = '\0';
		h->ca_len = ca_len;
	}
	h->insecure = insecure;
}
