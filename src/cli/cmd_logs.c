/* cmd_logs.c - `drover logs [-f] [--previous] [-c CONTAINER] [--tail N]
 * POD`: a container's log through the pods/log subresource. -f follows
 * the file: it asks again every half second for the bytes after the
 * offset the last answer ended at (X-Drover-Log-Offset), across
 * rotations, until interrupted or the pod is gone; then it asks once
 * more by the pod's uid (h_log.c) for what the process wrote while it
 * stopped, and ends. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client_http.h"
#include "common.h"

static const char usage_text[] =
    "usage: drover logs [-f] [-p|--previous] [-c CONTAINER] [--tail N] "
    "POD\n"
    "\n"
    "Prints the log of a container of POD (pod/NAME works too).\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* One read of the log: prints it, or the error unless its status is
 * `quiet` (-1: none is). Returns the HTTP status (0: no answer). */
static int
fetch(struct client *c, const char *path, const char *query, int64_t *off,
      int quiet)
{
	struct strbuf text = STRBUF_INIT;
	char err[600];
	int st =
	    client_http_get_text(c, path, query, &text, off, err, sizeof(err));

	if (st == 200) {
		fwrite(text.buf, 1, text.len, stdout);
		fflush(stdout);
	} else if (st == quiet) {
		/* the caller's to say */
	} else if (st == 0) {
		fprintf(stderr, "Unable to connect to the server: %s\n", err);
	} else {
		json_t *j = json_loadb(text.buf, text.len, 0, NULL);
		const char *m =
		    json_string_value(json_object_get(j, "message"));
		const char *r = json_string_value(json_object_get(j, "reason"));

		fprintf(stderr, "Error from server (%s): %s\n",
			r ? r : "Unknown", m ? m : text.buf);
		json_decref(j);
	}
	strbuf_release(&text);
	return st;
}

/* The pod's uid and the container's name (the pod's only one if none
 * was given), for the follower's last read; false if unknown. */
static bool
identify(struct client *c, const char *name, const char *container, char *uid,
	 size_t ulen, char *cname, size_t clen)
{
	json_t *pod = NULL, *cs;
	const char *u, *n = container;

	if (cli_get(c, kind_by_id(KIND_POD), cli_g.ns, name, &pod))
		return false;
	u = json_string_value(
	    json_object_get(json_object_get(pod, "metadata"), "uid"));
	cs = json_object_get(json_object_get(pod, "spec"), "containers");
	if (n == NULL && json_array_size(cs) == 1)
		n = json_string_value(
		    json_object_get(json_array_get(cs, 0), "name"));
	if (u && n) {
		snprintf(uid, ulen, "%s", u);
		snprintf(cname, clen, "%s", n);
	}
	json_decref(pod);
	return u && n;
}

/* -f: polls for the bytes after *off until interrupted or the pod is
 * gone; then the last read by uid. Returns the exit status. */
static int
follow_log(struct client *c, const char *path, const char *name,
	   const char *container, int64_t off)
{
	struct sigaction sa = {.sa_handler = on_signal};
	struct timespec ts = {0, 500 * 1000 * 1000};
	char uid[128], cname[256];
	bool known = identify(c, name, container, uid, sizeof(uid), cname,
			      sizeof(cname));
	int st = 200;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop && st == 200) {
		struct strbuf fq = STRBUF_INIT;

		nanosleep(&ts, NULL); /* polling a file, not a test */
		if (stop)
			break;
		strbuf_addf(&fq, "offset=%lld", (long long)off);
		if (container)
			strbuf_addf(&fq, "&container=%s", container);
		st = fetch(c, path, fq.buf, &off, known ? 404 : -1);
		if (st == 404 && known) {
			/* gone: what it wrote while it stopped */
			strbuf_reset(&fq);
			strbuf_addf(&fq, "offset=%lld&uid=%s&container=%s",
				    (long long)off, uid, cname);
			fetch(c, path, fq.buf, &off, 404);
		}
		strbuf_release(&fq);
	}
	return 0;
}

static int
logs_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"follow", no_argument, NULL, 'f'},
	    {"previous", no_argument, NULL, 'p'},
	    {"container", required_argument, NULL, 'c'},
	    {"tail", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *container = NULL, *tail = NULL, *name;
	bool follow = false, previous = false;
	struct client *c;
	struct strbuf q = STRBUF_INIT;
	char path[600];
	int64_t off = -1;
	int ch, rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "fpc:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			follow = true;
			break;
		case 'p':
			previous = true;
			break;
		case 'c':
			container = optarg;
			break;
		case 't':
			tail = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	name = argv[optind];
	if (!strncmp(name, "pod/", 4) || !strncmp(name, "pods/", 5))
		name = strchr(name, '/') + 1;
	cli_path(path, sizeof(path), kind_by_id(KIND_POD), cli_g.ns, name,
		 "log");
	if (container)
		strbuf_addf(&q, "container=%s&", container);
	if (previous)
		strbuf_addstr(&q, "previous=true&");
	if (tail)
		strbuf_addf(&q, "tailLines=%s&", tail);
	c = cli_client();
	rc = fetch(c, path, q.buf, &off, -1) == 200 ? 0 : 1;
	if (follow && rc == 0 && !previous)
		rc = follow_log(c, path, name, container, off);
	strbuf_release(&q);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_logs_entry = {
    "logs", "drover logs [-f] [--previous] [-c CONTAINER] [--tail N] POD",
    "print the log of a container", logs_run};
