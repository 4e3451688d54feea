/* kubeconfig.h - kubectl's kubeconfig file (client-go's clientcmd): the
 * one drover serve writes for its TCP listener, and the one the drover
 * command reads to find the API, as kubectl does.
 *
 * Written (kubeconfig_write), mode 0600, YAML through libyaml's emitter:
 *
 *   apiVersion: v1
 *   kind: Config
 *   clusters:
 *   - name: drover
 *     cluster:
 *       server: https://127.0.0.1:6443
 *       certificate-authority-data: LS0tLS1CRUdJTi...   (base64 of ca.crt)
 *   users:
 *   - name: drover
 *     user:
 *       token: 0123abcd...
 *   contexts:
 *   - name: drover
 *     context: {cluster: drover, user: drover}
 *   current-context: drover
 *
 * Read (kubeconfig_load): the context named (else current-context), its
 * cluster's server, certificate-authority (a file, relative to the
 * kubeconfig's folder as clientcmd resolves it) or
 * certificate-authority-data, insecure-skip-tls-verify, and its user's
 * token or tokenFile. Other user credentials (client certificates, exec
 * plugins) are not supported: an error names them.
 *
 * Ownership: a struct kubeconfig owns its strings; kubeconfig_release
 * frees them. */
#ifndef DROVER_CLIENT_KUBECONFIG_H
#define DROVER_CLIENT_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct kubeconfig {
	char *context; /* the context used */
	char *server;  /* "https://127.0.0.1:6443" */
	char *ca;      /* PEM of the CA to trust; NULL: the system's */
	size_t ca_len;
	bool insecure; /* insecure-skip-tls-verify */
	char *token;   /* bearer token; NULL: none */
};

/* Reads path for the context named context (NULL: current-context).
 * 0, or -1 with a message in err ("context \"x\" not found in K"). */
int kubeconfig_load(const char *path, const char *context,
		    struct kubeconfig *out, char *err, size_t errlen);
/* The same from text; dir is the folder relative paths are read from. */
int kubeconfig_parse(const char *text, size_t len, const char *dir,
		     const char *context, struct kubeconfig *out, char *err,
		     size_t errlen);
void kubeconfig_release(struct kubeconfig *kc);

/* Writes the kubeconfig above (cluster, user and context all named
 * name) to path, mode 0600, atomically. 0, or -1 with err. */
int kubeconfig_write(const char *path, const char *name, const char *server,
		     const char *ca_pem, size_t ca_len, const char *token,
		     char *err, size_t errlen);

#endif
