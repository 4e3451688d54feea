/* proxy_tcp.c - the proxy in TCP mode on real sockets: round-robin
 * spreads, least-connections prefers the idle endpoint, a refused
 * endpoint is skipped without failing a client, half-close both ways,
 * the idle timeout, a table update or a drain never breaks an
 * established connection, the idle notification of a drained endpoint,
 * and a port in use reported per service. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "proxy.h"
#include "proxy_testlib.h"

struct fx {
	struct bpool bp;
	struct proxy *p;
	struct idle_seen idle;
	int port;
	struct proxy_endpoint eps[4];
	struct proxy_service svc;
};

static void
set(struct fx *f)
{
	set_one(f->p, &f->svc);
}

static struct proxy_endpoint
ep(struct fx *f, int i, const char *rev, enum proxy_ep_state st)
{
	static char keys[4][32];

	snprintf(keys[i], sizeof(keys[i]), "default/web-%c/uid%d", 'a' + i, i);
	return (struct proxy_endpoint){.address = "127.0.0.1",
				       .port = f->bp.b[i].port,
				       .key = keys[i],
				       .revision = rev,
				       .state = st};
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct proxy_config cfg = {.on_idle = on_idle, .arg = &f->idle};

	uv_mutex_init(&f->idle.mu);
	bpool_start(&f->bp, 2, B_ECHO);
	f->p = proxy_start(&cfg);
	assert_non_null(f->p);
	f->port = free_port();
	f->svc = (struct proxy_service){.name = "default/web",
					.address = "127.0.0.1",
					.port = f->port,
					.mode = PROXY_TCP,
					.endpoints = f->eps};
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

/* Opens a connection through the proxy and returns the greeting's id. */
static int
connect_id(struct fx *f, char *id)
{
	char line[32];
	int fd = client(f->port);

	assert_true(fd >= 0);
	assert_true(read_line(fd, line, sizeof(line)) > 0);
	id[0] = line[0];
	id[1] = '\0';
	return fd;
}

static void
test_round_robin_spreads(void **state)
{
	struct fx *f = *state;
	int i, a = 0, b = 0;
	char id[2];

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[1] = ep(f, 1, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	set(f);
	for (i = 0; i < 10; i++) {
		close(connect_id(f, id));
		a += id[0] == 'A';
		b += id[0] == 'B';
	}
	assert_int_equal(a, 5);
	assert_int_equal(b, 5);
}

struct ep_q {
	struct proxy *p;
	const char *key;
	uint64_t active;
};

static bool
ep_active_is(void *arg)
{
	struct ep_q *q = arg;
	struct proxy_endpoint_stats st;

	return proxy_endpoint_stats(q->p, "default/web", q->key, &st) == 0 &&
	       st.active == q->active;
}

static void
test_least_conn_prefers_idle(void **state)
{
	struct fx *f = *state;
	char id1[2], id2[2], id3[2];
	int c1, c2, c3;
	struct ep_q q = {.p = f->p, .active = 0};

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[1] = ep(f, 1, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	f->svc.balance = PROXY_LEAST_CONN;
	set(f);
	c1 = connect_id(f, id1);
	c2 = connect_id(f, id2);
	assert_true(id1[0] != id2[0]);
	close(c2);
	q.key = id2[0] == 'A' ? f->eps[0].key : f->eps[1].key;
	assert_true(wait_for(ep_active_is, &q, 2000));
	/* Round-robin would go back to c1's endpoint now. */
	c3 = connect_id(f, id3);
	assert_int_equal(id3[0], id2[0]);
	close(c1);
	close(c3);
}

static void
test_refused_endpoint_is_skipped(void **state)
{
	struct fx *f = *state;
	struct proxy_service_stats st;
	struct proxy_endpoint_stats es;
	char id[2];
	int i;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[0].port = dead_port();
	f->eps[1] = ep(f, 1, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	set(f);
	for (i = 0; i < 6; i++) {
		close(connect_id(f, id));
		assert_int_equal(id[0], 'B');
	}
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_true(st.connect_failures >= 3);
	assert_int_equal(st.rejected, 0);
	assert_int_equal(
	    proxy_endpoint_stats(f->p, "default/web", f->eps[0].key, &es), 0);
	assert_int_equal(es.connect_failures, st.connect_failures);
}

/* An endpoint whose connects hang: the connect timeout moves each
 * connection on to the next endpoint. */
static void
test_connect_timeout_moves_on(void **state)
{
	struct fx *f = *state;
	struct proxy_service_stats st;
	int bh, fill[3], i, slow = 0;
	uint64_t t0;
	char id[2];

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[0].port = blackhole_port(&bh, fill);
	f->eps[1] = ep(f, 1, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	f->svc.connect_timeout_ms = 150;
	set(f);
	for (i = 0; i < 4; i++) {
		t0 = uv_hrtime();
		close(connect_id(f, id));
		assert_int_equal(id[0], 'B');
		assert_true(uv_hrtime() - t0 < 900 * 1000000ull);
		slow += uv_hrtime() - t0 >= 140 * 1000000ull;
	}
	assert_true(slow >= 1); /* the timeout, not a refusal */
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_true(st.connect_failures >= 2);
	assert_int_equal(st.rejected, 0);
	for (i = 0; i < 3; i++)
		close(fill[i]);
	close(bh);
}

static void
test_half_close_client_side(void **state)
{
	struct fx *f = *state;
	char id[2], buf[64];
	int fd;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	fd = connect_id(f, id);
	assert_int_equal(write(fd, "ping", 4), 4);
	shutdown(fd, SHUT_WR);
	/* The backend echoes, sees the EOF, says bye, then closes. */
	assert_int_equal(read_all(fd, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "pingbye\n");
	close(fd);
}

static bool
received_ping(void *arg)
{
	struct backend *b = arg;

	return atomic_load(&b->nreceived) == 4 &&
	       memcmp(b->received, "ping", 4) == 0;
}

static void
test_half_close_backend_side(void **state)
{
	struct fx *f = *state;
	char buf[64];
	int fd;

	f->bp.b[0].mode = B_SHUTFIRST;
	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	fd = client(f->port);
	/* The backend's EOF reaches the client ... */
	assert_int_equal(read_all(fd, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "A\n");
	/* ... and the client can still send. */
	assert_int_equal(write(fd, "ping", 4), 4);
	assert_true(wait_for(received_ping, &f->bp.b[0], 2000));
	close(fd);
}

static void
test_idle_timeout_closes(void **state)
{
	struct fx *f = *state;
	char id[2], buf[8];
	int fd;
	uint64_t t0;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	f->svc.idle_timeout_ms = 200;
	set(f);
	fd = connect_id(f, id);
	t0 = uv_hrtime();
	assert_int_equal(read(fd, buf, sizeof(buf)), 0); /* EOF, no timeout */
	assert_true(uv_hrtime() - t0 >= 150 * 1000000ull);
	assert_true(uv_hrtime() - t0 < 3000 * 1000000ull);
	close(fd);
}

static void
echo_ok(int fd)
{
	char buf[8];

	assert_int_equal(write(fd, "x", 1), 1);
	assert_int_equal(read(fd, buf, 1), 1);
	assert_int_equal(buf[0], 'x');
}

static void
test_removed_endpoint_keeps_connection(void **state)
{
	struct fx *f = *state;
	char id[2];
	int c1, i;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	c1 = connect_id(f, id);
	assert_int_equal(id[0], 'A');
	f->eps[0] = ep(f, 1, "v2", PROXY_EP_READY);
	set(f);
	echo_ok(c1);
	for (i = 0; i < 3; i++) {
		close(connect_id(f, id));
		assert_int_equal(id[0], 'B');
	}
	echo_ok(c1);
	assert_int_equal(idle_count(&f->idle), 0);
	close(c1);
	/* The endpoint left out counts as gone: reported once idle. */
	for (i = 0; i < 400 && idle_count(&f->idle) == 0; i++)
		sleep_ms(5);
	assert_int_equal(idle_count(&f->idle), 1);
	assert_string_equal(f->idle.key, "default/web-a/uid0");
}

static void
test_draining_endpoint_finishes(void **state)
{
	struct fx *f = *state;
	char id[2];
	int c1, i;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[1] = ep(f, 1, "v2", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	set(f);
	c1 = connect_id(f, id);
	assert_int_equal(id[0], 'A');
	f->eps[0].state = PROXY_EP_DRAINING;
	set(f);
	for (i = 0; i < 4; i++) {
		close(connect_id(f, id));
		assert_int_equal(id[0], 'B');
	}
	echo_ok(c1);
	sleep_ms(50);
	assert_int_equal(idle_count(&f->idle), 0);
	assert_int_equal(
	    proxy_endpoint_idle(f->p, "default/web", f->eps[0].key), 0);
	close(c1);
	for (i = 0; i < 400 && idle_count(&f->idle) == 0; i++)
		sleep_ms(5);
	assert_int_equal(idle_count(&f->idle), 1);
	assert_string_equal(f->idle.key, f->eps[0].key);
	assert_int_equal(
	    proxy_endpoint_idle(f->p, "default/web", f->eps[0].key), 1);
	/* Ready again, then gone: reported again. */
	f->eps[0].state = PROXY_EP_READY;
	set(f);
	f->eps[0].state = PROXY_EP_GONE;
	set(f);
	for (i = 0; i < 400 && idle_count(&f->idle) == 1; i++)
		sleep_ms(5);
	assert_int_equal(idle_count(&f->idle), 2);
}

static void
test_port_in_use_is_reported(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	struct proxy_service svcs[2];
	struct proxy_service_stats st;
	struct proxy_table t = {.services = svcs, .n_services = 2};
	int busy = socket(AF_INET, SOCK_STREAM, 0), i;
	char id[2];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(busy, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(busy, 1), 0);
	getsockname(busy, (struct sockaddr *)&sa, &len);
	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	svcs[0] = f->svc;
	svcs[1] = f->svc;
	svcs[1].name = "default/other";
	svcs[1].port = ntohs(sa.sin_port);
	assert_true(proxy_set_table(f->p, &t) > 0);
	for (i = 0;
	     i < 400 && proxy_service_stats(f->p, "default/other", &st) != 0;
	     i++)
		sleep_ms(5);
	assert_int_equal(st.listen_error, -EADDRINUSE);
	/* The other service of the table works. */
	close(connect_id(f, id));
	assert_int_equal(id[0], 'A');
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_int_equal(st.listen_error, 0);
	/* A bad table is refused whole. */
	svcs[1].address = "localhost";
	assert_int_equal(proxy_set_table(f->p, &t), -EINVAL);
	close(busy);
}

/* A service given another port: the old listener closes, the new one
 * opens, an established connection carries on. */
static void
test_service_moves_port(void **state)
{
	struct fx *f = *state;
	char id[2];
	int c1, old = f->port;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	c1 = connect_id(f, id);
	f->port = f->svc.port = free_port();
	set(f);
	close(connect_id(f, id));
	assert_int_equal(id[0], 'A');
	assert_int_equal(client(old), -1);
	echo_ok(c1);
	close(c1);
}

#define BIG (4 << 20)

struct writer {
	int fd;
	size_t n, done;
	uv_thread_t th;
};

static unsigned char
pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

static void
write_big(void *arg)
{
	struct writer *w = arg;
	unsigned char buf[16384];
	size_t i;

	while (w->done < w->n) {
		size_t k =
		    w->n - w->done < sizeof(buf) ? w->n - w->done : sizeof(buf);
		ssize_t r;

		for (i = 0; i < k; i++)
			buf[i] = pattern(w->done + i);
		r = write(w->fd, buf, k);
		if (r <= 0)
			return;
		w->done += (size_t)r;
	}
}

/* 4 MiB through the proxy and back (the backend echoes) while the
 * client reads slowly at first: the queued writes, the pause of a side
 * whose peer's queue is long, and its resumption keep every byte in
 * order. */
static void
test_large_transfer_intact(void **state)
{
	struct fx *f = *state;
	struct writer w = {.n = BIG};
	unsigned char *got = malloc(BIG);
	char id[2];
	size_t n = 0;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	w.fd = connect_id(f, id);
	uv_thread_create(&w.th, write_big, &w);
	sleep_ms(200); /* let the queues fill */
	while (n < BIG) {
		ssize_t r = read(w.fd, got + n, BIG - n);

		assert_true(r > 0);
		n += (size_t)r;
	}
	uv_thread_join(&w.th);
	assert_int_equal(w.done, BIG);
	for (n = 0; n < BIG; n++)
		if (got[n] != pattern(n))
			break;
	assert_int_equal(n, BIG);
	close(w.fd);
	free(got);
}

/* A client that resets its connection while the backend still sends:
 * the proxy's writes fail (EPIPE, no SIGPIPE for the process), the pair
 * is closed, the proxy serves on. */
static void
test_client_reset_mid_stream(void **state)
{
	struct fx *f = *state;
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	struct writer w = {.n = 1 << 20};
	struct proxy_service_stats st;
	char id[2];
	int i;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->svc.n_endpoints = 1;
	set(f);
	w.fd = connect_id(f, id);
	write_big(&w);
	setsockopt(w.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(w.fd);
	for (i = 0; i < 400; i++) {
		proxy_service_stats(f->p, "default/web", &st);
		if (st.active == 0)
			break;
		sleep_ms(5);
	}
	assert_int_equal(st.active, 0);
	close(connect_id(f, id));
	assert_int_equal(id[0], 'A');
}

struct loader {
	int port;
	int n, ok; /* connections made, and echoed */
	bool long_ok;
	atomic_bool stop;
	uv_thread_t th;
};

/* Connections that each echo a byte, beside one long connection that
 * echoes a byte after each of them, until told to stop (10 at least). */
static void
load(void *arg)
{
	struct loader *l = arg;
	char line[32], ch;
	int fd, lfd = client(l->port);

	if (lfd < 0 || read_line(lfd, line, sizeof(line)) <= 0)
		goto out;
	l->long_ok = true;
	for (l->n = 0; l->n < 10 || !atomic_load(&l->stop); l->n++) {
		bool ok = false;

		fd = client(l->port);
		if (fd >= 0 && read_line(fd, line, sizeof(line)) > 0 &&
		    write(fd, "x", 1) == 1 && read(fd, &ch, 1) == 1 &&
		    ch == 'x' && write(lfd, "y", 1) == 1 &&
		    read(lfd, &ch, 1) == 1 && ch == 'y')
			ok = true;
		l->ok += ok;
		if (fd >= 0)
			close(fd);
	}
out:
	if (lfd >= 0)
		close(lfd);
}

/* Endpoints drain and come back under load, as in a rollout: no new
 * connection fails and the established ones carry on. */
static void
test_flips_under_load_lose_nothing(void **state)
{
	struct fx *f = *state;
	struct loader l[3];
	struct proxy_service_stats st;
	int i, flips, total = 0;

	f->eps[0] = ep(f, 0, "v1", PROXY_EP_READY);
	f->eps[1] = ep(f, 1, "v2", PROXY_EP_READY);
	f->svc.n_endpoints = 2;
	set(f);
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
		assert_true(l[i].long_ok);
		assert_true(l[i].n >= 10);
		assert_int_equal(l[i].ok, l[i].n);
		total += l[i].n + 1; /* and the long connection */
	}
	assert_int_equal(proxy_service_stats(f->p, "default/web", &st), 0);
	assert_int_equal(st.rejected, 0);
	assert_int_equal(st.total, total);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_robin_spreads, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_least_conn_prefers_idle, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_endpoint_is_skipped,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_connect_timeout_moves_on,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_half_close_client_side, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_half_close_backend_side, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_idle_timeout_closes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_removed_endpoint_keeps_connection, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_draining_endpoint_finishes,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_port_in_use_is_reported, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_flips_under_load_lose_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_large_transfer_intact, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_service_moves_port, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_client_reset_mid_stream, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
