/* names.h - Kubernetes' name syntax predicates (RFC 1123 labels and
 * subdomains, IANA service names, environment variable names) and their
 * error messages. */
#ifndef DROVER_NAMES_H
#define DROVER_NAMES_H

#include <stdbool.h>
#include <stddef.h>

bool name_is_dns1123_label(const char *s, size_t n);
bool name_is_dns1123_subdomain(const char *s, size_t n);
bool name_is_iana_svc(const char *s);
bool name_is_env_var(const char *s);

#define MSG_DNS1123_SUBDOMAIN                                                  \
	"a lowercase RFC 1123 subdomain must consist of lower case "           \
	"alphanumeric characters, '-' or '.', and must start and end with "    \
	"an alphanumeric character (e.g. 'example.com', regex used for "       \
	"validation is "                                                       \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define MSG_DNS1123_LABEL                                                      \
	"a lowercase RFC 1123 label must consist of lower case alphanumeric "  \
	"characters or '-', and must start and end with an alphanumeric "      \
	"character (e.g. 'my-name',  or '123-abc', regex used for "            \
	"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define MSG_ENV_VAR                                                            \
	"a valid environment variable name must consist of alphabetic "        \
	"characters, digits, '_', '-', or '.', and must not start with a "     \
	"digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', "     \
	"regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"

#endif
