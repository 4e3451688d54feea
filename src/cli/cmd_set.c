/* cmd_set.c - `drover set image` and `drover set env`: change container
 * images or environment variables with a strategic merge patch of the
 * pod template's containers, by name (env entries by name too; a
 * removal is a {"$patch": "delete"} entry, as kubectl sends).
 *
 *   drover set image KIND/NAME CONTAINER=IMAGE... ("*" = every container)
 *   drover set image KIND NAME CONTAINER=IMAGE...
 *   drover set env KIND/NAME NAME=VALUE... NAME-... [-c CONTAINER] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"

static const char usage_text[] =
    "usage: drover set image KIND/NAME CONTAINER=IMAGE... "
    "[--dry-run=server|client]\n"
    "       drover set image KIND NAME CONTAINER=IMAGE...\n"
    "       drover set env KIND/NAME NAME=VALUE... NAME-... "
    "[-c CONTAINER]\n"
    "\n"
    "CONTAINER \"*\" sets every container. set env sets (NAME=VALUE) or\n"
    "removes (NAME-) variables of every container, or of the one -c\n"
    "names. KIND: deployments (deploy), replicasets (rs), pods (po).\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

/* The containers list of a served object (the template's for
 * deployments and replicasets). */
static json_t *
containers_of(json_t *obj, enum kind_id id)
{
	json_t *spec = json_object_get(obj, "spec");

	if (id != KIND_POD)
		spec =
		    json_object_get(json_object_get(spec, "template"), "spec");
	return json_object_get(spec, "containers");
}

static int
set_image(struct client *c, const struct kind_info *k, const char *name,
	  char **pairs, int npairs)
{
	json_t *obj, *list, *patch_list = json_array(), *patch, *ct;
	char q[64];
	size_t j;
	int i, rc = 0;

	if ((rc = cli_get(c, k, cli_g.ns, name, &obj)))
		return rc;
	list = containers_of(obj, k->id);
	for (i = 0; i < npairs && rc == 0; i++) {
		char *eq = strchr(pairs[i], '=');
		const char *image = eq + 1;
		bool found = false;

		*eq = '\0';
		json_array_foreach(list, j, ct)
		{
			const char *cn =
			    json_string_value(json_object_get(ct, "name"));

			if (!cn ||
			    (strcmp(pairs[i], "*") && strcmp(cn, pairs[i])))
				continue;
			found = true;
			json_array_append_new(
			    patch_list,
			    json_pack("{ssss}", "name", cn, "image", image));
		}
		if (!found)
			rc = cli_error("unable to find container named \"%s\"",
				       pairs[i]);
		*eq = '=';
	}
	json_decref(obj);
	if (rc) {
		json_decref(patch_list);
		return rc;
	}
	if (k->id == KIND_POD)
		patch = json_pack("{s{so}}", "spec", "containers", patch_list);
	else
		patch = json_pack("{s{s{s{so}}}}", "spec", "template", "spec",
				  "containers", patch_list);
	rc = cli_patch(c, k, cli_g.ns, name, NULL,
		       "application/strategic-merge-patch+json", patch, NULL);
	json_decref(patch);
	if (rc == 0) {
		cli_kind_qualified(k, q, sizeof(q));
		printf("%s/%s image updated%s\n", q, name, cli_dry_suffix());
	}
	return rc;
}

/* The env part of a containers patch: NAME=VALUE sets, NAME- removes. */
static json_t *
env_patch(char **pairs, int npairs)
{
	json_t *env = json_array();
	int i;

	for (i = 0; i < npairs; i++) {
		char *eq = strchr(pairs[i], '=');
		size_t n = strlen(pairs[i]);

		if (eq) {
			*eq = '\0';
			json_array_append_new(env, json_pack("{ssss}", "name",
							     pairs[i], "value",
							     eq + 1));
			*eq = '=';
		} else {
			pairs[i][n - 1] = '\0';
			json_array_append_new(env, json_pack("{ssss}", "name",
							     pairs[i], "$patch",
							     "delete"));
			pairs[i][n - 1] = '-';
		}
	}
	return env;
}

static int
set_env(struct client *c, const struct kind_info *k, const char *name,
	const char *container, char **pairs, int npairs)
{
	json_t *obj, *list, *patch_list = json_array(), *patch, *ct, *env;
	char q[64];
	size_t j;
	int rc;

	if ((rc = cli_get(c, k, cli_g.ns, name, &obj)))
		return rc;
	list = containers_of(obj, k->id);
	env = env_patch(pairs, npairs);
	json_array_foreach(list, j, ct)
	{
		const char *cn = json_string_value(json_object_get(ct, "name"));

		if (cn && (container == NULL || !strcmp(cn, container)))
			json_array_append_new(
			    patch_list,
			    json_pack("{sssO}", "name", cn, "env", env));
	}
	json_decref(env);
	json_decref(obj);
	if (json_array_size(patch_list) == 0) {
		json_decref(patch_list);
		return cli_error("unable to find container named \"%s\"",
				 container ? container : "*");
	}
	if (k->id == KIND_POD)
		patch = json_pack("{s{so}}", "spec", "containers", patch_list);
	else
		patch = json_pack("{s{s{s{so}}}}", "spec", "template", "spec",
				  "containers", patch_list);
	rc = cli_patch(c, k, cli_g.ns, name, NULL,
		       "application/strategic-merge-patch+json", patch, NULL);
	json_decref(patch);
	if (rc == 0) {
		cli_kind_qualified(k, q, sizeof(q));
		printf("%s/%s env updated%s\n", q, name, cli_dry_suffix());
	}
	return rc;
}

static int
set_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"container", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct kind_info *k;
	const char *name, *container = NULL;
	struct client *c;
	int ch, rc, i, first;
	bool env;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "hc:", opts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (ch == 'c') {
			container = optarg;
			continue;
		}
		if (ch == 'D') {
			if (cli_dry_run_set(optarg))
				return 1;
			continue;
		}
		fputs(usage_text, stderr);
		return 2;
	}
	if (optind >= argc ||
	    (strcmp(argv[optind], "image") && strcmp(argv[optind], "env"))) {
		if (optind < argc)
			fprintf(stderr,
				"error: unknown command \"%s\" for "
				"\"drover set\"\n",
				argv[optind]);
		fputs(usage_text, stderr);
		return 2;
	}
	env = !strcmp(argv[optind], "env");
	optind++;
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (strchr(argv[optind], '/')) {
		if (cli_kind_slash_name(argv[optind], &k, &name))
			return 1;
		first = optind + 1;
	} else {
		if ((k = cli_kind_find(argv[optind])) == NULL)
			return cli_error("the server doesn't have a resource "
					 "type \"%s\"",
					 argv[optind]);
		if (optind + 1 >= argc) {
			fputs(usage_text, stderr);
			return 2;
		}
		name = argv[optind + 1];
		first = optind + 2;
	}
	if (first >= argc) {
		fprintf(stderr, "error: at least one %s update is required\n",
			env ? "environment" : "image");
		fputs(usage_text, stderr);
		return 2;
	}
	for (i = first; env && i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t n = strlen(argv[i]);

		if ((eq == NULL && (n < 2 || argv[i][n - 1] != '-')) ||
		    eq == argv[i]) {
			fprintf(stderr,
				"error: invalid environment update \"%s\": "
				"expected NAME=VALUE or NAME-\n",
				argv[i]);
			return 2;
		}
	}
	for (i = first; !env && i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq == NULL || eq == argv[i] || eq[1] == '\0') {
			fprintf(stderr,
				"error: invalid image update \"%s\": "
				"expected CONTAINER=IMAGE\n",
				argv[i]);
			return 2;
		}
	}
	c = cli_client();
	rc = env ? set_env(c, k, name, container, argv + first, argc - first)
		 : set_image(c, k, name, argv + first, argc - first);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_set_entry = {
    "set", usage_text,
    "change container images or environment (set image, set env)", set_run};
