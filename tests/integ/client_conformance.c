/* client_conformance.c - one suite, the same cases, over every transport
 * of the client seam: the in-process client (client_local) and the HTTP
 * client on a loop (client_http) against the real API server, over TCP
 * with a bearer token (plain HTTP, and HTTPS with a CA and certificate
 * from tlsca.c that the client trusts) and over a unix socket. Each case goes through the
 * client alone, so what passes here is what a controller or an agent may
 * rely on wherever it runs.
 *
 * The HTTP server runs on its own loop in a thread of this process (the
 * synchronous requests block the client's thread); the client's loop is
 * the test's. Each case gets a fresh store, API and server, and checks at
 * the end that both loops are empty, the port no longer listens and the
 * socket and its directory are gone.
 *
 * A watch from a resourceVersion older than the history: Kubernetes
 * answers the watch with 200 and an ERROR event whose object is a Status
 * of code 410 (reason Expired, "too old resource version"); drover's
 * server answers HTTP 410 with that Status. A client on a loop reports
 * both the same way, an ERROR event with the Status then the end (NULL),
 * which is what the cases assert on both transports; a client without a
 * loop gets the 410 itself (asserted too). */
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <uv.h>

#include "client_http.h"
#include "client_local.h"
#include "fsx.h"
#include "server.h"
#include "tlsca.h"

#define DEPLOY  "/apis/apps/v1/namespaces/default/deployments"
#define TOKEN   "conformance-token"
#define HISTORY 8 /* events kept for resuming watches */
#define WAIT_MS 5000

enum transport { LOCAL, HTTP_TCP, HTTP_UNIX, HTTPS_TCP };

struct fx {
	enum transport t;
	uv_loop_t loop; /* the client's */
	uv_timer_t tick;
	struct client *c;
	struct store *store;
	struct api *api;
	unsigned char random_next;
	/* HTTP: the server, on its own loop and thread. */
	uv_loop_t sloop;
	uv_thread_t thread;
	uv_async_t stop;
	struct http_server *srv;
	int port;
	char dir[64];
	char sock[128];
	char server[160]; /* what client_http_new takes */
	/* HTTPS: the PEM of drover's CA (tlsca.c, in dir/tls) and of the
	 * server's certificate and key. */
	char *ca, *cert, *key;
	size_t ca_len;
};

static bool
is_tcp(const struct fx *f)
{
	return f->t == HTTP_TCP || f->t == HTTPS_TCP;
}

/* An HTTP client of the test's server (loop NULL: synchronous), trusting
 * the test's CA over HTTPS. */
static struct client *
http_client(struct fx *f, uv_loop_t *loop, const char *token)
{
	struct client *c = client_http_new_on_loop(loop, f->server, token);

	if (f->ca)
		client_http_set_tls(c, f->ca, f->ca_len, false);
	return c;
}

/* dir/tls: a CA and a certificate for 127.0.0.1, read into f. */
static void
make_tls(struct fx *f)
{
	const char *sans[] = {"127.0.0.1", "localhost"};
	char tls[128], p[160], err[256] = "";
	size_t n;

	snprintf(f->dir, sizeof(f->dir), "/tmp/drover-conf-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(tls, sizeof(tls), "%s/tls", f->dir);
	assert_int_equal(
	    tlsca_ensure(tls, sans, 2, time(NULL), NULL, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/ca.crt", tls);
	assert_int_equal(fsx_read_all(p, &f->ca, &f->ca_len), 0);
	snprintf(p, sizeof(p), "%s/server.crt", tls);
	assert_int_equal(fsx_read_all(p, &f->cert, &n), 0);
	snprintf(p, sizeof(p), "%s/server.key", tls);
	assert_int_equal(fsx_read_all(p, &f->key, &n), 0);
}

static void
remove_tls(struct fx *f)
{
	const char *names[] = {"ca.crt", "ca.key", "server.crt", "server.key"};
	char p[160];
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof(p), "%s/tls/%s", f->dir, names[i]);
		assert_int_equal(unlink(p), 0);
	}
	snprintf(p, sizeof(p), "%s/tls", f->dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(f->dir), 0);
	free(f->ca);
	free(f->cert);
	free(f->key);
}

static dtime
fixed_now(void *arg)
{
	(void)arg;
	return DTIME_SEC(1800000000);
}

static void
counter_random(void *arg, unsigned char *buf, size_t n)
{
	struct fx *f = arg;
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = f->random_next++;
}

static void
server_main(void *arg)
{
	struct fx *f = arg;

	uv_run(&f->sloop, UV_RUN_DEFAULT);
}

static void
on_stop(uv_async_t *a)
{
	struct fx *f = a->data;

	http_server_stop(f->srv);
	uv_close((uv_handle_t *)a, NULL);
}

static void
on_tick(uv_timer_t *t)
{
	(void)t;
}

static int
setup(void **state, enum transport t)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct api_config ac = {.now = fixed_now, .random = counter_random};
	struct http_server_config hc = {0};
	char err[256];

	f->t = t;
	assert_int_equal(uv_loop_init(&f->loop), 0);
	uv_timer_init(&f->loop, &f->tick);
	f->store = store_mem_open(HISTORY);
	ac.store = f->store;
	ac.arg = f;
	f->api = api_new(&ac);
	if (t == LOCAL) {
		f->c = client_local_new_on_loop(f->api, &f->loop);
		*state = f;
		return 0;
	}
	assert_int_equal(uv_loop_init(&f->sloop), 0);
	hc.api = f->api;
	hc.loop = &f->sloop;
	if (t == HTTP_TCP || t == HTTPS_TCP) {
		hc.tcp_host = "127.0.0.1";
		hc.tcp_port = 0; /* a free one */
		hc.token = TOKEN;
		if (t == HTTPS_TCP) {
			make_tls(f);
			hc.tls_cert = f->cert;
			hc.tls_key = f->key;
		}
	} else {
		snprintf(f->dir, sizeof(f->dir), "/tmp/drover-conf-XXXXXX");
		assert_non_null(mkdtemp(f->dir));
		snprintf(f->sock, sizeof(f->sock), "%s/api.sock", f->dir);
		hc.unix_path = f->sock;
	}
	assert_int_equal(http_server_start(&hc, &f->srv, err, sizeof(err)), 0);
	uv_async_init(&f->sloop, &f->stop, on_stop);
	f->stop.data = f;
	if (t == HTTP_TCP || t == HTTPS_TCP) {
		f->port = http_server_tcp_port(f->srv);
		snprintf(f->server, sizeof(f->server), "%s://127.0.0.1:%d",
			 t == HTTPS_TCP ? "https" : "http", f->port);
	} else {
		snprintf(f->server, sizeof(f->server), "%s", f->sock);
	}
	assert_int_equal(uv_thread_create(&f->thread, server_main, f), 0);
	f->c = http_client(f, &f->loop, t == HTTP_UNIX ? NULL : TOKEN);
	*state = f;
	return 0;
}

static int
setup_local(void **state)
{
	return setup(state, LOCAL);
}

static int
setup_tcp(void **state)
{
	return setup(state, HTTP_TCP);
}

static int
setup_tls(void **state)
{
	return setup(state, HTTPS_TCP);
}

static int
setup_unix(void **state)
{
	return setup(state, HTTP_UNIX);
}

/* A connection to the test's port is refused: nothing listens. */
static bool
port_listens(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(fd, (struct sockaddr *)&a, sizeof(a));

	close(fd);
	return r == 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	f->c->ops->free(f->c);
	uv_close((uv_handle_t *)&f->tick, NULL);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0); /* nothing left */
	if (f->t != LOCAL) {
		uv_async_send(&f->stop);
		uv_thread_join(&f->thread);
		assert_int_equal(uv_loop_close(&f->sloop), 0);
	}
	api_free(f->api);
	store_free(f->store);
	if (is_tcp(f))
		assert_false(port_listens(f->port));
	if (f->t == HTTPS_TCP)
		remove_tls(f);
	if (f->t == HTTP_UNIX) {
		struct stat st;

		assert_int_equal(stat(f->sock, &st), -1);
		assert_int_equal(rmdir(f->dir), 0);
	}
	free(f);
	return 0;
}

/* Runs the client's loop until *flag reaches n or WAIT_MS pass. */
static void
wait_for(struct fx *f, const int *flag, int n)
{
	uint64_t end;

	uv_update_time(&f->loop);
	end = uv_now(&f->loop) + WAIT_MS;
	uv_timer_start(&f->tick, on_tick, 10, 10);
	while (*flag < n && uv_now(&f->loop) < end)
		uv_run(&f->loop, UV_RUN_ONCE);
	uv_timer_stop(&f->tick);
}

/* Runs the client's loop for ms (to see that nothing more comes). */
static void
run_for(struct fx *f, int ms)
{
	int never = 0;
	uint64_t end;

	uv_update_time(&f->loop);
	end = uv_now(&f->loop) + (uint64_t)ms;
	uv_timer_start(&f->tick, on_tick, 10, 10);
	while (!never && uv_now(&f->loop) < end)
		uv_run(&f->loop, UV_RUN_ONCE);
	uv_timer_stop(&f->tick);
}

static json_t *
deployment(const char *name, json_int_t replicas, const char *tier)
{
	return json_pack("{sssss{sss{ss}}s{sIs{s{ss}}s{s{s{ss}}s{s[{ssss}]}}}}",
			 "apiVersion", "apps/v1", "kind", "Deployment",
			 "metadata", "name", name, "labels", "tier", tier,
			 "spec", "replicas", replicas, "selector",
			 "matchLabels", "app", name, "template", "metadata",
			 "labels", "app", name, "spec", "containers", "name",
			 "web", "image", "web:1");
}

/* A synchronous request; body is stolen. Returns the status. */
static int
req(struct fx *f, const char *method, const char *path, const char *query,
    json_t *body, struct client_resp *r)
{
	client_request(f->c, method, path, query, NULL, body, r);
	json_decref(body);
	return r->status;
}

static const char *
str_at(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);

	return json_string_value(b ? json_object_get(v, b) : v);
}

static const char *
reason(const struct client_resp *r)
{
	return str_at(r->body, "reason", NULL);
}

/* Creates ns default/name; returns its resourceVersion (static). */
static const char *
create(struct fx *f, const char *name, const char *tier)
{
	static char rv[32];
	struct client_resp r;

	assert_int_equal(
	    req(f, "POST", DEPLOY, NULL, deployment(name, 1, tier), &r), 201);
	snprintf(rv, sizeof(rv), "%s",
		 str_at(json_object_get(r.body, "metadata"), "resourceVersion",
			NULL));
	client_resp_release(&r);
	return rv;
}

static void
test_crud(void **state)
{
	struct fx *f = *state;
	struct client_resp r;
	json_t *obj;
	char uid[64];

	assert_int_equal(
	    req(f, "POST", DEPLOY, NULL, deployment("web", 3, "front"), &r),
	    201);
	snprintf(uid, sizeof(uid), "%s", str_at(r.body, "metadata", "uid"));
	assert_true(strlen(uid) > 0);
	client_resp_release(&r);

	assert_int_equal(req(f, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	assert_string_equal(str_at(r.body, "metadata", "uid"), uid);
	obj = json_deep_copy(r.body);
	client_resp_release(&r);

	json_object_set_new(json_object_get(obj, "spec"), "replicas",
			    json_integer(5));
	assert_int_equal(req(f, "PUT", DEPLOY "/web", NULL, obj, &r), 200);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(r.body, "spec"), "replicas")),
			 5);
	assert_int_equal(
	    json_integer_value(json_object_get(
		json_object_get(r.body, "metadata"), "generation")),
	    2);
	client_resp_release(&r);

	assert_int_equal(req(f, "DELETE", DEPLOY "/web", NULL, NULL, &r), 200);
	client_resp_release(&r);
	assert_int_equal(req(f, "GET", DEPLOY "/web", NULL, NULL, &r), 404);
	client_resp_release(&r);
}

static void
test_stale_update_is_409(void **state)
{
	struct fx *f = *state;
	struct client_resp r;
	json_t *obj;

	create(f, "web", "front");
	assert_int_equal(req(f, "GET", DEPLOY "/web", NULL, NULL, &r), 200);
	obj = json_deep_copy(r.body);
	client_resp_release(&r);
	json_object_set_new(json_object_get(obj, "spec"), "replicas",
			    json_integer(2));
	assert_int_equal(
	    req(f, "PUT", DEPLOY "/web", NULL, json_deep_copy(obj), &r), 200);
	client_resp_release(&r);
	/* the same resourceVersion again: stale now */
	assert_int_equal(req(f, "PUT", DEPLOY "/web", NULL, obj, &r), 409);
	assert_string_equal(str_at(r.body, "kind", NULL), "Status");
	assert_string_equal(reason(&r), "Conflict");
	assert_int_equal(json_integer_value(json_object_get(r.body, "code")),
			 409);
	client_resp_release(&r);
}

static void
test_missing_is_404(void **state)
{
	struct fx *f = *state;
	struct client_resp r;

	assert_int_equal(req(f, "GET", DEPLOY "/nope", NULL, NULL, &r), 404);
	assert_string_equal(reason(&r), "NotFound");
	assert_string_equal(str_at(r.body, "details", "name"), "nope");
	assert_null(r.error);
	client_resp_release(&r);
	assert_int_equal(req(f, "DELETE", DEPLOY "/nope", NULL, NULL, &r), 404);
	client_resp_release(&r);
}

static void
assert_invalid(const struct client_resp *r)
{
	json_t *causes;

	assert_int_equal(r->status, 422);
	assert_string_equal(reason(r), "Invalid");
	causes = json_object_get(json_object_get(r->body, "details"), "causes");
	assert_true(json_array_size(causes) >= 1);
	assert_string_equal(str_at(json_array_get(causes, 0), "field", NULL),
			    "spec.replicas");
}

static void
test_invalid_is_422_with_causes(void **state)
{
	struct fx *f = *state;
	struct client_resp r;

	req(f, "POST", DEPLOY, NULL, deployment("web", -1, "front"), &r);
	assert_invalid(&r);
	client_resp_release(&r);
	assert_int_equal(req(f, "GET", DEPLOY "/web", NULL, NULL, &r), 404);
	client_resp_release(&r);
}

/* The names of a list's items, "a,b,c". */
static void
names(json_t *list, char *buf, size_t len)
{
	json_t *it;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(list, "items"), i, it)
	{
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "",
				      str_at(it, "metadata", "name"));
	}
}

static void
test_list_with_selectors(void **state)
{
	struct fx *f = *state;
	struct client_resp r;
	char got[128];

	create(f, "a", "front");
	create(f, "b", "back");
	create(f, "c", "front");
	assert_int_equal(req(f, "GET", DEPLOY, NULL, NULL, &r), 200);
	assert_string_equal(str_at(r.body, "kind", NULL), "DeploymentList");
	assert_non_null(str_at(r.body, "metadata", "resourceVersion"));
	names(r.body, got, sizeof(got));
	assert_string_equal(got, "a,b,c");
	client_resp_release(&r);

	assert_int_equal(
	    req(f, "GET", DEPLOY, "labelSelector=tier%3Dfront", NULL, &r), 200);
	names(r.body, got, sizeof(got));
	assert_string_equal(got, "a,c");
	client_resp_release(&r);

	assert_int_equal(
	    req(f, "GET", DEPLOY, "labelSelector=tier%20in%20(back)", NULL, &r),
	    200);
	names(r.body, got, sizeof(got));
	assert_string_equal(got, "b");
	client_resp_release(&r);

	assert_int_equal(
	    req(f, "GET", DEPLOY, "fieldSelector=metadata.name%3Db", NULL, &r),
	    200);
	names(r.body, got, sizeof(got));
	assert_string_equal(got, "b");
	client_resp_release(&r);

	assert_int_equal(req(f, "GET", DEPLOY,
			     "fieldSelector=metadata.name!%3Db&"
			     "labelSelector=tier%3Dfront",
			     NULL, &r),
			 200);
	names(r.body, got, sizeof(got));
	assert_string_equal(got, "a,c");
	client_resp_release(&r);
}

/* What a watch delivered. */
#define MAX_EVENTS 32
struct rec {
	struct client *c;
	struct client_watch *w;
	int n;     /* events */
	int ended; /* NULLs */
	char type[MAX_EVENTS][16];
	char name[MAX_EVENTS][32];
	long long rv[MAX_EVENTS];
	int code[MAX_EVENTS]; /* an ERROR's Status code */
	char reason[MAX_EVENTS][32];
	int unwatch_at; /* > 0: unwatch in the callback of that event */
};

static void
on_ev(void *arg, json_t *ev)
{
	struct rec *r = arg;
	json_t *o = json_object_get(ev, "object");
	const char *s;

	if (ev == NULL) {
		r->ended++;
		return;
	}
	assert_true(r->n < MAX_EVENTS);
	assert_int_equal(r->ended, 0); /* nothing after the end */
	snprintf(r->type[r->n], sizeof(r->type[0]), "%s",
		 str_at(ev, "type", NULL));
	s = str_at(o, "metadata", "name");
	snprintf(r->name[r->n], sizeof(r->name[0]), "%s", s ? s : "");
	s = str_at(o, "metadata", "resourceVersion");
	r->rv[r->n] = s ? atoll(s) : 0;
	r->code[r->n] = (int)json_integer_value(json_object_get(o, "code"));
	s = str_at(o, "reason", NULL);
	snprintf(r->reason[r->n], sizeof(r->reason[0]), "%s", s ? s : "");
	r->n++;
	if (r->unwatch_at == r->n) {
		r->c->ops->unwatch(r->c, r->w);
		r->w = NULL;
	}
}

static void
watch(struct fx *f, struct rec *r, const char *query)
{
	struct client_resp out;

	r->c = f->c;
	r->w = f->c->ops->watch(f->c, DEPLOY, query, on_ev, r, &out);
	assert_non_null(r->w);
	assert_null(out.error);
	client_resp_release(&out);
}

static void
unwatch(struct rec *r)
{
	r->c->ops->unwatch(r->c, r->w);
	r->w = NULL;
}

/* The collection's resourceVersion, from a list (static). */
static const char *
list_rv(struct fx *f)
{
	static char rv[32];
	struct client_resp r;

	assert_int_equal(req(f, "GET", DEPLOY, NULL, NULL, &r), 200);
	snprintf(rv, sizeof(rv), "%s",
		 str_at(r.body, "metadata", "resourceVersion"));
	client_resp_release(&r);
	return rv;
}

static void
test_watch_sees_added_modified_deleted(void **state)
{
	struct fx *f = *state;
	struct rec r = {0};
	struct client_resp resp;
	char q[128];
	json_t *obj;

	/* List, then watch from the list's resourceVersion (client-go's
	 * informer): the events come whenever the watch is established. */
	create(f, "before", "front");
	snprintf(q, sizeof(q), "watch=true&resourceVersion=%s", list_rv(f));
	watch(f, &r, q);
	create(f, "web", "front");
	assert_int_equal(req(f, "GET", DEPLOY "/web", NULL, NULL, &resp), 200);
	obj = json_deep_copy(resp.body);
	client_resp_release(&resp);
	json_object_set_new(json_object_get(obj, "spec"), "replicas",
			    json_integer(2));
	assert_int_equal(req(f, "PUT", DEPLOY "/web", NULL, obj, &resp), 200);
	client_resp_release(&resp);
	assert_int_equal(req(f, "DELETE", DEPLOY "/web", NULL, NULL, &resp),
			 200);
	client_resp_release(&resp);
	wait_for(f, &r.n, 3);
	run_for(f, 50); /* and nothing more */
	assert_int_equal(r.n, 3);
	assert_string_equal(r.type[0], "ADDED");
	assert_string_equal(r.type[1], "MODIFIED");
	assert_string_equal(r.type[2], "DELETED");
	assert_string_equal(r.name[0], "web");
	assert_string_equal(r.name[2], "web");
	assert_true(r.rv[0] < r.rv[1] && r.rv[1] < r.rv[2]);
	assert_int_equal(r.ended, 0);
	unwatch(&r);
}

static void
test_watch_without_version_starts_with_state(void **state)
{
	struct fx *f = *state;
	struct rec r = {0};

	create(f, "a", "front");
	create(f, "b", "back");
	watch(f, &r, "watch=true&labelSelector=tier%3Dback");
	wait_for(f, &r.n, 1);
	create(f, "c", "back");
	create(f, "d", "front");
	wait_for(f, &r.n, 2);
	run_for(f, 50);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.type[0], "ADDED");
	assert_string_equal(r.name[0], "b");
	assert_string_equal(r.type[1], "ADDED");
	assert_string_equal(r.name[1], "c");
	unwatch(&r);
}

static void
test_watch_resumes_from_version(void **state)
{
	struct fx *f = *state;
	struct rec r = {0};
	struct client_resp resp;
	char q[128];
	long long from;

	from = atoll(create(f, "a", "front"));
	create(f, "b", "front");
	assert_int_equal(req(f, "DELETE", DEPLOY "/a", NULL, NULL, &resp), 200);
	client_resp_release(&resp);
	/* Everything after a's creation, from the history, in order. */
	snprintf(q, sizeof(q), "watch=true&resourceVersion=%lld", from);
	watch(f, &r, q);
	wait_for(f, &r.n, 2);
	create(f, "c", "front");
	wait_for(f, &r.n, 3);
	run_for(f, 50);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.type[0], "ADDED");
	assert_string_equal(r.name[0], "b");
	assert_string_equal(r.type[1], "DELETED");
	assert_string_equal(r.name[1], "a");
	assert_string_equal(r.type[2], "ADDED");
	assert_string_equal(r.name[2], "c");
	assert_true(r.rv[0] > from && r.rv[0] < r.rv[1] && r.rv[1] < r.rv[2]);
	unwatch(&r);
}

static void
test_watch_from_compacted_version_is_410(void **state)
{
	struct fx *f = *state;
	struct rec r = {0};
	struct client_resp out;
	struct client *plain;
	struct client_watch *w;
	char q[128], name[16];
	long long from;
	int i;

	from = atoll(create(f, "first", "front"));
	for (i = 0; i < HISTORY + 2; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		create(f, name, "front");
	}
	snprintf(q, sizeof(q), "watch=true&resourceVersion=%lld", from);
	/* On a loop: an ERROR event with the Status, then the end. */
	watch(f, &r, q);
	wait_for(f, &r.ended, 1);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.ended, 1);
	assert_string_equal(r.type[0], "ERROR");
	assert_int_equal(r.code[0], 410);
	assert_string_equal(r.reason[0], "Expired");
	unwatch(&r);

	/* Without a loop: the 410 itself (drover's server answers the
	 * watch with HTTP 410; Kubernetes, 200 and the ERROR event). */
	if (f->t == LOCAL) {
		plain = client_local_new(f->api);
		w = plain->ops->watch(plain, DEPLOY, q, on_ev, &r, &out);
		assert_null(w);
	} else {
		plain = http_client(f, NULL, is_tcp(f) ? TOKEN : NULL);
		assert_int_equal(client_http_watch_blocking(plain, DEPLOY, q,
							    on_ev, &r, NULL,
							    2000, &out),
				 0);
	}
	assert_int_equal(out.status, 410);
	assert_string_equal(reason(&out), "Expired");
	assert_int_equal(r.n, 1); /* no event */
	client_resp_release(&out);
	plain->ops->free(plain);
}

static void
test_unwatch_inside_callback(void **state)
{
	struct fx *f = *state;
	struct rec r = {.unwatch_at = 1};
	char q[128];

	snprintf(q, sizeof(q), "watch=true&resourceVersion=%s", list_rv(f));
	watch(f, &r, q);
	create(f, "a", "front");
	create(f, "b", "front");
	wait_for(f, &r.n, 1);
	create(f, "c", "front");
	run_for(f, 100);
	assert_int_equal(r.n, 1);
	assert_null(r.w);
	assert_int_equal(r.ended, 0);
}

/* What request_async answered. */
struct async {
	struct fx *f;
	int done;
	int status[4];
	json_t *body[4];
	bool chained;
};

static void
on_done(void *arg, struct client_resp *resp)
{
	struct async *a = arg;

	assert_true(a->done < 4);
	assert_null(resp->error);
	a->status[a->done] = resp->status;
	a->body[a->done] = resp->body; /* taken */
	resp->body = NULL;
	a->done++;
	/* From the callback: the next request (after the write). */
	if (a->chained) {
		a->chained = false;
		assert_int_equal(client_request_async(a->f->c, "GET",
						      DEPLOY "/web", NULL, NULL,
						      NULL, on_done, a),
				 0);
	}
}

static void
test_request_async(void **state)
{
	struct fx *f = *state;
	struct async a = {.f = f, .chained = true};
	json_t *d = deployment("web", 2, "front");
	int i;

	assert_int_equal(client_request_async(f->c, "POST", DEPLOY, NULL, NULL,
					      d, on_done, &a),
			 0);
	json_decref(d); /* not stolen: the client has its copy or is done */
	assert_int_equal(a.done, 0); /* never before it returns */
	wait_for(f, &a.done, 2);
	d = deployment("bad", -1, "front");
	assert_int_equal(client_request_async(f->c, "POST", DEPLOY, NULL, NULL,
					      d, on_done, &a),
			 0);
	json_decref(d);
	assert_int_equal(a.done, 2);
	wait_for(f, &a.done, 3);
	assert_int_equal(a.done, 3);
	assert_int_equal(a.status[0], 201);
	assert_int_equal(a.status[1], 200);
	assert_string_equal(str_at(a.body[1], "metadata", "uid"),
			    str_at(a.body[0], "metadata", "uid"));
	{
		struct client_resp inv = {.status = a.status[2],
					  .body = a.body[2]};

		assert_invalid(&inv);
	}
	for (i = 0; i < a.done; i++)
		json_decref(a.body[i]);
}

static void
test_async_answers_dropped_by_free(void **state)
{
	struct fx *f = *state;
	struct async a = {.f = f};
	struct rec r = {0};

	/* A request and a watch in flight when the client goes: no
	 * callback, nothing left on the loop (teardown checks). */
	assert_int_equal(client_request_async(f->c, "GET", DEPLOY, NULL, NULL,
					      NULL, on_done, &a),
			 0);
	watch(f, &r, "watch=true");
	f->c->ops->free(f->c);
	/* for teardown, not used */
	f->c = f->t == LOCAL ? client_local_new(f->api)
			     : http_client(f, NULL, NULL);
	run_for(f, 50);
	assert_int_equal(a.done, 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.ended, 0);
}

/* Over HTTP only: what a transport adds. */

static void
test_http_stream_end_is_null(void **state)
{
	struct fx *f = *state;
	struct rec r = {0};

	create(f, "a", "front");
	watch(f, &r, "watch=true&timeoutSeconds=1");
	wait_for(f, &r.ended, 1);
	assert_int_equal(r.n, 1); /* a's ADDED */
	assert_int_equal(r.ended, 1);
	unwatch(&r);
}

struct failed {
	int done;
	int status;
	bool had_error;
};

static void
on_failed(void *arg, struct client_resp *resp)
{
	struct failed *x = arg;

	x->status = resp->status;
	x->had_error = resp->error != NULL &&
		       strstr(resp->error, "cannot reach the drover API");
	x->done++;
}

static void
test_http_unreachable_is_status_0(void **state)
{
	struct fx *f = *state;
	struct client *c;
	struct client_resp r;
	struct failed x = {0};
	struct rec w = {0};
	char server[160];

	if (is_tcp(f)) {
		/* A port nothing listens on: bound, then closed. */
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_addr.s_addr =
					    htonl(INADDR_LOOPBACK)};
		socklen_t len = sizeof(a);
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		getsockname(fd, (struct sockaddr *)&a, &len);
		close(fd);
		snprintf(server, sizeof(server), "http://127.0.0.1:%d",
			 ntohs(a.sin_port));
	} else {
		snprintf(server, sizeof(server), "%s/absent.sock", f->dir);
	}
	c = client_http_new_on_loop(&f->loop, server, TOKEN);
	assert_int_equal(client_request(c, "GET", DEPLOY, NULL, NULL, NULL, &r),
			 -1);
	assert_int_equal(r.status, 0);
	assert_non_null(r.error);
	client_resp_release(&r);
	assert_int_equal(client_request_async(c, "GET", DEPLOY, NULL, NULL,
					      NULL, on_failed, &x),
			 0);
	w.c = c;
	w.w = c->ops->watch(c, DEPLOY, "watch=true", on_ev, &w, &r);
	assert_non_null(w.w);
	client_resp_release(&r);
	wait_for(f, &x.done, 1);
	wait_for(f, &w.ended, 1);
	assert_int_equal(x.done, 1);
	assert_int_equal(x.status, 0);
	assert_true(x.had_error);
	assert_int_equal(w.n, 0); /* the stream just ends */
	assert_int_equal(w.ended, 1);
	unwatch(&w);
	c->ops->free(c);
}

static void
test_http_wrong_token_is_401(void **state)
{
	struct fx *f = *state;
	struct client *c;
	struct client_resp r;
	struct rec w = {0};

	c = http_client(f, &f->loop, "wrong");
	assert_int_equal(client_request(c, "GET", DEPLOY, NULL, NULL, NULL, &r),
			 0);
	assert_int_equal(r.status, 401);
	client_resp_release(&r);
	w.c = c;
	w.w = c->ops->watch(c, DEPLOY, "watch=true", on_ev, &w, &r);
	client_resp_release(&r);
	wait_for(f, &w.ended, 1);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.type[0], "ERROR");
	assert_int_equal(w.code[0], 401);
	unwatch(&w);
	c->ops->free(c);
}

static void
test_without_loop_no_async(void **state)
{
	struct fx *f = *state;
	struct client *c;
	struct client_resp r;
	struct async a = {.f = f};

	c = f->t == LOCAL ? client_local_new(f->api)
			  : http_client(f, NULL, TOKEN);
	assert_int_equal(client_request_async(c, "GET", DEPLOY, NULL, NULL,
					      NULL, on_done, &a),
			 -1);
	if (f->t != LOCAL) {
		assert_null(
		    c->ops->watch(c, DEPLOY, "watch=true", on_ev, NULL, &r));
		assert_non_null(r.error);
		client_resp_release(&r);
	}
	c->ops->free(c);
	run_for(f, 20);
	assert_int_equal(a.done, 0);
}

/* Over HTTPS: a client that does not trust drover's CA (the system's CAs
 * only) gets no answer, and one that skips verification does. */
static void
test_https_checks_the_certificate(void **state)
{
	struct fx *f = *state;
	struct client *c;
	struct client_resp r;

	c = client_http_new(f->server, TOKEN);
	assert_int_equal(client_request(c, "GET", DEPLOY, NULL, NULL, NULL, &r),
			 -1);
	assert_int_equal(r.status, 0);
	assert_non_null(r.error);
	client_resp_release(&r);
	c->ops->free(c);
	c = client_http_new(f->server, TOKEN);
	client_http_set_tls(c, NULL, 0, true);
	assert_int_equal(client_request(c, "GET", DEPLOY, NULL, NULL, NULL, &r),
			 0);
	assert_int_equal(r.status, 200);
	client_resp_release(&r);
	c->ops->free(c);
}

#define CASES(setup)                                                           \
	cmocka_unit_test_setup_teardown(test_crud, setup, teardown),           \
	    cmocka_unit_test_setup_teardown(test_stale_update_is_409, setup,   \
					    teardown),                         \
	    cmocka_unit_test_setup_teardown(test_missing_is_404, setup,        \
					    teardown),                         \
	    cmocka_unit_test_setup_teardown(test_invalid_is_422_with_causes,   \
					    setup, teardown),                  \
	    cmocka_unit_test_setup_teardown(test_list_with_selectors, setup,   \
					    teardown),                         \
	    cmocka_unit_test_setup_teardown(                                   \
		test_watch_sees_added_modified_deleted, setup, teardown),      \
	    cmocka_unit_test_setup_teardown(                                   \
		test_watch_without_version_starts_with_state, setup,           \
		teardown),                                                     \
	    cmocka_unit_test_setup_teardown(test_watch_resumes_from_version,   \
					    setup, teardown),                  \
	    cmocka_unit_test_setup_teardown(                                   \
		test_watch_from_compacted_version_is_410, setup, teardown),    \
	    cmocka_unit_test_setup_teardown(test_unwatch_inside_callback,      \
					    setup, teardown),                  \
	    cmocka_unit_test_setup_teardown(test_request_async, setup,         \
					    teardown),                         \
	    cmocka_unit_test_setup_teardown(                                   \
		test_async_answers_dropped_by_free, setup, teardown),          \
	    cmocka_unit_test_setup_teardown(test_without_loop_no_async, setup, \
					    teardown)

#define HTTP_CASES(setup)                                                      \
	cmocka_unit_test_setup_teardown(test_http_stream_end_is_null, setup,   \
					teardown),                             \
	    cmocka_unit_test_setup_teardown(test_http_unreachable_is_status_0, \
					    setup, teardown)

int
main(void)
{
	const struct CMUnitTest local[] = {CASES(setup_local)};
	const struct CMUnitTest tcp[] = {
	    CASES(setup_tcp), HTTP_CASES(setup_tcp),
	    cmocka_unit_test_setup_teardown(test_http_wrong_token_is_401,
					    setup_tcp, teardown)};
	const struct CMUnitTest unix_socket[] = {CASES(setup_unix),
						 HTTP_CASES(setup_unix)};
	const struct CMUnitTest tls[] = {
	    CASES(setup_tls), HTTP_CASES(setup_tls),
	    cmocka_unit_test_setup_teardown(test_http_wrong_token_is_401,
					    setup_tls, teardown),
	    cmocka_unit_test_setup_teardown(test_https_checks_the_certificate,
					    setup_tls, teardown)};
	int fails = 0;

	fails += cmocka_run_group_tests_name("in-process", local, NULL, NULL);
	fails += cmocka_run_group_tests_name("http-tcp", tcp, NULL, NULL);
	fails +=
	    cmocka_run_group_tests_name("http-unix", unix_socket, NULL, NULL);
	fails += cmocka_run_group_tests_name("https-tcp", tls, NULL, NULL);
	return fails ? 1 : 0;
}
