/* proxyd.h - the proxy process (proxyd.c): `drover __proxy --socket
 * PATH`, started by the node agent, not a command of users. */
#ifndef DROVER_DAEMON_PROXYD_H
#define DROVER_DAEMON_PROXYD_H

#define PROXYD_VERB "__proxy"

/* Runs the proxy process until told to exit; argv[1] is PROXYD_VERB. The
 * exit status of the process. */
int proxyd_main(int argc, char **argv);

#endif
