/* table.c - the proxy's routing table: copying a caller's table, applying
 * it on the loop (services by name, endpoints by key, so that an update
 * never touches an established connection), choosing an endpoint
 * (round-robin or least-connections over the ready ones), and the
 * reference counts that keep a removed service or endpoint alive until
 * its last connection ends and report a drained endpoint idle. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pstate.h"

#define DEFAULT_IDLE_MS    300000u
#define DEFAULT_CONNECT_MS 1000u

int
px_parse_addr(const char *addr, int port, struct sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	if (addr == NULL || port < 0 || port > 65535)
		return -EINVAL;
	if (uv_ip4_addr(addr, port, (struct sockaddr_in *)out) == 0)
		return 0;
	if (uv_ip6_addr(addr, port, (struct sockaddr_in6 *)out) == 0)
		return 0;
	return -EINVAL;
}

static char *
dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

void
px_free_copy(struct tcopy *c)
{
	size_t i, j;

	if (c == NULL)
		return;
	for (i = 0; i < c->t.n_services; i++) {
		struct proxy_service *s =
		    (struct proxy_service *)&c->t.services[i];

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
		if (c->ep_sa)
			free(c->ep_sa[i]);
	}
	free((void *)c->t.services);
	free(c->svc_sa);
	free(c->ep_sa);
	free(c);
}

/* Copies t with every string, and checks it: addresses are IP literals,
 * ports in range, names and keys unique (a linear check per service: the
 * tables are small, and a duplicate would make a key ambiguous). */
struct tcopy *
px_copy_table(const struct proxy_table *t, int *err)
{
	struct tcopy *c = calloc(1, sizeof(*c));
	struct proxy_service *svcs;
	size_t i, j, k, n = t->n_services;

	*err = -ENOMEM;
	if (c == NULL)
		return NULL;
	svcs = calloc(n ? n : 1, sizeof(*svcs));
	c->svc_sa = calloc(n ? n : 1, sizeof(*c->svc_sa));
	c->ep_sa = calloc(n ? n : 1, sizeof(*c->ep_sa));
	c->t.services = svcs;
	c->t.generation = t->generation;
	if (svcs == NULL || c->svc_sa == NULL || c->ep_sa == NULL)
		goto fail;
	c->t.n_services = n;
	for (i = 0; i < n; i++) {
		const struct proxy_service *in = &t->services[i];
		struct proxy_service *s = &svcs[i];
		struct proxy_endpoint *eps;
		size_t m = in->n_endpoints;

		*s = *in;
		s->name = dup_or_empty(in->name);
		s->address = dup_or_empty(in->address);
		s->endpoints = eps = calloc(m ? m : 1, sizeof(*eps));
		s->n_endpoints = 0;
		c->ep_sa[i] = calloc(m ? m : 1, sizeof(**c->ep_sa));
		if (!s->name || !s->address || !eps || !c->ep_sa[i])
			goto fail;
		for (j = 0; j < m; j++) {
			eps[j] = in->endpoints[j];
			eps[j].address = dup_or_empty(in->endpoints[j].address);
			eps[j].key = dup_or_empty(in->endpoints[j].key);
			eps[j].revision =
			    dup_or_empty(in->endpoints[j].revision);
			s->n_endpoints = j + 1;
			if (!eps[j].address || !eps[j].key || !eps[j].revision)
				goto fail;
		}
		*err = -EINVAL;
		if (in->name == NULL || *in->name == '\0' ||
		    px_parse_addr(s->address, s->port, &c->svc_sa[i]) < 0)
			goto fail;
		for (k = 0; k < i; k++)
			if (strcmp(svcs[k].name, s->name) == 0)
				goto fail;
		for (j = 0; j < m; j++) {
			if (*eps[j].key == '\0' || eps[j].port < 1 ||
			    px_parse_addr(eps[j].address, eps[j].port,
					  &c->ep_sa[i][j]) < 0)
				goto fail;
			for (k = 0; k < j; k++)
				if (strcmp(eps[k].key, eps[j].key) == 0)
					goto fail;
		}
		*err = -ENOMEM;
	}
	*err = 0;
	return c;
fail:
	px_free_copy(c);
	return NULL;
}

static struct prev *
rev_get(struct psvc *s, const char *name)
{
	struct prev *r;

	for (r = s->revs; r; r = r->next)
		if (strcmp(r->name, name) == 0)
			return r;
	r = calloc(1, sizeof(*r));
	if (r == NULL || (r->name = strdup(name)) == NULL) {
		free(r);
		return NULL;
	}
	r->next = s->revs;
	s->revs = r;
	return r;
}

static void
ep_free(struct pep *e)
{
	free(e->key);
	free(e->address);
	free(e);
}

/* Tells the caller, once, that an endpoint no longer ready has no
 * connection left. */
static void
ep_maybe_idle(struct pep *e)
{
	struct proxy *p = e->svc->p;

	if (e->refs > 0 || e->idle_told ||
	    (e->state == PROXY_EP_READY && !e->removed))
		return;
	e->idle_told = true;
	if (p->on_idle && !p->stopped)
		p->on_idle(p->arg, e->svc->name, e->key);
}

void
px_ep_ref(struct pep *e)
{
	e->refs++;
	CNT_ADD(e->active, 1);
	CNT_ADD(e->total, 1);
}

void
px_ep_unref(struct pep *e)
{
	e->refs--;
	CNT_SUB(e->active, 1);
	ep_maybe_idle(e);
	if (e->refs == 0 && e->removed)
		ep_free(e);
}

static void
svc_free(struct psvc *s)
{
	struct prev *r, *next;
	size_t i;

	for (i = 0; i < s->n_eps; i++)
		ep_free(s->eps[i]);
	free(s->eps);
	for (r = s->revs; r; r = next) {
		next = r->next;
		free(r->name);
		free(r);
	}
	free(s->name);
	free(s->address);
	free(s);
}

void
px_svc_ref(struct psvc *s)
{
	s->refs++;
}

void
px_svc_unref(struct psvc *s)
{
	if (--s->refs == 0 && s->removed)
		svc_free(s);
}

static void
on_listener_closed(uv_handle_t *h)
{
	struct psvc *s = h->data;

	free(h);
	px_svc_unref(s);
}

static void
on_accept(uv_stream_t *server, int status)
{
	struct psvc *s = server->data;

	if (status < 0)
		return;
	if (s->mode == PROXY_HTTP)
		px_http_accept(s);
	else
		px_tcp_accept(s);
}

static void on_relisten(uv_timer_t *t);

/* Arms the relisten timer for the earliest listener due. */
static void
arm_relisten(struct proxy *p)
{
	struct psvc *s, *tmp;
	uint64_t at = 0, now = uv_now(&p->loop);

	HASH_ITER(hh, p->svcs, s, tmp)
	{
		if (!s->listening && s->retry_ms &&
		    (at == 0 || s->retry_at < at))
			at = s->retry_at;
	}
	if (at == 0)
		uv_timer_stop(&p->relisten);
	else
		uv_timer_start(&p->relisten, on_relisten,
			       at > now ? at - now : 0, 0);
}

/* The outcome of a listen: the state is kept (and told when it
 * changed); a failure is tried again after the back-off. */
static void
listen_outcome(struct psvc *s, int rc)
{
	struct proxy *p = s->p;
	int was = atomic_exchange(&s->listen_error, rc);

	if (rc == 0) {
		s->retry_ms = 0;
	} else {
		s->retry_ms =
		    s->retry_ms ? s->retry_ms * 2 : PROXY_RELISTEN_MIN_MS;
		if (s->retry_ms > PROXY_RELISTEN_MAX_MS)
			s->retry_ms = PROXY_RELISTEN_MAX_MS;
		s->retry_at = uv_now(&p->loop) + s->retry_ms;
	}
	if (was != rc || !s->seen_listen) {
		if (rc)
			log_warn("proxy: %s: cannot listen on %s:%d: %s (again "
				 "in %u ms, up to every %d ms)",
				 s->name, s->address, s->port, uv_strerror(rc),
				 s->retry_ms, PROXY_RELISTEN_MAX_MS);
		else if (was)
			log_info("proxy: %s: listening on %s:%d", s->name,
				 s->address, s->port);
		s->tell_listen = true; /* by tell_listen(), unlocked */
	}
	s->seen_listen = true;
}

/* Tells the caller of the listeners whose state changed (p->mu not
 * held: the callback may read the counters). */
static void
tell_listen(struct proxy *p)
{
	struct psvc *s, *tmp;

	HASH_ITER(hh, p->svcs, s, tmp)
	{
		if (!s->tell_listen)
			continue;
		s->tell_listen = false;
		if (p->on_listen && !p->stopped)
			p->on_listen(p->arg, s->name,
				     atomic_load(&s->listen_error));
	}
}

static void
svc_listen(struct psvc *s)
{
	uv_tcp_t *l = malloc(sizeof(*l));
	int rc;

	if (l == NULL) {
		listen_outcome(s, UV_ENOMEM);
		return;
	}
	uv_tcp_init(&s->p->loop, l);
	l->data = s;
	px_svc_ref(s);
	rc = uv_tcp_bind(l, (struct sockaddr *)&s->sa, 0);
	if (rc == 0)
		rc = uv_listen((uv_stream_t *)l, 1024, on_accept);
	if (rc == 0) {
		s->listener = l;
		s->listening = true;
	} else {
		uv_close((uv_handle_t *)l, on_listener_closed);
	}
	listen_outcome(s, rc);
}

/* The listeners due for another try (the relisten timer). */
static void
on_relisten(uv_timer_t *t)
{
	struct proxy *p = t->data;
	struct psvc *s, *tmp;
	uint64_t now = uv_now(&p->loop);

	if (p->stopped)
		return;
	HASH_ITER(hh, p->svcs, s, tmp)
	{
		if (!s->listening && s->retry_ms && s->retry_at <= now)
			svc_listen(s);
	}
	arm_relisten(p);
	tell_listen(p);
}

void
px_no_endpoint(struct psvc *s)
{
	struct proxy *p = s->p;
	uint64_t now = uv_now(&p->loop);
	size_t i, ready = 0;

	s->unlogged++;
	if (s->logged_gen == p->generation && s->logged_at &&
	    now - s->logged_at < 1000)
		return;
	for (i = 0; i < s->n_eps; i++)
		ready += s->eps[i]->state == PROXY_EP_READY;
	log_warn("proxy: %s: %llu %s no endpoint could take (table %lld: %zu "
		 "endpoints, %zu ready)",
		 s->name, (unsigned long long)s->unlogged,
		 s->mode == PROXY_HTTP ? "request(s) answered 503 that"
				       : "connection(s) closed that",
		 (long long)p->generation, s->n_eps, ready);
	s->unlogged = 0;
	s->logged_at = now;
	s->logged_gen = p->generation;
}

static void
svc_unlisten(struct psvc *s)
{
	if (!s->listening)
		return;
	s->listening = false;
	uv_close((uv_handle_t *)s->listener, on_listener_closed);
	s->listener = NULL;
}

/* Takes an endpoint off its service (p->mu held by the caller). */
static void
ep_remove(struct pep *e)
{
	e->removed = true;
	HASH_DEL(e->svc->by_key, e);
}

/* Ends what waits on an endpoint that is no longer ready: its idle pooled
 * connections, and, if none is left, reports it idle (then frees it if
 * it was removed). Called after p->mu is released: the idle callback
 * runs without the lock. */
static void
ep_settle(struct pep *e)
{
	px_http_drop_pool(e);
	if (e->refs == 0) {
		ep_maybe_idle(e);
		if (e->removed)
			ep_free(e);
	}
}

static int
apply_endpoints(struct psvc *s, const struct proxy_service *in,
		struct sockaddr_storage *sa, struct pep ***settle,
		size_t *n_settle)
{
	struct pep **eps =
	    calloc(in->n_endpoints ? in->n_endpoints : 1, sizeof(*eps));
	size_t i, n = 0;
	struct pep *e, *tmp;

	if (eps == NULL)
		return -ENOMEM;
	for (i = 0; i < in->n_endpoints; i++) {
		const struct proxy_endpoint *ie = &in->endpoints[i];

		HASH_FIND_STR(s->by_key, ie->key, e);
		if (e == NULL) {
			e = calloc(1, sizeof(*e));
			if (e == NULL || (e->key = strdup(ie->key)) == NULL) {
				free(e);
				continue;
			}
			e->svc = s;
			e->state = PROXY_EP_GONE; /* told nothing yet */
			HASH_ADD_KEYPTR(hh, s->by_key, e->key, strlen(e->key),
					e);
		}
		if (e->address == NULL || strcmp(e->address, ie->address)) {
			char *a = strdup(ie->address);

			if (a) {
				free(e->address);
				e->address = a;
			}
		}
		e->port = ie->port;
		e->sa = sa[i];
		e->rev = rev_get(s, ie->revision);
		if (ie->state == PROXY_EP_READY)
			e->idle_told = false;
		e->state = ie->state;
		eps[n++] = e;
	}
	/* Endpoints left out: off the hash now (the new array is the
	 * table), freed when idle. The ones kept stay in the hash. */
	for (i = 0; i < n; i++)
		HASH_DEL(s->by_key, eps[i]);
	HASH_ITER(hh, s->by_key, e, tmp)
	{
		ep_remove(e);
		(*settle)[(*n_settle)++] = e;
	}
	for (i = 0; i < n; i++) {
		HASH_ADD_KEYPTR(hh, s->by_key, eps[i]->key, strlen(eps[i]->key),
				eps[i]);
		if (eps[i]->state != PROXY_EP_READY)
			(*settle)[(*n_settle)++] = eps[i];
	}
	free(s->eps);
	s->eps = eps;
	s->n_eps = n;
	return 0;
}

static size_t
count_eps(struct proxy *p, const struct tcopy *t)
{
	struct psvc *s, *tmp;
	size_t n = 0, i;

	HASH_ITER(hh, p->svcs, s, tmp)
	n += s->n_eps;
	for (i = 0; i < t->t.n_services; i++)
		n += t->t.services[i].n_endpoints;
	return n;
}

static void
svc_remove(struct psvc *s, struct pep ***settle, size_t *n_settle)
{
	size_t i;

	HASH_DEL(s->p->svcs, s);
	s->removed = true;
	for (i = 0; i < s->n_eps; i++) {
		ep_remove(s->eps[i]);
		(*settle)[(*n_settle)++] = s->eps[i];
	}
	s->n_eps = 0;
	px_svc_ref(s); /* until the settling below is done */
	svc_unlisten(s);
}

void
px_apply(struct proxy *p, struct tcopy *t)
{
	struct pep **settle = calloc(count_eps(p, t) + 1, sizeof(*settle));
	struct psvc **gone = NULL, *s, *tmp;
	size_t i, n_settle = 0, n_gone = 0, n_svcs = HASH_COUNT(p->svcs);
	uint64_t seq = ++p->applies;

	gone = calloc(n_svcs + 1, sizeof(*gone));
	if (settle == NULL || gone == NULL)
		goto out; /* out of memory: the old table stays */
	uv_mutex_lock(&p->mu);
	for (i = 0; i < t->t.n_services; i++) {
		const struct proxy_service *in = &t->t.services[i];
		bool relisten = false;

		HASH_FIND_STR(p->svcs, in->name, s);
		if (s && memcmp(&s->sa, &t->svc_sa[i], sizeof(s->sa)) != 0) {
			svc_unlisten(s);
			relisten = true;
		}
		if (s == NULL) {
			s = calloc(1, sizeof(*s));
			if (s == NULL || (s->name = strdup(in->name)) == NULL) {
				free(s);
				continue;
			}
			s->p = p;
			HASH_ADD_KEYPTR(hh, p->svcs, s->name, strlen(s->name),
					s);
			relisten = true;
		}
		s->seen = seq;
		free(s->address);
		s->address = strdup(in->address);
		s->port = in->port;
		s->sa = t->svc_sa[i];
		s->mode = in->mode;
		s->balance = in->balance;
		s->idle_ms =
		    in->idle_timeout_ms ? in->idle_timeout_ms : DEFAULT_IDLE_MS;
		s->connect_ms = in->connect_timeout_ms ? in->connect_timeout_ms
						       : DEFAULT_CONNECT_MS;
		apply_endpoints(s, in, t->ep_sa[i], &settle, &n_settle);
		/* A port that could not be bound is tried again. */
		if (relisten || !s->listening)
			svc_listen(s);
	}
	HASH_ITER(hh, p->svcs, s, tmp)
	{
		if (s->seen != seq) {
			svc_remove(s, &settle, &n_settle);
			gone[n_gone++] = s;
		}
	}
	p->generation = t->t.generation;
	uv_mutex_unlock(&p->mu);
	arm_relisten(p);
	tell_listen(p);
	for (i = 0; i < n_settle; i++)
		ep_settle(settle[i]);
	if (n_gone > 0) {
		struct plink *l, *next;

		for (l = p->conns.next; l != &p->conns; l = next) {
			next = l->next;
			if (l->svc_gone && l->svc && l->svc->removed)
				l->svc_gone(l);
		}
	}
	for (i = 0; i < n_gone; i++)
		px_svc_unref(gone[i]);
	atomic_store(&p->applied, t->gen);
	if (p->on_applied && !p->stopped)
		p->on_applied(p->arg, t->gen);
out:
	free(settle);
	free(gone);
}

void
px_remove_all(struct proxy *p)
{
	struct tcopy empty = {.gen = atomic_load(&p->applied)};

	px_apply(p, &empty);
}

static bool
tried(struct pep *e, struct pep *const *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i] == e)
			return true;
	return false;
}

static unsigned
load(const struct psvc *s, const struct pep *e)
{
	return s->mode == PROXY_HTTP ? e->busy : e->refs;
}

/* Round-robin: the next ready endpoint after the last one chosen.
 * Least-connections: the ready endpoint with the fewest open connections,
 * the round-robin order breaking ties (haproxy's leastconn). Endpoints
 * already tried for this connection or request are skipped. */
struct pep *
px_pick(struct psvc *s, struct pep *const *t, int nt)
{
	struct pep *best = NULL;
	size_t i, n = s->n_eps, start;

	if (n == 0)
		return NULL;
	start = s->rr++ % n;
	for (i = 0; i < n; i++) {
		struct pep *e = s->eps[(start + i) % n];

		if (e->state != PROXY_EP_READY || tried(e, t, nt))
			continue;
		if (s->balance == PROXY_ROUND_ROBIN)
			return e;
		/* HTTP mode: pooled idle connections do not count */
		if (best == NULL || load(s, e) < load(s, best))
			best = e;
	}
	return best;
}
