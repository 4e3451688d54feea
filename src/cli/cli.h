/* cli.h - the verb table of the drover command (tmux's cmd_entry idea):
 * each verb lives in its own cmd_<verb>.c and exports one entry. */
#ifndef DROVER_CLI_H
#define DROVER_CLI_H

struct cmd_entry {
	const char *name;
	const char *usage;
	const char *summary;
	/* argv[0] is the verb. Returns the process exit status. */
	int (*run)(int argc, char **argv);
};

extern const struct cmd_entry cmd_plan_entry;
extern const struct cmd_entry cmd_version_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_logs_entry;
extern const struct cmd_entry cmd_apply_entry;
extern const struct cmd_entry cmd_get_entry;
extern const struct cmd_entry cmd_describe_entry;
extern const struct cmd_entry cmd_delete_entry;
extern const struct cmd_entry cmd_scale_entry;
extern const struct cmd_entry cmd_cordon_entry;
extern const struct cmd_entry cmd_uncordon_entry;
extern const struct cmd_entry cmd_drain_entry;
extern const struct cmd_entry cmd_token_entry;
extern const struct cmd_entry cmd_agent_entry;
extern const struct cmd_entry cmd_set_entry;
extern const struct cmd_entry cmd_rollout_entry;
extern const struct cmd_entry cmd_rolling_update_entry;

/* `drover plan --rc-update -f STATE OLD [NEW] --image=IMAGE ...`: the
 * rolling update's --dry-run over the ReplicationControllers and pods
 * of a file instead of a server (cmd_rolling_update.c). argv[0] is the
 * verb; returns the exit status. */
int rolling_update_plan(const char *state, int argc, char **argv);

#include "version.h"

#endif
