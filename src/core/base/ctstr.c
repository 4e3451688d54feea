/* ctstr.c - constant-time string comparison (see ctstr.h). */
#include <string.h>

#include "ctstr.h"

bool
ct_streq(const char *given, const char *secret)
{
	size_t lg = strlen(given), ls = strlen(secret);
	size_t n = lg > ls ? lg : ls, i;
	/* volatile: the compiler may not stop at the first difference. */
	volatile unsigned char diff = 0;

	for (i = 0; i < n; i++) {
		/* Index masks rather than branches on the contents: the
		 * bytes read depend on i and the lengths alone. */
		size_t ig = i < lg ? i : lg, is = i < ls ? i : ls;

		diff |= (unsigned char)(given[ig] ^ secret[is]);
	}
	return diff == 0 && lg == ls;
}
