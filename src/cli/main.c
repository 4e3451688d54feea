/* main.c - the drover command: find the verb, hand it the arguments. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "proxyd.h"
#include "serve.h"

static const struct cmd_entry *const verbs[] = {
    &cmd_serve_entry,    &cmd_apply_entry,    &cmd_get_entry,
    &cmd_describe_entry, &cmd_delete_entry,   &cmd_scale_entry,
    &cmd_set_entry,      &cmd_rollout_entry,  &cmd_logs_entry,
    &cmd_plan_entry,     &cmd_version_entry,  &cmd_rolling_update_entry,
    &cmd_cordon_entry,   &cmd_uncordon_entry, &cmd_drain_entry,
    &cmd_token_entry,    &cmd_agent_entry,
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: drover <command> [flags]\n\ncommands:\n");
	for (i = 0; i < NVERBS; i++)
		fprintf(f, "  %-10s %s\n", verbs[i]->name, verbs[i]->summary);
	fprintf(f, "\nRun 'drover <command> --help' for the flags of one.\n");
}

static int
version_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("drover %s\n", DROVER_VERSION);
	return 0;
}

const struct cmd_entry cmd_version_entry = {"version", "drover version",
					    "print the version", version_run};

int
main(int argc, char **argv)
{
	size_t i;

	/* The node agent's proxy process (proxyd.h): not one either. */
	if (argc >= 2 && !strcmp(argv[1], PROXYD_VERB))
		return proxyd_main(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < NVERBS; i++)
		if (!strcmp(argv[1], verbs[i]->name))
			return verbs[i]->run(argc - 1, argv + 1);
	fprintf(stderr, "error: unknown command \"%s\" for \"drover\"\n",
		argv[1]);
	usage(stderr);
	return 2;
}
