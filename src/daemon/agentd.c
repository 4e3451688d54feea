/* agentd.c - `drover agent`: the node agent of one host, joined to a
 * control plane over HTTPS. It runs the same agent as `drover serve`
 * (src/agent: the Node and its Lease, the pods bound here as processes,
 * their status, live restore, the Service proxy), with the HTTP client
 * instead of the in-process one.
 *
 * Joining (auth.h): the first start is given the control plane's URL
 * and a join token from `drover token create`, "ID.SECRET::sha256:HEX".
 * The agent fetches the cluster's CA from /drover/v1/cluster-info
 * without trusting it, checks that its public key hashes to HEX (so a
 * server that is not the one the token names is refused), and from then
 * on verifies the server against that CA. It trades the token for its
 * node's credential (POST /drover/v1/join) and keeps both in its data
 * directory:
 *   DIR/ca.crt       the cluster's CA
 *   DIR/agent.json   {"server", "nodeName", "token"} (mode 0600)
 * A later start needs neither --server nor --token; the join token may
 * have expired meanwhile. Nothing is written to the cluster before the
 * join succeeded: a refused join leaves no Node behind.
 *
 *   drover token create                                  (control plane)
 *   drover agent --server https://10.0.0.1:6443 --token k8q2mz....
 *
 * The agent's requests act as system:node:NAME (node_authz.c). */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "agent.h"
#include "agentd.h"
#include "client_http.h"
#include "clock.h"
#include "dirlock.h"
#include "fsx.h"
#include "log.h"
#include "logserve.h"
#include "names.h"
#include "node_flags.h"
#include "proc.h"
#include "recorder.h"
#include "strmap.h"
#include "tlsca.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: drover agent [--server URL --token TOKEN] [--node-name NAME]\n"
    "                    [--address ADDR] [--data-dir DIR]\n"
    "                    [--runtime process|none] [--host-port-range A-B]\n"
    "                    [--default-user USER]\n"
    "                    [--allocatable cpu=N,memory=N,pods=N]\n"
    "                    [--resync-period DURATION] [--port N]\n"
    "                    [--hollow-nodes N]\n"
    "\n"
    "Joins this host to a drover control plane as node NAME (default the\n"
    "host name) and runs the pods the scheduler binds to it, as `drover\n"
    "serve` runs its own: as processes (logs in DIR/pods), their status\n"
    "reported, live-restored after a restart of the agent; --runtime none\n"
    "keeps them as objects only (a hollow node). Services listen on ADDR,\n"
    "this node's address (default: the address this host reaches the\n"
    "server from), served by a proxy process that outlives the agent.\n"
    "The API reaches the pods' logs at ADDR:N over HTTPS (the kubelet's\n"
    "port, default 10250; 0: any free port).\n"
    "--hollow-nodes N (with --runtime none, --server, --token and\n"
    "--node-name BASE) runs N hollow nodes BASE-0001.. in this process, each\n"
    "joined and running its own agent: a fleet on one machine for\n"
    "bench/fleet; nothing is kept on disk.\n"
    "\n"
    "The first start joins: TOKEN is what `drover token create` printed on\n"
    "the control plane (ID.SECRET::sha256:HEX); the server's CA must hash\n"
    "to HEX. The node's credential and the CA are kept in DIR (default\n"
    "/var/lib/drover-agent as root, else ~/.local/share/drover-agent, or\n"
    "$DROVER_AGENT_DATA_DIR); later starts need neither flag.\n";

struct agentd {
	uv_loop_t *loop;
	struct client *client;
	struct event_broadcaster *events;
	struct agent *agent;
	struct logserve *logs; /* NULL: no logs served (--runtime none) */
	/* --hollow-nodes: the nodes this process runs, each with its own
	 * client, Event recorder and agent */
	struct hollow {
		struct client *client;
		struct event_broadcaster *events;
		struct agent *agent;
		char *name;
	} * fleet;
	size_t nfleet;
	uv_signal_t sigterm, sigint;
};

static dtime
now_plain(void)
{
	return clock_now();
}

static void
default_dir(char *buf, size_t len)
{
	const char *e = getenv("DROVER_AGENT_DATA_DIR"), *home = getenv("HOME");

	if (e && *e)
		snprintf(buf, len, "%s", e);
	else if (geteuid() == 0)
		snprintf(buf, len, "/var/lib/drover-agent");
	else
		snprintf(buf, len, "%s/.local/share/drover-agent",
			 home ? home : "/tmp");
}

/* ---- the credential ---- */

struct cred {
	char *server, *node, *token; /* owned */
	char *ca;                    /* PEM, owned; NULL over http:// */
	size_t ca_len;
};

static void
cred_release(struct cred *c)
{
	free(c->server);
	free(c->node);
	free(c->token);
	free(c->ca);
	memset(c, 0, sizeof(*c));
}

/* DIR/agent.json and DIR/ca.crt: 0, 1 if there are none, -1 (printed). */
static int
cred_load(const char *dir, struct cred *c)
{
	char path[600], *buf;
	size_t len;
	json_t *v;
	int r;

	snprintf(path, sizeof(path), "%s/agent.json", dir);
	if ((r = fsx_read_all(path, &buf, &len)) == -ENOENT)
		return 1;
	if (r) {
		fprintf(stderr, "error: %s: %s\n", path, strerror(-r));
		return -1;
	}
	v = json_loadb(buf, len, 0, NULL);
	free(buf);
	if (!json_is_string(json_object_get(v, "server")) ||
	    !json_is_string(json_object_get(v, "nodeName")) ||
	    !json_is_string(json_object_get(v, "token"))) {
		json_decref(v);
		fprintf(stderr,
			"error: %s: not an agent's credential; move it away "
			"and join again with --token\n",
			path);
		return -1;
	}
	c->server = xstrdup(json_string_value(json_object_get(v, "server")));
	c->node = xstrdup(json_string_value(json_object_get(v, "nodeName")));
	c->token = xstrdup(json_string_value(json_object_get(v, "token")));
	json_decref(v);
	snprintf(path, sizeof(path), "%s/ca.crt", dir);
	if (fsx_read_all(path, &c->ca, &c->ca_len) &&
	    !strncmp(c->server, "https:", 6)) {
		fprintf(stderr, "error: %s: missing; join again with --token\n",
			path);
		cred_release(c);
		return -1;
	}
	return 0;
}

static int
cred_save(const char *dir, const struct cred *c)
{
	char path[600], *text;
	json_t *v = json_pack("{ss ss ss}", "server", c->server, "nodeName",
			      c->node, "token", c->token);
	int r = 0;

	if (c->ca) {
		snprintf(path, sizeof(path), "%s/ca.crt", dir);
		r = fsx_write_atomic(path, c->ca, c->ca_len, 0644);
	}
	snprintf(path, sizeof(path), "%s/agent.json", dir);
	text = json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(v);
	if (r == 0)
		r = fsx_write_atomic(path, text, strlen(text), 0600);
	free(text);
	if (r)
		fprintf(stderr, "error: %s: cannot write it\n", path);
	return r ? -1 : 0;
}

/* The Status message of an answer, or the transport's error. */
static const char *
message_of(const struct client_resp *r)
{
	const char *m = json_string_value(json_object_get(r->body, "message"));

	return r->error ? r->error : m ? m : "no message";
}

/* Trades the join token for node's credential into c (see the top). 0,
 * or -1 with one line printed. */
static int
join(const char *server, const char *token, const char *node, struct cred *c)
{
	const char *sep = strstr(token, "::");
	char secret[64], hash[TLSCA_HASH_LEN];
	struct client *h;
	struct client_resp r;
	json_t *body;
	const char *ca;
	bool https = !strncmp(server, "https://", 8);

	if (sep == NULL || (size_t)(sep - token) >= sizeof(secret) ||
	    strncmp(sep + 2, "sha256:", 7)) {
		fprintf(stderr,
			"error: --token: expected the join token as `drover "
			"token create` prints it (ID.SECRET::sha256:HEX)\n");
		return -1;
	}
	snprintf(secret, sizeof(secret), "%.*s", (int)(sep - token), token);
	/* 1. The CA, not trusted until it hashes to what the token says. */
	h = client_http_new(server, NULL);
	if (https)
		client_http_set_tls(h, NULL, 0, true);
	client_request(h, "GET", "/drover/v1/cluster-info", NULL, NULL, NULL,
		       &r);
	h->ops->free(h);
	if (r.status == 0) {
		fprintf(stderr, "error: %s\n", message_of(&r));
		client_resp_release(&r);
		return -1;
	}
	ca = json_string_value(json_object_get(r.body, "certificateAuthority"));
	if (r.status != 200 || (https && ca == NULL)) {
		fprintf(stderr,
			"error: %s is not a drover control plane (GET "
			"/drover/v1/cluster-info: HTTP %d)\n",
			server, r.status);
		client_resp_release(&r);
		return -1;
	}
	if (https) {
		if (tlsca_ca_hash(ca, strlen(ca), hash)) {
			fprintf(stderr,
				"error: %s: its CA certificate does not "
				"parse\n",
				server);
			client_resp_release(&r);
			return -1;
		}
		if (strcasecmp(hash, sep + 2)) {
			fprintf(stderr,
				"error: the CA of %s (%s) is not the one the "
				"token names (%s): another server, or a token "
				"of another cluster\n",
				server, hash, sep + 2);
			client_resp_release(&r);
			return -1;
		}
		c->ca = xstrdup(ca);
		c->ca_len = strlen(ca);
	}
	client_resp_release(&r);
	/* 2. The credential, over TLS verified against that CA. */
	h = client_http_new(server, secret);
	if (c->ca)
		client_http_set_tls(h, c->ca, c->ca_len, false);
	body = json_pack("{ss}", "nodeName", node);
	client_request(h, "POST", "/drover/v1/join", NULL, "application/json",
		       body, &r);
	json_decref(body);
	h->ops->free(h);
	if (r.status != 200 ||
	    !json_is_string(json_object_get(r.body, "token"))) {
		if (r.status == 401)
			fprintf(stderr,
				"error: the join token was refused: it is "
				"unknown or has expired (`drover token list` "
				"on the control plane)\n");
		else if (r.status == 0)
			fprintf(stderr, "error: %s\n", message_of(&r));
		else
			fprintf(stderr, "error: joining as %s: %s\n", node,
				message_of(&r));
		client_resp_release(&r);
		return -1;
	}
	c->server = xstrdup(server);
	c->node = xstrdup(node);
	c->token = xstrdup(json_string_value(json_object_get(r.body, "token")));
	client_resp_release(&r);
	return 0;
}

/* The credential is taken: GET of its own Node (404 is fine: not
 * registered yet). 0, or -1 with one line printed. */
static int
check_cred(const struct cred *c, const char *dir)
{
	struct client *h = client_http_new(c->server, c->token);
	struct client_resp r;
	char path[600];
	int rc = 0;

	if (c->ca)
		client_http_set_tls(h, c->ca, c->ca_len, false);
	snprintf(path, sizeof(path), "/api/v1/nodes/%s", c->node);
	client_request(h, "GET", path, NULL, NULL, NULL, &r);
	h->ops->free(h);
	if (r.status == 401) {
		fprintf(stderr,
			"error: %s refused this agent's credential "
			"(%s/agent.json): join again with --token\n",
			c->server, dir);
		rc = -1;
	} else if (r.status == 0) {
		fprintf(stderr, "error: %s\n", message_of(&r));
		rc = -1;
	} else if (r.status != 200 && r.status != 404) {
		fprintf(stderr, "error: %s: GET %s: HTTP %d: %s\n", c->server,
			path, r.status, message_of(&r));
		rc = -1;
	}
	client_resp_release(&r);
	return rc;
}

/* The address this host reaches host:port from (a UDP socket connected
 * there: nothing is sent), into out; -1 if it cannot tell. */
static int
local_address_toward(const char *url, char *out, size_t len)
{
	const char *p = strstr(url, "://"), *end;
	char host[256], port[16] = "443";
	struct addrinfo hints = {0}, *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, r = -1;

	p = p ? p + 3 : url;
	if (*p == '[') { /* [v6]:port */
		end = strchr(p, ']');
		if (end == NULL)
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(end - p - 1), p + 1);
		p = end + 1;
	} else {
		end = p + strcspn(p, ":/");
		snprintf(host, sizeof(host), "%.*s", (int)(end - p), p);
		p = end;
	}
	if (*p == ':')
		snprintf(port, sizeof(port), "%.*s", (int)strcspn(p + 1, "/"),
			 p + 1);
	hints.ai_socktype = SOCK_DGRAM;
	if (getaddrinfo(host, port, &hints, &ai) || ai == NULL)
		return -1;
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, out, (socklen_t)len, NULL,
			0, NI_NUMERICHOST) == 0)
		r = 0;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return r;
}

/* ---- running ---- */

static void
fleet_stop(struct agentd *d)
{
	size_t i;

	for (i = 0; i < d->nfleet; i++) {
		struct hollow *h = &d->fleet[i];

		agent_stop(h->agent);
		event_broadcaster_free(h->events);
		if (h->client)
			h->client->ops->free(h->client);
		free(h->name);
	}
	free(d->fleet);
	d->fleet = NULL;
	d->nfleet = 0;
}

static void
on_signal(uv_signal_t *h, int sig)
{
	struct agentd *d = h->data;

	log_info("signal %d: stopping the agent (its pods run on)", sig);
	logserve_stop(d->logs);
	d->logs = NULL;
	agent_stop(d->agent);
	d->agent = NULL;
	fleet_stop(d);
	uv_signal_stop(&d->sigterm);
	uv_signal_stop(&d->sigint);
	uv_close((uv_handle_t *)&d->sigterm, NULL);
	uv_close((uv_handle_t *)&d->sigint, NULL);
	event_broadcaster_free(d->events);
	d->events = NULL;
	d->client->ops->free(d->client);
	d->client = NULL;
}

static void
on_close_walk(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

enum {
	OPT_ALLOCATABLE = 1000,
	OPT_HOLLOW,
};

/* The certificate the control plane's CA signs for this node's address
 * (POST /drover/v1/servingcert, as the node), then the log server on
 * addr:port with it. 0, or -1 with the reason printed (the port cannot
 * be had). Without a certificate (a control plane over plain HTTP, or
 * one that refuses) the pods run on and their logs are not served. */
static int
serve_logs(struct agentd *d, const struct cred *c, const char *addr, int port,
	   const char *pod_dir)
{
	struct client *h = client_http_new(c->server, c->token);
	struct client_resp r = {0};
	json_t *body = json_pack("{s[s]}", "addresses", addr);
	const char *cert, *key;
	char err[600];
	int ret = -1;

	if (c->ca)
		client_http_set_tls(h, c->ca, c->ca_len, false);
	client_request(h, "POST", "/drover/v1/servingcert", NULL, NULL, body,
		       &r);
	cert = json_string_value(json_object_get(r.body, "certificate"));
	key = json_string_value(json_object_get(r.body, "key"));
	if (c->ca == NULL) {
		log_warn("agent: %s is plain HTTP: this node's pod logs are "
			 "not served",
			 c->server);
		ret = 0;
	} else if (r.status != 200 || !cert || !key) {
		log_warn("agent: %s gave no serving certificate for %s (%s): "
			 "this node's pod logs are not served",
			 c->server, addr,
			 client_resp_message(&r, err, sizeof(err)));
		ret = 0;
	} else if ((d->logs = logserve_start(addr, port, cert, key, c->token,
					     pod_dir, err, sizeof(err))) ==
		   NULL) {
		fprintf(stderr, "error: %s\n", err);
	} else {
		ret = 0;
	}
	json_decref(body);
	client_resp_release(&r);
	h->ops->free(h);
	return ret;
}

/* --hollow-nodes N: N hollow nodes (objects only, no processes) in this
 * process, as Kubemark's hollow nodes: node BASE-0001 to BASE-N, each
 * joined with token and running its own agent with its own client (its
 * pod watch, its Lease renewals, its status writes), so that one machine
 * can hold a fleet in front of one control plane (bench/fleet). A bench
 * tool: nothing is kept on disk, every start joins again. 0 after a
 * signal, 1 with one line printed. */
static int
run_fleet(struct agentd *d, const char *server, const char *token,
	  const char *base, long n, const char *addr,
	  const struct agent_config *tmpl)
{
	long i;

	d->loop = uv_default_loop();
	d->fleet = xcalloc((size_t)n, sizeof(*d->fleet));
	for (i = 0; i < n; i++) {
		struct hollow *h = &d->fleet[i];
		struct agent_config agc = *tmpl;
		struct cred c = {0};
		char name[256];

		snprintf(name, sizeof(name), "%s-%04ld", base, i + 1);
		if (join(server, token, name, &c)) {
			cred_release(&c);
			fleet_stop(d);
			return 1;
		}
		h->name = xstrdup(name);
		d->nfleet++;
		h->client = client_http_new_on_loop(d->loop, server, c.token);
		if (c.ca)
			client_http_set_tls(h->client, c.ca, c.ca_len, false);
		cred_release(&c);
		h->events = event_broadcaster_new(&(
		    struct event_broadcaster_config){
		    .loop = d->loop, .client = h->client, .now = now_plain});
		agc.loop = d->loop;
		agc.client = h->client;
		agc.node_name = h->name;
		agc.node_address = addr;
		agc.now = now_plain;
		agc.events = h->events;
		agc.hollow = true;
		if ((h->agent = agent_start(&agc)) == NULL) {
			fprintf(stderr,
				"error: cannot register hollow node %s with "
				"%s\n",
				name, server);
			fleet_stop(d);
			uv_walk(d->loop, on_close_walk, NULL);
			uv_run(d->loop, UV_RUN_DEFAULT);
			return 1;
		}
	}
	uv_signal_init(d->loop, &d->sigterm);
	uv_signal_init(d->loop, &d->sigint);
	d->sigterm.data = d->sigint.data = d;
	uv_signal_start(&d->sigterm, on_signal, SIGTERM);
	uv_signal_start(&d->sigint, on_signal, SIGINT);
	log_info("drover agent: %ld hollow nodes %s-0001..%s-%04ld serving for "
		 "%s",
		 n, base, base, n, server);
	fflush(stderr);
	uv_run(d->loop, UV_RUN_DEFAULT);
	uv_walk(d->loop, on_close_walk, NULL);
	uv_run(d->loop, UV_RUN_DEFAULT);
	uv_loop_close(d->loop);
	log_info("drover agent: stopped");
	return 0;
}

int
agentd_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"server", required_argument, NULL, 'S'},
	    {"token", required_argument, NULL, 'T'},
	    {"node-name", required_argument, NULL, 'N'},
	    {"address", required_argument, NULL, 'A'},
	    {"data-dir", required_argument, NULL, 'd'},
	    {"runtime", required_argument, NULL, 'R'},
	    {"host-port-range", required_argument, NULL, 'P'},
	    {"default-user", required_argument, NULL, 'U'},
	    {"allocatable", required_argument, NULL, OPT_ALLOCATABLE},
	    {"resync-period", required_argument, NULL, 'r'},
	    {"port", required_argument, NULL, 'p'},
	    {"hollow-nodes", required_argument, NULL, OPT_HOLLOW},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct strmap allocatable; /* the agent's config points here */
	struct agentd d = {0};
	struct agent_config agc = {0};
	struct cred cred = {0};
	const char *server = NULL, *token = NULL, *node = NULL, *addr = NULL;
	const char *runtime = "process";
	char dir[480], path[600], hostname[256], address[128];
	struct node_paths paths; /* the agent points here */
	int c, lock_fd, have;
	int64_t resync_ms = 5 * 60 * 1000;
	long hollow = 0;
	int log_port = LOGSERVE_PORT;

	dir[0] = '\0';
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			server = optarg;
			break;
		case 'T':
			token = optarg;
			break;
		case 'N':
			node = optarg;
			break;
		case 'A':
			addr = optarg;
			break;
		case 'd':
			snprintf(dir, sizeof(dir), "%s", optarg);
			break;
		case 'R':
			if (strcmp(optarg, "process") &&
			    strcmp(optarg, "none")) {
				fprintf(stderr,
					"error: --runtime: \"%s\": expected "
					"process or none\n",
					optarg);
				return 2;
			}
			runtime = optarg;
			break;
		case 'P':
			if (node_flag_port_range(optarg, &agc))
				return 2;
			break;
		case 'U':
			if (node_flag_default_user(optarg, &agc))
				return 2;
			break;
		case OPT_ALLOCATABLE:
			if (node_flag_allocatable(optarg, &allocatable, &agc))
				return 2;
			break;
		case 'r':
			if ((resync_ms = dtime_parse_duration(optarg)) < 0) {
				fprintf(stderr,
					"error: --resync-period: \"%s\": "
					"expected a duration such as 5m or "
					"30s (0: never)\n",
					optarg);
				return 2;
			}
			break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 65535) {
				fprintf(stderr,
					"error: --port: \"%s\": expected a "
					"port number, 0-65535\n",
					optarg);
				return 2;
			}
			log_port = (int)v;
			break;
		}
		case OPT_HOLLOW: {
			char *end;

			hollow = strtol(optarg, &end, 10);
			if (*end || end == optarg || hollow < 1 ||
			    hollow > 9999) {
				fprintf(stderr,
					"error: --hollow-nodes: \"%s\": "
					"expected a count, 1-9999\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (token && server == NULL) {
		fprintf(stderr, "error: --token: give --server too\n");
		return 2;
	}
	if (server && strncmp(server, "https://", 8) &&
	    strncmp(server, "http://", 7)) {
		fprintf(stderr,
			"error: --server: \"%s\": expected an https:// URL "
			"(drover serve --listen)\n",
			server);
		return 2;
	}
	if (node && !name_is_dns1123_subdomain(node, strlen(node))) {
		fprintf(stderr,
			"error: --node-name: \"%s\": " MSG_DNS1123_SUBDOMAIN
			"\n",
			node);
		return 2;
	}
	if (hollow) {
		if (!server || !token || !node || strcmp(runtime, "none")) {
			fprintf(stderr,
				"error: --hollow-nodes: give --server, "
				"--token, --node-name (the names' base) and "
				"--runtime none\n");
			return 2;
		}
		if (addr == NULL) {
			if (local_address_toward(server, address,
						 sizeof(address))) {
				fprintf(stderr,
					"error: cannot tell this host's "
					"address toward %s: give --address\n",
					server);
				return 1;
			}
			addr = address;
		}
		agc.resync_ms = resync_ms;
		(void)proc_nofile_raise();
		return run_fleet(&d, server, token, node, hollow, addr, &agc);
	}
	if (!dir[0])
		default_dir(dir, sizeof(dir));
	if (dirlock_mkdir_p(dir)) {
		fprintf(stderr, "error: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/lock", dir);
	if ((lock_fd =
		 dirlock_file("drover agent", path, "data directory", dir)) < 0)
		return 1;
	if ((have = cred_load(dir, &cred)) < 0)
		goto fail;
	if (node == NULL) {
		if (have == 0) {
			node = cred.node;
		} else {
			if (gethostname(hostname, sizeof(hostname)))
				snprintf(hostname, sizeof(hostname),
					 "localhost");
			hostname[sizeof(hostname) - 1] = '\0';
			for (c = 0; hostname[c]; c++)
				if (hostname[c] >= 'A' && hostname[c] <= 'Z')
					hostname[c] += 'a' - 'A';
			node = hostname;
		}
	}
	if (have == 0 && ((server && strcmp(server, cred.server)) ||
			  strcmp(node, cred.node))) {
		if (token == NULL) {
			fprintf(stderr,
				"error: %s holds the credential of node %s "
				"for %s: give --token to join as %s%s%s\n",
				dir, cred.node, cred.server, node,
				server ? " to " : "", server ? server : "");
			goto fail;
		}
		have = 1; /* joins again */
	}
	if (have == 1 && token == NULL) {
		fprintf(stderr,
			"error: this host has not joined yet: give --server "
			"and --token (`drover token create` on the control "
			"plane prints one)\n");
		goto fail;
	}
	if (have == 1) {
		struct cred j = {0};
		char name[256];

		snprintf(name, sizeof(name), "%s", node);
		if (join(server, token, name, &j) || cred_save(dir, &j)) {
			cred_release(&j);
			goto fail;
		}
		cred_release(&cred);
		cred = j;
		node = cred.node;
		log_info("agent: joined %s as node %s", cred.server, node);
	}
	if (check_cred(&cred, dir))
		goto fail;
	if (addr == NULL) {
		if (local_address_toward(cred.server, address,
					 sizeof(address))) {
			fprintf(stderr,
				"error: cannot tell this host's address "
				"toward %s: give --address\n",
				cred.server);
			goto fail;
		}
		addr = address;
	}

	d.loop = uv_default_loop();
	d.client = client_http_new_on_loop(d.loop, cred.server, cred.token);
	if (cred.ca)
		client_http_set_tls(d.client, cred.ca, cred.ca_len, false);
	d.events = event_broadcaster_new(&(struct event_broadcaster_config){
	    .loop = d.loop, .client = d.client, .now = now_plain});
	agc.loop = d.loop;
	agc.client = d.client;
	agc.node_name = node;
	agc.node_address = addr;
	agc.now = now_plain;
	agc.resync_ms = resync_ms;
	agc.events = d.events;
	if (!strcmp(runtime, "process")) {
		node_runtime_paths("drover agent", dir, &paths, &agc);
	}
	(void)proc_nofile_raise();
	d.agent = agent_start(&agc);
	if (d.agent == NULL ||
	    (agc.pod_dir &&
	     serve_logs(&d, &cred, addr, log_port, agc.pod_dir))) {
		if (d.agent == NULL)
			fprintf(stderr,
				"error: cannot register node %s with %s\n",
				node, cred.server);
		logserve_stop(d.logs);
		agent_stop(d.agent);
		event_broadcaster_free(d.events);
		d.client->ops->free(d.client);
		uv_walk(d.loop, on_close_walk, NULL);
		uv_run(d.loop, UV_RUN_DEFAULT);
		goto fail;
	}
	if (d.logs)
		agent_set_kubelet_port(d.agent, logserve_port(d.logs));
	uv_signal_init(d.loop, &d.sigterm);
	uv_signal_init(d.loop, &d.sigint);
	d.sigterm.data = d.sigint.data = &d;
	uv_signal_start(&d.sigterm, on_signal, SIGTERM);
	uv_signal_start(&d.sigint, on_signal, SIGINT);
	log_info("drover agent: node %s (address %s) serving for %s", node,
		 addr, cred.server);
	fflush(stderr);
	uv_run(d.loop, UV_RUN_DEFAULT);
	uv_walk(d.loop, on_close_walk, NULL);
	uv_run(d.loop, UV_RUN_DEFAULT);
	uv_loop_close(d.loop);
	log_info("drover agent: stopped");
	cred_release(&cred);
	strmap_release(&allocatable);
	close(lock_fd);
	return 0;
fail:
	cred_release(&cred);
	close(lock_fd);
	return 1;
}
