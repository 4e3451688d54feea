/* common.h - what the client verbs share: global flags, the API client,
 * kind names and aliases, kubectl-style error printing, and output
 * helpers (tab-aligned tables, ages, JSON/YAML). */
#ifndef DROVER_CLI_COMMON_H
#define DROVER_CLI_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "dtime.h"
#include "kinds.h"
#include "strbuf.h"

/* The flags every client verb takes, wherever they appear. */
struct cli_globals {
	const char *server; /* unix socket path or http(s):// URL */
	const char *token;  /* bearer token or NULL */
	const char *ca;     /* PEM of the CA to trust over https, or NULL */
	size_t ca_len;
	bool insecure;  /* --insecure-skip-tls-verify, or the kubeconfig's */
	const char *ns; /* namespace, "default" unless given */
	bool ns_given;  /* -n was on the command line */
	enum { CLI_DRY_NONE, CLI_DRY_CLIENT, CLI_DRY_SERVER } dry_run;
};

extern struct cli_globals cli_g;

/* Takes --server, --token, -n/--namespace, --kubeconfig, --context,
 * --certificate-authority and --insecure-skip-tls-verify (in every
 * spelling: "--server X", "--server=X", "-nX") out of argv, shifting the
 * rest down and updating *argc, then picks the connection
 * (cli_connection). Returns 0, 2 after printing a usage error, or 1
 * after printing why a kubeconfig or CA file cannot be used. */
int cli_globals_parse(int *argc, char **argv);
/* Sets cli_g's server, token and CA from the flags' values (NULL: not
 * given) and the environment, kubectl's way: --server/--token/
 * --certificate-authority > --kubeconfig (its context --context, else
 * current-context) > DROVER_SERVER/DROVER_TOKEN > $KUBECONFIG (the first
 * path of the list; only when DROVER_SERVER is unset) > the default data
 * directory's unix socket. Returns 0, or 1 with the error printed. */
int cli_connection(const char *server, const char *token,
		   const char *kubeconfig, const char *context,
		   const char *ca_file);

/* The HTTP client for cli_g.server; the caller frees it with
 * c->ops->free(c). Never NULL. With --dry-run=server every write it sends
 * carries dryRun=All; with --dry-run=client no write is sent: it answers
 * with the body it was given (after a GET of the object for PUT, PATCH
 * and DELETE, so that a missing object is still an error). */
struct client *cli_client(void);

/* kubectl's --dry-run flag of apply, delete, scale and set: v is
 * "none", "client", "server" or NULL (the bare flag: client, with
 * kubectl's deprecation warning). Returns 0, or 1 after printing the
 * error. */
int cli_dry_run_set(const char *v);
/* "", " (dry run)" or " (server dry run)", after kubectl's messages. */
const char *cli_dry_suffix(void);

/* Finds a kind by any of its names ("deploy", "Deployments",
 * "deployment.apps"); NULL if unknown. */
const struct kind_info *cli_kind_find(const char *word);
/* "deployment.apps" or "pod" (kubectl's resource-with-group, singular). */
void cli_kind_qualified(const struct kind_info *k, char *buf, size_t len);
/* Splits "KIND/NAME" (kind and name both non-empty); 0 on success, -1
 * with "error: ..." printed. *name points into arg. */
int cli_kind_slash_name(const char *arg, const struct kind_info **k,
			const char **name);

/* API path of an object (name NULL: the collection; ns NULL: all
 * namespaces; sub NULL: the object itself). */
void cli_path(char *buf, size_t len, const struct kind_info *k, const char *ns,
	      const char *name, const char *sub);

/* Prints a failed response as kubectl does ("Error from server
 * (NotFound): ...", the field-by-field form of an Invalid Status, or
 * "Unable to connect to the server: ..."). k is the kind of the request
 * and name its object, for the Invalid heading. Returns 1. */
int cli_resp_error(const struct client_resp *r, const struct kind_info *k,
		   const char *name);
/* "error: <message>" on stderr; returns 1. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* GET of one object: 0 with *out (new reference), or the exit status
 * after printing the error. */
int cli_get(struct client *c, const struct kind_info *k, const char *ns,
	    const char *name, json_t **out);
/* PATCH of an object (sub may be NULL); 0 or the exit status after
 * printing the error. *out (may be NULL) gets the answer. */
int cli_patch(struct client *c, const struct kind_info *k, const char *ns,
	      const char *name, const char *sub, const char *content_type,
	      json_t *patch, json_t **out);
/* The ReplicaSets controlled by the deployment with this uid, decoded;
 * *out is allocated (free with cli_rs_free). 0, or the exit status. */
int cli_owned_rs(struct client *c, const char *ns, const char *uid,
		 struct replicaset ***out, size_t *n);
void cli_rs_free(struct replicaset **v, size_t n);

/* Decodes a served object into its model struct (kind must match);
 * 0, or -1 with "error: ..." printed. Free with object_release(). */
int cli_decode(json_t *j, enum kind_id id, struct object *o);

/* Parses "30s", "2m", "1h", "500ms", "1m30s" or a bare number of
 * seconds into milliseconds; -1 if it does not parse. */
int64_t cli_parse_duration(const char *s);

/* Percent-encodes a query value; the caller frees the result. */
char *cli_urlencode(const char *s);

/* Go's text/tabwriter over text whose cells end in '\t' and lines in
 * '\n' (the last cell of a line is not aligned). Appends to out. */
void cli_tabwrite(const char *text, size_t minwidth, size_t padding,
		  struct strbuf *out);

/* Prints j as "json" (4-space indent) or "yaml", keys sorted as kubectl
 * does. */
void cli_print_json(json_t *j, const char *format);

/* The pod template block of kubectl describe ("Pod Template:" and the
 * containers), as tabwriter input at the given indent. */
void cli_describe_template(const struct pod_template *t, struct strbuf *sb);
/* The same for a pod: its host ports are those of statuses (the ports
 * the agent allocated, status.containerStatuses[].ports), by container
 * name, and each container's state as kubectl describes it (State, Last
 * State with reason, exit code and times, Ready, Restart Count). */
/* t as kubectl's timestamps: RFC 1123 with a numeric zone, local time
 * ("Sat, 28 Nov 2026 15:04:05 +0000"); "<unset>" for 0. */
void cli_describe_time(struct strbuf *sb, dtime t);
/* The same where kubectl formats a time that may be unset: Go's zero
 * time, "Mon, 01 Jan 0001 00:00:00 +0000", for 0. */
void cli_describe_go_time(struct strbuf *sb, dtime t);
/* kubectl's printLabelsMultiline: "Title:\tk=v\n\tk2=v2\n" sorted,
 * "<none>" for none. */
void cli_describe_labels(struct strbuf *sb, const char *title,
			 const struct strmap *m);
/* printAnnotationsMultiline: "k: v" sorted, without kubectl's
 * last-applied-configuration; a value with a newline, or longer than
 * 140 bytes with its key, goes on the lines under its key, each line
 * cut at 138 bytes with "...". */
void cli_describe_annotations(struct strbuf *sb, const char *title,
			      const struct strmap *m);
/* describe_node.c: kubectl's describeNode for n: its metadata, Lease,
 * conditions, addresses, resources, system info, the non-terminated
 * pods bound to it with their requests and limits as shares of its
 * allocatable, their totals, and its Events. */
void cli_describe_node(struct client *c, const struct node *n,
		       struct strbuf *sb);
void cli_describe_containers(const struct pod_template *t,
			     const struct container_status_list *statuses,
			     struct strbuf *sb);
/* print_event.c: the Events section of `describe` for the object m of
 * kind k ("Events:\t<none>" when it has none), listed with kubectl's
 * involvedObject field selector. */
void cli_describe_events(struct client *c, const struct kind_info *k,
			 const struct object_meta *m, struct strbuf *sb);

#endif
