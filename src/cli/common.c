/* common.c - global flags, the API client, kinds and kubectl-style errors
 * for the client verbs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client_http.h"
#include "common.h"
#include "dtime.h"
#include "kubeconfig.h"
#include "deploy_util.h"
#include "fsx.h"
#include "object.h"
#include "serve.h"
#include "xalloc.h"

struct cli_globals cli_g;

static char default_socket[4096];
/* The kubeconfig in effect, if any (its strings back cli_g's). */
static struct kubeconfig kc;
static char *ca_file_pem;

/* Matches "--long VALUE", "--long=VALUE", "-s VALUE" and "-sVALUE";
 * *value gets the value and *used how many argv slots it took (0: no
 * match, -1: the value is missing). */
static int
match_flag(char **argv, int i, int argc, const char *lng, const char *shrt,
	   const char **value)
{
	const char *a = argv[i];
	size_t n = strlen(lng);

	if (!strncmp(a, lng, n) && a[n] == '=') {
		*value = a + n + 1;
		return 1;
	}
	if (!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) {
		if (i + 1 >= argc)
			return -1;
		*value = argv[i + 1];
		return 2;
	}
	if (shrt && !strncmp(a, shrt, strlen(shrt)) && a[strlen(shrt)]) {
		*value = a + strlen(shrt);
		if (**value == '=')
			(*value)++;
		return 1;
	}
	return 0;
}

int
cli_globals_parse(int *argc, char **argv)
{
	static const struct {
		const char *lng, *shrt;
		int which;
	} flags[] = {
	    {"--server", "-s", 0},    {"--token", NULL, 1},
	    {"--namespace", "-n", 2}, {"--kubeconfig", NULL, 3},
	    {"--context", NULL, 4},   {"--certificate-authority", NULL, 5},
	};
	const size_t nflags = sizeof(flags) / sizeof(flags[0]);
	const char *server = NULL, *token = NULL, *kubeconfig = NULL;
	const char *context = NULL, *ca_file = NULL;
	int i = 1, j, rc;
	size_t k;

	cli_g.ns = "default";
	while (i < *argc) {
		const char *v = NULL;
		int used = 0;

		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--insecure-skip-tls-verify") ||
		    !strcmp(argv[i], "--insecure-skip-tls-verify=true")) {
			cli_g.insecure = true;
			used = 1;
		} else if (!strcmp(argv[i], "--insecure-skip-tls-verify=false"))
			used = 1;
		for (k = 0; k < nflags && used == 0; k++) {
			used = match_flag(argv, i, *argc, flags[k].lng,
					  flags[k].shrt, &v);
			if (used < 0) {
				fprintf(stderr,
					"error: flag needs an argument: %s\n",
					argv[i]);
				return 2;
			}
			if (used == 0)
				continue;
			if (flags[k].which == 0)
				server = v;
			else if (flags[k].which == 1)
				token = v;
			else if (flags[k].which == 3)
				kubeconfig = v;
			else if (flags[k].which == 4)
				context = v;
			else if (flags[k].which == 5)
				ca_file = v;
			else {
				cli_g.ns = v;
				cli_g.ns_given = true;
			}
		}
		if (used == 0) {
			i++;
			continue;
		}
		for (j = i; j + used <= *argc; j++)
			argv[j] = argv[j + used];
		*argc -= used;
	}
	if (*cli_g.ns == '\0') {
		fprintf(stderr, "error: the namespace may not be empty\n");
		return 2;
	}
	rc = cli_connection(server, token, kubeconfig, context, ca_file);
	return rc;
}

/* Where the API is and how to reach it, kubectl's way: flags first
 * (--server, --token, --certificate-authority), then --kubeconfig, then
 * DROVER_SERVER / DROVER_TOKEN, then $KUBECONFIG (its first file), then
 * the default data directory's unix socket. A kubeconfig in effect
 * gives the server, the CA and the token that no flag overrides (as
 * kubectl: --server https://localhost:6443 with the kubeconfig's CA and
 * token); the one in $KUBECONFIG is not in effect when DROVER_SERVER is
 * set (its token would go to another server). */
int
cli_connection(const char *server, const char *token, const char *kubeconfig,
	       const char *context, const char *ca_file)
{
	const char *env_server = getenv("DROVER_SERVER");
	char err[600], *path = NULL;
	size_t len;
	int rc;

	kubeconfig_release(&kc);
	free(ca_file_pem);
	ca_file_pem = NULL;
	cli_g.ca = NULL;
	cli_g.ca_len = 0;
	if (kubeconfig == NULL && !(env_server && *env_server)) {
		const char *e = getenv("KUBECONFIG");

		if (e && *e) {
			path = xstrndup(e, strcspn(e, ":"));
			kubeconfig = path;
		}
	}
	if (kubeconfig && *kubeconfig) {
		rc =
		    kubeconfig_load(kubeconfig, context, &kc, err, sizeof(err));
		free(path);
		if (rc) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		cli_g.server = kc.server;
		cli_g.token = kc.token;
		cli_g.ca = kc.ca;
		cli_g.ca_len = kc.ca_len;
		cli_g.insecure = cli_g.insecure || kc.insecure;
	} else {
		cli_g.server = env_server;
		cli_g.token = getenv("DROVER_TOKEN");
	}
	if (server && *server)
		cli_g.server = server;
	if (token && *token)
		cli_g.token = token;
	if (ca_file && *ca_file) {
		rc = fsx_read_all(ca_file, &ca_file_pem, &len);
		if (rc) {
			fprintf(stderr, "error: %s: %s\n", ca_file,
				strerror(-rc));
			return 1;
		}
		cli_g.ca = ca_file_pem;
		cli_g.ca_len = len;
	}
	if (cli_g.server == NULL || *cli_g.server == '\0') {
		serve_default_socket(default_socket, sizeof(default_socket));
		cli_g.server = default_socket;
	}
	return 0;
}

/* The --dry-run wrapper around the HTTP client (see cli_client). */
struct dry_client {
	struct client base;
	struct client *inner;
};

static int
dry_request(struct client *c, const char *method, const char *path,
	    const char *query, const char *content_type, json_t *body,
	    struct client_resp *out)
{
	struct dry_client *d = (struct dry_client *)c;
	struct strbuf q = STRBUF_INIT;
	int r;

	if (!strcmp(method, "GET"))
		return client_request(d->inner, method, path, query,
				      content_type, body, out);
	if (cli_g.dry_run == CLI_DRY_SERVER) {
		strbuf_addf(&q, "%s%sdryRun=All", query ? query : "",
			    query && *query ? "&" : "");
		r = client_request(d->inner, method, path, q.buf, content_type,
				   body, out);
		strbuf_release(&q);
		return r;
	}
	/* client: nothing is sent but a read of what would change */
	if (strcmp(method, "POST")) {
		r = client_request(d->inner, "GET", path, NULL, NULL, NULL,
				   out);
		if (r || out->status != 200)
			return r;
		if (!strcmp(method, "DELETE"))
			return 0; /* the object as it is */
		client_resp_release(out);
	}
	memset(out, 0, sizeof(*out));
	out->status = strcmp(method, "POST") ? 200 : 201;
	out->body = body ? json_deep_copy(body) : json_object();
	return 0;
}

static struct client_watch *
dry_watch(struct client *c, const char *path, const char *query,
	  client_watch_cb cb, void *arg, struct client_resp *out)
{
	struct dry_client *d = (struct dry_client *)c;

	return d->inner->ops->watch(d->inner, path, query, cb, arg, out);
}

static void
dry_unwatch(struct client *c, struct client_watch *w)
{
	struct dry_client *d = (struct dry_client *)c;

	d->inner->ops->unwatch(d->inner, w);
}

static void
dry_free(struct client *c)
{
	struct dry_client *d = (struct dry_client *)c;

	d->inner->ops->free(d->inner);
	free(d);
}

static const struct client_ops dry_ops = {
    .request = dry_request,
    .watch = dry_watch,
    .unwatch = dry_unwatch,
    .free = dry_free,
};

struct client *
cli_client(void)
{
	struct client *c = client_http_new(cli_g.server, cli_g.token);
	struct dry_client *d;

	if (cli_g.ca || cli_g.insecure)
		client_http_set_tls(c, cli_g.ca, cli_g.ca_len, cli_g.insecure);

	if (cli_g.dry_run == CLI_DRY_NONE)
		return c;
	d = xcalloc(1, sizeof(*d));
	d->base.ops = &dry_ops;
	d->inner = c;
	return &d->base;
}

int
cli_dry_run_set(const char *v)
{
	if (v == NULL) {
		fprintf(stderr, "W: --dry-run is deprecated and can be "
				"replaced with --dry-run=client.\n");
		v = "client";
	}
	if (!strcmp(v, "none"))
		cli_g.dry_run = CLI_DRY_NONE;
	else if (!strcmp(v, "client"))
		cli_g.dry_run = CLI_DRY_CLIENT;
	else if (!strcmp(v, "server"))
		cli_g.dry_run = CLI_DRY_SERVER;
	else
		return cli_error("Invalid dry-run value (%s). Must be "
				 "\"none\", \"server\", or \"client\".",
				 v);
	return 0;
}

const char *
cli_dry_suffix(void)
{
	return cli_g.dry_run == CLI_DRY_SERVER   ? " (server dry run)"
	       : cli_g.dry_run == CLI_DRY_CLIENT ? " (dry run)"
						 : "";
}

/* The CLI knows every kind of the registry by its kind, its resource,
 * its singular and its short names, with or without its group
 * ("deployment.apps", "deployments.apps.v1"), in any case. */
const struct kind_info *
cli_kind_find(const char *word)
{
	const struct kind_info *kinds;
	size_t i, j, n, nkinds;
	char buf[128];

	kinds = kinds_all(&nkinds);
	snprintf(buf, sizeof(buf), "%s", word);
	for (i = 0; i < nkinds; i++) {
		n = strlen(kinds[i].group);
		if (n == 0)
			continue;
		if (strlen(buf) > n + 1) {
			char *dot = strchr(buf, '.');

			if (dot && !strncasecmp(dot + 1, kinds[i].group, n) &&
			    (dot[n + 1] == '\0' || dot[n + 1] == '.'))
				*dot = '\0';
		}
	}
	for (i = 0; i < nkinds; i++) {
		if (!strcasecmp(buf, kinds[i].kind) ||
		    !strcasecmp(buf, kinds[i].plural) ||
		    !strcasecmp(buf, kinds[i].singular))
			return &kinds[i];
		for (j = 0; j < KIND_MAX_SHORT_NAMES && kinds[i].short_names[j];
		     j++)
			if (!strcasecmp(buf, kinds[i].short_names[j]))
				return &kinds[i];
	}
	return NULL;
}

void
cli_kind_qualified(const struct kind_info *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", k->singular, *k->group ? "." : "",
		 k->group);
}

int
cli_kind_slash_name(const char *arg, const struct kind_info **k,
		    const char **name)
{
	const char *slash = strchr(arg, '/');
	char kind[128];

	if (slash == NULL || slash == arg || slash[1] == '\0' ||
	    (size_t)(slash - arg) >= sizeof(kind)) {
		fprintf(stderr,
			"error: arguments in resource/name form must have a "
			"single resource and name\n");
		return -1;
	}
	memcpy(kind, arg, (size_t)(slash - arg));
	kind[slash - arg] = '\0';
	if ((*k = cli_kind_find(kind)) == NULL) {
		fprintf(stderr,
			"error: the server doesn't have a resource type "
			"\"%s\"\n",
			kind);
		return -1;
	}
	*name = slash + 1;
	return 0;
}

void
cli_path(char *buf, size_t len, const struct kind_info *k, const char *ns,
	 const char *name, const char *sub)
{
	client_path(buf, len, k->group, k->version, k->plural,
		    k->namespaced ? ns : NULL, name, sub);
}

int
cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int
cli_resp_error(const struct client_resp *r, const struct kind_info *k,
	       const char *name)
{
	const char *reason, *msg;
	json_t *details, *causes, *cause;
	char buf[128];
	size_t i;

	if (r->status == 0) {
		fprintf(stderr, "Unable to connect to the server: %s\n",
			r->error ? r->error : "unknown error");
		return 1;
	}
	reason = json_string_value(json_object_get(r->body, "reason"));
	msg = client_resp_message(r, buf, sizeof(buf));
	details = json_object_get(r->body, "details");
	causes = json_object_get(details, "causes");
	if (reason && !strcmp(reason, "Invalid")) {
		const char *dn =
		    json_string_value(json_object_get(details, "name"));

		if (!dn)
			dn = name;
		if (json_array_size(causes) == 0) {
			fprintf(stderr, "%s\n", msg);
			return 1;
		}
		/* kubectl names the kind here; the Status carries the
		 * resource, so take the kind of the request. */
		if (k)
			fprintf(stderr, "The %s \"%s\" is invalid:\n", k->kind,
				dn ? dn : "");
		else
			fprintf(stderr, "The request is invalid:\n");
		json_array_foreach(causes, i, cause)
		{
			const char *f =
			    json_string_value(json_object_get(cause, "field"));
			const char *m = json_string_value(
			    json_object_get(cause, "message"));

			if (f && *f)
				fprintf(stderr, "* %s: %s\n", f, m ? m : "");
			else
				fprintf(stderr, "* %s\n", m ? m : "");
		}
		return 1;
	}
	if (reason && *reason)
		fprintf(stderr, "Error from server (%s): %s\n", reason, msg);
	else
		fprintf(stderr, "Error from server: %s\n", msg);
	return 1;
}

int
cli_get(struct client *c, const struct kind_info *k, const char *ns,
	const char *name, json_t **out)
{
	struct client_resp r;
	char path[1024];

	cli_path(path, sizeof(path), k, ns, name, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status != 200 || !json_is_object(r.body)) {
		cli_resp_error(&r, k, name);
		client_resp_release(&r);
		return 1;
	}
	*out = json_incref(r.body);
	client_resp_release(&r);
	return 0;
}

int
cli_patch(struct client *c, const struct kind_info *k, const char *ns,
	  const char *name, const char *sub, const char *content_type,
	  json_t *patch, json_t **out)
{
	struct client_resp r;
	char path[1024];

	cli_path(path, sizeof(path), k, ns, name, sub);
	client_request(c, "PATCH", path, NULL, content_type, patch, &r);
	if (r.status < 200 || r.status > 299) {
		cli_resp_error(&r, k, name);
		client_resp_release(&r);
		return 1;
	}
	if (out)
		*out = json_incref(r.body);
	client_resp_release(&r);
	return 0;
}

int
cli_decode(json_t *j, enum kind_id id, struct object *o)
{
	struct fielderr_list errs = {0};

	if (object_decode(j, false, o, &errs) || o->k->id != id) {
		struct strbuf sb = STRBUF_INIT;

		if (errs.n)
			fielderr_format(&errs.v[0], &sb);
		cli_error("cannot decode the server's object%s%s",
			  sb.len ? ": " : "", sb.buf);
		strbuf_release(&sb);
		fielderr_list_release(&errs);
		if (o->obj)
			object_release(o);
		return -1;
	}
	return 0;
}

int
cli_owned_rs(struct client *c, const char *ns, const char *uid,
	     struct replicaset ***out, size_t *n)
{
	const struct kind_info *k = kind_by_id(KIND_REPLICASET);
	struct client_resp r;
	json_t *item;
	char path[1024];
	size_t i;

	*out = NULL;
	*n = 0;
	cli_path(path, sizeof(path), k, ns, NULL, NULL);
	client_request(c, "GET", path, NULL, NULL, NULL, &r);
	if (r.status != 200) {
		cli_resp_error(&r, k, NULL);
		client_resp_release(&r);
		return 1;
	}
	*out = xcalloc(json_array_size(json_object_get(r.body, "items")) + 1,
		       sizeof(**out));
	json_array_foreach(json_object_get(r.body, "items"), i, item)
	{
		struct object o = {0};
		const struct owner_ref *ref;

		if (cli_decode(item, KIND_REPLICASET, &o))
			continue;
		ref = meta_controller_ref(object_meta(&o));
		if (ref && ref->uid && uid && !strcmp(ref->uid, uid) &&
		    object_meta(&o)->deletion_timestamp == 0) {
			(*out)[(*n)++] = o.obj;
			o.obj = NULL;
		} else {
			object_release(&o);
		}
	}
	client_resp_release(&r);
	return 0;
}

void
cli_rs_free(struct replicaset **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		replicaset_release(v[i]);
		free(v[i]);
	}
	free(v);
}

char *
cli_urlencode(const char *s)
{
	char *e = client_http_escape(s);

	/* Without libcurl the request this is for fails with its reason. */
	return e ? e : xstrdup("");
}

int64_t
cli_parse_duration(const char *s)
{
	return dtime_parse_duration(s);
}
