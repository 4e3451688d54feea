/* web.c - the tiny HTTP service that drover's demos, tests and benches run. */

/*
 * drover-example-web: plain C11 + POSIX, one thread, one poll() loop.
 *
 * Listening
 *   TCP on --host (default 127.0.0.1) and port $PORT; --port N overrides
 *   PORT, and the default is 8080. Port 0 asks the kernel for a free port;
 *   the "listening on" log line names the port actually bound.
 *
 * Endpoints (GET and HEAD; other methods get 405)
 *   /            200 text/plain "<version>\n". The version is $VERSION,
 *                else --version-string, else $DROVER_IMAGE, else "dev".
 *   /healthz     200 "ok\n" once ready, 503 "not ready\n" before (and
 *                "draining\n" after SIGTERM), 500 "unhealthy\n" once
 *                FAIL_LIVENESS_AFTER_MS has passed.
 *   /slow?ms=N   answers 200 "slept N ms\n" after N ms (0..3600000)
 *                without holding up other connections.
 *   anything else 404.
 *   Every response carries "X-Pod-Name: $POD_NAME" when POD_NAME is set.
 *
 * Behaviour switches (a flag overrides its environment variable; times
 * count from process start)
 *   START_DELAY_MS=N          --start-delay-ms N   The port opens at once,
 *                                                  but /healthz says 503
 *                                                  until N ms have passed.
 *   NEVER_READY=1             --never-ready        /healthz always 503.
 *   CRASH_AFTER_MS=N          --crash-after-ms N   exit(EXIT_CODE) after
 *                                                  N ms, mid-request or not.
 *   EXIT_CODE=N               --exit-code N        status of that crash,
 *                                                  default 3.
 *   FAIL_LIVENESS_AFTER_MS=N  --fail-liveness-after-ms N
 *                                                  /healthz answers 500
 *                                                  from N ms on.
 *   IGNORE_SIGTERM=1          --ignore-sigterm     SIGTERM is logged and
 *                                                  otherwise ignored, so
 *                                                  only SIGKILL stops it.
 *   Booleans accept 1/true/yes/on and 0/false/no/off (or empty).
 *
 * HTTP
 *   HTTP/1.1 with keep-alive (HTTP/1.0 closes unless it asks for
 *   keep-alive). The request line and headers must fit in 8 KiB (else
 *   431) and arrive within 30 s; reads may be split anywhere. A request
 *   body (Content-Length up to 1 MiB) is read and dropped. Malformed
 *   requests get 400 (Transfer-Encoding gets 501) and the connection is
 *   closed. Pipelined requests are answered in order, one at a time. An
 *   idle keep-alive connection is closed after 30 s, and so is one whose
 *   response cannot be written within 30 s.
 *
 * Signals
 *   SIGTERM  log "draining", close the listening socket (new connections
 *            are refused), finish every request already received
 *            (including /slow ones) with "Connection: close", answer a
 *            request that arrives on an idle keep-alive connection within
 *            DRAIN_LINGER_MS (1 s) the same way, close connections idle
 *            longer, then log "exiting" and exit 0. Another SIGTERM while
 *            draining changes nothing.
 *   SIGINT   log "interrupted" and "exiting", exit 130 at once, even while
 *            draining or with IGNORE_SIGTERM.
 *
 * Log (stderr, one line per event, written unbuffered)
 *   listening on 127.0.0.1:PORT version VERSION
 *   ready | liveness failing | draining | exiting | interrupted
 *   ignoring SIGTERM | crashing with exit status N
 *
 * Exit status: 0 after draining, 1 if the port cannot be opened, 2 for a
 * bad flag or variable, EXIT_CODE (3) for a crash, 130 for SIGINT.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HDR_MAX    8192          /* request line and headers */
#define OUT_MAX    4096          /* one whole response */
#define FIELD_MAX  1024          /* version string, pod name */
#define BODY_MAX   (1024 * 1024) /* request body read and dropped */
#define MAX_CONNS  512           /* below the usual 1024 fd limit */
#define IO_TIMEOUT 30000         /* ms to read a request or write */
/* After SIGTERM, how long an idle keep-alive connection may still bring
 * a request. Closing it at once would race a request already on its way
 * (a client, or a proxy, sends the next one as soon as the last answer
 * arrives: the connection is "idle" on this side most of the time), and
 * that request would fail with a reset. */
#define DRAIN_LINGER_MS 1000
#define SLOW_MAX        3600000            /* ms, the longest /slow */
#define TIME_MAX        (INT64_C(1) << 40) /* ms, any switch */
#define ADDR_MAX        64                 /* a numeric IPv4 or IPv6 address */
#define EXIT_SIGINT     130 /* 128 + SIGINT, as a shell reports */

/* Where a connection is in its request/response cycle. */
enum conn_state {
	CONN_READ,  /* waiting for (the rest of) a request */
	CONN_SLOW,  /* a /slow request sleeping until deadline */
	CONN_WRITE, /* sending out[out_off..out_len] */
};

struct conn {
	int fd;
	enum conn_state state;
	int64_t deadline; /* monotonic ms; meaning depends on state */
	int keep_alive;   /* read another request after this one */
	int http10;       /* HTTP/1.0 request: say keep-alive explicitly */
	int head;         /* HEAD request: headers only */
	int slow_ms;      /* the N of a sleeping /slow?ms=N */
	size_t in_len;    /* bytes buffered in in[] */
	size_t discard;   /* request body bytes still to read and drop */
	size_t out_len;
	size_t out_off;
	char in[HDR_MAX];
	char out[OUT_MAX];
};

struct config {
	const char *host;
	const char *port;
	const char *version;
	const char *pod_name; /* NULL: no X-Pod-Name header */
	int64_t start_delay_ms;
	int never_ready;
	int64_t crash_after_ms; /* -1: never */
	int exit_code;
	int64_t fail_liveness_after_ms; /* -1: never */
	int ignore_sigterm;
};

static struct config cfg;
static struct conn *conns[MAX_CONNS]; /* NULL slots until compacted */
static int nconns;                    /* slots in use, NULL ones included */
static int listen_fd = -1;
static int draining;
static int64_t t_start;
static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t got_term, got_int;

static void
logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void
usage(FILE *f)
{
	fputs("usage: drover-example-web [--host ADDR] [--port N]"
	      " [--version-string S]\n"
	      "    [--start-delay-ms N] [--never-ready] [--crash-after-ms N]"
	      " [--exit-code N]\n"
	      "    [--fail-liveness-after-ms N] [--ignore-sigterm]\n"
	      "Environment: PORT VERSION DROVER_IMAGE POD_NAME"
	      " START_DELAY_MS NEVER_READY\n"
	      "    CRASH_AFTER_MS EXIT_CODE FAIL_LIVENESS_AFTER_MS"
	      " IGNORE_SIGTERM\n",
	      f);
}

static void
die_usage(const char *what, const char *value)
{
	fprintf(stderr, "drover-example-web: invalid %s '%s'\n", what, value);
	usage(stderr);
	exit(2);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Parses all-digit s as 0..max; -1 if it is anything else. */
static int64_t
parse_num(const char *s, int64_t max)
{
	int64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -1;
	}
	return v;
}

static int64_t
need_num(const char *what, const char *s, int64_t max)
{
	int64_t v = parse_num(s, max);

	if (v < 0)
		die_usage(what, s);
	return v;
}

static int
need_bool(const char *what, const char *s)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"", "0", "false", "no", "off"};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	die_usage(what, s);
	return 0;
}

/* A value that is safe to put in a header: printable ASCII, not too long. */
static void
need_field(const char *what, const char *s)
{
	const char *p;

	if (strlen(s) > FIELD_MAX)
		die_usage(what, s);
	for (p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			die_usage(what, s);
}

/* Non-empty environment variable, or NULL. */
static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* Environment first, then flags over it; exits 2 on anything invalid. */
static void
configure(int argc, char **argv)
{
	const char *v, *flag_version = NULL;
	int i;

	cfg.host = "127.0.0.1";
	cfg.port = env("PORT") ? env("PORT") : "8080";
	cfg.crash_after_ms = -1;
	cfg.fail_liveness_after_ms = -1;
	cfg.exit_code = 3;
	if ((v = env("START_DELAY_MS")))
		cfg.start_delay_ms = need_num("START_DELAY_MS", v, TIME_MAX);
	if ((v = getenv("NEVER_READY")))
		cfg.never_ready = need_bool("NEVER_READY", v);
	if ((v = env("CRASH_AFTER_MS")))
		cfg.crash_after_ms = need_num("CRASH_AFTER_MS", v, TIME_MAX);
	if ((v = env("EXIT_CODE")))
		cfg.exit_code = (int)need_num("EXIT_CODE", v, 255);
	if ((v = env("FAIL_LIVENESS_AFTER_MS")))
		cfg.fail_liveness_after_ms =
		    need_num("FAIL_LIVENESS_AFTER_MS", v, TIME_MAX);
	if ((v = getenv("IGNORE_SIGTERM")))
		cfg.ignore_sigterm = need_bool("IGNORE_SIGTERM", v);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		char name[64];

		/* --name=value and --name value are both accepted. */
		if (eq && (size_t)(eq - a) < sizeof(name)) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			v = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", a);
			v = NULL;
		}
		if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (strcmp(name, "--never-ready") == 0 && !v) {
			cfg.never_ready = 1;
			continue;
		}
		if (strcmp(name, "--ignore-sigterm") == 0 && !v) {
			cfg.ignore_sigterm = 1;
			continue;
		}
		if (!v && i + 1 < argc)
			v = argv[++i];
		if (!v)
			die_usage("argument", a);
		if (strcmp(name, "--port") == 0)
			cfg.port = v;
		else if (strcmp(name, "--host") == 0)
			cfg.host = v;
		else if (strcmp(name, "--version-string") == 0)
			flag_version = v;
		else if (strcmp(name, "--start-delay-ms") == 0)
			cfg.start_delay_ms = need_num(name, v, TIME_MAX);
		else if (strcmp(name, "--crash-after-ms") == 0)
			cfg.crash_after_ms = need_num(name, v, TIME_MAX);
		else if (strcmp(name, "--exit-code") == 0)
			cfg.exit_code = (int)need_num(name, v, 255);
		else if (strcmp(name, "--fail-liveness-after-ms") == 0)
			cfg.fail_liveness_after_ms =
			    need_num(name, v, TIME_MAX);
		else
			die_usage("flag", a);
	}
	need_num("port", cfg.port, 65535);

	/* The one place where the environment beats the flag, as specified. */
	if ((v = env("VERSION")))
		cfg.version = v;
	else if (flag_version && *flag_version)
		cfg.version = flag_version;
	else if ((v = env("DROVER_IMAGE")))
		cfg.version = v;
	else
		cfg.version = "dev";
	need_field("version", cfg.version);
	if ((cfg.pod_name = env("POD_NAME")))
		need_field("POD_NAME", cfg.pod_name);
}

static void
on_signal(int sig)
{
	int saved = errno;
	char b = 0;
	ssize_t r;

	if (sig == SIGINT)
		got_int = 1;
	else
		got_term = 1;
	r = write(sig_pipe[1], &b, 1); /* full pipe: a wakeup is pending */
	(void)r;
	errno = saved;
}

static int
set_flags(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void
setup_signals(void)
{
	struct sigaction sa;

	if (pipe(sig_pipe) < 0 || set_flags(sig_pipe[0]) < 0 ||
	    set_flags(sig_pipe[1]) < 0) {
		logmsg("pipe: %s", strerror(errno));
		exit(1);
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * Opens the listening socket on cfg.host:cfg.port and writes the address
 * actually bound ("127.0.0.1:8080", "[::1]:8080") to desc. Exits 1 when no
 * address can be bound.
 */
static void
open_listener(char *desc, size_t desc_len)
{
	struct addrinfo hints, *res, *ai;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[ADDR_MAX], serv[16];
	int rc, err = 0, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(cfg.host, cfg.port, &hints, &res);
	if (rc != 0) {
		logmsg("%s:%s: %s", cfg.host, cfg.port, gai_strerror(rc));
		exit(1);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int fd =
		    socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);

		if (fd < 0) {
			err = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, 128) == 0 && set_flags(fd) == 0) {
			listen_fd = fd;
			break;
		}
		err = errno;
		close(fd);
	}
	freeaddrinfo(res);
	if (listen_fd < 0) {
		logmsg("listen %s:%s: %s", cfg.host, cfg.port, strerror(err));
		exit(1);
	}
	if (getsockname(listen_fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv,
			sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
		logmsg("getsockname: %s", strerror(errno));
		exit(1);
	}
	snprintf(desc, desc_len, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host,
		 serv);
}

static void
conn_close(int i)
{
	close(conns[i]->fd);
	free(conns[i]);
	conns[i] = NULL;
}

static const char *
status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Content Too Large";
	case 431:
		return "Request Header Fields Too Large";
	case 500:
		return "Internal Server Error";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	}
	return "Unknown";
}

/*
 * Formats a whole text/plain response into c->out and switches c to
 * CONN_WRITE. extra is NULL or more header lines, each ending in CRLF.
 */
static void
respond(struct conn *c, int status, const char *extra, const char *body)
{
	const char *conn_hdr = "";
	int n;

	if (draining)
		c->keep_alive = 0;
	if (!c->keep_alive)
		conn_hdr = "Connection: close\r\n";
	else if (c->http10)
		conn_hdr = "Connection: keep-alive\r\n";
	n = snprintf(c->out, sizeof(c->out),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: text/plain\r\n"
		     "Content-Length: %zu\r\n"
		     "%s%s%s%s%s\r\n"
		     "%s",
		     status, status_text(status), strlen(body),
		     cfg.pod_name ? "X-Pod-Name: " : "",
		     cfg.pod_name ? cfg.pod_name : "",
		     cfg.pod_name ? "\r\n" : "", conn_hdr, extra ? extra : "",
		     c->head ? "" : body);
	/* Cannot happen: fields are capped at FIELD_MAX at start-up. */
	if (n < 0 || (size_t)n >= sizeof(c->out))
		abort();
	c->out_len = (size_t)n;
	c->out_off = 0;
	c->state = CONN_WRITE;
	c->deadline = now_ms() + IO_TIMEOUT;
}

/* Answers a malformed request and closes the connection afterwards. */
static void
reject(struct conn *c, int status, const char *body)
{
	c->keep_alive = 0;
	c->head = 0;
	respond(c, status, NULL, body);
}

/* Offset just past the blank line that ends the header, or 0. */
static size_t
header_end(const char *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (b[i] != '\n')
			continue;
		if (i + 1 < len && b[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static int
is_tchar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* Cuts the next line off *p: returns it without CR LF, or NULL at end. */
static char *
next_line(char **p)
{
	char *line = *p, *nl;

	if (!line || !(nl = strchr(line, '\n')))
		return NULL;
	*p = nl + 1;
	if (nl > line && nl[-1] == '\r')
		nl--;
	*nl = '\0';
	return line;
}

static char *
trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Looks at each comma-separated token of a Connection header. */
static void
connection_tokens(struct conn *c, char *value)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(value, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (strcasecmp(tok, "close") == 0)
			c->keep_alive = 0;
		else if (strcasecmp(tok, "keep-alive") == 0 && c->http10)
			c->keep_alive = 1;
	}
}

/* The N of ms=N in a query string: 0..SLOW_MAX, or -1. */
static int
slow_ms(const char *query)
{
	char buf[256], *tok, *save = NULL;

	if (!query || strlen(query) >= sizeof(buf))
		return -1;
	strcpy(buf, query);
	for (tok = strtok_r(buf, "&", &save); tok;
	     tok = strtok_r(NULL, "&", &save))
		if (strncmp(tok, "ms=", 3) == 0)
			return (int)parse_num(tok + 3, SLOW_MAX);
	return -1;
}

static void
route(struct conn *c, const char *method, char *target)
{
	char *query = strchr(target, '?');
	char body[FIELD_MAX + 2];
	int64_t now = now_ms();
	int ms;

	if (query)
		*query++ = '\0';
	c->head = strcmp(method, "HEAD") == 0;
	if (strcmp(method, "GET") != 0 && !c->head) {
		respond(c, 405, "Allow: GET, HEAD\r\n", "method not allowed\n");
	} else if (strcmp(target, "/") == 0) {
		snprintf(body, sizeof(body), "%s\n", cfg.version);
		respond(c, 200, NULL, body);
	} else if (strcmp(target, "/healthz") == 0) {
		if (cfg.fail_liveness_after_ms >= 0 &&
		    now - t_start >= cfg.fail_liveness_after_ms)
			respond(c, 500, NULL, "unhealthy\n");
		else if (draining)
			respond(c, 503, NULL, "draining\n");
		else if (cfg.never_ready || now - t_start < cfg.start_delay_ms)
			respond(c, 503, NULL, "not ready\n");
		else
			respond(c, 200, NULL, "ok\n");
	} else if (strcmp(target, "/slow") == 0) {
		if ((ms = slow_ms(query)) < 0) {
			respond(c, 400, NULL, "want /slow?ms=0..3600000\n");
		} else {
			c->slow_ms = ms;
			c->state = CONN_SLOW;
			c->deadline = now + ms;
		}
	} else {
		respond(c, 404, NULL, "not found\n");
	}
}

/*
 * Parses the complete header in c->in[0..end) and starts the answer.
 * The header and as much of the body as is buffered are consumed; the
 * rest of the body is left in c->discard.
 */
static void
parse_request(struct conn *c, size_t end)
{
	char hdr[HDR_MAX + 1], *p = hdr, *line, *method, *target, *version;
	int64_t clen = 0;
	int have_clen = 0;
	size_t drop;

	memcpy(hdr, c->in, end);
	hdr[end] = '\0';
	c->keep_alive = 0;
	c->http10 = 0;

	if (memchr(hdr, '\0', end)) {
		reject(c, 400, "bad request\n");
		return;
	}

	/* Request line: METHOD SP /target SP HTTP/1.x */
	method = next_line(&p);
	if (!method || !(target = strchr(method, ' ')))
		goto bad;
	*target++ = '\0';
	if (!(version = strchr(target, ' ')))
		goto bad;
	*version++ = '\0';
	if (strcmp(version, "HTTP/1.1") == 0)
		c->keep_alive = 1;
	else if (strcmp(version, "HTTP/1.0") == 0)
		c->http10 = 1;
	else
		goto bad;
	if (!*method || target[0] != '/')
		goto bad;
	for (line = method; *line; line++)
		if (!is_tchar(*line))
			goto bad;
	for (line = target; *line; line++)
		if (*line <= 0x20 || *line >= 0x7f)
			goto bad;

	/* Header fields: name ":" OWS value OWS; no obsolete folding. */
	while ((line = next_line(&p)) && *line) {
		char *colon = strchr(line, ':'), *name, *value;

		if (!colon || colon == line)
			goto bad;
		*colon = '\0';
		for (name = line; *name; name++)
			if (!is_tchar(*name))
				goto bad;
		name = line;
		value = trim(colon + 1);
		if (strcasecmp(name, "Connection") == 0) {
			connection_tokens(c, value);
		} else if (strcasecmp(name, "Content-Length") == 0) {
			if (have_clen)
				goto bad;
			have_clen = 1;
			clen = parse_num(value, INT64_C(1) << 40);
			if (clen < 0)
				goto bad;
			if (clen > BODY_MAX) {
				reject(c, 413, "request body too large\n");
				return;
			}
		} else if (strcasecmp(name, "Transfer-Encoding") == 0) {
			reject(c, 501, "transfer-encoding not supported\n");
			return;
		}
	}

	/* Consume the header and the buffered part of the body. */
	drop = c->in_len - end;
	if ((size_t)clen < drop)
		drop = (size_t)clen;
	c->discard = (size_t)clen - drop;
	memmove(c->in, c->in + end + drop, c->in_len - end - drop);
	c->in_len -= end + drop;
	route(c, method, target);
	return;
bad:
	reject(c, 400, "bad request\n");
}

/*
 * Moves connection i along as far as it can go without blocking: parse
 * buffered requests, write responses. Returns -1 if it closed it.
 */
static int
conn_step(int i)
{
	struct conn *c = conns[i];
	size_t end;
	ssize_t n;

	for (;;) {
		switch (c->state) {
		case CONN_READ:
			if ((end = header_end(c->in, c->in_len)) != 0) {
				parse_request(c, end);
				continue;
			}
			if (c->in_len == sizeof(c->in)) {
				reject(c, 431, "request header too large\n");
				continue;
			}
			return 0;
		case CONN_SLOW:
			return 0;
		case CONN_WRITE:
			n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
				      errno == EINTR))
				return 0;
			if (n < 0)
				goto close;
			c->out_off += (size_t)n;
			if (c->out_off < c->out_len)
				return 0;
			if (!c->keep_alive || draining)
				goto close;
			c->state = CONN_READ;
			c->deadline = now_ms() + IO_TIMEOUT;
			continue;
		}
	}
close:
	conn_close(i);
	return -1;
}

/*
 * Reads what is there into connection i (dropping leftover body bytes)
 * and steps it. Returns -1 if it closed it, 1 if nothing was waiting.
 */
static int
conn_read(int i)
{
	struct conn *c = conns[i];
	char *dst = c->in + c->in_len;
	size_t room = sizeof(c->in) - c->in_len;
	ssize_t n;

	n = recv(c->fd, dst, room, 0);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 1;
	if (n <= 0) {
		conn_close(i);
		return -1;
	}
	if (c->discard) {
		size_t drop = c->discard < (size_t)n ? c->discard : (size_t)n;

		memmove(dst, dst + drop, (size_t)n - drop);
		n -= (ssize_t)drop;
		c->discard -= drop;
	}
	c->in_len += (size_t)n;
	return conn_step(i);
}

static void
accept_all(void)
{
	while (listen_fd >= 0 && nconns < MAX_CONNS) {
		struct conn *c;
		int fd = accept(listen_fd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (set_flags(fd) < 0 || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = CONN_READ;
		c->deadline = now_ms() + IO_TIMEOUT;
		conns[nconns++] = c;
	}
}

/*
 * SIGTERM: stop accepting; keep-alive connections that hold no request
 * get DRAIN_LINGER_MS for one more (answered with "Connection: close"),
 * then their read deadline closes them.
 */
static void
start_drain(void)
{
	int64_t until = now_ms() + DRAIN_LINGER_MS;
	int i;

	logmsg("draining");
	draining = 1;
	close(listen_fd);
	listen_fd = -1;
	for (i = 0; i < nconns; i++)
		if (conns[i] && conns[i]->state == CONN_READ &&
		    conns[i]->in_len == 0 && conns[i]->deadline > until)
			conns[i]->deadline = until;
}

static void
handle_signals(void)
{
	char buf[64];

	while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
	if (got_int) {
		logmsg("interrupted");
		logmsg("exiting");
		exit(EXIT_SIGINT);
	}
	if (!got_term)
		return;
	got_term = 0;
	if (cfg.ignore_sigterm)
		logmsg("ignoring SIGTERM");
	else if (!draining)
		start_drain();
}

/* Fires due process timers and returns the next deadline (or INT64_MAX). */
static int64_t
run_timers(int64_t now)
{
	static int ready_logged, liveness_logged;
	int64_t next = INT64_MAX, t;

	if (cfg.crash_after_ms >= 0) {
		t = t_start + cfg.crash_after_ms;
		if (now >= t) {
			logmsg("crashing with exit status %d", cfg.exit_code);
			exit(cfg.exit_code);
		}
		next = t;
	}
	if (!ready_logged && !cfg.never_ready) {
		t = t_start + cfg.start_delay_ms;
		if (now >= t) {
			logmsg("ready");
			ready_logged = 1;
		} else if (t < next) {
			next = t;
		}
	}
	if (!liveness_logged && cfg.fail_liveness_after_ms >= 0) {
		t = t_start + cfg.fail_liveness_after_ms;
		if (now >= t) {
			logmsg("liveness failing");
			liveness_logged = 1;
		} else if (t < next) {
			next = t;
		}
	}
	return next;
}

/* Fires due connection deadlines and returns the next one. */
static int64_t
run_deadlines(int64_t now, int64_t next)
{
	char body[64];
	int i;

	for (i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (!c)
			continue;
		if (now < c->deadline) {
			if (c->deadline < next)
				next = c->deadline;
			continue;
		}
		if (c->state != CONN_SLOW) {
			conn_close(i); /* read or write timed out */
			continue;
		}
		snprintf(body, sizeof(body), "slept %d ms\n", c->slow_ms);
		respond(c, 200, NULL, body);
		if (conn_step(i) == 0 && c->deadline < next)
			next = c->deadline;
	}
	return next;
}

static void
compact(void)
{
	int i, j = 0;

	for (i = 0; i < nconns; i++)
		if (conns[i])
			conns[j++] = conns[i];
	nconns = j;
}

int
main(int argc, char **argv)
{
	static struct pollfd pfd[MAX_CONNS + 2];
	char desc[ADDR_MAX + 32];

	t_start = now_ms();
	setvbuf(stdout, NULL, _IOLBF, 0);
	configure(argc, argv);
	setup_signals();
	open_listener(desc, sizeof(desc));
	logmsg("listening on %s version %s", desc, cfg.version);

	for (;;) {
		int64_t now = now_ms(), next;
		int i, n, timeout;

		next = run_deadlines(now, run_timers(now));
		compact();
		if (draining && nconns == 0)
			break;
		if (next == INT64_MAX)
			timeout = -1;
		else if (next - now > INT_MAX)
			timeout = INT_MAX;
		else
			timeout = next > now ? (int)(next - now) : 0;

		/* pfd[0] signals, pfd[1] the listener, pfd[2 + i] conns[i]. */
		pfd[0].fd = sig_pipe[0];
		pfd[0].events = POLLIN;
		pfd[1].fd = nconns < MAX_CONNS ? listen_fd : -1;
		pfd[1].events = POLLIN;
		for (i = 0; i < nconns; i++) {
			struct conn *c = conns[i];

			/* A sleeping /slow is woken by its deadline only. */
			pfd[2 + i].fd = c->state == CONN_SLOW ? -1 : c->fd;
			pfd[2 + i].events =
			    c->state == CONN_READ ? POLLIN : POLLOUT;
			pfd[2 + i].revents = 0;
		}
		n = nconns;
		if (poll(pfd, (nfds_t)n + 2, timeout) < 0) {
			if (errno == EINTR)
				continue;
			logmsg("poll: %s", strerror(errno));
			exit(1);
		}
		if (pfd[0].revents)
			handle_signals();
		for (i = 0; i < n; i++) {
			if (!conns[i] || !pfd[2 + i].revents)
				continue;
			if (conns[i]->state == CONN_READ)
				conn_read(i);
			else
				conn_step(i);
		}
		if (pfd[1].revents && listen_fd >= 0)
			accept_all();
	}
	logmsg("exiting");
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	return 0;
}
