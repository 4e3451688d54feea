/* cmd_delete.c - `drover delete`: delete objects by name or from
 * manifests, with kubectl's --cascade propagation policies.
 *
 *   drover delete KIND NAME... | KIND/NAME... | -f FILE
 *                 [--cascade=background|foreground|orphan]
 *                 [--ignore-not-found] [--wait=false] [--timeout=D]
 *
 * Like kubectl, it waits (by default) until each object is gone, which
 * for --cascade=foreground means until its dependents are gone too. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "clock.h"
#include "common.h"
#include "fsx.h"
#include "manifest.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: drover delete KIND NAME... [flags]\n"
    "       drover delete KIND/NAME... [flags]\n"
    "       drover delete -f FILE [flags]\n"
    "\n"
    "flags: --cascade=background|foreground|orphan, --ignore-not-found,\n"
    "       --wait=true|false, --timeout=DURATION (default 60s),\n"
    "       --dry-run=none|server|client\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

struct target {
	const struct kind_info *k;
	char *ns;
	char *name;
};

struct del_args {
	const char *policy;
	bool ignore_not_found;
	bool wait;
	int64_t timeout_ms;
};

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Polls until the object with this uid is gone. */
static int
wait_gone(struct client *c, const struct target *t, const char *uid,
	  int64_t timeout_ms)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;
	char path[1024];

	cli_path(path, sizeof(path), t->k, t->ns, t->name, NULL);
	for (;;) {
		struct client_resp r;
		const char *u;
		bool gone;

		client_request(c, "GET", path, NULL, NULL, NULL, &r);
		u = json_string_value(json_object_get(
		    json_object_get(r.body, "metadata"), "uid"));
		gone = r.status == 404 ||
		       (r.status == 200 && uid && u && strcmp(u, uid));
		client_resp_release(&r);
		if (gone)
			return 0;
		if (clock_mono_ms() >= deadline)
			return cli_error("timed out waiting for the condition "
					 "on %s/%s",
					 t->k->plural, t->name);
		sleep_ms(100);
	}
}

static int
delete_one(struct client *c, const struct target *t, const struct del_args *a)
{
	struct client_resp r;
	json_t *opts;
	char path[1024], q[64];
	char *uid = NULL;
	int rc = 0;

	cli_path(path, sizeof(path), t->k, t->ns, t->name, NULL);
	opts = json_pack("{ssssss}", "kind", "DeleteOptions", "apiVersion",
			 "v1", "propagationPolicy", a->policy);
	client_request(c, "DELETE", path, NULL, "application/json", opts, &r);
	json_decref(opts);
	if (r.status == 404 && a->ignore_not_found) {
		client_resp_release(&r);
		return 0;
	}
	if (r.status < 200 || r.status > 299) {
		rc = cli_resp_error(&r, t->k, t->name);
		client_resp_release(&r);
		return rc;
	}
	{
		const char *u = json_string_value(json_object_get(
		    json_object_get(r.body, "metadata"), "uid"));

		uid = u ? xstrdup(u) : NULL;
	}
	client_resp_release(&r);
	cli_kind_qualified(t->k, q, sizeof(q));
	printf("%s \"%s\" deleted%s\n", q, t->name, cli_dry_suffix());
	fflush(stdout);
	if (a->wait && cli_g.dry_run == CLI_DRY_NONE)
		rc = wait_gone(c, t, uid, a->timeout_ms);
	free(uid);
	return rc;
}

static void
push(struct target **v, size_t *n, size_t *alloc, const struct kind_info *k,
     const char *ns, const char *name)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].k = k;
	(*v)[*n].ns = xstrdup(ns);
	(*v)[*n].name = xstrdup(name);
	(*n)++;
}

/* The objects named by a manifest file (Lists expanded). */
static int
from_file(const char *path, struct target **v, size_t *n, size_t *alloc)
{
	char *buf, err[512];
	size_t len, i, j;
	json_t *docs, *doc, *it;
	int r;

	if ((r = fsx_read_all(path, &buf, &len)) < 0)
		return cli_error("the path \"%s\" cannot be read: %s", path,
				 strerror(-r));
	docs = manifest_parse(buf, len, err, sizeof(err));
	free(buf);
	if (docs == NULL)
		return cli_error("%s: %s", path, err);
	json_array_foreach(docs, i, doc)
	{
		json_t *one = json_array();
		const char *kind =
		    json_string_value(json_object_get(doc, "kind"));

		if (kind && !strcmp(kind, "List"))
			json_array_foreach(json_object_get(doc, "items"), j, it)
			    json_array_append(one, it);
		else
			json_array_append(one, doc);
		json_array_foreach(one, j, it)
		{
			json_t *md = json_object_get(it, "metadata");
			const char *name =
			    json_string_value(json_object_get(md, "name"));
			const char *ns =
			    json_string_value(json_object_get(md, "namespace"));
			const struct kind_info *k = cli_kind_find(
			    json_string_value(json_object_get(it, "kind"))
				? json_string_value(json_object_get(it, "kind"))
				: "");

			if (k == NULL || name == NULL) {
				json_decref(one);
				json_decref(docs);
				return cli_error("%s: an object has no known "
						 "kind or no name",
						 path);
			}
			push(v, n, alloc, k, ns ? ns : cli_g.ns, name);
		}
		json_decref(one);
	}
	json_decref(docs);
	return 0;
}

static int
delete_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"filename", required_argument, NULL, 'f'},
	    {"cascade", optional_argument, NULL, 'c'},
	    {"ignore-not-found", no_argument, NULL, 'i'},
	    {"wait", optional_argument, NULL, 'w'},
	    {"timeout", required_argument, NULL, 't'},
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct del_args a = {
	    .policy = "Background", .wait = true, .timeout_ms = 60000};
	struct target *v = NULL;
	size_t n = 0, alloc = 0, i;
	const char *files[16];
	size_t nfiles = 0;
	struct client *c;
	int ch, rc = 0;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (nfiles < 16)
				files[nfiles++] = optarg;
			break;
		case 'D':
			if (cli_dry_run_set(optarg))
				return 1;
			break;
		case 'c':
			if (!optarg || !strcmp(optarg, "background") ||
			    !strcmp(optarg, "true"))
				a.policy = "Background";
			else if (!strcmp(optarg, "foreground"))
				a.policy = "Foreground";
			else if (!strcmp(optarg, "orphan") ||
				 !strcmp(optarg, "false"))
				a.policy = "Orphan";
			else {
				fprintf(stderr,
					"error: invalid cascade value (%s). "
					"Must be \"background\", "
					"\"foreground\", or \"orphan\"\n",
					optarg);
				return 2;
			}
			break;
		case 'i':
			a.ignore_not_found = true;
			break;
		case 'w':
			a.wait = !optarg || !strcmp(optarg, "true");
			break;
		case 't':
			a.timeout_ms = cli_parse_duration(optarg);
			if (a.timeout_ms < 0) {
				fprintf(stderr,
					"error: invalid --timeout "
					"\"%s\"\n",
					optarg);
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
	if (nfiles) {
		if (optind != argc) {
			fprintf(stderr, "error: there is no need to specify a "
					"resource type as a separate argument "
					"when passing arguments in "
					"resource/name form\n");
			fputs(usage_text, stderr);
			return 2;
		}
		for (i = 0; i < nfiles && rc == 0; i++)
			rc = from_file(files[i], &v, &n, &alloc);
	} else if (optind < argc && strchr(argv[optind], '/')) {
		for (; optind < argc && rc == 0; optind++) {
			const struct kind_info *k;
			const char *name;

			if (cli_kind_slash_name(argv[optind], &k, &name))
				rc = 1;
			else
				push(&v, &n, &alloc, k, cli_g.ns, name);
		}
	} else if (optind + 1 < argc) {
		const struct kind_info *k = cli_kind_find(argv[optind]);

		if (k == NULL) {
			rc = cli_error("the server doesn't have a resource "
				       "type \"%s\"",
				       argv[optind]);
		} else {
			for (optind++; optind < argc; optind++)
				push(&v, &n, &alloc, k, cli_g.ns, argv[optind]);
		}
	} else {
		fprintf(stderr, "error: you must provide one or more resources "
				"by argument or filename\n");
		fputs(usage_text, stderr);
		return 2;
	}
	if (rc == 0) {
		c = cli_client();
		for (i = 0; i < n; i++)
			if (delete_one(c, &v[i], &a))
				rc = 1;
		c->ops->free(c);
	}
	for (i = 0; i < n; i++) {
		free(v[i].ns);
		free(v[i].name);
	}
	free(v);
	return rc;
}

const struct cmd_entry cmd_delete_entry = {
    "delete", usage_text, "delete objects by name or from manifests",
    delete_run};
