/* cmd_agent.c - the `agent` verb (the agent's daemon lives in
 * src/daemon/agentd.c). */
#include "agentd.h"
#include "cli.h"

static int
agent_run(int argc, char **argv)
{
	return agentd_main(argc, argv);
}

const struct cmd_entry cmd_agent_entry = {
    "agent", "drover agent --server URL --token TOKEN [--node-name NAME]",
    "join this host to a cluster and run its pods", agent_run};
