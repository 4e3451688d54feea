/* proxyd.c - the proxy process, `drover __proxy --socket PATH`: the
 * Service proxy (src/proxy) in a process of its own, run by the node
 * agent and fed tables over a unix socket (src/proxy/wire.h).
 *
 * Why a process of its own: services outlive the daemon by design, and
 * so must the proxy in front of them. A SIGKILL of `drover serve` ends
 * the agent's control connection, nothing else: the listeners and every
 * established connection stay with this process, which keeps routing
 * with the last table it was given. The agent of the next daemon
 * connects again (agent/proxy_link.c), sends its table, and takes over.
 * The process ends when the agent says "exit" (no Service left), or on
 * SIGTERM/SIGINT.
 *
 * One process per socket path: a lock on PATH.lock (flock) held for the
 * process's life; a second one started by mistake finds it taken and
 * ends at once with status 0 (the first one serves).
 *
 * One control client at a time: a new connection replaces the old one
 * (an agent that restarted). While one is connected, the proxy's
 * counters are sent to it every METRICS_MS as Prometheus text
 * ({"op":"metrics","text":...}): the agent serves them on /metrics. Each
 * table applied is answered with the "busy" message (wire.h), and so is
 * each endpoint that drains; the endpoints of earlier tables that are gone
 * are watched until idle too, so that a pod left out of a table is reported
 * busy while a connection to it remains.
 *
 * The hold: a new agent's tables are not applied while they would leave
 * a Service with no ready endpoint that has ready ones in the table in
 * force; the table in force routes on, for at most --hold-ms (HOLD_MS),
 * until the agent sends one that does not (applied at once), or the
 * hold ends (the last one held is applied, and its 503s are the
 * truth). An agent that has just started may see the cluster before it
 * has caught up (a restarted daemon rewriting its pods' readiness, say);
 * the endpoints that answered a moment ago still answer if their
 * processes run, and a process that is gone only costs a failed connect
 * and the next endpoint. Only a new agent's tables are held, until one
 * is applied: after that an outage is shown as it happens. While a table
 * is held no busy message is sent, so no drain is acknowledged that the
 * table in force does not show. Example: agent A's table has web with 3
 * ready endpoints; the daemon is SIGKILLed and restarts; agent B's first
 * table has web with 0 ready and 3 draining: held, web keeps its 3;
 * 40 ms later B's next table has 3 ready: applied, answered busy. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "log.h"
#include "proxy.h"
#include "proxyd.h"
#include "strbuf.h"
#include "wire.h"
#include "xalloc.h"

/* How often the counters go to the agent. */
#define METRICS_MS 1000

/* How long a new agent's tables may be held (the hold, above). */
#define HOLD_MS 5000

/* A line longer than this ends the control connection. */
#define MAX_LINE (16u << 20)

/* An endpoint left out of a table while not idle: reported busy until
 * its last connection ends. */
struct departed {
	char *service, *key;
	struct departed *next;
};

struct proxyd {
	uv_loop_t *loop;
	uv_pipe_t listener;
	uv_pipe_t *client; /* NULL: no agent connected */
	struct strbuf in;  /* the client's unfinished line */
	uv_async_t wake;   /* from the proxy's thread: applied or idle */
	uv_signal_t sigterm, sigint;
	uv_timer_t metrics;
	struct proxy *proxy;
	struct proxy_table *table; /* the last table given (owned) */
	int64_t table_pgen;        /* its proxy generation */
	int64_t table_agen;        /* and the agent's */
	/* The table came from the agent now connected: only then does its
	 * generation mean anything to that agent. A busy message naming a
	 * previous agent's generation could be taken by a new agent for one
	 * of its own tables, and acknowledge a drain its proxy has not
	 * applied. */
	bool table_ours;
	/* The hold: the last table held and its agent generation; when the
	 * hold of the agent connected ends (uv_now; 0: none began). */
	struct proxy_table *held;
	int64_t held_agen;
	uint64_t hold_until, hold_ms;
	uv_timer_t hold;
	struct departed *departed;
	char *last_sent; /* the last busy message, to send changes only */
	bool stopping;
};

static void
on_wake_from_proxy(void *arg)
{
	struct proxyd *d = arg;

	uv_async_send(&d->wake);
}

static void
on_applied(void *arg, int64_t gen)
{
	(void)gen;
	on_wake_from_proxy(arg);
}

static void
on_idle(void *arg, const char *service, const char *key)
{
	(void)service;
	(void)key;
	on_wake_from_proxy(arg);
}

/* A listener opened or failed: the agent hears of it in the next busy
 * message. */
static void
on_listen(void *arg, const char *service, int error)
{
	(void)service;
	(void)error;
	on_wake_from_proxy(arg);
}

static void close_client(struct proxyd *d);

static void
send_line(struct proxyd *d, const char *text)
{
	if (d->client && proxy_wire_send((uv_stream_t *)d->client, text) < 0)
		close_client(d);
}

static bool
has_key(json_t *keys, const char *key)
{
	size_t i;
	json_t *k;

	json_array_foreach(
	    keys, i, k) if (!strcmp(json_string_value(k), key)) return true;
	return false;
}

/* The listeners of the last applied table: into *errs those that could
 * not open, by service name ({"default/web": "cannot listen on
 * 127.0.0.1:80: ..."}), into *ok the names of those that listen. */
static void
listen_state(struct proxyd *d, json_t **errs, json_t **ok)
{
	size_t i;

	*errs = json_object();
	*ok = json_array();
	for (i = 0; i < d->table->n_services; i++) {
		const struct proxy_service *s = &d->table->services[i];
		struct proxy_service_stats st;

		if (proxy_service_stats(d->proxy, s->name, &st))
			continue;
		if (st.listen_error)
			json_object_set_new(
			    *errs, s->name,
			    json_sprintf("cannot listen on %s:%d: %s",
					 s->address, s->port,
					 uv_strerror(st.listen_error)));
		else
			json_array_append_new(*ok, json_string(s->name));
	}
}

/* The busy message of the last applied table, sent when it differs from
 * the last one sent (or always, with force: a new table or agent). */
static void
report(struct proxyd *d, bool force)
{
	json_t *busy = json_array(), *msg, *errs, *ok;
	struct departed **pp = &d->departed, *x;
	char *text;
	size_t i, j;

	if (d->table == NULL || proxy_applied(d->proxy) < d->table_pgen ||
	    !d->table_ours)
		goto out; /* not applied yet: on_applied wakes us again */
	for (i = 0; i < d->table->n_services; i++) {
		const struct proxy_service *s = &d->table->services[i];

		for (j = 0; j < s->n_endpoints; j++) {
			const struct proxy_endpoint *e = &s->endpoints[j];

			if (e->state != PROXY_EP_READY &&
			    !proxy_endpoint_idle(d->proxy, s->name, e->key) &&
			    !has_key(busy, e->key))
				json_array_append_new(busy,
						      json_string(e->key));
		}
	}
	while ((x = *pp) != NULL) {
		if (proxy_endpoint_idle(d->proxy, x->service, x->key)) {
			*pp = x->next;
			free(x->service);
			free(x->key);
			free(x);
			continue;
		}
		if (!has_key(busy, x->key))
			json_array_append_new(busy, json_string(x->key));
		pp = &x->next;
	}
	listen_state(d, &errs, &ok);
	msg = json_pack("{ss sI sO so so}", "op", "busy", "gen",
			(json_int_t)d->table_agen, "busy", busy, "errors", errs,
			"listening", ok);
	text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (text &&
	    (force || d->last_sent == NULL || strcmp(text, d->last_sent))) {
		send_line(d, text);
		free(d->last_sent);
		d->last_sent = text;
	} else {
		free(text);
	}
out:
	json_decref(busy);
}

static void
on_wake(uv_async_t *a)
{
	report(a->data, false);
}

static void
on_metrics(uv_timer_t *t)
{
	struct proxyd *d = t->data;
	struct strbuf sb;
	json_t *msg;
	char *text;

	if (d->client == NULL)
		return;
	strbuf_init(&sb);
	proxy_metrics_append(d->proxy, &sb);
	msg =
	    json_pack("{ss ss}", "op", "metrics", "text", sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	text = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (text)
		send_line(d, text);
	free(text);
}

static bool
table_has(const struct proxy_table *t, const char *service, const char *key)
{
	size_t i, j;

	for (i = 0; t && i < t->n_services; i++)
		if (!strcmp(t->services[i].name, service))
			for (j = 0; j < t->services[i].n_endpoints; j++)
				if (!strcmp(t->services[i].endpoints[j].key,
					    key))
					return true;
	return false;
}

/* Remembers the endpoints of the old table that the new one leaves out
 * (they are gone now, and may still have connections). */
static void
note_departed(struct proxyd *d, const struct proxy_table *old,
	      const struct proxy_table *new)
{
	size_t i, j;

	for (i = 0; old && i < old->n_services; i++)
		for (j = 0; j < old->services[i].n_endpoints; j++) {
			const char *svc = old->services[i].name;
			const char *key = old->services[i].endpoints[j].key;
			struct departed *x;

			if (table_has(new, svc, key))
				continue;
			x = xcalloc(1, sizeof(*x));
			x->service = xstrdup(svc);
			x->key = xstrdup(key);
			x->next = d->departed;
			d->departed = x;
		}
}

static void stop_all(struct proxyd *d);

/* The first table of an agent that connected, and any table that leaves
 * a service with no ready endpoint, are logged with their generation and
 * counts (each request answered 503 for want of an endpoint is logged by
 * the proxy with the generation of the table in force). */
static void
log_table(struct proxyd *d, const struct proxy_table *t, int64_t agen)
{
	size_t i, j, ready, total = 0, nready = 0, empty = 0;

	for (i = 0; i < t->n_services; i++) {
		for (j = ready = 0; j < t->services[i].n_endpoints; j++)
			ready +=
			    t->services[i].endpoints[j].state == PROXY_EP_READY;
		total += t->services[i].n_endpoints;
		nready += ready;
		empty += ready == 0;
	}
	if (d->table_ours && empty == 0)
		return;
	log_info("proxy: table %lld%s: %zu services, %zu endpoints (%zu "
		 "ready), %zu services with no ready endpoint",
		 (long long)agen, d->table_ours ? "" : " (a new agent's first)",
		 t->n_services, total, nready, empty);
}

/* Whether t leaves a Service with no ready endpoint that has some in
 * the table in force. */
static bool
starves(const struct proxy_table *in_force, const struct proxy_table *t)
{
	size_t i, j, k;

	for (i = 0; i < t->n_services; i++) {
		const struct proxy_service *s = &t->services[i];
		size_t ready = 0;

		for (j = 0; j < s->n_endpoints; j++)
			ready += s->endpoints[j].state == PROXY_EP_READY;
		for (j = 0; !ready && in_force && j < in_force->n_services;
		     j++) {
			const struct proxy_service *o = &in_force->services[j];

			if (strcmp(o->name, s->name))
				continue;
			for (k = 0; k < o->n_endpoints; k++)
				if (o->endpoints[k].state == PROXY_EP_READY)
					return true;
		}
	}
	return false;
}

static void
drop_held(struct proxyd *d)
{
	proxy_wire_table_free(d->held);
	d->held = NULL;
	if (!d->stopping)
		uv_timer_stop(&d->hold);
}

/* Puts t in force (owned); false (t freed) if the proxy refused it. */
static bool
apply(struct proxyd *d, struct proxy_table *t, int64_t agen)
{
	int64_t pgen = proxy_set_table(d->proxy, t);

	if (pgen < 0) {
		log_warn("proxy: a table refused: %s", strerror((int)-pgen));
		proxy_wire_table_free(t);
		return false;
	}
	log_table(d, t, agen);
	note_departed(d, d->table, t);
	proxy_wire_table_free(d->table);
	d->table = t;
	d->table_pgen = pgen;
	d->table_agen = agen;
	d->table_ours = true;
	report(d, true);
	return true;
}

static void
on_hold_end(uv_timer_t *h)
{
	struct proxyd *d = h->data;
	struct proxy_table *t = d->held;

	if (t == NULL)
		return;
	d->held = NULL;
	log_warn("proxy: table %lld applied after a hold of %llu ms: the "
		 "agent's view still has a Service without a ready endpoint",
		 (long long)d->held_agen, (unsigned long long)d->hold_ms);
	apply(d, t, d->held_agen);
}

/* A table of the agent connected: applied, or held (the hold, above). */
static void
take_table(struct proxyd *d, struct proxy_table *t, int64_t agen)
{
	uint64_t now = uv_now(d->loop);

	if (!d->table_ours && d->table && starves(d->table, t)) {
		if (d->hold_until == 0) {
			d->hold_until = now + d->hold_ms;
			log_warn("proxy: table %lld (a new agent's) leaves a "
				 "Service without the ready endpoints it has "
				 "now: held, the table in force kept for up "
				 "to %llu ms",
				 (long long)agen,
				 (unsigned long long)d->hold_ms);
		}
		if (now < d->hold_until) {
			proxy_wire_table_free(d->held);
			d->held = t;
			d->held_agen = agen;
			uv_timer_start(&d->hold, on_hold_end,
				       d->hold_until - now, 0);
			return;
		}
	}
	if (d->held)
		log_info("proxy: table %lld ends the hold of table %lld",
			 (long long)agen, (long long)d->held_agen);
	drop_held(d);
	apply(d, t, agen);
}

static void
handle_line(struct proxyd *d, const char *line, size_t n)
{
	json_error_t err;
	json_t *msg = json_loadb(line, n, 0, &err);
	const char *op = json_string_value(json_object_get(msg, "op"));
	struct proxy_table *t;
	const char *why = NULL;
	int64_t agen;

	if (op && !strcmp(op, "table")) {
		if (proxy_wire_parse_table(msg, &agen, &t, &why))
			log_warn("proxy: a table refused: %s", why);
		else
			take_table(d, t, agen);
	} else if (op && !strcmp(op, "exit")) {
		log_info("proxy: no Service left: exiting");
		stop_all(d);
	} else {
		log_warn("proxy: a control message not understood");
	}
	json_decref(msg);
}

static void
on_client_closed(uv_handle_t *h)
{
	free(h);
}

static void
close_client(struct proxyd *d)
{
	if (d->client == NULL)
		return;
	uv_close((uv_handle_t *)d->client, on_client_closed);
	d->client = NULL;
	strbuf_reset(&d->in);
	drop_held(d); /* the next agent sends its own */
	d->hold_until = 0;
}

static void
on_alloc(uv_handle_t *h, size_t size, uv_buf_t *b)
{
	(void)h;
	b->base = xmalloc(size);
	b->len = size;
}

/* One control line; false once the client is gone (handle_line may
 * end it: "exit"). */
static bool
take_line(void *arg, const char *line, size_t n)
{
	struct proxyd *d = arg;

	handle_line(d, line, n);
	return d->client != NULL;
}

static void
on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct proxyd *d = s->data;

	if (n < 0 || (uv_pipe_t *)s != d->client) {
		free(b->base);
		if (n < 0 && (uv_pipe_t *)s == d->client)
			close_client(d); /* the agent went: keep serving */
		return;
	}
	proxy_wire_feed(&d->in, b->base, (size_t)n, take_line, d);
	free(b->base);
	if (d->client && d->in.len > MAX_LINE)
		close_client(d);
}

static void
on_connection(uv_stream_t *l, int status)
{
	struct proxyd *d = l->data;
	uv_pipe_t *c;

	if (status < 0 || d->stopping)
		return;
	c = xmalloc(sizeof(*c));
	uv_pipe_init(d->loop, c, 0);
	if (uv_accept(l, (uv_stream_t *)c) < 0) {
		uv_close((uv_handle_t *)c, on_client_closed);
		return;
	}
	close_client(d); /* a new agent replaces the old one */
	log_info("proxy: an agent connected");
	d->table_ours = false;
	d->client = c;
	c->data = d;
	free(d->last_sent);
	d->last_sent = NULL;
	uv_read_start((uv_stream_t *)c, on_alloc, on_read);
}

static void
stop_all(struct proxyd *d)
{
	if (d->stopping)
		return;
	d->stopping = true;
	close_client(d);
	uv_close((uv_handle_t *)&d->listener, NULL);
	uv_close((uv_handle_t *)&d->wake, NULL);
	uv_close((uv_handle_t *)&d->sigterm, NULL);
	uv_close((uv_handle_t *)&d->sigint, NULL);
	uv_close((uv_handle_t *)&d->metrics, NULL);
	uv_close((uv_handle_t *)&d->hold, NULL);
}

static void
on_signal(uv_signal_t *s, int sig)
{
	log_info("proxy: signal %d: exiting", sig);
	stop_all(s->data);
}

/* Takes PATH.lock for the process's life: -1 when another proxy holds
 * it (or it cannot be made). */
static int
take_lock(const char *sock)
{
	struct strbuf p;
	int fd;

	strbuf_init(&p);
	strbuf_addf(&p, "%s.lock", sock);
	fd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	strbuf_release(&p);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd; /* kept open: the lock lasts as long as the process */
}

int
proxyd_main(int argc, char **argv)
{
	struct proxyd d = {0};
	struct proxy_config cfg = {0};
	const char *sock = NULL;
	int i, r, lock;

	d.hold_ms = HOLD_MS;
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--socket") && i + 1 < argc)
			sock = argv[++i];
		else if (!strcmp(argv[i], "--hold-ms") && i + 1 < argc)
			d.hold_ms = strtoull(argv[++i], NULL, 10);
	if (sock == NULL) {
		fprintf(stderr,
			"usage: drover %s --socket PATH [--hold-ms MS]\n",
			PROXYD_VERB);
		return 2;
	}
	/* Nothing the daemon's own parent left open stays held for the
	 * proxy's long life (a pipe of a shell, a terminal). */
	closefrom(3);
	if ((lock = take_lock(sock)) < 0) {
		log_info("proxy: %s is served by another proxy process", sock);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	d.loop = uv_default_loop();
	strbuf_init(&d.in);
	uv_pipe_init(d.loop, &d.listener, 0);
	d.listener.data = &d;
	unlink(sock);
	if ((r = uv_pipe_bind(&d.listener, sock)) < 0 ||
	    chmod(sock, 0600) < 0 ||
	    (r = uv_listen((uv_stream_t *)&d.listener, 8, on_connection)) < 0) {
		log_error("proxy: cannot listen on %s: %s", sock,
			  r < 0 ? uv_strerror(r) : strerror(errno));
		close(lock);
		return 1;
	}
	uv_async_init(d.loop, &d.wake, on_wake);
	d.wake.data = &d;
	uv_signal_init(d.loop, &d.sigterm);
	uv_signal_init(d.loop, &d.sigint);
	d.sigterm.data = d.sigint.data = &d;
	uv_signal_start(&d.sigterm, on_signal, SIGTERM);
	uv_signal_start(&d.sigint, on_signal, SIGINT);
	uv_timer_init(d.loop, &d.metrics);
	d.metrics.data = &d;
	uv_timer_start(&d.metrics, on_metrics, METRICS_MS, METRICS_MS);
	uv_timer_init(d.loop, &d.hold);
	d.hold.data = &d;
	cfg.on_idle = on_idle;
	cfg.on_applied = on_applied;
	cfg.on_listen = on_listen;
	cfg.arg = &d;
	d.proxy = proxy_start(&cfg);
	if (d.proxy == NULL) {
		log_error("proxy: cannot start its thread");
		stop_all(&d);
		uv_run(d.loop, UV_RUN_DEFAULT);
		close(lock);
		return 1;
	}
	log_info("proxy: serving, control socket %s (pid %d)", sock,
		 (int)getpid());
	uv_run(d.loop, UV_RUN_DEFAULT);
	/* The thread's callbacks wake d.wake: stop it before d goes. */
	proxy_stop(d.proxy);
	unlink(sock);
	proxy_wire_table_free(d.table);
	proxy_wire_table_free(d.held);
	while (d.departed) {
		struct departed *x = d.departed;

		d.departed = x->next;
		free(x->service);
		free(x->key);
		free(x);
	}
	free(d.last_sent);
	strbuf_release(&d.in);
	uv_loop_close(d.loop);
	close(lock);
	return 0;
}
