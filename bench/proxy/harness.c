/* harness.c - runs drover's proxy alone for the benchmark: one service on
 * 127.0.0.1:PORT in TCP or HTTP mode over the given backends, until
 * SIGTERM or SIGINT; then prints its counters (Prometheus text) on
 * stderr when asked.
 * Usage: proxy-harness PORT tcp|http [rr|lc] BACKEND_PORT...  */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy.h"

int
main(int argc, char **argv)
{
	struct proxy_endpoint eps[16];
	struct proxy_service svc = {.name = "bench/web",
				    .address = "127.0.0.1"};
	struct proxy_table t = {.services = &svc, .n_services = 1};
	struct proxy_service_stats st;
	struct proxy *p;
	char keys[16][32];
	sigset_t set;
	int i, sig, first = 3;

	if (argc < 4) {
		fprintf(stderr, "usage: proxy-harness PORT tcp|http [rr|lc] "
				"BACKEND_PORT...\n");
		return 2;
	}
	svc.port = atoi(argv[1]);
	svc.mode = strcmp(argv[2], "http") == 0 ? PROXY_HTTP : PROXY_TCP;
	if (strcmp(argv[3], "lc") == 0 || strcmp(argv[3], "rr") == 0) {
		svc.balance =
		    argv[3][0] == 'l' ? PROXY_LEAST_CONN : PROXY_ROUND_ROBIN;
		first = 4;
	}
	for (i = first; i < argc && svc.n_endpoints < 16; i++) {
		size_t k = svc.n_endpoints++;

		snprintf(keys[k], sizeof(keys[k]), "bench/web-%zu/uid", k);
		eps[k] = (struct proxy_endpoint){.address = "127.0.0.1",
						 .port = atoi(argv[i]),
						 .key = keys[k],
						 .revision = "v1"};
	}
	svc.endpoints = eps;
	/* Signals are taken by sigwait here; the proxy's thread inherits
	 * the mask and never sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((p = proxy_start(NULL)) == NULL) {
		fprintf(stderr, "proxy-harness: cannot start the proxy\n");
		return 1;
	}
	if (proxy_set_table(p, &t) < 0) {
		fprintf(stderr, "proxy-harness: bad table\n");
		proxy_stop(p);
		return 1;
	}
	while (proxy_service_stats(p, svc.name, &st) != 0)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	if (st.listen_error) {
		fprintf(stderr, "proxy-harness: cannot listen on %d: %s\n",
			svc.port, strerror(-st.listen_error));
		proxy_stop(p);
		return 1;
	}
	printf("listening on 127.0.0.1:%d\n", svc.port);
	fflush(stdout);
	for (;;) {
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig != SIGUSR1)
			break;
		{
			struct strbuf sb = STRBUF_INIT;

			proxy_metrics_append(p, &sb);
			fputs(sb.buf, stderr);
			strbuf_release(&sb);
		}
	}
	proxy_stop(p);
	return 0;
}
