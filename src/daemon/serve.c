/* serve.c - `drover serve [--data-dir DIR] [--socket PATH]
 * [--listen ADDR:PORT]`: wiring only (the one place that picks concrete
 * backends: SQLite store, in-process client, MHD server). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <uv.h>

#include "agent.h"
#include "api.h"
#include "client_local.h"
#include "clock.h"
#include "ctl.h"
#include "guard.h"
#include "log.h"
#include "loopstat.h"
#include "logs.h"
#include "metrics.h"
#include "metrics_process.h"
#include "proc.h"
#include "queue.h"
#include "recorder.h"
#include "rand.h"
#include "auth.h"
#include "dtime.h"
#include "dirlock.h"
#include "node_flags.h"
#include "serve.h"
#include "serve_tls.h"
#include "server.h"
#include "store.h"

static const char usage_text[] =
    "usage: drover serve [--data-dir DIR] [--socket PATH] "
    "[--listen ADDR:PORT [--insecure-http]]\n"
    "                    [--tls-san NAME]...\n"
    "                    [--node-name NAME] [--runtime none|process]\n"
    "                    [--watch-history N] [--watch-history-bytes B]\n"
    "                    [--resync-period DURATION]\n"
    "                    [--watch-buffer-bytes B] [--watch-buffer-total B]\n"
    "                    [--header-timeout S] [--idle-timeout S]\n"
    "                    [--max-unauthenticated N]\n"
    "                    [--max-unauthenticated-per-address N]\n"
    "                    [--host-port-range A-B] [--default-user USER]\n"
    "                    [--node-address ADDR]\n"
    "                    [--allocatable cpu=N,memory=N,pods=N]\n"
    "                    [--event-ttl DURATION] [--controllers LIST]\n"
    "                    [--no-agent]\n"
    "                    [--node-monitor-grace-period DURATION]\n"
    "                    [--node-monitor-period DURATION]\n"
    "                    [--node-startup-grace-period DURATION]\n"
    "                    [--node-eviction-rate R]\n"
    "                    [--secondary-node-eviction-rate R]\n"
    "                    [--large-cluster-size-threshold N]\n"
    "                    [--unhealthy-zone-threshold F]\n"
    "                    [--default-not-ready-toleration-seconds S]\n"
    "                    [--default-unreachable-toleration-seconds S]\n"
    "\n"
    "Runs the control plane on this host: the SQLite store in DIR, the API\n"
    "on a unix socket (mode 0600) and, with --listen, on HTTPS with a bearer\n"
    "token (written to DIR/token; the certificate from drover's own CA in\n"
    "DIR/tls, for ADDR, 127.0.0.1, localhost, the host name, every\n"
    "address of the host when ADDR is 0.0.0.0, and each --tls-san;\n"
    "DIR/kubeconfig for kubectl: KUBECONFIG=DIR/kubeconfig;\n"
    "--insecure-http: plain HTTP instead, which kubectl will not send its\n"
    "token over), the controllers, the scheduler and the\n"
    "agent of this node (NAME, default the host name), which runs the\n"
    "pods bound to it as processes (logs in DIR/pods); --runtime none\n"
    "keeps pods as objects only. Watches can resume from any of the last\n"
    "N writes (default 1000) while their objects fit in B bytes (default\n"
    "512 KiB, 0: no bound); older: 410 Gone. The controllers and the agent\n"
    "sync every object at start and again every DURATION (default 5m,\n"
    "0: only at start). Pods get their host ports from A-B (default\n"
    "30000-32767); pods that name no user (runAsUser) run as USER (a name\n"
    "or a uid; recommended when drover runs as root). Services listen at\n"
    "ADDR, the node's address (default 127.0.0.1), on their port, served\n"
    "by a proxy process that outlives the daemon (control socket\n"
    "DIR/proxy.sock, output in DIR/proxy.log).\n"
    "--allocatable sets what the scheduler may give the node's pods\n"
    "(their resources.requests), e.g. cpu=4,memory=8Gi,pods=110; each\n"
    "name left out keeps the host's value (its CPUs, its memory, 1000000\n"
    "pods).\n"
    "The controllers and the agent record Events (drover get events,\n"
    "drover describe); each is deleted --event-ttl after it last happened\n"
    "(default 1h, 0: never).\n"
    "--controllers chooses the controllers that run, as\n"
    "kube-controller-manager's does: a comma list of names, '*' for all,\n"
    "'-name' to leave one out (default '*'; e.g. '*,-disruption'). Names:\n"
    "deployment, replicaset, replicationcontroller, garbagecollector,\n"
    "endpoint and endpointslice (one controller keeps both), disruption,\n"
    "ttl-events (the --event-ttl sweep), nodelifecycle. The scheduler and\n"
    "the node's agent always run; --no-agent leaves the agent out (no Node\n"
    "here: a control plane only, whose nodes join with `drover token\n"
    "create` and `drover agent`).\n"
    "Node lifecycle (kube-controller-manager's flags): every\n"
    "--node-monitor-period (default 5s) the nodelifecycle controller looks\n"
    "at the nodes; one whose agent has renewed neither its Lease nor its\n"
    "Ready condition for --node-monitor-grace-period (default 40s; a node\n"
    "that never posted: --node-startup-grace-period, 60s) goes Ready\n"
    "Unknown, its pods not ready, and is tainted\n"
    "node.kubernetes.io/unreachable:NoExecute, at most\n"
    "--node-eviction-rate nodes a second (default 0.1) per zone\n"
    "(--secondary-node-eviction-rate, 0.01, when more than\n"
    "--unhealthy-zone-threshold, 0.55, of a zone larger than\n"
    "--large-cluster-size-threshold nodes, 50, is down; none in a smaller\n"
    "one, and none at all when no node is Ready). Pods that do not\n"
    "tolerate the taint are deleted, the others when their\n"
    "tolerationSeconds run out. Every pod created gets the tolerations\n"
    "node.kubernetes.io/not-ready:NoExecute and\n"
    "node.kubernetes.io/unreachable:NoExecute for\n"
    "--default-not-ready-toleration-seconds and\n"
    "--default-unreachable-toleration-seconds (default 300) unless it\n"
    "tolerates them already (kube-apiserver's DefaultTolerationSeconds).\n"
    "\n"
    "Limits: a watch stream that lags by more than --watch-buffer-bytes\n"
    "(default 4 MiB), or lags most when all streams lag by more than\n"
    "--watch-buffer-total (default 16 MiB), is ended (the client resumes\n"
    "from its last resourceVersion). A TCP connection that has not sent a\n"
    "request with the token within --header-timeout seconds (default 2) is\n"
    "closed, as is the oldest of them past --max-unauthenticated (default\n"
    "512) or --max-unauthenticated-per-address (default 64). A connection\n"
    "silent for --idle-timeout seconds (default 90) within or between\n"
    "requests is closed; watch streams are not.\n";

struct serve {
	uv_loop_t *loop;
	struct store *store;
	struct metrics *metrics; /* GET /metrics */
	struct api *api;
	struct http_server *http;
	struct client *client;
	struct client *agent_client; /* the agent's: a guard over client */
	struct controllers *ctl;
	struct agent *agent;
	bool no_agent;                    /* --no-agent */
	struct event_broadcaster *events; /* the Events of ctl and agent */
	uv_signal_t sigterm, sigint;
	uv_prepare_t commit;     /* the group commit of each loop turn */
	struct loopstat turns;   /* the CPU time of each turn (/metrics) */
	uv_check_t commit_after; /* and again after the agent's kick */
	uv_async_t synced;       /* the store's sync thread made more durable */
	uv_timer_t quiet;        /* a quiet spell after writes: trim the heap */
	uv_timer_t restart;  /* consumers after a rollback; a read-only store */
	int64_t seen_rv;     /* the store's rv at the last loop turn */
	unsigned rollbacks;  /* store_rollbacks() handled */
	uint64_t backoff_ms; /* before the next restart of the consumers */
	uint64_t started_ms; /* when they last started */
	struct ctl_config cc;
	struct agent_config agc;
	bool stopping;
	bool failing; /* the last commit failed */
	int exit_code;
};

void
serve_default_data_dir(char *buf, size_t len)
{
	const char *e = getenv("DROVER_DATA_DIR"), *home = getenv("HOME");

	if (e && *e)
		snprintf(buf, len, "%s", e);
	else if (geteuid() == 0)
		snprintf(buf, len, "/var/lib/drover");
	else
		snprintf(buf, len, "%s/.local/share/drover",
			 home ? home : "/tmp");
}

void
serve_default_socket(char *buf, size_t len)
{
	char dir[480];

	serve_default_data_dir(dir, sizeof(dir));
	snprintf(buf, len, "%s/drover.sock", dir);
}

static dtime
now_cb(void *arg)
{
	(void)arg;
	return clock_now();
}

static dtime
now_plain(void)
{
	return clock_now();
}

static void
random_cb(void *arg, unsigned char *buf, size_t n)
{
	(void)arg;
	rand_bytes(buf, n);
}

/* Locks DIR for this process's life (DIR/lock): -1 with the message
 * printed if another drover serve holds it, before anything of the
 * other's is touched. */
static int
lock_data_dir(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/lock", dir);
	return dirlock_file("drover serve", path, "data directory", dir);
}

/* Whether something listens on the unix socket path: 1 if a connect
 * succeeds (or would, given time), 0 if nothing is there or no one
 * accepts (a socket its server left behind), -1 if path is there but is
 * not a socket (errno ENOTSOCK). */
static int
socket_answers(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int fd, rc;

	if (lstat(path, &st))
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		errno = ENOTSOCK;
		return -1;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return 0; /* the listener says it is too long */
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	/* EAGAIN: a listener whose backlog is full, busy, not gone. */
	rc = rc == 0 || errno == EAGAIN;
	close(fd);
	return rc;
}

/* Claims the API socket path for this process's life, as the data
 * directory is claimed: a lock on PATH.lock, held by a drover serve on
 * another data directory given the same --socket; then a socket that
 * answers is another server's (another program, or a drover serve
 * without the lock) and is left alone; what is left at path is a socket
 * no one serves, which the listener replaces. The lock's descriptor, or
 * -1 with the message printed. */
static int
claim_socket(const char *path)
{
	char lock[600];
	int fd, rc;

	if ((size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >=
	    sizeof(lock)) {
		fprintf(stderr, "error: %s: socket path too long\n", path);
		return -1;
	}
	fd = dirlock_file("drover serve", lock, "socket", path);
	if (fd < 0)
		return -1;
	rc = socket_answers(path);
	if (rc == 0)
		return fd;
	if (rc > 0)
		fprintf(stderr,
			"drover serve: socket %s answers: another server "
			"listens on it\n",
			path);
	else
		fprintf(stderr,
			"drover serve: %s is there and is not a socket\n",
			path);
	close(fd);
	return -1;
}

/* Reads DIR/token, creating it (0600) with a random token if missing. */
static int
load_token(const char *dir, char *tok, size_t len)
{
	char path[600];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/token", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, tok, len - 1);
		close(fd);
		if (n > 0) {
			tok[n] = '\0';
			tok[strcspn(tok, "\r\n")] = '\0';
			return 0;
		}
	}
	rand_hex(tok, 32);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	n = write(fd, tok, strlen(tok));
	if (write(fd, "\n", 1) != 1 || n < 0 || fsync(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void
on_close_walk(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static void stop_consumers(struct serve *s);

static void
shutdown_all(struct serve *s)
{
	s->stopping = true;
	stop_consumers(s);
	/* What was written is synced here, so that the held answers go
	 * out as they would have. */
	store_sync_in_background(s->store, NULL, NULL);
	uv_close((uv_handle_t *)&s->synced, NULL);
	http_server_stop(s->http);
	s->http = NULL;
	uv_signal_stop(&s->sigterm);
	uv_signal_stop(&s->sigint);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_prepare_stop(&s->commit);
	uv_close((uv_handle_t *)&s->commit, NULL);
	loopstat_stop(&s->turns);
	uv_check_stop(&s->commit_after);
	uv_close((uv_handle_t *)&s->commit_after, NULL);
	uv_timer_stop(&s->quiet);
	uv_close((uv_handle_t *)&s->quiet, NULL);
	uv_timer_stop(&s->restart);
	uv_close((uv_handle_t *)&s->restart, NULL);
}

/* A burst of work (a rollout, a scale-up) leaves the heap larger than
 * what stays in use, and glibc keeps the freed pages: give them back once
 * the writes have stopped for a while. */
#define QUIET_MS 500

static void
on_quiet(uv_timer_t *t)
{
	(void)t;
	malloc_trim(0);
}

/* The in-process consumers of the store: the controllers and the agent.
 * They start from a list of what is in the store; 0, or -1 (the store
 * could not take the agent's registration: try again later). */
static int
start_consumers(struct serve *s)
{
	s->ctl = ctl_start(&s->cc);
	if (s->ctl == NULL) {
		log_error("drover serve: cannot start the controllers");
		return -1;
	}
	s->started_ms = uv_now(s->loop);
	if (s->no_agent)
		return 0; /* a control plane only: nodes join (drover agent) */
	s->agent = agent_start(&s->agc);
	if (s->agent == NULL) {
		log_error("drover serve: cannot register node %s",
			  s->agc.node_name);
		ctl_stop(s->ctl);
		s->ctl = NULL;
		return -1;
	}
	/* The agent serves its pods' logs to the API (as the kubelet
	 * does), while it runs. */
	if (s->agc.pod_dir)
		api_serve_node_logs(s->api, s->agc.node_name, logs_read,
				    (void *)s->agc.pod_dir);
	return 0;
}

static void
stop_consumers(struct serve *s)
{
	if (s->agent && s->agc.pod_dir)
		api_serve_node_logs(s->api, s->agc.node_name, NULL, NULL);
	agent_stop(s->agent);
	s->agent = NULL;
	ctl_stop(s->ctl);
	s->ctl = NULL;
}

#define BACKOFF_MIN_MS   250
#define BACKOFF_MAX_MS   8000
#define BACKOFF_RESET_MS 30000
#define REOPEN_MS        2000

static void on_restart(uv_timer_t *t);

static void
schedule_restart(struct serve *s)
{
	uv_timer_start(&s->restart, on_restart, s->backoff_ms, 0);
	s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (s->backoff_ms > BACKOFF_MAX_MS)
		s->backoff_ms = BACKOFF_MAX_MS;
}

/* A read-only store: try to open it for writing; then, or after a
 * rollback, start the consumers again. */
static void
on_restart(uv_timer_t *t)
{
	struct serve *s = t->data;
	char err[600];

	if (s->stopping)
		return;
	if (store_readonly(s->store)) {
		if (store_reopen(s->store, err, sizeof(err))) {
			uv_timer_start(&s->restart, on_restart, REOPEN_MS, 0);
			return;
		}
		log_info("drover serve: the store is writable again");
	}
	if (s->ctl == NULL && start_consumers(s))
		schedule_restart(s);
}

static void commit_and_deliver(struct serve *s);

/* Before the loop waits: the writes of this turn are committed together
 * (store.h, "Group commit"), and the controllers' and the agent's
 * informers get their events, here and never inside a write. A group
 * that cannot commit (a full disk) is rolled back: its writes were
 * answered 500 or not at all, and the controllers and the agent, which
 * may have seen them, start again from what is on disk, after a back-off
 * while it lasts. */
static void
on_prepare(uv_prepare_t *h)
{
	commit_and_deliver(h->data);
}

/* The agent's kick runs in the check phase, after the poll: the writes
 * it makes (a pod turned ready) are committed and delivered right after
 * it, not in the next turn's prepare, which comes after that turn's
 * timers, where the controllers run. A pod's readiness then reaches the
 * ReplicaSet controller one loop turn sooner. (Started before the agent,
 * this check runs after the agent's: libuv runs check handles in the
 * reverse order of their start.) */
static void
on_check(uv_check_t *h)
{
	commit_and_deliver(h->data);
}

/* After a batch of a controller's syncs (queue_set_settle): their writes
 * reach the other controllers in this turn. Each hop of a rollout (pod
 * ready, ReplicaSet status, Deployment scales the old ReplicaSet down,
 * then the new one up, ReplicaSet creates pods) otherwise waited for the
 * next turn's timers. The end of the chain goes first: pods a batch
 * created are bound at once (ctl_schedule_now) and the processes of pods
 * bound here start at once (agent_start_bound), on their threads, while
 * the loop goes on with the syncs the same batch set off. A 50-replica
 * rollout's first processes started 13-19 ms after the PUT instead of
 * 32-37 ms, when they waited behind the Deployment's second sync, the
 * ReplicaSets' and the Events; 15 rollouts pooled, 2.131-2.134 s instead
 * of 2.146 s. */
static void
settle(void *arg)
{
	struct serve *s = arg;

	commit_and_deliver(s);
	ctl_schedule_now(s->ctl);
	agent_start_bound(s->agent);
}

static void
commit_and_deliver(struct serve *s)
{
	int r = store_flush(s->store);

	store_deliver(s->store);
	api_events_delivered(s->api);

	if (r == 0 && store_rv(s->store) != s->seen_rv) {
		s->seen_rv = store_rv(s->store);
		uv_timer_start(&s->quiet, on_quiet, QUIET_MS, 0);
		if (s->failing) {
			s->failing = false;
			log_info("drover serve: the store commits again");
		}
	}
	if (store_rollbacks(s->store) == s->rollbacks)
		return;
	s->rollbacks = store_rollbacks(s->store);
	s->seen_rv = store_rv(s->store);
	store_resync_done(s->store);
	s->failing = true;
	if (s->ctl == NULL)
		return; /* stopped already, a restart is on its way */
	log_error("drover serve: the store cannot commit (%s): writes fail "
		  "until it can; the controllers and the agent start again "
		  "from the disk",
		  store_strerror(STORE_EIO));
	stop_consumers(s);
	if (uv_now(s->loop) - s->started_ms > BACKOFF_RESET_MS)
		s->backoff_ms = 0; /* a first failure after a good spell */
	if (!s->stopping)
		schedule_restart(s);
}

/* On the sync thread (store.h, "Syncing in the background"). */
static void
notify_synced(void *arg)
{
	uv_async_send(arg);
}

/* On the loop: the answers and watch events of what is now durable go
 * out. A failed fsync leaves the disk in doubt (Linux may have dropped
 * the pages it could not write, and a second fsync would report success):
 * the daemon stops, and its next start reads what the disk has. The
 * services keep running meanwhile. */
static void
on_synced(uv_async_t *h)
{
	struct serve *s = h->data;

	if (store_synced(s->store)) {
		if (s->stopping)
			return;
		log_error("drover serve: the store could not sync its log to "
			  "disk: stopping (the next start reads what is "
			  "on disk)");
		s->exit_code = 1;
		shutdown_all(s);
		return;
	}
	http_server_durable(s->http);
}

static void
on_signal(uv_signal_t *h, int sig)
{
	struct serve *s = h->data;

	log_info("signal %d: shutting down", sig);
	shutdown_all(s);
}

/* The HTTP server's limits (server.h). */
enum {
	OPT_WATCH_BUFFER = 1000,
	OPT_INSECURE_HTTP,
	OPT_WATCH_BUFFER_TOTAL,
	OPT_HEADER_TIMEOUT,
	OPT_IDLE_TIMEOUT,
	OPT_MAX_UNAUTH,
	OPT_MAX_UNAUTH_PER_ADDR,
	OPT_ALLOCATABLE,
	OPT_EVENT_TTL,
	OPT_CONTROLLERS,
	OPT_NO_AGENT,
	OPT_TLS_SAN,
	OPT_NODE_MONITOR_GRACE,
	OPT_NODE_MONITOR_PERIOD,
	OPT_NODE_STARTUP_GRACE,
	OPT_NODE_EVICTION_RATE,
	OPT_SECONDARY_EVICTION_RATE,
	OPT_LARGE_CLUSTER,
	OPT_UNHEALTHY_ZONE,
	OPT_NOT_READY_TOLERATION,
	OPT_UNREACHABLE_TOLERATION,
};

/* A duration flag (> 0), a rate or share (>= 0, a share at most 1) or a
 * count of seconds (>= 0) of the node lifecycle settings; -1 with the
 * message printed. */
static int
nodelife_arg(int c, const char *flag, const char *v, struct ctl_config *cc,
	     struct api_config *ac)
{
	char *end;
	double d;
	int64_t ms;
	long long n;

	switch (c) {
	case OPT_NODE_MONITOR_GRACE:
	case OPT_NODE_MONITOR_PERIOD:
	case OPT_NODE_STARTUP_GRACE:
		ms = dtime_parse_duration(v);
		if (ms <= 0) {
			fprintf(stderr,
				"error: --%s: \"%s\": expected a duration "
				"such as 40s or 1m\n",
				flag, v);
			return -1;
		}
		if (c == OPT_NODE_MONITOR_GRACE)
			cc->nodelife.grace_ms = ms;
		else if (c == OPT_NODE_MONITOR_PERIOD)
			cc->node_monitor_period_ms = ms;
		else
			cc->nodelife.startup_grace_ms = ms;
		return 0;
	case OPT_NODE_EVICTION_RATE:
	case OPT_SECONDARY_EVICTION_RATE:
	case OPT_UNHEALTHY_ZONE:
		d = strtod(v, &end);
		if (end == v || *end || !(d >= 0) ||
		    (c == OPT_UNHEALTHY_ZONE && (d <= 0 || d > 1))) {
			fprintf(stderr, "error: --%s: \"%s\": expected %s\n",
				flag, v,
				c == OPT_UNHEALTHY_ZONE
				    ? "a share above 0, at most 1"
				    : "a rate in nodes a second, such as 0.1");
			return -1;
		}
		if (c == OPT_NODE_EVICTION_RATE)
			cc->nodelife.eviction_qps = d;
		else if (c == OPT_SECONDARY_EVICTION_RATE)
			cc->nodelife.secondary_qps = d;
		else
			cc->nodelife.unhealthy_zone = d;
		return 0;
	default:
		n = strtoll(v, &end, 10);
		if (end == v || *end || n < 0) {
			fprintf(stderr,
				"error: --%s: \"%s\": expected a count "
				"(0 or more)\n",
				flag, v);
			return -1;
		}
		if (c == OPT_LARGE_CLUSTER)
			cc->nodelife.large_cluster = n;
		else if (c == OPT_NOT_READY_TOLERATION)
			ac->not_ready_toleration_s = n;
		else
			ac->unreachable_toleration_s = n;
		return 0;
	}
}

/* --allocatable, parsed: the agent's config points at it for the life of
 * the daemon (static: every return of serve_main keeps it reachable). */
static struct strmap allocatable;

/* A positive count for a limit flag, or -1 (with the message printed). */
static long
limit_arg(const char *flag, const char *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > INT_MAX) {
		fprintf(stderr,
			"error: --%s: \"%s\": expected a positive "
			"integer\n",
			flag, v);
		return -1;
	}
	return n;
}

/* Every connection is a file descriptor: the soft limit (often 1024) is
 * raised to the hard one, so that idle connections cannot use them up
 * before they are closed. The pods' processes get the limits the daemon
 * started with (proc_nofile_initial). */
static void
raise_nofile(void)
{
	int e = proc_nofile_raise();

	if (e)
		log_info("cannot raise the open files limit: %s", strerror(e));
}

/* The metrics collector of the proxy: what the running agent has. */
static void
proxy_metrics(void *arg, struct strbuf *out)
{
	agent_metrics_collect(((struct serve *)arg)->agent, out);
}

int
serve_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"data-dir", required_argument, NULL, 'd'},
	    {"socket", required_argument, NULL, 's'},
	    {"listen", required_argument, NULL, 'l'},
	    {"insecure-http", no_argument, NULL, OPT_INSECURE_HTTP},
	    {"watch-history", required_argument, NULL, 'w'},
	    {"watch-history-bytes", required_argument, NULL, 'W'},
	    {"node-name", required_argument, NULL, 'N'},
	    {"runtime", required_argument, NULL, 'R'},
	    {"resync-period", required_argument, NULL, 'r'},
	    {"watch-buffer-bytes", required_argument, NULL, OPT_WATCH_BUFFER},
	    {"watch-buffer-total", required_argument, NULL,
	     OPT_WATCH_BUFFER_TOTAL},
	    {"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
	    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
	    {"max-unauthenticated", required_argument, NULL, OPT_MAX_UNAUTH},
	    {"max-unauthenticated-per-address", required_argument, NULL,
	     OPT_MAX_UNAUTH_PER_ADDR},
	    {"host-port-range", required_argument, NULL, 'P'},
	    {"default-user", required_argument, NULL, 'U'},
	    {"node-address", required_argument, NULL, 'A'},
	    {"allocatable", required_argument, NULL, OPT_ALLOCATABLE},
	    {"event-ttl", required_argument, NULL, OPT_EVENT_TTL},
	    {"controllers", required_argument, NULL, OPT_CONTROLLERS},
	    {"no-agent", no_argument, NULL, OPT_NO_AGENT},
	    {"tls-san", required_argument, NULL, OPT_TLS_SAN},
	    {"node-monitor-grace-period", required_argument, NULL,
	     OPT_NODE_MONITOR_GRACE},
	    {"node-monitor-period", required_argument, NULL,
	     OPT_NODE_MONITOR_PERIOD},
	    {"node-startup-grace-period", required_argument, NULL,
	     OPT_NODE_STARTUP_GRACE},
	    {"node-eviction-rate", required_argument, NULL,
	     OPT_NODE_EVICTION_RATE},
	    {"secondary-node-eviction-rate", required_argument, NULL,
	     OPT_SECONDARY_EVICTION_RATE},
	    {"large-cluster-size-threshold", required_argument, NULL,
	     OPT_LARGE_CLUSTER},
	    {"unhealthy-zone-threshold", required_argument, NULL,
	     OPT_UNHEALTHY_ZONE},
	    {"default-not-ready-toleration-seconds", required_argument, NULL,
	     OPT_NOT_READY_TOLERATION},
	    {"default-unreachable-toleration-seconds", required_argument, NULL,
	     OPT_UNREACHABLE_TOLERATION},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct serve s = {0};
	struct http_server_config hc = {0};
	struct api_config ac = {0};
	char dir[480], sock[512], db[600], err[600], tok[80], host[64];
	const char *data_dir = NULL, *socket_path = NULL, *listen = NULL;
	const char *node_name = NULL, *runtime = "process";
	struct node_paths paths; /* the agent points here */
	char hostname[256];
	int c, port = 0, optidx = 0, lock_fd, sock_lock_fd;
	long history = 1000; /* Kubernetes' watch cache keeps 100 a kind */
	/* About 200 pod updates (Kubernetes' watch cache keeps 100 events
	 * a resource); the bound keeps large objects from growing it. */
	long history_bytes = 512L * 1024;
	int64_t resync_ms = CTL_RESYNC_DEFAULT_MS;
	struct serve_tls tls = {0};
	struct api_auth *auth = NULL;
	const char *sans[SERVE_TLS_MAX_SANS];
	size_t nsans = 0;
	bool insecure_http = false;
	int64_t event_ttl_ms = CTL_EVENT_TTL_DEFAULT_MS;

	nodelife_config_default(&s.cc.nodelife);
	s.cc.node_monitor_period_ms = NODELIFE_MONITOR_PERIOD_MS;
	ac.default_tolerations = true;
	ac.not_ready_toleration_s = 300;
	ac.unreachable_toleration_s = 300;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, &optidx)) != -1) {
		switch (c) {
		case OPT_NODE_MONITOR_GRACE:
		case OPT_NODE_MONITOR_PERIOD:
		case OPT_NODE_STARTUP_GRACE:
		case OPT_NODE_EVICTION_RATE:
		case OPT_SECONDARY_EVICTION_RATE:
		case OPT_LARGE_CLUSTER:
		case OPT_UNHEALTHY_ZONE:
		case OPT_NOT_READY_TOLERATION:
		case OPT_UNREACHABLE_TOLERATION:
			if (nodelife_arg(c, opts[optidx].name, optarg, &s.cc,
					 &ac))
				return 2;
			break;
		case 'd':
			data_dir = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case OPT_INSECURE_HTTP:
			insecure_http = true;
			break;
		case OPT_NO_AGENT:
			s.no_agent = true;
			break;
		case OPT_TLS_SAN:
			if (nsans == SERVE_TLS_MAX_SANS) {
				fprintf(stderr,
					"error: --tls-san: at most %d names\n",
					SERVE_TLS_MAX_SANS);
				return 2;
			}
			sans[nsans++] = optarg;
			break;
		case 'N':
			node_name = optarg;
			break;
		case 'A': {
			unsigned char ip[16];

			if (inet_pton(AF_INET, optarg, ip) != 1 &&
			    inet_pton(AF_INET6, optarg, ip) != 1) {
				fprintf(stderr,
					"error: --node-address: \"%s\": "
					"expected an IPv4 or IPv6 address\n",
					optarg);
				return 2;
			}
			s.agc.node_address = optarg;
			break;
		}
		case 'R':
			runtime = optarg;
			if (strcmp(runtime, "none") &&
			    strcmp(runtime, "process")) {
				fprintf(stderr,
					"error: --runtime: \"%s\": expected "
					"process or none\n",
					runtime);
				return 2;
			}
			break;
		case 'w':
			history = atol(optarg);
			if (history < 1) {
				fprintf(stderr, "error: --watch-history: must "
						"be at least 1\n");
				return 2;
			}
			break;
		case 'W':
			history_bytes = atol(optarg);
			if (history_bytes < 0) {
				fprintf(stderr, "error: --watch-history-bytes: "
						"must not be negative\n");
				return 2;
			}
			break;
		case 'r':
			resync_ms = dtime_parse_duration(optarg);
			if (resync_ms < 0) {
				fprintf(stderr,
					"error: --resync-period: \"%s\": "
					"expected a duration such as 5m or "
					"30s (0: never)\n",
					optarg);
				return 2;
			}
			break;
		case 'P':
			if (node_flag_port_range(optarg, &s.agc))
				return 2;
			break;
		case OPT_WATCH_BUFFER:
		case OPT_WATCH_BUFFER_TOTAL:
		case OPT_HEADER_TIMEOUT:
		case OPT_IDLE_TIMEOUT:
		case OPT_MAX_UNAUTH:
		case OPT_MAX_UNAUTH_PER_ADDR: {
			long n = limit_arg(opts[optidx].name, optarg);

			if (n < 0)
				return 2;
			if (c == OPT_WATCH_BUFFER)
				hc.watch_buffer = (size_t)n;
			else if (c == OPT_WATCH_BUFFER_TOTAL)
				hc.watch_buffer_total = (size_t)n;
			else if (c == OPT_HEADER_TIMEOUT)
				hc.header_timeout = (unsigned)n;
			else if (c == OPT_IDLE_TIMEOUT)
				hc.idle_timeout = (unsigned)n;
			else if (c == OPT_MAX_UNAUTH)
				hc.max_unauth = (unsigned)n;
			else
				hc.max_unauth_per_addr = (unsigned)n;
			break;
		}
		case OPT_CONTROLLERS:
			if (ctl_controllers_check(optarg, err, sizeof(err))) {
				fprintf(stderr, "error: --controllers: %s\n",
					err);
				return 2;
			}
			s.cc.controllers = optarg;
			break;
		case OPT_EVENT_TTL:
			event_ttl_ms = dtime_parse_duration(optarg);
			if (event_ttl_ms < 0) {
				fprintf(stderr,
					"error: --event-ttl: \"%s\": expected "
					"a duration such as 1h or 30s (0: "
					"never)\n",
					optarg);
				return 2;
			}
			break;
		case OPT_ALLOCATABLE:
			if (node_flag_allocatable(optarg, &allocatable, &s.agc))
				return 2;
			break;
		case 'U':
			if (node_flag_default_user(optarg, &s.agc))
				return 2;
			break;
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
	if (insecure_http && listen == NULL) {
		fprintf(stderr, "error: --insecure-http: only with --listen\n");
		return 2;
	}
	if (data_dir)
		snprintf(dir, sizeof(dir), "%s", data_dir);
	else
		serve_default_data_dir(dir, sizeof(dir));
	if (socket_path)
		snprintf(sock, sizeof(sock), "%s", socket_path);
	else
		snprintf(sock, sizeof(sock), "%s/drover.sock", dir);
	if (listen) {
		const char *colon = strrchr(listen, ':');

		if (colon == NULL || colon == listen ||
		    (size_t)(colon - listen) >= sizeof(host)) {
			fprintf(stderr,
				"error: --listen: expected ADDR:PORT, got "
				"\"%s\"\n",
				listen);
			return 2;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - listen),
			 listen);
		port = atoi(colon + 1);
	}
	raise_nofile();
	if (dirlock_mkdir_p(dir)) {
		fprintf(stderr, "error: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	lock_fd = lock_data_dir(dir);
	if (lock_fd < 0)
		return 1;
	sock_lock_fd = claim_socket(sock);
	if (sock_lock_fd < 0) {
		close(lock_fd);
		return 1;
	}
	snprintf(db, sizeof(db), "%s/state.db", dir);
	s.store = store_sqlite_open(db, (size_t)history, err, sizeof(err));
	if (s.store == NULL) {
		fprintf(stderr, "error: %s\n", err);
		close(sock_lock_fd);
		close(lock_fd);
		return 1;
	}
	s.loop = uv_default_loop();
	store_limit_history(s.store, (size_t)history_bytes);
	/* One malloc arena: the probe thread allocates little, and a second
	 * arena would keep pages of its own. */
	mallopt(M_ARENA_MAX, 1);
	store_set_deferred(s.store, true);
	/* first: its turn ends after the commit's prepare (loopstat.h) */
	loopstat_start(&s.turns, s.loop);
	uv_prepare_init(s.loop, &s.commit);
	s.commit.data = &s;
	uv_timer_init(s.loop, &s.quiet);
	s.quiet.data = &s;
	uv_timer_init(s.loop, &s.restart);
	s.restart.data = &s;
	s.seen_rv = store_rv(s.store);
	uv_prepare_start(&s.commit, on_prepare);
	uv_check_init(s.loop, &s.commit_after);
	s.commit_after.data = &s;
	uv_check_start(&s.commit_after, on_check);
	uv_async_init(s.loop, &s.synced, on_synced);
	s.synced.data = &s;
	if (store_sync_in_background(s.store, notify_synced, &s.synced))
		log_error("drover serve: no thread to sync the store: each "
			  "loop turn syncs its own writes");
	if (!strcmp(runtime, "process")) {
		node_runtime_paths("drover serve", dir, &paths, &s.agc);
	}
	if (listen) {
		if (load_token(dir, tok, sizeof(tok))) {
			fprintf(stderr, "error: %s/token: %s\n", dir,
				strerror(errno));
			return 1;
		}
		hc.tcp_host = host;
		hc.tcp_port = port;
		hc.token = tok;
		if (!insecure_http &&
		    serve_tls_prepare(dir, host, sans, nsans, &tls, err,
				      sizeof(err))) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		hc.tls_cert = tls.cert;
		hc.tls_key = tls.key;
		hc.tls_priorities = SERVE_TLS_PRIORITIES;
		/* Hosts join with a join token and then act as their node
		 * (auth.h). */
		auth = api_auth_open(dir, tok, tls.ca, tls.ca_len, err,
				     sizeof(err));
		if (auth == NULL) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		hc.auth = ac.auth = auth;
	}
	ac.store = s.store;
	ac.now = now_cb;
	ac.random = random_cb;
	s.metrics = metrics_new();
	ac.metrics = s.metrics;
	ac.loop = s.loop;
	s.api = api_new(&ac);
	/* GET /metrics: the API and the store, the controllers' work
	 * queues, the process (in that order). */
	metrics_register(s.metrics, "apiserver", api_metrics_collect, s.api);
	metrics_register(s.metrics, "store", api_store_metrics_collect, s.api);
	metrics_register(s.metrics, "workqueue", queue_metrics_collect, NULL);
	metrics_register(s.metrics, "hotwrites", client_guard_metrics_collect,
			 NULL);
	metrics_register(s.metrics, "process", metrics_process_collect, NULL);
	metrics_register(s.metrics, "loop", loopstat_collect, &s.turns);
	/* The proxy's counters, through the agent of the moment (it is
	 * started again after a store rollback). */
	metrics_register(s.metrics, "proxy", proxy_metrics, &s);
	hc.api = s.api;
	hc.loop = s.loop;
	hc.unix_path = sock;
	if (http_server_start(&hc, &s.http, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		serve_tls_release(&tls);
		api_free(s.api);
		metrics_free(s.metrics);
		loopstat_release(&s.turns);
		store_free(s.store);
		return 1;
	}
	s.client = client_local_new(s.api);
	s.cc.loop = s.loop;
	s.cc.client = s.client;
	s.cc.now = now_plain;
	s.cc.resync_ms = resync_ms;
	s.cc.event_ttl_ms = event_ttl_ms;
	s.cc.settle = settle;
	s.cc.settle_arg = &s;
	/* One broadcaster for every recorder, written to in-process from
	 * a timer after the loop turn (recorder.h). */
	s.events = event_broadcaster_new(&(struct event_broadcaster_config){
	    .loop = s.loop, .client = s.client, .now = now_plain});
	s.cc.events = s.events;
	s.agc.events = s.events;
	metrics_register(s.metrics, "events", event_broadcaster_metrics_collect,
			 s.events);
	if (node_name == NULL) {
		if (gethostname(hostname, sizeof(hostname)) != 0)
			snprintf(hostname, sizeof(hostname), "localhost");
		hostname[sizeof(hostname) - 1] = '\0';
		node_name = hostname;
	}
	s.agc.loop = s.loop;
	/* The agent's writes go through a hot-write guard as the
	 * controllers' do (ctl.c), named as its Events' component. */
	s.agent_client = client_guard_new(s.client, "kubelet", now_plain);
	s.agc.client = s.agent_client;
	s.agc.node_name = node_name;
	s.agc.now = now_plain;

	s.agc.resync_ms = resync_ms;
	if (store_readonly(s.store)) {
		/* The operator can look (drover get) and delete; the
		 * controllers and the agent wait for a writable store. */
		log_error("drover serve: %s: cannot open the store for writing "
			  "(%s): serving it READ-ONLY; writes answer 503 until "
			  "there is room, retried every %d s",
			  db, err, REOPEN_MS / 1000);
		uv_timer_start(&s.restart, on_restart, REOPEN_MS, 0);
	} else if (start_consumers(&s)) {
		fprintf(stderr, "error: cannot start the controllers and the "
				"agent\n");
		return 1;
	}
	uv_signal_init(s.loop, &s.sigterm);
	uv_signal_init(s.loop, &s.sigint);
	s.sigterm.data = s.sigint.data = &s;
	uv_signal_start(&s.sigterm, on_signal, SIGTERM);
	uv_signal_start(&s.sigint, on_signal, SIGINT);
	log_info("drover serve: data %s, socket %s, store %s (rv %lld)", dir,
		 sock, store_backend_name(s.store),
		 (long long)store_rv(s.store));
	if (listen) {
		/* After the listener: the port is the real one (":0"). */
		if (serve_kubeconfig(dir, host, http_server_tcp_port(s.http),
				     insecure_http ? NULL : &tls, tok, err,
				     sizeof(err)))
			log_error("drover serve: cannot write the kubeconfig: "
				  "%s",
				  err);
		log_info("listening on %s://%s:%d (bearer token in %s/token, "
			 "kubeconfig %s/kubeconfig)",
			 insecure_http ? "http" : "https", host,
			 http_server_tcp_port(s.http), dir, dir);
	}
	fflush(stderr);
	uv_run(s.loop, UV_RUN_DEFAULT);
	/* the controllers and the agent are stopped: nothing records */
	metrics_unregister(s.metrics, "events");
	event_broadcaster_free(s.events);
	api_stop_loop_work(s.api); /* its clients close with the loop */
	uv_walk(s.loop, on_close_walk, NULL);
	uv_run(s.loop, UV_RUN_DEFAULT);
	s.agent_client->ops->free(s.agent_client);
	s.client->ops->free(s.client);
	api_free(s.api);
	metrics_free(s.metrics);
	loopstat_release(&s.turns);
	store_free(s.store);
	uv_loop_close(s.loop);
	log_info("drover serve: stopped");
	strmap_release(&allocatable);
	serve_tls_release(&tls);
	api_auth_free(auth);
	close(sock_lock_fd);
	close(lock_fd);
	return s.exit_code;
}
