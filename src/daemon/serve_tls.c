/* serve_tls.c - DIR/tls and DIR/kubeconfig for drover serve --listen
 * (see serve_tls.h). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsx.h"
#include "kubeconfig.h"
#include "log.h"
#include "serve_tls.h"
#include "tlsca.h"

void
serve_tls_release(struct serve_tls *t)
{
	free(t->cert);
	free(t->key);
	free(t->ca);
	memset(t, 0, sizeof(*t));
}

static int
read_pem(const char *tls, const char *name, char **buf, size_t *len, char *err,
	 size_t errlen)
{
	char path[700];
	size_t n;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", tls, name);
	rc = fsx_read_all(path, buf, len ? len : &n);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc ? -1 : 0;
}

/* Appends name to sans unless it is there. */
static void
add_san(const char **sans, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(sans[i], name))
			return;
	sans[(*n)++] = name;
}

/* The host's IPv4 addresses but the loopback ones, up to max. */
static size_t
host_addresses(char (*out)[INET_ADDRSTRLEN], size_t max)
{
	struct ifaddrs *ifs, *i;
	size_t n = 0;

	if (getifaddrs(&ifs))
		return 0;
	for (i = ifs; i && n < max; i = i->ifa_next) {
		const struct sockaddr_in *a =
		    (const struct sockaddr_in *)i->ifa_addr;

		if (a == NULL || a->sin_family != AF_INET ||
		    (ntohl(a->sin_addr.s_addr) >> 24) == 127)
			continue;
		if (inet_ntop(AF_INET, &a->sin_addr, out[n], INET_ADDRSTRLEN))
			n++;
	}
	freeifaddrs(ifs);
	return n;
}

int
serve_tls_prepare(const char *dir, const char *host, const char *const *extra,
		  size_t nextra, struct serve_tls *t, char *err, size_t errlen)
{
	char tls[600], hostname[256], addrs[16][INET_ADDRSTRLEN];
	const char *sans[4 + 16 + SERVE_TLS_MAX_SANS];
	size_t n = 0, i, naddrs = 0;
	struct tlsca_result res;

	memset(t, 0, sizeof(*t));
	/* As k3s: the listen address, the loopback address and name, the
	 * host's name, and --tls-san's; on 0.0.0.0, every IPv4 address of
	 * the host (where other hosts reach it). No duplicates. */
	if (gethostname(hostname, sizeof(hostname)) != 0)
		hostname[0] = '\0';
	hostname[sizeof(hostname) - 1] = '\0';
	if (!strcmp(host, "0.0.0.0"))
		naddrs = host_addresses(addrs, 16);
	add_san(sans, &n, host);
	add_san(sans, &n, "127.0.0.1");
	add_san(sans, &n, "localhost");
	if (*hostname)
		add_san(sans, &n, hostname);
	for (i = 0; i < naddrs; i++)
		add_san(sans, &n, addrs[i]);
	for (i = 0; i < nextra && i < SERVE_TLS_MAX_SANS; i++)
		add_san(sans, &n, extra[i]);
	snprintf(tls, sizeof(tls), "%s/tls", dir);
	if (tlsca_ensure(tls, sans, n, time(NULL), &res, err, errlen))
		return -1;
	if (res.ca_created)
		log_info("drover serve: made a new CA in %s/ca.crt", tls);
	if (res.server_created) {
		char names[600] = "";

		for (i = 0; i < n; i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", sans[i]);
		log_info("drover serve: made a server certificate in "
			 "%s/server.crt for %s",
			 tls, names);
	}
	if (read_pem(tls, "server.crt", &t->cert, NULL, err, errlen) ||
	    read_pem(tls, "server.key", &t->key, NULL, err, errlen) ||
	    read_pem(tls, "ca.crt", &t->ca, &t->ca_len, err, errlen)) {
		serve_tls_release(t);
		return -1;
	}
	return 0;
}

int
serve_kubeconfig(const char *dir, const char *host, int port,
		 const struct serve_tls *t, const char *token, char *err,
		 size_t errlen)
{
	char path[600], url[128];

	if (!strcmp(host, "0.0.0.0"))
		host = "127.0.0.1";
	snprintf(url, sizeof(url), "%s://%s:%d", t ? "https" : "http", host,
		 port);
	snprintf(path, sizeof(path), "%s/kubeconfig", dir);
	return kubeconfig_write(path, "drover", url, t ? t->ca : NULL,
				t ? t->ca_len : 0, token, err, errlen);
}
