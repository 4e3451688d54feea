/* wire.c - the agent <-> proxy process control messages (wire.h). */
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "xalloc.h"

static const char *const mode_names[] = {"tcp", "http"};
static const char *const balance_names[] = {"round-robin", "least-conn"};
static const char *const state_names[] = {"ready", "draining", "gone"};

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

static int
name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

const char *
proxy_wire_mode_name(enum proxy_mode m)
{
	return (size_t)m < NAMES(mode_names) ? mode_names[m] : "tcp";
}

const char *
proxy_wire_balance_name(enum proxy_balance b)
{
	return (size_t)b < NAMES(balance_names) ? balance_names[b]
						: "round-robin";
}

const char *
proxy_wire_state_name(enum proxy_ep_state s)
{
	return (size_t)s < NAMES(state_names) ? state_names[s] : "gone";
}

int
proxy_wire_mode(const char *s)
{
	return name_index(mode_names, NAMES(mode_names), s);
}

int
proxy_wire_balance(const char *s)
{
	return name_index(balance_names, NAMES(balance_names), s);
}

int
proxy_wire_state(const char *s)
{
	return name_index(state_names, NAMES(state_names), s);
}

json_t *
proxy_wire_table(int64_t gen, const struct proxy_table *t)
{
	json_t *svcs = json_array();
	size_t i, j;

	for (i = 0; i < t->n_services; i++) {
		const struct proxy_service *s = &t->services[i];
		json_t *eps = json_array();

		for (j = 0; j < s->n_endpoints; j++) {
			const struct proxy_endpoint *e = &s->endpoints[j];

			json_array_append_new(
			    eps, json_pack(
				     "{ss si ss ss ss}", "address", e->address,
				     "port", e->port, "key", e->key, "revision",
				     e->revision ? e->revision : "", "state",
				     proxy_wire_state_name(e->state)));
		}
		json_array_append_new(
		    svcs,
		    json_pack(
			"{ss ss si ss ss sI sI so}", "name", s->name, "address",
			s->address, "port", s->port, "mode",
			proxy_wire_mode_name(s->mode), "balance",
			proxy_wire_balance_name(s->balance), "idleTimeoutMs",
			(json_int_t)s->idle_timeout_ms, "connectTimeoutMs",
			(json_int_t)s->connect_timeout_ms, "endpoints", eps));
	}
	return json_pack("{ss sI so}", "op", "table", "gen", (json_int_t)gen,
			 "services", svcs);
}

void
proxy_wire_table_free(struct proxy_table *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->n_services; i++) {
		struct proxy_service *s =
		    (struct proxy_service *)&t->services[i];

		for (j = 0; j < s->n_endpoints; j++) {
			struct proxy_endpoint *e =
			    (struct proxy_endpoint *)&s->endpoints[j];

			free((char *)e->address);
			free((char *)e->key);
			free((char *)e->revision);
		}
		free((void *)s->endpoints);
		free((char *)s->name);
		free((char *)s->address);
	}
	free((void *)t->services);
	free(t);
}

/* A non-negative integer member no larger than max; def when absent. */
static int
uint_member(const json_t *o, const char *name, long long max, long long def,
	    long long *out)
{
	const json_t *v = json_object_get(o, name);

	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > max)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

static int
parse_endpoint(const json_t *o, struct proxy_endpoint *e, const char **why)
{
	const char *addr = json_string_value(json_object_get(o, "address"));
	const char *key = json_string_value(json_object_get(o, "key"));
	const char *rev = json_string_value(json_object_get(o, "revision"));
	const char *state = json_string_value(json_object_get(o, "state"));
	long long port;
	int st = proxy_wire_state(state ? state : "ready");

	if (addr == NULL || key == NULL) {
		*why = "an endpoint needs an address and a key";
		return -1;
	}
	if (uint_member(o, "port", 65535, -1, &port) || port < 1) {
		*why = "an endpoint's port must be 1-65535";
		return -1;
	}
	if (st < 0) {
		*why = "an endpoint's state is ready, draining or gone";
		return -1;
	}
	e->address = xstrdup(addr);
	e->key = xstrdup(key);
	e->revision = xstrdup(rev ? rev : "");
	e->port = (int)port;
	e->state = (enum proxy_ep_state)st;
	return 0;
}

static int
parse_service(const json_t *o, struct proxy_service *s, const char **why)
{
	const char *name = json_string_value(json_object_get(o, "name"));
	const char *addr = json_string_value(json_object_get(o, "address"));
	const char *mode = json_string_value(json_object_get(o, "mode"));
	const char *bal = json_string_value(json_object_get(o, "balance"));
	const json_t *eps = json_object_get(o, "endpoints");
	int m = proxy_wire_mode(mode ? mode : "tcp");
	int b = proxy_wire_balance(bal ? bal : "round-robin");
	long long port, idle, conn;
	size_t i;

	if (name == NULL || addr == NULL) {
		*why = "a service needs a name and an address";
		return -1;
	}
	if (uint_member(o, "port", 65535, -1, &port) || port < 1) {
		*why = "a service's port must be 1-65535";
		return -1;
	}
	if (m < 0 || b < 0) {
		*why = "a service's mode is tcp or http, its balance "
		       "round-robin or least-conn";
		return -1;
	}
	if (uint_member(o, "idleTimeoutMs", 86400000, 0, &idle) ||
	    uint_member(o, "connectTimeoutMs", 86400000, 0, &conn)) {
		*why = "a service's timeouts must be 0-86400000 ms";
		return -1;
	}
	if (eps && !json_is_array(eps)) {
		*why = "a service's endpoints must be a list";
		return -1;
	}
	s->name = xstrdup(name);
	s->address = xstrdup(addr);
	s->port = (int)port;
	s->mode = (enum proxy_mode)m;
	s->balance = (enum proxy_balance)b;
	s->idle_timeout_ms = (unsigned)idle;
	s->connect_timeout_ms = (unsigned)conn;
	s->endpoints = xcalloc(json_array_size(eps) + 1, sizeof(*s->endpoints));
	for (i = 0; i < json_array_size(eps); i++) {
		if (parse_endpoint(json_array_get(eps, i),
				   (struct proxy_endpoint *)&s->endpoints[i],
				   why))
			return -1;
		s->n_endpoints++;
	}
	return 0;
}

int
proxy_wire_parse_table(const json_t *msg, int64_t *gen,
		       struct proxy_table **out, const char **why)
{
	const json_t *svcs = json_object_get(msg, "services");
	const json_t *g = json_object_get(msg, "gen");
	struct proxy_table *t;
	size_t i;

	*out = NULL;
	if (!json_is_integer(g) || json_integer_value(g) < 0) {
		*why = "a table needs a generation";
		return -1;
	}
	if (svcs && !json_is_array(svcs)) {
		*why = "a table's services must be a list";
		return -1;
	}
	t = xcalloc(1, sizeof(*t));
	t->services = xcalloc(json_array_size(svcs) + 1, sizeof(*t->services));
	for (i = 0; i < json_array_size(svcs); i++) {
		int r =
		    parse_service(json_array_get(svcs, i),
				  (struct proxy_service *)&t->services[i], why);

		t->n_services++; /* freed with the rest, whole or not */
		if (r) {
			proxy_wire_table_free(t);
			return -1;
		}
	}
	*gen = t->generation = json_integer_value(g);
	*out = t;
	return 0;
}

static void
on_sent(uv_write_t *w, int status)
{
	(void)status;
	free(w->data);
	free(w);
}

int
proxy_wire_send(uv_stream_t *s, const char *text)
{
	size_t n = strlen(text);
	uv_write_t *w = xmalloc(sizeof(*w));
	char *copy = xmalloc(n + 1);
	uv_buf_t b;
	int r;

	memcpy(copy, text, n);
	copy[n] = '\n';
	b = uv_buf_init(copy, (unsigned)n + 1);
	w->data = copy;
	if ((r = uv_write(w, s, &b, 1, on_sent)) < 0) {
		free(copy);
		free(w);
	}
	return r;
}

void
proxy_wire_feed(struct strbuf *in, const char *data, size_t n,
		proxy_wire_line_fn fn, void *arg)
{
	size_t i, start = 0;

	strbuf_add(in, data, n);
	for (i = 0; i < in->len; i++) {
		if (in->buf[i] != '\n')
			continue;
		if (!fn(arg, in->buf + start, i - start))
			return; /* the reader is gone (and in with it) */
		start = i + 1;
	}
	if (start) {
		memmove(in->buf, in->buf + start, in->len - start);
		in->len -= start;
		in->buf[in->len] = '\0';
	}
}
