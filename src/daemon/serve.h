/* serve.h - `drover serve`: the embedded single-host default. One loop
 * runs the SQLite store, the API (unix socket, and TCP with a bearer token
 * when asked), and the controllers talking to it through the in-process
 * client. */
#ifndef DROVER_DAEMON_SERVE_H
#define DROVER_DAEMON_SERVE_H

#include <stddef.h>

/* The data directory when none is given: $DROVER_DATA_DIR, else
 * /var/lib/drover for root, else ~/.local/share/drover. */
void serve_default_data_dir(char *buf, size_t len);
/* The unix socket of a data directory: DIR/drover.sock. */
void serve_default_socket(char *buf, size_t len);

int serve_main(int argc, char **argv);

#endif
