/* cmd_get.c - `drover get`: kubectl get for deployments, replicasets and
 * pods: tables (with -o wide), JSON, YAML, names, and -w to stream.
 *
 *   drover get KIND [NAME...] [-l SELECTOR] [-o wide|json|yaml|name] [-w]
 *              [-A]
 *   drover get KIND/NAME...
 *
 * Missing objects: "Error from server (NotFound): ...", exit 1. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "columns.h"
#include "common.h"
#include "client_http.h"
#include "object.h"

static const char usage_text[] =
    "usage: drover get KIND [NAME...] [-l SELECTOR] [-o FORMAT] [-w] [-A]\n"
    "       drover get KIND/NAME...\n"
    "\n"
    "KIND: deployments (deploy), replicasets (rs), pods (po), services\n"
    "(svc), endpointslices, endpoints (ep), nodes (no).\n"
    "FORMAT: wide, json, yaml, name.\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

struct get_args {
	const struct kind_info *k;
	const char *selector;
	const char *output; /* NULL: table */
	bool wide;
	bool watch;
	bool all_ns;
	dtime now;
};

/* The columns of the kind (src/core/apis/columns.c, the same the API's
 * server-side Table serves kubectl), priority 0 only unless -o wide;
 * NAMESPACE first with -A, as kubectl adds it. */
static bool
shown(const struct column *c, const struct get_args *a)
{
	return c->priority == 0 || a->wide;
}

static void
header(const struct get_args *a, struct strbuf *sb)
{
	const struct column *cols;
	size_t n, i, first = 1;
	char name[64];

	cols = columns_of(a->k->id, &n);
	if (a->all_ns)
		strbuf_addstr(sb, "NAMESPACE\t");
	for (i = 0; i < n; i++) {
		if (!shown(&cols[i], a))
			continue;
		columns_header(cols[i].name, name, sizeof(name));
		strbuf_addf(sb, "%s%s", first ? "" : "\t", name);
		first = 0;
	}
	strbuf_addch(sb, '\n');
}

/* One table row of j (a served object) into sb. */
static void
row(json_t *j, const struct get_args *a, struct strbuf *sb)
{
	struct object o = {0};
	struct object_meta *m;
	const struct column *cols;
	size_t n, i, first = 1;

	if (cli_decode(j, a->k->id, &o))
		return;
	m = object_meta(&o);
	if (a->all_ns)
		strbuf_addf(sb, "%s\t", m->namespace ? m->namespace : "");
	cols = columns_of(a->k->id, &n);
	for (i = 0; i < n; i++) {
		if (!shown(&cols[i], a))
			continue;
		if (!first)
			strbuf_addch(sb, '\t');
		cols[i].cell(&o, a->now, sb);
		first = 0;
	}
	strbuf_addch(sb, '\n');
	object_release(&o);
}

static void
print_name(json_t *j, const struct get_args *a)
{
	char q[64];
	const char *name = json_string_value(
	    json_object_get(json_object_get(j, "metadata"), "name"));

	cli_kind_qualified(a->k, q, sizeof(q));
	printf("%s/%s\n", q, name ? name : "");
}

static json_t *
list_of(json_t *items)
{
	return json_pack("{sssOsss{ss}}", "apiVersion", "v1", "items", items,
			 "kind", "List", "metadata", "resourceVersion", "");
}

/* Prints items (a JSON array) in the chosen format. */
static void
print_items(json_t *items, const struct get_args *a, bool single)
{
	json_t *it;
	size_t i;

	if (a->output &&
	    (!strcmp(a->output, "json") || !strcmp(a->output, "yaml"))) {
		if (single && json_array_size(items) == 1) {
			cli_print_json(json_array_get(items, 0), a->output);
		} else {
			json_t *l = list_of(items);

			cli_print_json(l, a->output);
			json_decref(l);
		}
		return;
	}
	if (a->output && !strcmp(a->output, "name")) {
		json_array_foreach(items, i, it) print_name(it, a);
		return;
	}
	if (json_array_size(items) > 0) {
		struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;

		header(a, &text);
		json_array_foreach(items, i, it) row(it, a, &text);
		cli_tabwrite(text.buf, 0, 3, &out);
		fputs(out.buf, stdout);
		strbuf_release(&text);
		strbuf_release(&out);
	}
}

/* ---- -w ---- */

struct watch_state {
	struct get_args *a;
	struct strbuf table; /* header and every row so far, for widths */
	bool printed_header;
};

static void
on_event(void *arg, json_t *ev)
{
	struct watch_state *w = arg;
	struct get_args *a = w->a;
	json_t *obj = json_object_get(ev, "object");
	const char *type = json_string_value(json_object_get(ev, "type"));

	if (ev == NULL || !type || !strcmp(type, "BOOKMARK") ||
	    !strcmp(type, "ERROR"))
		return;
	if (a->output &&
	    (!strcmp(a->output, "json") || !strcmp(a->output, "yaml"))) {
		if (!strcmp(a->output, "yaml"))
			puts("---");
		cli_print_json(obj, a->output);
	} else if (a->output && !strcmp(a->output, "name")) {
		print_name(obj, a);
	} else {
		struct strbuf out = STRBUF_INIT;
		size_t before;
		char *last;

		if (!w->printed_header) {
			strbuf_reset(&w->table);
			header(a, &w->table);
		}
		before = w->table.len;
		a->now = clock_now();
		row(obj, a, &w->table);
		if (w->table.len == before)
			return;
		cli_tabwrite(w->table.buf, 0, 3, &out);
		/* print the header once, then only the newest line */
		if (out.len)
			out.buf[--out.len] = '\0';
		last = strrchr(out.buf, '\n');
		if (!w->printed_header || last == NULL)
			printf("%s\n", out.buf);
		else
			printf("%s\n", last + 1);
		w->printed_header = true;
		strbuf_release(&out);
	}
	fflush(stdout);
}

static int
watch_rows(struct client *c, struct get_args *a, const char *ns,
	   const char *name, const char *rv, struct strbuf *table)
{
	struct watch_state w = {
	    .a = a, .table = *table, .printed_header = table->len > 0};
	struct client_resp r;
	struct strbuf q = STRBUF_INIT;
	volatile int stop = 0;
	char path[1024];
	int rc = 0;

	cli_path(path, sizeof(path), a->k, ns, NULL, NULL);
	strbuf_addf(&q, "watch=true&resourceVersion=%s", rv ? rv : "0");
	if (a->selector) {
		char *e = cli_urlencode(a->selector);

		strbuf_addf(&q, "&labelSelector=%s", e);
		free(e);
	}
	if (name) {
		char *e = cli_urlencode(name);

		strbuf_addf(&q, "&fieldSelector=metadata.name%%3D%s", e);
		free(e);
	}
	client_http_watch_blocking(c, path, q.buf, on_event, &w, &stop, 0, &r);
	if (r.status != 200)
		rc = cli_resp_error(&r, a->k, name);
	client_resp_release(&r);
	strbuf_release(&q);
	*table = w.table;
	return rc;
}

/* ---- the verb ---- */

static int
get_named(struct client *c, struct get_args *a, char **names, size_t n)
{
	json_t *items = json_array(), *o;
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		if (cli_get(c, a->k, cli_g.ns, names[i], &o)) {
			rc = 1;
			continue;
		}
		json_array_append_new(items, o);
	}
	if (json_array_size(items) > 0)
		print_items(items, a, n == 1);
	fflush(stdout);
	if (a->watch && n == 1 && rc == 0) {
		struct strbuf table = STRBUF_INIT;
		const char *rv = json_string_value(json_object_get(
		    json_object_get(json_array_get(items, 0), "metadata"),
		    "resourceVersion"));

		if (!a->output) {
			header(a, &table);
			row(json_array_get(items, 0), a, &table);
		}
		rc = watch_rows(c, a, cli_g.ns, names[0], rv, &table);
		strbuf_release(&table);
	}
	json_decref(items);
	return rc;
}

static int
get_list(struct client *c, struct get_args *a)
{
	struct client_resp r;
	struct strbuf q = STRBUF_INIT, table = STRBUF_INIT;
	const char *ns = a->all_ns ? NULL : cli_g.ns;
	json_t *items;
	char path[1024];
	size_t i;
	int rc = 0;

	cli_path(path, sizeof(path), a->k, ns, NULL, NULL);
	if (a->selector) {
		char *e = cli_urlencode(a->selector);

		strbuf_addf(&q, "labelSelector=%s", e);
		free(e);
	}
	client_request(c, "GET", path, q.buf, NULL, NULL, &r);
	strbuf_release(&q);
	if (r.status != 200) {
		rc = cli_resp_error(&r, a->k, NULL);
		client_resp_release(&r);
		return rc;
	}
	items = json_object_get(r.body, "items");
	if (!json_is_array(items))
		items = json_array();
	else
		json_incref(items);
	if (json_array_size(items) == 0 &&
	    !(a->output &&
	      (!strcmp(a->output, "json") || !strcmp(a->output, "yaml")))) {
		if (a->all_ns)
			fprintf(stderr, "No resources found\n");
		else
			fprintf(stderr, "No resources found in %s namespace.\n",
				cli_g.ns);
	} else {
		print_items(items, a, false);
	}
	fflush(stdout);
	if (a->watch) {
		const char *rv = json_string_value(json_object_get(
		    json_object_get(r.body, "metadata"), "resourceVersion"));

		if (!a->output && json_array_size(items)) {
			header(a, &table);
			for (i = 0; i < json_array_size(items); i++)
				row(json_array_get(items, i), a, &table);
		}
		rc = watch_rows(c, a, ns, NULL, rv, &table);
		strbuf_release(&table);
	}
	json_decref(items);
	client_resp_release(&r);
	return rc;
}

static int
get_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"selector", required_argument, NULL, 'l'},
	    {"output", required_argument, NULL, 'o'},
	    {"watch", no_argument, NULL, 'w'},
	    {"all-namespaces", no_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct get_args a = {0};
	struct client *c;
	char **names;
	size_t n = 0;
	int ch, i, rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "l:o:wAh", opts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			a.selector = optarg;
			break;
		case 'o':
			a.output = optarg;
			break;
		case 'w':
			a.watch = true;
			break;
		case 'A':
			a.all_ns = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "error: you must specify the type of resource "
				"to get\n");
		fputs(usage_text, stderr);
		return 2;
	}
	if (a.output && !strcmp(a.output, "wide")) {
		a.wide = true;
		a.output = NULL;
	} else if (a.output && strcmp(a.output, "json") &&
		   strcmp(a.output, "yaml") && strcmp(a.output, "name")) {
		fprintf(stderr,
			"error: unable to match a printer suitable for the "
			"output format \"%s\", allowed formats are: "
			"json,name,wide,yaml\n",
			a.output);
		return 2;
	}
	names = calloc((size_t)argc + 1, sizeof(*names));
	if (strchr(argv[optind], '/')) {
		for (i = optind; i < argc; i++) {
			const struct kind_info *k;
			const char *name;

			if (cli_kind_slash_name(argv[i], &k, &name)) {
				free(names);
				return 1;
			}
			if (a.k && k != a.k) {
				free(names);
				return cli_error("drover get takes one kind "
						 "at a time");
			}
			a.k = k;
			names[n++] = (char *)name;
		}
	} else {
		a.k = cli_kind_find(argv[optind]);
		if (a.k == NULL) {
			free(names);
			fprintf(stderr,
				"error: the server doesn't have a resource "
				"type \"%s\"\n",
				argv[optind]);
			return 1;
		}
		for (i = optind + 1; i < argc; i++)
			names[n++] = argv[i];
	}
	if (n && a.selector) {
		free(names);
		fprintf(stderr, "error: name cannot be provided when a "
				"selector is specified\n");
		return 2;
	}
	if (n && a.all_ns)
		a.all_ns = false;
	a.now = clock_now();
	c = cli_client();
	rc = n ? get_named(c, &a, names, n) : get_list(c, &a);
	c->ops->free(c);
	free(names);
	return rc;
}

const struct cmd_entry cmd_get_entry = {
    "get", usage_text, "display deployments, replicasets or pods", get_run};
