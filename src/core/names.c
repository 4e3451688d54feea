/* names.c - name syntax predicates (Kubernetes' validation helpers). */
#include <string.h>

#include "names.h"

static bool
lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

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
