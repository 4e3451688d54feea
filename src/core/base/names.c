/* names.c - name syntax predicates (Kubernetes' validation helpers, from
 * k8s.io/apimachinery/pkg/util/validation): yes/no answers for callers
 * that only need to know; the validation produces the messages.
 *
 * Which names follow which rule:
 *   DNS-1123 subdomain (<= 253)  object names of Deployments,
 *                                ReplicaSets, Pods, Nodes
 *   DNS-1123 label (<= 63)       namespaces, container names
 *   IANA service name (<= 15)    container port names
 *   C identifier-ish             environment variable names
 *
 * A generated name is the generateName prefix plus 5 characters (random
 * in the API server, derived from a counter in the simulator): the
 * ReplicaSet "web-f4d48c756" makes pods like "web-f4d48c756-x7k2q",
 * which must still pass the subdomain rule. */
#include <string.h>

#include "names.h"

/* [a-z0-9]: ASCII only, no locale (isalnum would depend on it). */
static bool
lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* IsDNS1123Label: 1..63 of [a-z0-9-], alphanumeric at both ends:
 * "web", "web-1", "1web" yes; "Web", "-web", "web-", "web.1" no. */
bool
name_is_dns1123_label(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 63 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* IsDNS1123Subdomain: 1..253 characters of dot-separated labels, each
 * non-empty and alphanumeric at both ends: "web.example.com", "a-b.c"
 * yes; "web..com", ".web", "web.", "web-.com" no. Each label has no
 * length limit of its own (the regex has none). Loop invariant: start
 * is the first character of the label being scanned; i == n closes the
 * last one. */
bool
name_is_dns1123_subdomain(const char *s, size_t n)
{
	size_t start = 0, i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			size_t len = i - start, j;

			if (len == 0 || !lower_alnum(s[start]) ||
			    !lower_alnum(s[i - 1]))
				return false;
			for (j = start; j < i; j++)
				if (!lower_alnum(s[j]) && s[j] != '-')
					return false;
			start = i + 1;
		}
	}
	return true;
}

/* IsValidPortName as a predicate: "http", "metrics-9090" yes; "8080"
 * (no letter), "http--alt", "-http", "HTTP", "a-name-longer-than-15"
 * no. s[i + 1] is at most the terminating NUL, never past it. */
bool
name_is_iana_svc(const char *s)
{
	size_t n = strlen(s), i;
	bool letter = false;

	if (n == 0 || n > 15 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			letter = true;
		else if (s[i] == '-' && s[i + 1] == '-')
			return false;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '-')
			return false;
	}
	return letter;
}

/* IsEnvVarName: [-._a-zA-Z][-._a-zA-Z0-9]*: "PORT", "my.var", "_x" yes;
 * "1VAR", "MY VAR", "A=B" no. Kubernetes 1.30+ can relax this (any
 * printable ASCII but '=', behind RelaxedEnvironmentVariableValidation);
 * drover keeps the classic rule. */
bool
name_is_env_var(const char *s)
{
	size_t i;

	if (*s == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return false;
	}
	return true;
}
