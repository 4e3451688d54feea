/* agentd.h - `drover agent` (agentd.c): a host's node agent, joined to a
 * control plane. */
#ifndef DROVER_DAEMON_AGENTD_H
#define DROVER_DAEMON_AGENTD_H

/* Runs until SIGTERM or SIGINT; the exit status (2: usage, 1: refused or
 * failed, with one line printed). */
int agentd_main(int argc, char **argv);

#endif
