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
} lc;

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
	if (!lc.easy_init || !lc.easy_cleanup || !lc.easy_reset ||
	    !lc.easy_setopt || !lc.easy_getinfo || !lc.easy_perform ||
	    !lc.easy_strerror || !lc.slist_append || !lc.slist_free_all ||
	    !lc.easy_escape || !lc.free) {
		snprintf(lc.error, sizeof(lc.error),
			 "libcurl.so.4 lacks a function drover needs");
		return -1;
	}
	lc.loaded = true;
	return 0;
}

/* curl.h may define these two as type-checking macros. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_init      lc.easy_init
#define curl_easy_cleanup   lc.easy_cleanup
#define curl_easy_reset     lc.easy_reset
#define curl_easy_setopt    lc.easy_setopt
#define curl_easy_getinfo   lc.easy_getinfo
#define curl_easy_perform   lc.easy_perform
#define curl_easy_strerror  lc.easy_strerror
#define curl_slist_append   lc.slist_append
#define curl_slist_free_all lc.slist_free_all
#define curl_easy_escape    lc.easy_escape
#define curl_free           lc.free

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

struct http {
	struct client base;
	char *base_url; /* "http://localhost" for unix sockets */
	char *unix_path;
	char *auth; /* "Authorization: Bearer ..." or NULL */
	CURL *curl;
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

static struct client_watch *
http_watch(struct client *c, const char *path, const char *query,
	   client_watch_cb cb, void *arg, struct client_resp *out)
{
	/* Asynchronous watches need a loop; the CLI uses the blocking one. */
	(void)c;
	(void)path;
	(void)query;
	(void)cb;
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->error =
	    xstrdup("asynchronous watches are not supported over HTTP");
	return NULL;
}

static void
http_unwatch(struct client *c, struct client_watch *w)
{
	(void)c;
	(void)w;
}

static void
http_free(struct client *c)
{
	struct http *h = (struct http *)c;

	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->base_url);
	free(h->unix_path);
	free(h->auth);
	free(h);
}

static const struct client_ops http_ops = {
    http_request, http_watch, http_unwatch,
    http_free,    NULL, /* every answer comes after the write is durable */
};

struct client *
client_http_new(const char *server, const char *token)
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
	return &h->base;
}
