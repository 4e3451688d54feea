/* serve.c - `drover serve [--data-dir DIR] [--socket PATH]
 * [--listen ADDR:PORT]`: wiring only (the one place that picks concrete
 * backends: SQLite store, in-process client, MHD server). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "agent.h"
#include "api.h"
#include "client_local.h"
#include "clock.h"
#include "ctl.h"
#include "log.h"
#include "portalloc.h"
#include "rand.h"
#include "secexec.h"
#include "serve.h"
#include "server.h"
#include "store.h"

static const char usage_text[] =
    "usage: drover serve [--data-dir DIR] [--socket PATH] "
    "[--listen ADDR:PORT]\n"
    "                    [--node-name NAME] [--runtime none|process]\n"
    "                    [--watch-history N] [--watch-history-bytes B]\n"
    "                    [--host-port-range A-B] [--default-user USER]\n"
    "\n"
    "Runs the control plane on this host: the SQLite store in DIR, the API\n"
    "on a unix socket (mode 0600) and, with --listen, on TCP with a bearer\n"
    "token (written to DIR/token), the controllers, the scheduler and the\n"
    "agent of this node (NAME, default the host name), which runs the\n"
    "pods bound to it as processes (logs in DIR/pods); --runtime none\n"
    "keeps pods as objects only. Watches can resume from any of the last\n"
    "N writes (default 1000) while their objects fit in B bytes (default\n"
    "512 KiB, 0: no bound); older: 410 Gone. Pods get their host ports\n"
    "from A-B (default 30000-32767); pods that name no user (runAsUser)\n"
    "run as USER (a name or a uid; recommended when drover runs as root).\n";

struct serve {
	uv_loop_t *loop;
	struct store *store;
	struct api *api;
	struct http_server *http;
	struct client *client;
	struct controllers *ctl;
	struct agent *agent;
	uv_signal_t sigterm, sigint;
	uv_prepare_t commit; /* the group commit of each loop turn */
	uv_timer_t quiet;    /* a quiet spell after writes: trim the heap */
	int64_t seen_rv;     /* the store's rv at the last loop turn */
	int failed;
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

static int
mkdir_p(const char *path)
{
	char buf[512], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -1;
	return 0;
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

static void
shutdown_all(struct serve *s)
{
	agent_stop(s->agent);
	s->agent = NULL;
	ctl_stop(s->ctl);
	s->ctl = NULL;
	http_server_stop(s->http);
	s->http = NULL;
	uv_signal_stop(&s->sigterm);
	uv_signal_stop(&s->sigint);
	uv_close((uv_handle_t *)&s->sigterm, NULL);
	uv_close((uv_handle_t *)&s->sigint, NULL);
	uv_prepare_stop(&s->commit);
	uv_close((uv_handle_t *)&s->commit, NULL);
	uv_timer_stop(&s->quiet);
	uv_close((uv_handle_t *)&s->quiet, NULL);
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

/* Before the loop waits: the writes of this turn become durable together
 * (store.h, "Group commit"). A store that cannot commit has lost them:
 * stop, so that a restart serves what is on disk. */
static void
on_prepare(uv_prepare_t *h)
{
	struct serve *s = h->data;

	if (store_flush(s->store) == 0) {
		if (store_rv(s->store) != s->seen_rv) {
			s->seen_rv = store_rv(s->store);
			uv_timer_start(&s->quiet, on_quiet, QUIET_MS, 0);
		}
		return;
	}
	log_error("drover serve: the store cannot commit; stopping");
	s->failed = 1;
	shutdown_all(s);
}

static void
on_signal(uv_signal_t *h, int sig)
{
	struct serve *s = h->data;

	log_info("signal %d: shutting down", sig);
	shutdown_all(s);
}

/* --default-user: a user name, or a uid (its group from the password
 * database if it has an entry there, else the same number). */
static int
default_user(const char *arg, struct agent_config *agc)
{
	const struct passwd *pw = getpwnam(arg);
	char *end;
	long long uid;

	if (pw == NULL) {
		errno = 0;
		uid = strtoll(arg, &end, 10);
		if (*arg == '\0' || *end || errno || uid < 0 ||
		    uid > 0xfffffffeLL)
			return -1;
		pw = getpwuid((uid_t)uid);
		agc->default_user = true;
		agc->default_uid = uid;
		agc->default_gid = pw ? (long long)pw->pw_gid : uid;
		return 0;
	}
	agc->default_user = true;
	agc->default_uid = pw->pw_uid;
	agc->default_gid = pw->pw_gid;
	return 0;
}

/* Only root can run processes as another user. */
static bool
can_become(long long uid)
{
	return geteuid() == 0 || (uid_t)uid == geteuid();
}

int
serve_exec_helper(int argc, char **argv)
{
	return secexec_main(argc, argv);
}

int
serve_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"data-dir", required_argument, NULL, 'd'},
	    {"socket", required_argument, NULL, 's'},
	    {"listen", required_argument, NULL, 'l'},
	    {"watch-history", required_argument, NULL, 'w'},
	    {"watch-history-bytes", required_argument, NULL, 'W'},
	    {"node-name", required_argument, NULL, 'N'},
	    {"runtime", required_argument, NULL, 'R'},
	    {"host-port-range", required_argument, NULL, 'P'},
	    {"default-user", required_argument, NULL, 'U'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct serve s = {0};
	struct http_server_config hc = {0};
	struct api_config ac = {0};
	struct ctl_config cc = {0};
	char dir[480], sock[512], db[600], err[600], tok[80], host[64];
	const char *data_dir = NULL, *socket_path = NULL, *listen = NULL;
	const char *node_name = NULL, *runtime = "process";
	char pod_dir[600];
	char hostname[256];
	struct agent_config agc = {0};
	int c, port = 0;
	long history = 1000; /* Kubernetes' watch cache keeps 100 a kind */
	/* About 200 pod updates (Kubernetes' watch cache keeps 100 events
	 * a resource); the bound keeps large objects from growing it. */
	long history_bytes = 512L * 1024;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			data_dir = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'N':
			node_name = optarg;
			break;
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
		case 'P':
			if (portalloc_parse_range(optarg, &agc.port_lo,
						  &agc.port_hi)) {
				fprintf(stderr,
					"error: --host-port-range: \"%s\": "
					"expected A-B with 1 <= A <= B <= "
					"65535\n",
					optarg);
				return 2;
			}
			break;
		case 'U':
			if (default_user(optarg, &agc)) {
				fprintf(stderr,
					"error: --default-user: \"%s\": no "
					"such user\n",
					optarg);
				return 2;
			}
			if (!can_become(agc.default_uid)) {
				fprintf(stderr,
					"error: --default-user: running pods "
					"as another user needs drover to run "
					"as root\n");
				return 2;
			}
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
	if (mkdir_p(dir)) {
		fprintf(stderr, "error: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	snprintf(db, sizeof(db), "%s/state.db", dir);
	s.store = store_sqlite_open(db, (size_t)history, err, sizeof(err));
	if (s.store == NULL) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	s.loop = uv_default_loop();
	store_limit_history(s.store, (size_t)history_bytes);
	/* One malloc arena: the probe thread allocates little, and a second
	 * arena would keep pages of its own. */
	mallopt(M_ARENA_MAX, 1);
	store_set_deferred(s.store, true);
	uv_prepare_init(s.loop, &s.commit);
	s.commit.data = &s;
	uv_timer_init(s.loop, &s.quiet);
	s.quiet.data = &s;
	s.seen_rv = store_rv(s.store);
	uv_prepare_start(&s.commit, on_prepare);
	if (!strcmp(runtime, "process")) {
		snprintf(pod_dir, sizeof(pod_dir), "%s/pods", dir);
		ac.pod_dir = pod_dir;
	}
	ac.store = s.store;
	ac.now = now_cb;
	ac.random = random_cb;
	s.api = api_new(&ac);
	hc.api = s.api;
	hc.loop = s.loop;
	hc.unix_path = sock;
	if (listen) {
		if (load_token(dir, tok, sizeof(tok))) {
			fprintf(stderr, "error: %s/token: %s\n", dir,
				strerror(errno));
			return 1;
		}
		hc.tcp_host = host;
		hc.tcp_port = port;
		hc.token = tok;
	}
	if (http_server_start(&hc, &s.http, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		api_free(s.api);
		store_free(s.store);
		return 1;
	}
	s.client = client_local_new(s.api);
	cc.loop = s.loop;
	cc.client = s.client;
	cc.now = now_plain;
	s.ctl = ctl_start(&cc);
	if (s.ctl == NULL) {
		fprintf(stderr, "error: cannot start the controllers\n");
		return 1;
	}
	if (node_name == NULL) {
		if (gethostname(hostname, sizeof(hostname)) != 0)
			snprintf(hostname, sizeof(hostname), "localhost");
		hostname[sizeof(hostname) - 1] = '\0';
		node_name = hostname;
	}
	agc.loop = s.loop;
	agc.client = s.client;
	agc.node_name = node_name;
	agc.now = now_plain;
	agc.pod_dir = ac.pod_dir;
	s.agent = agent_start(&agc);
	if (s.agent == NULL) {
		fprintf(stderr, "error: cannot register node %s\n", node_name);
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
	if (listen)
		log_info("listening on http://%s:%d (bearer token in %s/token)",
			 host, http_server_tcp_port(s.http), dir);
	fflush(stderr);
	uv_run(s.loop, UV_RUN_DEFAULT);
	uv_walk(s.loop, on_close_walk, NULL);
	uv_run(s.loop, UV_RUN_DEFAULT);
	s.client->ops->free(s.client);
	api_free(s.api);
	store_free(s.store);
	uv_loop_close(s.loop);
	log_info("drover serve: stopped");
	return s.failed;
}
