/* services.c - Services on this node: the proxy table, the proxy
 * process, and this node's part of the drain handshake (services.h,
 * core/drain.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "drain.h"
#include "informer.h"
#include "kube.h"
#include "labels.h"
#include "log.h"
#include "object.h"
#include "proxy.h"
#include "services.h"
#include "strbuf.h"
#include "wire.h"
#include "xalloc.h"

/* Tables sent whose slice resourceVersion is remembered: a busy message
 * names the generation of the table applied, at most this far back. */
#define GENS 64

/* Connecting to the proxy process: every RETRY_MS while it starts. */
#define RETRY_MS 20

/* The annotation naming the balance (services.h). */
#define BALANCE_ANNOTATION "proxy.drover.io/balance"

/* A terminating pod of this node found out of rotation: since when. */
struct left {
	char *uid;
	int64_t since_rv;
	UT_hash_handle hh;
};

struct agent_services {
	struct agent_services_config cfg;
	struct informer *svcs, *slices, *nodes;
	uv_check_t rebuild; /* once a loop turn, after events */
	bool dirty;
	int64_t highwater; /* the highest slice resourceVersion seen */
	int64_t gen;       /* of the last table sent */
	struct {
		int64_t gen, rv;
	} sent[GENS];
	char *table_text; /* the last table's services, without gen */
	int64_t table_rv; /* and the highwater it was sent at */
	char *table_msg;  /* the last table message, resent on reconnect */
	bool want_proxy;  /* some Service exists */
	/* The proxy process and the connection to it. */
	uv_pipe_t *conn;
	bool connecting, connected;
	uv_timer_t retry;
	uv_process_t *proc; /* the one this agent started, while it runs */
	unsigned tries;
	struct strbuf in;
	char *published; /* the annotation this node has now, as written */
	char *metrics;   /* the proxy's counters, as it last sent them */
	/* Its listeners' state, by name ("listening" or the error), as the
	 * proxy last said it, and as this node's annotation has it. */
	json_t *listeners;
	char *listeners_published;
	bool listeners_known; /* listeners_published read or written */
	struct left *left;
	int closing;
};

static int64_t
rv_of(const struct object *o)
{
	const char *rv = object_meta(o)->resource_version;

	return rv ? strtoll(rv, NULL, 10) : 0;
}

/* ---- the table ---- */

static const char *
balance_of(const struct service *svc)
{
	const char *b =
	    strmap_get(&svc->metadata.annotations, BALANCE_ANNOTATION);

	return b && !strcmp(b, "least-conn") ? "least-conn" : "round-robin";
}

static bool
same_name(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* A key already in a service's endpoints (the proxy refuses a table
 * that names one twice). */
struct seen {
	UT_hash_handle hh;
	char key[];
};

/* Adds key to *set: false if it was there already. */
static bool
first_time(struct seen **set, const char *key)
{
	struct seen *x;
	size_t n = strlen(key);

	HASH_FIND(hh, *set, key, n, x);
	if (x)
		return false;
	x = xmalloc(sizeof(*x) + n + 1);
	memcpy(x->key, key, n + 1);
	HASH_ADD_KEYPTR(hh, *set, x->key, n, x);
	return true;
}

static void
seen_free(struct seen **set)
{
	struct seen *x, *tmp;

	HASH_ITER(hh, *set, x, tmp)
	{
		HASH_DEL(*set, x);
		free(x);
	}
}

/* The endpoints of Service port sp, from the slices of svc, into eps:
 * ready ones take new work, the others only finish theirs. */
static void
add_endpoints(struct agent_services *s, const struct service *svc,
	      const struct service_port *sp, json_t *eps)
{
	struct object **l;
	size_t n = informer_dependents(s->slices, svc->metadata.uid,
				       svc->metadata.namespace, &l);
	struct seen *seen = NULL;
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct endpoint_slice *sl = l[i]->obj;
		int64_t port = 0;

		for (j = 0; j < sl->ports.n; j++)
			if (same_name(sl->ports.v[j].name, sp->name))
				port = sl->ports.v[j].port;
		if (port < 1 || port > 65535)
			continue;
		for (j = 0; j < sl->endpoints.n; j++) {
			const struct endpoint *e = &sl->endpoints.v[j];
			const struct object_ref *t = e->target_ref;
			const char *rev = NULL;
			bool ready =
			    e->conditions.ready.set && e->conditions.ready.v;
			char key[800];

			if (e->addresses.n == 0 || t == NULL || !t->name ||
			    !t->uid)
				continue;
			snprintf(key, sizeof(key), "%s/%s/%s",
				 t->namespace ? t->namespace
					      : svc->metadata.namespace,
				 t->name, t->uid);
			if (!first_time(&seen, key))
				continue;
			if (s->cfg.revision)
				rev = s->cfg.revision(s->cfg.arg,
						      svc->metadata.namespace,
						      t->name);
			json_array_append_new(
			    eps, json_pack("{ss sI ss ss ss}", "address",
					   e->addresses.v[0], "port",
					   (json_int_t)port, "key", key,
					   "revision", rev ? rev : "", "state",
					   ready ? "ready" : "draining"));
		}
	}
	seen_free(&seen);
	free(l);
}

/* The services of the table (wire.h), sorted as the informer lists. */
static json_t *
build_services(struct agent_services *s)
{
	json_t *out = json_array();
	struct object **l;
	size_t n = informer_list(s->svcs, NULL, &l), i, j;

	for (i = 0; i < n; i++) {
		const struct service *svc = l[i]->obj;

		for (j = 0; j < svc->spec.ports.n; j++) {
			const struct service_port *sp = &svc->spec.ports.v[j];
			json_t *eps = json_array();
			char name[600];

			if (svc->spec.ports.n > 1 && sp->name)
				snprintf(name, sizeof(name), "%s/%s:%s",
					 svc->metadata.namespace,
					 svc->metadata.name, sp->name);
			else
				snprintf(name, sizeof(name), "%s/%s",
					 svc->metadata.namespace,
					 svc->metadata.name);
			add_endpoints(s, svc, sp, eps);
			json_array_append_new(
			    out,
			    json_pack("{ss ss sI ss ss so}", "name", name,
				      "address", s->cfg.address, "port",
				      (json_int_t)sp->port, "mode",
				      sp->app_protocol &&
					      !strcmp(sp->app_protocol, "http")
					  ? "http"
					  : "tcp",
				      "balance", balance_of(svc), "endpoints",
				      eps));
		}
	}
	free(l);
	return out;
}

/* ---- the proxy process ---- */

static void ensure_link(struct agent_services *s);
static void on_retry(uv_timer_t *t);
static void on_busy(struct agent_services *s, json_t *msg);

static void
send_text(struct agent_services *s, const char *text)
{
	if (s->connected)
		proxy_wire_send((uv_stream_t *)s->conn, text);
}

/* Handles closed while the agent runs: only their memory goes. */
static void
free_handle(uv_handle_t *h)
{
	free(h);
}

static void
drop_link(struct agent_services *s)
{
	if (s->conn == NULL)
		return;
	uv_close((uv_handle_t *)s->conn, free_handle);
	s->conn = NULL;
	s->connected = s->connecting = false;
	strbuf_reset(&s->in);
}

static void
on_alloc(uv_handle_t *h, size_t size, uv_buf_t *b)
{
	(void)h;
	b->base = xmalloc(size);
	b->len = size;
}

/* One message of the proxy process. */
static bool
take_line(void *arg, const char *line, size_t n)
{
	json_t *msg = json_loadb(line, n, 0, NULL);

	if (msg)
		on_busy(arg, msg);
	json_decref(msg);
	return true;
}

static void
on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct agent_services *s = st->data;

	if (n < 0) {
		free(b->base);
		log_info("agent: the proxy process went away");
		drop_link(s);
		if (s->want_proxy)
			uv_timer_start(&s->retry, on_retry, RETRY_MS, 0);
		return;
	}
	proxy_wire_feed(&s->in, b->base, (size_t)n, take_line, s);
	free(b->base);
}

static void
on_proc_exit(uv_process_t *p, int64_t status, int sig)
{
	struct agent_services *s = p->data;

	if (status || sig)
		log_warn("agent: the proxy process ended (status %lld, "
			 "signal %d)",
			 (long long)status, sig);
	if (s->proc == p)
		s->proc = NULL;
	uv_close((uv_handle_t *)p, free_handle);
}

/* Starts the proxy process: detached (its own session), so that it
 * outlives the daemon; its output goes to cfg.log. */
static void
spawn(struct agent_services *s)
{
	uv_process_options_t o = {0};
	uv_stdio_container_t io[3];
	char *args[] = {"drover", "__proxy", "--socket", (char *)s->cfg.socket,
			NULL};
	int fd =
	    open(s->cfg.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	int r;

	if (s->proc)
		return; /* started, still coming up */
	io[0].flags = UV_IGNORE;
	io[1].flags = io[2].flags = fd >= 0 ? UV_INHERIT_FD : UV_IGNORE;
	io[1].data.fd = io[2].data.fd = fd;
	o.file = "/proc/self/exe";
	o.args = args;
	o.stdio = io;
	o.stdio_count = 3;
	o.flags = UV_PROCESS_DETACHED;
	o.exit_cb = on_proc_exit;
	s->proc = xcalloc(1, sizeof(*s->proc));
	s->proc->data = s;
	if ((r = uv_spawn(s->cfg.loop, s->proc, &o)) < 0) {
		log_error("agent: cannot start the proxy process: %s",
			  uv_strerror(r));
		uv_close((uv_handle_t *)s->proc, free_handle);
		s->proc = NULL;
	} else {
		log_info("agent: proxy process started (pid %d)", s->proc->pid);
	}
	if (fd >= 0)
		close(fd);
}

/* No Service left: the proxy process ends. Connected, it is told so;
 * started by this agent and not yet listening, nothing would tell it,
 * so it gets SIGTERM (its clean exit). A connect under way calls this
 * again from on_connect. */
static void
end_proxy(struct agent_services *s)
{
	if (s->connected) {
		send_text(s, "{\"op\":\"exit\"}");
		drop_link(s);
	} else if (s->proc) {
		uv_process_kill(s->proc, SIGTERM);
	}
}

static void
on_connect(uv_connect_t *req, int status)
{
	struct agent_services *s = req->data;

	free(req);
	if (s->conn == NULL)
		return; /* dropped meanwhile */
	s->connecting = false;
	if (status < 0) {
		uv_close((uv_handle_t *)s->conn, free_handle);
		s->conn = NULL;
		if (!s->want_proxy) {
			end_proxy(s);
			return;
		}
		/* None answers: start one (once), and try again. */
		if (s->tries++ == 0 || s->proc == NULL)
			spawn(s);
		uv_timer_start(&s->retry, on_retry,
			       s->tries < 100 ? RETRY_MS : 1000, 0);
		return;
	}
	s->connected = true;
	s->tries = 0;
	if (!s->want_proxy) {
		end_proxy(s); /* the last Service went meanwhile */
		return;
	}
	uv_read_start((uv_stream_t *)s->conn, on_alloc, on_read);
	if (s->table_msg)
		send_text(s, s->table_msg);
}

static void
ensure_link(struct agent_services *s)
{
	uv_connect_t *req;

	if (s->conn || !s->want_proxy || s->closing)
		return;
	s->conn = xcalloc(1, sizeof(*s->conn));
	uv_pipe_init(s->cfg.loop, s->conn, 0);
	s->conn->data = s;
	s->connecting = true;
	req = xcalloc(1, sizeof(*req));
	req->data = s;
	uv_pipe_connect(req, s->conn, s->cfg.socket, on_connect);
}

static void
on_retry(uv_timer_t *t)
{
	ensure_link(t->data);
}

/* ---- the drain handshake: what this node publishes ---- */

static void
publish(struct agent_services *s, int64_t observed, json_t *busy)
{
	json_t *v = json_pack("{sI sO}", "observed", (json_int_t)observed,
			      "busy", busy);
	char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *patch;
	struct client_resp r;
	char path[600];

	json_decref(v);
	if (text == NULL || (s->published && !strcmp(text, s->published))) {
		free(text);
		return;
	}
	patch = json_pack("{s{s{ss}}}", "metadata", "annotations",
			  DRAIN_ANNOTATION, text);
	kube_path(path, sizeof(path), KIND_NODE, NULL, s->cfg.node, NULL);
	client_request(s->cfg.client, "PATCH", path, NULL,
		       "application/merge-patch+json", patch, &r);
	if (r.status == 200) {
		free(s->published);
		s->published = text;
	} else {
		log_warn("agent: node %s: the drain annotation: HTTP %d",
			 s->cfg.node, r.status);
		free(text);
	}
	client_resp_release(&r);
	json_decref(patch);
}

/* ---- listeners: Events and the Node annotation ---- */

static bool
same_text(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b && !strcmp(a, b);
}

/* Sets this node's listeners annotation to text (NULL: removes it) if it
 * differs from what this agent wrote, or, before it wrote any, from
 * what the Node has. */
static void
publish_listeners(struct agent_services *s, const char *text)
{
	const struct object *nd =
	    s->listeners_known ? NULL
			       : informer_find(s->nodes, NULL, s->cfg.node);
	json_t *patch;
	struct client_resp r;
	char path[600];

	if (!s->listeners_known) {
		const char *cur = nd ? strmap_get(&object_meta(nd)->annotations,
						  LISTENERS_ANNOTATION)
				     : NULL;

		free(s->listeners_published);
		s->listeners_published = cur ? xstrdup(cur) : NULL;
		s->listeners_known = true;
	}
	if (same_text(text, s->listeners_published))
		return;
	patch = json_pack("{s{s{so}}}", "metadata", "annotations",
			  LISTENERS_ANNOTATION,
			  text ? json_string(text) : json_null());
	kube_path(path, sizeof(path), KIND_NODE, NULL, s->cfg.node, NULL);
	client_request(s->cfg.client, "PATCH", path, NULL,
		       "application/merge-patch+json", patch, &r);
	if (r.status == 200) {
		free(s->listeners_published);
		s->listeners_published = text ? xstrdup(text) : NULL;
	} else {
		log_warn("agent: node %s: the listeners annotation: HTTP %d",
			 s->cfg.node, r.status);
	}
	client_resp_release(&r);
	json_decref(patch);
}

/* The Service a listener stands for: its name is "ns/name" or
 * "ns/name:port-name". NULL if the cache has none. */
static const struct object *
service_of(struct agent_services *s, const char *listener)
{
	char ns[256], name[256];
	const char *slash = strchr(listener, '/'), *colon;
	size_t n;

	if (slash == NULL || (size_t)(slash - listener) >= sizeof(ns))
		return NULL;
	memcpy(ns, listener, (size_t)(slash - listener));
	ns[slash - listener] = '\0';
	colon = strchr(slash + 1, ':');
	n = colon ? (size_t)(colon - slash - 1) : strlen(slash + 1);
	if (n >= sizeof(name))
		return NULL;
	memcpy(name, slash + 1, n);
	name[n] = '\0';
	return informer_find(s->svcs, ns, name);
}

/* A listener's state went from was (NULL: not known yet) to now: an
 * Event on its Service when it failed (or failed otherwise), and when it
 * opened after a failure. */
static void
listener_changed(struct agent_services *s, const char *name, const char *was,
		 const char *now)
{
	const struct object *svc = service_of(s, name);
	bool up = !strcmp(now, "listening");

	if (was && !strcmp(was, now))
		return;
	if (up && (was == NULL || !strcmp(was, "listening")))
		return; /* listening from the start: nothing to say */
	if (up) {
		log_info("agent: Service %s: listening again", name);
		if (svc)
			event_record_object(s->cfg.rec, svc, NULL, "Normal",
					    "Listening",
					    "Listening again (node %s), after: "
					    "%s",
					    s->cfg.node, was);
		return;
	}
	log_warn("agent: Service %s: %s; trying again every %d ms at most",
		 name, now, PROXY_RELISTEN_MAX_MS);
	if (svc)
		event_record_object(
		    s->cfg.rec, svc, NULL, "Warning", "FailedToListen",
		    "%s (node %s); trying again with back-off "
		    "up to every %d s",
		    now, s->cfg.node, PROXY_RELISTEN_MAX_MS / 1000);
}

/* The listeners' state of a busy message ("listening": names, "errors":
 * name -> error): Events for what changed, and the annotation. */
static void
take_listeners(struct agent_services *s, json_t *msg)
{
	json_t *ok = json_object_get(msg, "listening");
	json_t *errs = json_object_get(msg, "errors");
	json_t *now = json_object(), *v;
	const char *name;
	size_t i;
	char *text;

	json_array_foreach(ok, i, v) if (json_is_string(v)) json_object_set_new(
	    now, json_string_value(v), json_string("listening"));
	json_object_foreach(errs, name, v) if (json_is_string(v))
	    json_object_set(now, name, v);
	json_object_foreach(now, name, v) listener_changed(
	    s, name, json_string_value(json_object_get(s->listeners, name)),
	    json_string_value(v));
	json_decref(s->listeners);
	s->listeners = now;
	text = json_dumps(now, JSON_COMPACT | JSON_SORT_KEYS);
	if (text)
		publish_listeners(s, text);
	free(text);
}

static void
on_busy(struct agent_services *s, json_t *msg)
{
	const char *op = json_string_value(json_object_get(msg, "op"));
	json_int_t gen = json_integer_value(json_object_get(msg, "gen"));
	json_t *busy = json_object_get(msg, "busy");
	int64_t rv = -1;
	size_t i;

	if (op && !strcmp(op, "metrics")) {
		const char *text =
		    json_string_value(json_object_get(msg, "text"));

		free(s->metrics);
		s->metrics = text ? xstrdup(text) : NULL;
		return;
	}
	if (op == NULL || strcmp(op, "busy") || !json_is_array(busy))
		return;
	for (i = 0; i < GENS; i++)
		if (s->sent[i].gen == gen)
			rv = s->sent[i].rv;
	take_listeners(s, msg);
	if (rv < 0)
		return; /* older than what is remembered: a newer one comes */
	publish(s, rv, busy);
}

/* ---- events ---- */

/* Rebuilds the table after the events of a loop turn and sends it when
 * it or the slices' resourceVersion changed. */
static void
on_rebuild(uv_check_t *h)
{
	struct agent_services *s = h->data;
	json_t *svcs, *msg;
	char *text;

	uv_check_stop(h);
	s->dirty = false;
	svcs = build_services(s);
	s->want_proxy = json_array_size(svcs) > 0;
	text = json_dumps(svcs, JSON_COMPACT);
	if (text && s->table_text && !strcmp(text, s->table_text) &&
	    s->table_rv == s->highwater) {
		free(text);
		json_decref(svcs);
		return;
	}
	free(s->table_text);
	s->table_text = text;
	s->table_rv = s->highwater;
	if (!s->want_proxy) {
		/* No Service left: the proxy process ends; nothing routes. */
		free(s->table_msg);
		s->table_msg = NULL;
		publish_listeners(s, NULL);
		json_decref(s->listeners);
		s->listeners = NULL;
		if (!s->connecting)
			end_proxy(s);
		json_decref(svcs);
		return;
	}
	s->gen++;
	s->sent[s->gen % GENS].gen = s->gen;
	s->sent[s->gen % GENS].rv = s->highwater;
	msg = json_pack("{ss sI so}", "op", "table", "gen", (json_int_t)s->gen,
			"services", svcs);
	free(s->table_msg);
	s->table_msg = json_dumps(msg, JSON_COMPACT);
	json_decref(msg);
	if (s->connected)
		send_text(s, s->table_msg);
	else
		ensure_link(s);
}

static void
mark_dirty(struct agent_services *s)
{
	if (!s->dirty) {
		s->dirty = true;
		uv_check_start(&s->rebuild, on_rebuild);
	}
}

static void
on_svc(void *arg, json_t *ev)
{
	(void)ev;
	mark_dirty(arg);
}

static void
on_slice(void *arg, json_t *ev)
{
	struct agent_services *s = arg;
	const char *rv = json_string_value(json_object_get(
	    json_object_get(json_object_get(ev, "object"), "metadata"),
	    "resourceVersion"));
	int64_t v = rv ? strtoll(rv, NULL, 10) : 0;

	if (v > s->highwater)
		s->highwater = v;
	mark_dirty(s);
	if (s->cfg.changed)
		s->cfg.changed(s->cfg.arg);
}

static void
on_node(void *arg, json_t *ev)
{
	struct agent_services *s = arg;

	(void)ev;
	if (s->cfg.changed)
		s->cfg.changed(s->cfg.arg);
}

/* ---- the drain verdict ---- */

/* Whether a Service of p's namespace selects it. */
static bool
selected(struct agent_services *s, const struct pod *p)
{
	struct object **l;
	size_t n = informer_list(s->svcs, p->metadata.namespace, &l), i;
	bool yes = false;

	for (i = 0; i < n && !yes; i++) {
		const struct service *svc = l[i]->obj;

		yes = svc->spec.selector.n &&
		      labels_subset(&svc->spec.selector, &p->metadata.labels);
	}
	free(l);
	return yes;
}

/* Whether a slice still has an endpoint of p that is ready. */
static bool
routed(struct agent_services *s, const struct pod *p)
{
	struct object **l;
	size_t n = informer_list(s->slices, p->metadata.namespace, &l), i, j;
	bool yes = false;

	for (i = 0; i < n && !yes; i++) {
		const struct endpoint_slice *sl = l[i]->obj;

		for (j = 0; j < sl->endpoints.n && !yes; j++) {
			const struct endpoint *e = &sl->endpoints.v[j];

			yes = e->target_ref && e->target_ref->uid &&
			      !strcmp(e->target_ref->uid, p->metadata.uid) &&
			      e->conditions.ready.set && e->conditions.ready.v;
		}
	}
	free(l);
	return yes;
}

bool
agent_services_drained(struct agent_services *s, const struct pod *p)
{
	struct object **l;
	struct drain_ack *acks;
	struct left *x;
	size_t n, i, j, nacks = 0;
	char key[800];
	bool ok;

	if (s == NULL || p->metadata.uid == NULL || !selected(s, p))
		return true;
	if (routed(s, p))
		return false; /* the endpoints controller has not run yet */
	HASH_FIND_STR(s->left, p->metadata.uid, x);
	if (x == NULL) {
		x = xcalloc(1, sizeof(*x));
		x->uid = xstrdup(p->metadata.uid);
		x->since_rv = s->highwater;
		HASH_ADD_KEYPTR(hh, s->left, x->uid, strlen(x->uid), x);
	}
	snprintf(key, sizeof(key), "%s/%s/%s", p->metadata.namespace,
		 p->metadata.name, p->metadata.uid);
	n = informer_list(s->nodes, NULL, &l);
	acks = xcalloc(n + 1, sizeof(*acks));
	for (i = 0; i < n; i++) {
		const struct node *nd = l[i]->obj;
		const char *text =
		    strmap_get(&nd->metadata.annotations, DRAIN_ANNOTATION);
		json_t *v = text ? json_loads(text, 0, NULL) : NULL;
		json_t *busy = json_object_get(v, "busy");
		const char **keys;

		if (v == NULL)
			continue; /* no proxy runs there */
		keys = xcalloc(json_array_size(busy) + 1, sizeof(*keys));
		for (j = 0; j < json_array_size(busy); j++)
			keys[j] = json_string_value(json_array_get(busy, j))
				      ? xstrdup(json_string_value(
					    json_array_get(busy, j)))
				      : NULL;
		acks[nacks].observed =
		    json_integer_value(json_object_get(v, "observed"));
		acks[nacks].busy = keys;
		acks[nacks++].nbusy = json_array_size(busy);
		json_decref(v);
	}
	ok = drain_acked(key, x->since_rv, acks, nacks);
	for (i = 0; i < nacks; i++) {
		for (j = 0; j < acks[i].nbusy; j++)
			free((char *)acks[i].busy[j]);
		free((void *)acks[i].busy);
	}
	free(acks);
	free(l);
	return ok;
}

void
agent_services_forget(struct agent_services *s, const char *uid)
{
	struct left *x;

	if (s == NULL || uid == NULL)
		return;
	HASH_FIND_STR(s->left, uid, x);
	if (x) {
		HASH_DEL(s->left, x);
		free(x->uid);
		free(x);
	}
}

void
agent_services_metrics(struct agent_services *s, struct strbuf *out)
{
	if (s && s->metrics && s->want_proxy)
		strbuf_addstr(out, s->metrics);
}

/* ---- start, stop ---- */

struct agent_services *
agent_services_start(const struct agent_services_config *cfg)
{
	struct agent_services *s = xcalloc(1, sizeof(*s));

	s->cfg = *cfg;
	strbuf_init(&s->in);
	uv_check_init(cfg->loop, &s->rebuild);
	s->rebuild.data = s;
	uv_timer_init(cfg->loop, &s->retry);
	s->retry.data = s;
	s->svcs = informer_new(cfg->client, cfg->loop, KIND_SERVICE);
	s->slices = informer_new(cfg->client, cfg->loop, KIND_ENDPOINT_SLICE);
	s->nodes = informer_new(cfg->client, cfg->loop, KIND_NODE);
	if (!s->svcs || !s->slices || !s->nodes) {
		agent_services_stop(s);
		return NULL;
	}
	{
		struct object **l;
		size_t n = informer_list(s->slices, NULL, &l), i;

		for (i = 0; i < n; i++)
			if (rv_of(l[i]) > s->highwater)
				s->highwater = rv_of(l[i]);
		free(l);
	}
	informer_subscribe(s->svcs, on_svc, s);
	informer_subscribe(s->slices, on_slice, s);
	informer_subscribe(s->nodes, on_node, s);
	mark_dirty(s);
	return s;
}

/* Handles closed by agent_services_stop(): the last one frees s. */
static void
on_handle_closed(uv_handle_t *h)
{
	struct agent_services *s = h->data;

	if (h != (uv_handle_t *)&s->rebuild && h != (uv_handle_t *)&s->retry)
		free(h);
	if (--s->closing == 0)
		free(s);
}

void
agent_services_stop(struct agent_services *s)
{
	struct left *x, *tmp;

	if (s == NULL)
		return;
	informer_free(s->svcs);
	informer_free(s->slices);
	informer_free(s->nodes);
	HASH_ITER(hh, s->left, x, tmp)
	{
		HASH_DEL(s->left, x);
		free(x->uid);
		free(x);
	}
	free(s->table_text);
	free(s->table_msg);
	free(s->published);
	free(s->metrics);
	json_decref(s->listeners);
	free(s->listeners_published);
	strbuf_release(&s->in);
	s->closing = 2 + (s->conn != NULL) + (s->proc != NULL);
	if (s->proc) {
		/* It runs on (detached): only the handle goes. */
		s->proc->data = s;
		uv_close((uv_handle_t *)s->proc, on_handle_closed);
		s->proc = NULL;
	}
	if (s->conn) {
		uv_close((uv_handle_t *)s->conn, on_handle_closed);
		s->conn = NULL;
	}
	uv_timer_stop(&s->retry);
	uv_close((uv_handle_t *)&s->rebuild, on_handle_closed);
	uv_close((uv_handle_t *)&s->retry, on_handle_closed);
}
