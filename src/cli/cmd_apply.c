/* cmd_apply.c - `drover apply -f`: client-side apply as kubectl does it,
 * with the last-applied-configuration annotation and a three-way
 * strategic merge patch.
 *
 *   drover apply -f FILE|DIR|- [-f ...]
 *
 * Every manifest is decoded, defaulted and validated first; if any is
 * invalid, its errors are printed field by field and nothing is sent
 * (exit 1). Then each object is created when absent ("created") or
 * patched ("configured"), or left alone when the patch would be empty
 * ("unchanged"). The patch is kubectl's three-way merge: fields the
 * manifest sets and the live object lacks or holds differently are set,
 * fields the previous manifest (the annotation) set and this one drops
 * are removed, and fields set by others (defaults, controllers, scale)
 * are left as they are: smp_three_way (src/codec/smp.c), the code the
 * server applies the patch with, from the same patch strategies of the
 * schema tables (containers merge by name, with "$setElementOrder";
 * Deployment strategy with "$retainKeys"). */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common.h"
#include "fsx.h"
#include "manifest.h"
#include "object.h"
#include "smp.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: drover apply -f FILE|DIR|- [-f ...] [--dry-run=server|client]\n"
    "\n"
    "Creates or updates the objects of the manifests (YAML or JSON, several\n"
    "documents, Lists; a directory's .yaml, .yml and .json files).\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

struct source {
	char *path;
	char *buf;
	size_t len;
};

struct sources {
	struct source *v;
	size_t n, alloc;
};

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
manifest_name(const char *name)
{
	size_t n = strlen(name);

	return (n > 5 && !strcmp(name + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(name + n - 4, ".yml")) ||
	       (n > 5 && !strcmp(name + n - 5, ".json"));
}

static int
add_file(struct sources *s, const char *path)
{
	struct source src = {0};
	int r;

	if ((r = fsx_read_all(path, &src.buf, &src.len)) < 0) {
		if (!strcmp(path, "-"))
			return cli_error("cannot read stdin: %s", strerror(-r));
		return cli_error("the path \"%s\" cannot be read: %s", path,
				 strerror(-r));
	}
	src.path = xstrdup(path);
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = src;
	return 0;
}

/* A file, stdin, or a directory's manifest files in name order. */
static int
add_path(struct sources *s, const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	int rc = 0;

	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if ((d = opendir(path)) == NULL)
			return cli_error("the path \"%s\" cannot be read",
					 path);
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' || !manifest_name(e->d_name))
				continue;
			ALLOC_GROW(names, n + 1, alloc);
			names[n++] = xstrdup(e->d_name);
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp_str);
		for (i = 0; i < n; i++) {
			struct strbuf p = STRBUF_INIT;

			strbuf_addf(&p, "%s/%s", path, names[i]);
			if (rc == 0)
				rc = add_file(s, p.buf);
			strbuf_release(&p);
			free(names[i]);
		}
		free(names);
		return rc;
	}
	if (strcmp(path, "-") && stat(path, &st) != 0)
		return cli_error("the path \"%s\" does not exist", path);
	return add_file(s, path);
}

/* ---- applying one object ---- */

static json_t *
annotations_of(json_t *obj, bool create)
{
	json_t *md = json_object_get(obj, "metadata"), *an;

	if (!json_is_object(md))
		return NULL;
	an = json_object_get(md, "annotations");
	if (!json_is_object(an) && create) {
		an = json_object();
		json_object_set_new(md, "annotations", an);
	}
	return json_is_object(an) ? an : NULL;
}

static int
apply_one(struct client *c, json_t *doc)
{
	const struct kind_info *ki =
	    kind_lookup(json_string_value(json_object_get(doc, "apiVersion")),
			json_string_value(json_object_get(doc, "kind")));
	const struct kind_info *k = ki ? kind_by_id(ki->id) : NULL;
	json_t *md = json_object_get(doc, "metadata");
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	json_t *mod, *an, *cur = NULL, *orig = NULL, *patch;
	struct client_resp r;
	char q[64], path[1024], *text, err[512];
	const char *la;
	int rc = 0;

	if (k == NULL || name == NULL)
		return cli_error("an object of the manifest has no kind or "
				 "name");
	if (ns && cli_g.ns_given && strcmp(ns, cli_g.ns)) {
		return cli_error("the namespace from the provided object "
				 "\"%s\" does not match the namespace \"%s\". "
				 "You must pass '--namespace=%s' to perform "
				 "this operation.",
				 ns, cli_g.ns, ns);
	}
	if (ns == NULL)
		ns = cli_g.ns;
	cli_kind_qualified(k, q, sizeof(q));

	/* The manifest as applied: without its own annotation, serialized
	 * the way kubectl does (sorted keys, a final newline). */
	mod = json_deep_copy(doc);
	if ((an = annotations_of(mod, false))) {
		json_object_del(an, ANN_LAST_APPLIED);
		if (json_object_size(an) == 0)
			json_object_del(json_object_get(mod, "metadata"),
					"annotations");
	}
	text = json_dumps(mod, JSON_COMPACT | JSON_SORT_KEYS);
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s\n", text);
		json_object_set_new(annotations_of(mod, true), ANN_LAST_APPLIED,
				    json_string(sb.buf));
		strbuf_release(&sb);
	}
	free(text);

	cli_path(path, sizeof(path), k, ns, name, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status == 404) {
		client_resp_release(&r);
		cli_path(path, sizeof(path), k, ns, NULL, NULL);
		client_request(c, "POST", path, NULL, NULL, mod, &r);
		if (r.status == 201 || r.status == 200)
			printf("%s/%s created%s\n", q, name, cli_dry_suffix());
		else
			rc = cli_resp_error(&r, k, name);
		client_resp_release(&r);
		json_decref(mod);
		return rc;
	}
	if (r.status != 200) {
		rc = cli_resp_error(&r, k, name);
		client_resp_release(&r);
		json_decref(mod);
		return rc;
	}
	cur = json_incref(r.body);
	client_resp_release(&r);
	an = annotations_of(cur, false);
	la = an ? json_string_value(json_object_get(an, ANN_LAST_APPLIED))
		: NULL;
	if (la)
		orig = json_loads(la, 0, NULL);
	patch = smp_three_way(orig, mod, cur, k->schema, err, sizeof(err));
	if (patch == NULL) {
		rc = cli_error("error when applying patch to %s \"%s\": %s", q,
			       name, err);
	} else if (json_object_size(patch) == 0) {
		printf("%s/%s unchanged%s\n", q, name, cli_dry_suffix());
	} else if ((rc = cli_patch(c, k, ns, name, NULL,
				   "application/strategic-merge-patch+json",
				   patch, NULL)) == 0) {
		printf("%s/%s configured%s\n", q, name, cli_dry_suffix());
	}
	json_decref(patch);
	json_decref(orig);
	json_decref(cur);
	json_decref(mod);
	return rc;
}

/* Applies every document of one source, Lists expanded. */
static int
apply_docs(struct client *c, json_t *docs)
{
	json_t *doc, *it;
	size_t i, j;
	int rc = 0;

	json_array_foreach(docs, i, doc)
	{
		const char *kind =
		    json_string_value(json_object_get(doc, "kind"));

		if (kind && !strcmp(kind, "List")) {
			json_array_foreach(json_object_get(doc, "items"), j,
					   it) if (apply_one(c, it)) rc = 1;
		} else if (apply_one(c, doc)) {
			rc = 1;
		}
		fflush(stdout);
	}
	return rc;
}

static int
apply_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"filename", required_argument, NULL, 'f'},
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct sources s = {0};
	struct client *c;
	size_t i, nfiles = 0, nobjs = 0;
	int ch, rc = 0;
	bool dry_bad = false;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			nfiles++;
			if (rc == 0)
				rc = add_path(&s, optarg);
			break;
		case 'D':
			if (cli_dry_run_set(optarg))
				dry_bad = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			rc = -1;
			goto out;
		default:
			fputs(usage_text, stderr);
			rc = 2;
			goto out;
		}
	}
	if (dry_bad) {
		rc = 1;
		goto out;
	}
	if (nfiles == 0 || optind != argc) {
		if (nfiles == 0)
			fprintf(stderr, "error: must specify one of -f and "
					"-k\n");
		fputs(usage_text, stderr);
		rc = 2;
		goto out;
	}
	/* Refuse every invalid manifest before sending anything. */
	for (i = 0; i < s.n; i++) {
		struct object_list objs = {0};
		struct manifest_errors errs;

		if (manifest_load(s.v[i].buf, s.v[i].len, true, &objs, &errs)) {
			struct strbuf sb = STRBUF_INIT;

			if (errs.syntax)
				fprintf(stderr, "error: %s: ", s.v[i].path);
			manifest_errors_format(&errs, &sb);
			fputs(errs.syntax ? sb.buf + 7 : sb.buf, stderr);
			strbuf_release(&sb);
			manifest_errors_release(&errs);
			rc = 1;
		}
		nobjs += objs.n;
		object_list_release(&objs);
	}
	if (rc == 0 && nobjs == 0)
		rc = cli_error("no objects passed to apply");
	if (rc == 0) {
		c = cli_client();
		for (i = 0; i < s.n; i++) {
			char err[512];
			json_t *docs = manifest_parse(s.v[i].buf, s.v[i].len,
						      err, sizeof(err));

			if (docs && apply_docs(c, docs))
				rc = 1;
			json_decref(docs);
		}
		c->ops->free(c);
	}
out:
	for (i = 0; i < s.n; i++) {
		free(s.v[i].path);
		free(s.v[i].buf);
	}
	free(s.v);
	return rc < 0 ? 0 : rc;
}

const struct cmd_entry cmd_apply_entry = {
    "apply", usage_text, "create or update objects from manifests", apply_run};
