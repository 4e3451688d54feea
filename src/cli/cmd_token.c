/* cmd_token.c - `drover token`: the join tokens with which hosts join the
 * cluster (`drover agent --token`), as `kubeadm token` manages its
 * bootstrap tokens (src/api/auth.h says what is kept).
 *
 *   drover token create [--ttl DURATION] [--description TEXT]
 *   drover token list
 *   drover token delete ID...
 *
 * create prints the token once, with the CA's hash that lets the agent
 * trust the control plane ("ID.SECRET::sha256:HEX"); list prints
 * kubeadm's columns (TOKEN shows the id only: the secret is not kept). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "clock.h"
#include "dtime.h"
#include "strbuf.h"

#define TOKENS_PATH "/drover/v1/jointokens"

static const char usage_text[] =
    "usage: drover token create [--ttl DURATION] [--description TEXT]\n"
    "       drover token list\n"
    "       drover token delete ID...\n"
    "\n"
    "Join tokens let a host join this cluster: on it, `drover agent\n"
    "--server URL --token TOKEN`. A token is printed once, when made, with\n"
    "the hash of the cluster's CA, which the agent checks (nothing else is\n"
    "copied to the host). --ttl: how long it may be used (default 24h, 0:\n"
    "forever). Joined agents keep their own credential: deleting or\n"
    "expiring a token stops new joins only.\n"
    "Global flags: --server URL|SOCKET, --token TOKEN, --kubeconfig FILE,\n"
    "--context NAME, --certificate-authority FILE.\n";

static int
token_create(struct client *c, int64_t ttl_ms, const char *desc)
{
	json_t *body =
	    json_pack("{sI}", "ttlSeconds", (json_int_t)(ttl_ms / 1000));
	struct client_resp r;
	int rc = 0;

	if (desc)
		json_object_set_new(body, "description", json_string(desc));
	client_request(c, "POST", TOKENS_PATH, NULL, "application/json", body,
		       &r);
	json_decref(body);
	if (r.status != 201)
		rc = cli_resp_error(&r, NULL, NULL);
	else
		printf("%s\n",
		       json_string_value(json_object_get(r.body, "token")));
	client_resp_release(&r);
	return rc;
}

/* kubeadm's TTL column: "23h", "59m", "<forever>", "<invalid>". */
static void
ttl_text(const char *expires, dtime now, char *out, size_t len)
{
	dtime until;
	int64_t left;

	if (expires == NULL) {
		snprintf(out, len, "<forever>");
		return;
	}
	if (dtime_parse(expires, &until) || until <= now) {
		snprintf(out, len, "<invalid>");
		return;
	}
	left = (until - now) / 1000;
	if (left >= 3600)
		snprintf(out, len, "%lldh", (long long)(left / 3600));
	else if (left >= 60)
		snprintf(out, len, "%lldm", (long long)(left / 60));
	else
		snprintf(out, len, "%llds", (long long)left);
}

static int
token_list(struct client *c)
{
	struct client_resp r;
	struct strbuf t = STRBUF_INIT, out = STRBUF_INIT;
	json_t *it;
	size_t i;
	int rc = 0;
	dtime now = clock_now();

	client_request(c, "GET", TOKENS_PATH, NULL, NULL, NULL, &r);
	if (r.status != 200) {
		rc = cli_resp_error(&r, NULL, NULL);
		client_resp_release(&r);
		return rc;
	}
	strbuf_addstr(&t, "TOKEN\tTTL\tEXPIRES\tDESCRIPTION\n");
	json_array_foreach(json_object_get(r.body, "items"), i, it)
	{
		const char *exp =
		    json_string_value(json_object_get(it, "expires"));
		const char *d =
		    json_string_value(json_object_get(it, "description"));
		char ttl[32];

		ttl_text(exp, now, ttl, sizeof(ttl));
		strbuf_addf(&t, "%s\t%s\t%s\t%s\n",
			    json_string_value(json_object_get(it, "id")), ttl,
			    exp ? exp : "<never>", d ? d : "<none>");
	}
	cli_tabwrite(t.buf, 0, 3, &out);
	fputs(out.buf, stdout);
	strbuf_release(&t);
	strbuf_release(&out);
	client_resp_release(&r);
	return rc;
}

static int
token_delete(struct client *c, int argc, char **argv)
{
	int rc = 0, i;

	for (i = 0; i < argc; i++) {
		struct client_resp r;
		char path[128];
		/* "ID.SECRET" or the whole join token names its id too */
		size_t n = strcspn(argv[i], ".");

		snprintf(path, sizeof(path), TOKENS_PATH "/%.*s",
			 (int)(n < 16 ? n : 16), argv[i]);
		client_request(c, "DELETE", path, NULL, NULL, NULL, &r);
		if (r.status != 200)
			rc = cli_resp_error(&r, NULL, NULL);
		else
			printf("join token \"%.*s\" deleted\n", (int)n,
			       argv[i]);
		client_resp_release(&r);
	}
	return rc;
}

static int
token_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"ttl", required_argument, NULL, 't'},
	    {"description", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *desc = NULL, *verb;
	int64_t ttl_ms = DTIME_SEC(24 * 3600);
	struct client *c;
	int ch, rc;

	if ((rc = cli_globals_parse(&argc, argv)))
		return rc;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			if ((ttl_ms = cli_parse_duration(optarg)) < 0)
				return cli_error("--ttl: \"%s\": not a "
						 "duration (e.g. 30m, 2h, 0)",
						 optarg);
			break;
		case 'd':
			desc = optarg;
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
		fputs(usage_text, stderr);
		return 2;
	}
	verb = argv[optind++];
	if (strcmp(verb, "create") && strcmp(verb, "list") &&
	    strcmp(verb, "delete")) {
		fprintf(stderr, "error: unknown command \"%s\"\n", verb);
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strcmp(verb, "delete") && optind >= argc) {
		fprintf(stderr, "error: missing the id of a token\n");
		return 2;
	}
	c = cli_client();
	if (!strcmp(verb, "create"))
		rc = token_create(c, ttl_ms, desc);
	else if (!strcmp(verb, "list"))
		rc = token_list(c);
	else
		rc = token_delete(c, argc - optind, argv + optind);
	c->ops->free(c);
	return rc;
}

const struct cmd_entry cmd_token_entry = {
    "token", "drover token create|list|delete",
    "manage the join tokens with which hosts join", token_run};
