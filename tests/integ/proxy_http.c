/* proxy_http.c - the proxy in HTTP/1.1 mode on real sockets: a
 * keep-alive client's requests spread over two endpoints, one drains
 * midway and every request still gets 200 on the same client connection;
 * the drained endpoint is reported idle; counters by status class,
 * endpoint and revision, and their Prometheus text; a chunked response
 * forwarded intact; a refused endpoint retried; Connection: close
 * honoured; pipelined requests answered in order; no endpoint: 503;
 * endpoints flipped under load lose no request; a GET on a pooled
 * connection the backend closed goes again; a removed service closes its
 * idle clients. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "metrics.h"
#include "proxy.h"
#include "proxy_testlib.h"

struct fx {
	struct bpool bp;
	struct proxy *p;
	struct idle_seen idle;
	int port;
	char keys[2][32];
	struct proxy_endpoint eps[2];
	struct proxy_service svc;
};

static void
set(struct fx *f)
{
	set_one(f->p, &f->svc);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct proxy_config cfg = {.on_idle = on_idle, .arg = &f->idle};
	int i;

	uv_mutex_init(&f->idle.mu);
	bpool_start(&f->bp, 2, B_HTTP);
	f->p = proxy_start(&cfg);
	assert_non_null(f->p);
	f->port = free_port();
	for (i = 0; i < 2; i++) {
		snprintf(f->keys[i], sizeof(f->keys[i]), "default/web-%c/u%d",
			 'a' + i, i);
		f->eps[i] = (struct proxy_endpoint){.address = "127.0.0.1",
						    .port = f->bp.b[i].port,
						    .key = f->keys[i],
						    .revision = i ? "v2" : "v1",
						    .state = PROXY_EP_READY};
	}
	f->svc = (struct proxy_service){.name = "default/web",
					.address = "127.0.0.1",
					.port = f->port,
					.mode = PROXY_HTTP,
					.endpoints = f->eps,
					.n_endpoints = 2};
	set(f);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	proxy_stop(f->p);
	bpool_stop(&f->bp);
	uv_mutex_destroy(&f->idle.mu);
	free(f);
	return 0;
}

static void
test_keepalive_through_a_drain(void **state)
{
	struct fx *f = *state;
	struct proxy_endpoint_stats ea, eb;
	struct proxy_revision_stats r1, r2;
	struct proxy_service_stats st;
	struct hresp r;
	int fd = client(f->port), i, a = 0, b = 0;

	assert_true(fd >= 0);
	for (i = 0; i < 10; i++) {
		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
		assert_int_equal(r.status, 200);
		a += strcmp(r.body, "A") == 0;
		b += strcmp(r.body, "B") == 0;
	}
	assert_int_equal(a, 5); /* round-robin per request */
	assert_int_equal(b, 5);
	f->eps[0].state = PROXY_EP_DRAINING;
	set(f);
	for (i = 0; i < 10; i++) {
		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "B");
	}
	/* A's pooled connection was closed at the drain: idle. */
	assert_true(wait_for(idle_fired, &f->idle, 2000));
	assert_string_equal(f->idle.key, f->keys[0]);
	assert_int_equal(proxy_endpoint_idle(f->p, "default/web", f->keys[0]),
			 1);
	/* One client connection carried all of it. */
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_int_equal(st.total, 1);
	assert_int_equal(st.active, 1);
	assert_int_equal(st.rejected, 0);
	assert_int_equal(
	    proxy_endpoint_stats(f->p, "default/web", f->keys[0], &ea), 0);
	assert_int_equal(
	    proxy_endpoint_stats(f->p, "default/web", f->keys[1], &eb), 0);
	assert_int_equal(ea.requests[1], 5);
	assert_int_equal(eb.requests[1], 15);
	assert_int_equal(ea.requests[3] + ea.requests[4], 0);
	assert_int_equal(ea.total, 1); /* one backend connection each */
	assert_int_equal(eb.total, 1);
	assert_int_equal(proxy_revision_stats(f->p, "default/web", "v1", &r1),
			 0);
	assert_int_equal(proxy_revision_stats(f->p, "default/web", "v2", &r2),
			 0);
	assert_int_equal(r1.requests[1], 5);
	assert_int_equal(r2.requests[1], 15);
	assert_int_equal(r2.count, 15);
	assert_true(r2.sum_seconds > 0);
	assert_int_equal(atomic_load(&f->bp.b[0].requests), 5);
	assert_int_equal(atomic_load(&f->bp.b[1].requests), 15);
	close(fd);
}

static void
test_metrics_text(void **state)
{
	struct fx *f = *state;
	struct strbuf sb = STRBUF_INIT;
	struct hresp r;
	int fd = client(f->port), i;

	for (i = 0; i < 4; i++)
		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
	close(fd);
	proxy_metrics_append(f->p, &sb);
	assert_non_null(strstr(sb.buf, "drover_proxy_requests_total{service="
				       "\"default/web\",revision=\"v2\","
				       "code=\"2xx\"} 2\n"));
	assert_non_null(strstr(sb.buf, "drover_proxy_endpoint_requests_total{"
				       "service=\"default/web\",endpoint="
				       "\"default/web-a/u0\",revision=\"v1\","
				       "code=\"2xx\"} 2\n"));
	assert_non_null(strstr(sb.buf,
			       "drover_proxy_request_duration_seconds_bucket{"
			       "service=\"default/web\",revision=\"v1\","
			       "le=\"+Inf\"} 2\n"));
	assert_non_null(strstr(sb.buf,
			       "drover_proxy_request_duration_seconds_count{"
			       "service=\"default/web\",revision=\"v1\"} 2\n"));
	assert_non_null(strstr(sb.buf, "# TYPE drover_proxy_request_duration_"
				       "seconds histogram\n"));
	assert_non_null(strstr(sb.buf, "drover_proxy_listener_up{service="
				       "\"default/web\"} 1\n"));
	strbuf_release(&sb);
}

static void
test_chunked_response_intact(void **state)
{
	struct fx *f = *state;
	struct hresp r;
	int fd = client(f->port);

	f->eps[1].state = PROXY_EP_DRAINING; /* A only */
	set(f);
	assert_int_equal(http_get(fd, "/chunked", NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "hello A");
	assert_non_null(strstr(r.raw, "Transfer-Encoding: chunked\r\n"));
	assert_non_null(strstr(r.raw, "\r\n\r\n5\r\nhello\r\n1\r\n \r\n1\r\n"
				      "A\r\n0\r\n\r\n"));
	/* The framing held: the next request on the connection works. */
	assert_int_equal(http_get(fd, "/", NULL, &r), 0);
	assert_string_equal(r.body, "A");
	close(fd);
}

static void
test_refused_endpoint_retried(void **state)
{
	struct fx *f = *state;
	struct proxy_service_stats st;
	struct hresp r;
	int i, fd;

	f->eps[0].port = dead_port();
	set(f);
	for (i = 0; i < 6; i++) {
		fd = client(f->port);
		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "B");
		close(fd);
	}
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_true(st.connect_failures >= 3);
	assert_int_equal(st.rejected, 0);
}

/* An endpoint whose connects hang: the request moves on to the next
 * endpoint after the connect timeout, on the same client connection. */
static void
test_connect_timeout_moves_on(void **state)
{
	struct fx *f = *state;
	struct proxy_service_stats st;
	struct hresp r;
	int bh, fill[3], i, fd, slow = 0;

	f->eps[0].port = blackhole_port(&bh, fill);
	f->svc.connect_timeout_ms = 150;
	set(f);
	fd = client(f->port);
	for (i = 0; i < 4; i++) {
		uint64_t t0 = uv_hrtime();

		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "B");
		slow += uv_hrtime() - t0 >= 140 * 1000000ull;
	}
	assert_true(slow >= 1); /* the timeout, not a refusal */
	close(fd);
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_true(st.connect_failures >= 2);
	assert_int_equal(st.total, 1);
	for (i = 0; i < 3; i++)
		close(fill[i]);
	close(bh);
}

static void
test_connection_close_honoured(void **state)
{
	struct fx *f = *state;
	struct hresp r;
	char buf[8];
	int fd = client(f->port);

	assert_int_equal(http_get(fd, "/", "Connection: close\r\n", &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(read(fd, buf, sizeof(buf)), 0); /* closed */
	close(fd);
}

static void
test_pipelined_in_order(void **state)
{
	struct fx *f = *state;
	const char *two = "GET / HTTP/1.1\r\nHost: t\r\n\r\n"
			  "GET /chunked HTTP/1.1\r\nHost: t\r\n"
			  "Connection: close\r\n\r\n";
	char buf[1024];
	ssize_t n;
	int fd = client(f->port);

	f->eps[1].state = PROXY_EP_GONE;
	set(f);
	assert_int_equal(write(fd, two, strlen(two)), (ssize_t)strlen(two));
	n = read_all(fd, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, "Content-Length: 1\r\n\r\nA"
				    "HTTP/1.1 200 OK\r\nTransfer-Encoding"));
	assert_non_null(strstr(buf, "0\r\n\r\n"));
	close(fd);
}

static void
test_no_endpoint_503(void **state)
{
	struct fx *f = *state;
	struct hresp r;
	int fd;

	f->svc.n_endpoints = 0;
	set(f);
	fd = client(f->port);
	assert_int_equal(http_get(fd, "/", NULL, &r), 0);
	assert_int_equal(r.status, 503);
	close(fd);
}

/* A backend that closes a pooled connection as the next request comes:
 * a GET goes again on a new connection and succeeds; a POST is not
 * replayed (it may have been acted on) and gets 502. */
static void
test_stale_pooled_connection_replayed(void **state)
{
	struct fx *f = *state;
	const char *post = "POST / HTTP/1.1\r\nHost: t\r\n"
			   "Content-Length: 2\r\n\r\nhi";
	struct hresp r;
	int fd, i;

	f->bp.b[0].mode = B_HTTP_ONESHOT;
	f->svc.n_endpoints = 1;
	set(f);
	fd = client(f->port);
	for (i = 0; i < 5; i++) {
		assert_int_equal(http_get(fd, "/", NULL, &r), 0);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "A");
	}
	assert_int_equal(atomic_load(&f->bp.b[0].accepted), 5);
	assert_int_equal(write(fd, post, strlen(post)), (ssize_t)strlen(post));
	assert_int_equal(http_read(fd, &r), 0);
	assert_int_equal(r.status, 502);
	close(fd);
}

/* A service left out of the table: its port closes, and a keep-alive
 * client between requests is closed. */
static void
test_removed_service_closes_idle_clients(void **state)
{
	struct fx *f = *state;
	struct proxy_table empty = {0};
	struct hresp r;
	char buf[8];
	int fd = client(f->port), i;
	int64_t gen;

	assert_int_equal(http_get(fd, "/", NULL, &r), 0);
	assert_int_equal(r.status, 200);
	gen = proxy_set_table(f->p, &empty);
	for (i = 0; i < 400 && proxy_applied(f->p) < gen; i++)
		sleep_ms(5);
	assert_int_equal(read(fd, buf, sizeof(buf)), 0);
	close(fd);
	assert_int_equal(client(f->port), -1);
}

/* An Upgrade: the 101 goes to the client, then bytes both ways (here
 * echoed by the backend, the first ones sent with the request), and the
 * client's EOF ends the tunnel from both sides. */
static void
test_upgrade_tunnels(void **state)
{
	struct fx *f = *state;
	const char *up = "GET /upgrade HTTP/1.1\r\nHost: t\r\n"
			 "Connection: Upgrade\r\nUpgrade: echo\r\n\r\nearly";
	struct hresp r;
	char buf[64];
	int fd = client(f->port);

	f->svc.n_endpoints = 1;
	set(f);
	assert_int_equal(write(fd, up, strlen(up)), (ssize_t)strlen(up));
	assert_int_equal(http_read(fd, &r), 0);
	assert_int_equal(r.status, 101);
	assert_int_equal(read(fd, buf, 5), 5);
	assert_memory_equal(buf, "early", 5);
	assert_int_equal(write(fd, "hello", 5), 5);
	assert_int_equal(read(fd, buf, 5), 5);
	assert_memory_equal(buf, "hello", 5);
	shutdown(fd, SHUT_WR);
	assert_int_equal(read_all(fd, buf, sizeof(buf)), 0);
	close(fd);
}

struct loader {
	int port;
	int n, ok, conns; /* requests made, answered 200, connections */
	atomic_bool stop;
	uv_thread_t th;
};

/* Requests on keep-alive connections, a new connection every 10, until
 * told to stop (and 10 at least). */
static void
load(void *arg)
{
	struct loader *l = arg;
	struct hresp r;
	int fd = -1;

	for (l->n = 0; l->n < 10 || !atomic_load(&l->stop); l->n++) {
		if (l->n % 10 == 0) {
			if (fd >= 0)
				close(fd);
			fd = client(l->port);
			l->conns++;
		}
		if (fd >= 0 && http_get(fd, "/", NULL, &r) == 0 &&
		    r.status == 200)
			l->ok++;
	}
	if (fd >= 0)
		close(fd);
}

/* A rollout's worth of endpoint changes under load: one endpoint drains
 * while the other is ready, and back, as long as the clients run; not
 * one request fails. */
static void
test_flips_under_load_lose_nothing(void **state)
{
	struct fx *f = *state;
	struct loader l[3];
	struct proxy_service_stats st;
	int i, total = 0, flips;

	for (i = 0; i < 3; i++) {
		l[i] = (struct loader){.port = f->port};
		uv_thread_create(&l[i].th, load, &l[i]);
	}
	/* 40 flips, 2 ms apart (the pace of the changes, not a wait for
	 * anything), while the clients run. */
	for (flips = 0; flips < 40; flips++) {
		f->eps[flips % 2].state = PROXY_EP_DRAINING;
		f->eps[!(flips % 2)].state = PROXY_EP_READY;
		set(f);
		sleep_ms(2);
	}
	for (i = 0; i < 3; i++)
		atomic_store(&l[i].stop, true);
	for (i = 0; i < 3; i++) {
		uv_thread_join(&l[i].th);
		assert_true(l[i].n >= 10);
		assert_int_equal(l[i].ok, l[i].n);
		total += l[i].ok;
	}
	assert_int_equal(atomic_load(&f->bp.b[0].requests) +
			     atomic_load(&f->bp.b[1].requests),
			 total);
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_int_equal(st.rejected, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_keepalive_through_a_drain,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_metrics_text, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chunked_response_intact, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_endpoint_retried,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connect_timeout_moves_on,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connection_close_honoured,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pipelined_in_order, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_no_endpoint_503, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_flips_under_load_lose_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_stale_pooled_connection_replayed, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_removed_service_closes_idle_clients, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_upgrade_tunnels, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
