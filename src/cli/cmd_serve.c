/* cmd_serve.c - the `serve` verb (the daemon lives in src/daemon). */
#include "cli.h"
#include "serve.h"

static int
serve_run(int argc, char **argv)
{
	return serve_main(argc, argv);
}

const struct cmd_entry cmd_serve_entry = {
    "serve",
    "drover serve [--data-dir DIR] [--socket PATH] [--listen ADDR:PORT]",
    "run the control plane on this host", serve_run};
