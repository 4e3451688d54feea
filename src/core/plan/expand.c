/* expand.c - $(VAR) expansion with Kubernetes' exact rules.
 *
 * The rules of third_party/forked/golang/expansion (expand.go), used by
 * the kubelet for command, args and env values: with VAR=x defined and
 * UNSET undefined,
 *
 *   "$(VAR)"        -> "x"
 *   "$$(VAR)"       -> "$(VAR)"   ($$ is an escaped $)
 *   "$(UNSET)"      -> "$(UNSET)" (kept as written, not emptied)
 *   "$VAR", "$x"    -> unchanged  (only the parenthesized form expands)
 *   "a$"            -> "a$"       (a trailing $ is literal)
 *   "$()"           -> "$()"      (an empty name never expands)
 *
 * Expansion is one pass: a value that itself contains "$(OTHER)" is not
 * expanded again. The caller owns out (appended to) and builds vars in
 * the order Kubernetes does (earlier env entries visible to later
 * ones). */
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "xalloc.h"

void
expand_vars(const char *s, const struct strmap *vars, struct strbuf *out)
{
	const char *p = s;

	while (*p) {
		if (p[0] != '$' || p[1] == '\0') {
			strbuf_addch(out, *p++);
			continue;
		}
		if (p[1] == '$') { /* "$$" -> "$" */
			strbuf_addch(out, '$');
			p += 2;
			continue;
		}
		if (p[1] == '(') {
			const char *close = strchr(p + 2, ')');

			if (close) {
				char *name =
				    xstrndup(p + 2, (size_t)(close - p - 2));
				const char *v = strmap_get(vars, name);

				if (v && *name)
					strbuf_addstr(out, v);
				else /* undefined: kept as written */
					strbuf_add(out, p,
						   (size_t)(close - p + 1));
				free(name);
				p = close + 1;
				continue;
			}
			/* Kubernetes emits "$(" and scans on, so a "$$"
			 * further on would still become "$"; here the whole
			 * rest is copied, "$$" included (an edge no real
			 * manifest relies on). */
			/* no closing paren: the rest is literal */
			strbuf_addstr(out, p);
			return;
		}
		strbuf_addch(out, *p++); /* "$x": kept */
	}
}
