/* cmd_logs.c - `drover logs [-f] [--previous] [-c CONTAINER] [--tail N]
 * POD`: a container's log through the pods/log subresource. -f follows
 * the file: it asks again every half second for the bytes after the
 * offset the last answer ended at (X-Drover-Log-Offset), across
 * rotations, until interrupted. */
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

static int
fetch(struct client *c, const char *path, const char *query, int64_t *off)
{
	struct strbuf text = STRBUF_INIT;
	char err[600];
	int st =
	    client_http_get_text(c, path, query, &text, off, err, sizeof(err));

	if (st == 200) {
		fwrite(text.buf, 1, text.len, stdout);
		fflush(stdout);
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
	return st == 200 ? 0 : 1;
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
	rc = fetch(c, path, q.buf, &off);
	if (follow && rc == 0 && !previous) {
		struct sigaction sa = {.sa_handler = on_signal};
		struct timespec ts = {0, 500 * 1000 * 1000};

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		while (!stop && rc == 0) {
			struct strbuf fq = STRBUF_INIT;

			nanosleep(&ts, NULL); /* polling a file, not a test */
			if (stop)
				break;
			strbuf_addf(&fq, "offset=%lld", (long long)off);
			if (container)
				strbuf_addf(&fq, "&container=%s", container);
			rc = fetch(c, path, fq.buf, &off);
			strbuf_release(&fq);
		}
		rc = 0;
	}
	strbuf_release(&q);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_logs_entry = {
    "logs", "drover logs [-f] [--previous] [-c CONTAINER] [--tail N] POD",
    "print the log of a container", logs_run};
