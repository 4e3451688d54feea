/* cmd_scale.c - `drover scale`: set the replicas of a deployment, a
 * replicaset or a replication controller through its scale subresource
 * (a merge patch).
 *
 *   drover scale --replicas=N KIND/NAME... | KIND NAME... */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"

static const char usage_text[] =
    "usage: drover scale --replicas=N KIND/NAME... [--dry-run=server|client]\n"
    "       drover scale --replicas=N KIND NAME...\n"
    "\n"
    "KIND: deployments (deploy), replicasets (rs) or\n"
    "replicationcontrollers (rc).\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE, -n NAMESPACE.\n";

static int
scale_one(struct client *c, const struct kind_info *k, const char *name,
	  long long replicas)
{
	json_t *patch =
	    json_pack("{s{sI}}", "spec", "replicas", (json_int_t)replicas);
	char q[64];
	int rc;

	rc = cli_patch(c, k, cli_g.ns, name, "scale",
		       "application/merge-patch+json", patch, NULL);
	json_decref(patch);
	if (rc == 0) {
		cli_kind_qualified(k, q, sizeof(q));
		printf("%s/%s scaled%s\n", q, name, cli_dry_suffix());
	}
	return rc;
}

static int
scale_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"replicas", required_argument, NULL, 'r'},
	    {"dry-run", optional_argument, NULL, 'D'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct kind_info *k = NULL;
	struct client *c;
	long long replicas = -1;
	char *end;
	int ch, rc, i;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			replicas = strtoll(optarg, &end, 10);
			if (*end || end == optarg || replicas < 0) {
				fprintf(stderr, "error: The --replicas=COUNT "
						"flag is required, and COUNT "
						"must be greater than or equal "
						"to 0\n");
				return 2;
			}
			break;
		case 'D':
			if (cli_dry_run_set(optarg))
				return 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (replicas < 0) {
		fprintf(stderr, "error: The --replicas=COUNT flag is required, "
				"and COUNT must be greater than or equal to "
				"0\n");
		fputs(usage_text, stderr);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "error: you must specify the resource to "
				"scale\n");
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strchr(argv[optind], '/')) {
		if ((k = cli_kind_find(argv[optind])) == NULL)
			return cli_error("the server doesn't have a resource "
					 "type \"%s\"",
					 argv[optind]);
		if (++optind >= argc) {
			fprintf(stderr, "error: resource(s) were provided, "
					"but no name was specified\n");
			return 2;
		}
	}
	c = cli_client();
	for (i = optind; i < argc; i++) {
		const struct kind_info *ki = k;
		const char *name = argv[i];

		if (k == NULL && cli_kind_slash_name(argv[i], &ki, &name)) {
			rc = 1;
			continue;
		}
		if (ki->id == KIND_POD) {
			rc = cli_error("no scaler has been implemented for "
				       "pods");
			continue;
		}
		if (scale_one(c, ki, name, replicas))
			rc = 1;
	}
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_scale_entry = {
    "scale", usage_text, "set the replicas of a deployment, replicaset or rc",
    scale_run};
