/* labels.c - selector matching, parsing and label syntax validation.
 *
 * Matching follows metav1.LabelSelectorAsSelector: a NULL selector
 * matches nothing, an empty one (no matchLabels, no matchExpressions)
 * matches everything, and the requirements are ANDed. That is why the
 * Deployment planner refuses an empty selector (it would claim every RS
 * of the namespace) and why validation requires a non-empty one.
 *
 * Worked examples, labels {app: web, tier: front}:
 *   matchLabels {app: web}                                -> match
 *   matchLabels {app: web, tier: back}                    -> no match
 *   matchExpressions [{tier In [front, back]}]            -> match
 *   matchExpressions [{env NotIn [prod]}]                 -> match (no
 *     env label: NotIn and DoesNotExist hold for a missing key)
 *   matchExpressions [{env Exists}]                       -> no match
 * A Service's selector is a plain map (labels_subset): every pair must
 * be among the pod's labels. An empty map is a subset of anything, so
 * the callers treat a Service without a selector apart: it selects no
 * pod (its endpoints are the user's), as in Kubernetes.
 *
 * The text form (selector_parse, `-l` and labelSelector=) is kubectl's:
 * "app=web,tier!=back", "env in (a,b)", "!env"; an error names the
 * offending requirement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"
#include "names.h"
#include "strbuf.h"
#include "xalloc.h"

static bool
list_has(const struct strlist *l, const char *v)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], v) == 0)
			return true;
	return false;
}

/* matchLabels: each key present with that value. matchExpressions: In
 * (present, value listed), NotIn (absent, or value not listed: a pod
 * without the key matches `tier notin (db)`), Exists, DoesNotExist; an
 * unknown operator matches nothing (validation rejects it first).
 * Example: {app: web} + `track notin (canary)` matches {app: web} and
 * {app: web, track: stable}, not {app: web, track: canary}. */
bool
selector_matches(const struct label_selector *sel, const struct strmap *labels)
{
	size_t i;

	if (sel == NULL)
		return false;
	for (i = 0; i < sel->match_labels.n; i++) {
		const char *v = strmap_get(labels, sel->match_labels.v[i].key);

		if (v == NULL || strcmp(v, sel->match_labels.v[i].value))
			return false;
	}
	for (i = 0; i < sel->match_expressions.n; i++) {
		const struct selector_req *r = &sel->match_expressions.v[i];
		const char *v = strmap_get(labels, r->key ? r->key : "");
		const char *op = r->operator? r->operator: "";

		if (!strcmp(op, "In")) {
			if (v == NULL || !list_has(&r->values, v))
				return false;
		} else if (!strcmp(op, "NotIn")) {
			if (v != NULL && list_has(&r->values, v))
				return false;
		} else if (!strcmp(op, "Exists")) {
			if (v == NULL)
				return false;
		} else if (!strcmp(op, "DoesNotExist")) {
			if (v != NULL)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

/* Every label of want is in have with the same value (the RS
 * controller's "fully labeled" test: a pod carries all its template's
 * labels). want {app: web} and have {app: web, pod-template-hash: x}:
 * true; want {app: web, tier: front} and the same have: false; an
 * empty want: true for any have. */
bool
labels_subset(const struct strmap *want, const struct strmap *have)
{
	size_t i;

	for (i = 0; i < want->n; i++) {
		const char *v = strmap_get(have, want->v[i].key);

		if (v == NULL || strcmp(v, want->v[i].value))
			return false;
	}
	return true;
}

/* labels.Selector.Empty(): no requirement at all (NULL counts as empty
 * here; callers that must tell the two apart test for NULL first). */
bool
selector_is_empty(const struct label_selector *sel)
{
	return sel == NULL ||
	       (sel->match_labels.n == 0 && sel->match_expressions.n == 0);
}

/* ---- parsing "-l" selectors ---- */

/* Only spaces. Kubernetes' lexer also skips tabs and newlines, which a
 * `-l` argument hardly ever carries; here they end up inside a word. */
static void
skip_ws(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

/* A key or value: up to a space or one of ,=!() so "tier!=db" reads
 * "tier" and leaves "!=db". May be empty ("app=" reads the value "",
 * which selects app=""). The caller frees it. */
static char *
read_word(const char **p)
{
	const char *s = *p;

	while (**p && strchr(" ,=!()", **p) == NULL)
		(*p)++;
	return xstrndup(s, (size_t)(*p - s));
}

static struct selector_req *
add_req(struct label_selector *sel, const char *key, const char *op)
{
	struct selector_req *r =
	    anylist_push((struct anylist *)&sel->match_expressions, sizeof(*r));

	r->key = xstrdup(key);
	r->operator= xstrdup(op);
	return r;
}

/* The `-l` / `?labelSelector=` syntax of labels.Parse, turned into
 * matchExpressions (every term becomes a requirement, none goes to
 * matchLabels):
 *
 *   "app=web", "app==web"     app In (web)
 *   "tier!=db"                tier NotIn (db)
 *   "env in (prod, stage)"    env In (prod, stage)
 *   "env notin (dev)"         env NotIn (dev)
 *   "canary", "!canary"       canary Exists / DoesNotExist
 *
 * Terms are separated by commas outside parentheses; spaces around
 * tokens are skipped. Kubernetes' numeric "gt"/"lt" forms are not
 * supported. On -1, err holds "invalid selector <s>..." and sel may hold
 * the terms parsed so far: the caller releases it either way. */
int
selector_parse(const char *s, struct label_selector *sel, char *err,
	       size_t errlen)
{
	const char *p = s;

	skip_ws(&p);
	while (*p) {
		char *key, *val;
		bool neg = false;

		if (*p == '!') {
			neg = true;
			p++;
			skip_ws(&p);
		}
		key = read_word(&p);
		if (*key == '\0') {
			snprintf(err, errlen, "invalid selector %s", s);
			free(key);
			return -1;
		}
		skip_ws(&p);
		if (neg) {
			add_req(sel, key, "DoesNotExist");
		} else if (*p == '=' || (*p == '!' && p[1] == '=')) {
			bool ne = *p == '!';

			p += ne ? 2 : (p[1] == '=' ? 2 : 1);
			skip_ws(&p);
			val = read_word(&p);
			if (ne)
				strlist_push(
				    &add_req(sel, key, "NotIn")->values, val);
			else
				strlist_push(&add_req(sel, key, "In")->values,
					     val);
			free(val);
		} else if (!strncmp(p, "in", 2) || !strncmp(p, "notin", 5)) {
			bool in = p[0] == 'i';
			struct selector_req *r;

			p += in ? 2 : 5;
			skip_ws(&p);
			if (*p != '(') {
				snprintf(err, errlen,
					 "invalid selector %s: expected '('",
					 s);
				free(key);
				return -1;
			}
			p++;
			/* Values as labels.Parse reads them: "env in ()"
			 * is In [""] (it selects env=""), "env in (a,,b)"
			 * is In [a, "", b]. */
			r = add_req(sel, key, in ? "In" : "NotIn");
			for (;;) {
				skip_ws(&p);
				val = read_word(&p);
				strlist_push(&r->values, val);
				free(val);
				skip_ws(&p);
				if (*p == ',') {
					p++;
					continue;
				}
				if (*p == ')') {
					p++;
					break;
				}
				snprintf(err, errlen,
					 "invalid selector %s: expected ')'",
					 s);
				free(key);
				return -1;
			}
		} else {
			add_req(sel, key, "Exists");
		}
		free(key);
		skip_ws(&p);
		if (*p == ',') {
			p++;
			skip_ws(&p);
		} else if (*p) {
			snprintf(err, errlen, "invalid selector %s", s);
			return -1;
		}
	}
	return 0;
}

/* ---- syntax ---- */

static bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* The RFC 1123 subdomain syntax without the 253-character limit, for
 * telling a long prefix's syntax error apart from its length error.
 * Each label goes through name_is_dns1123_label, whose 63-character
 * limit the subdomain regex does not have. */
static bool
subdomain_syntax(const char *s, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i <= n; i++)
		if (i == n || s[i] == '.') {
			if (i == start ||
			    !name_is_dns1123_label(s + start, i - start))
				return false;
			start = i + 1;
		}
	return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], any length */
static bool
is_qualified_name_part(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' &&
		    s[i] != '.')
			return false;
	return true;
}

#define MSG_QNAME                                                              \
	"must consist of alphanumeric characters, '-', '_' or '.', and must "  \
	"start and end with an alphanumeric character (e.g. 'MyName',  or "    \
	"'my.name',  or '123-abc', regex used for validation is "              \
	"'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/* IsQualifiedName: every problem of the key, in Kubernetes' order.
 * Examples: "app" and "example.com/app" are valid; "Example.com/app"
 * gets the prefix syntax error; "/app" "prefix part must be
 * non-empty"; "example.com/" "name part must be non-empty" and the
 * name syntax error; "a/b/c" one error for the whole key. */
void
validate_label_key(const char *key, const char *path,
		   struct fielderr_list *errs)
{
	const char *slash = strchr(key, '/');
	const char *name = slash ? slash + 1 : key;
	size_t n = strlen(name);

	if (slash && strchr(name, '/')) {
		fielderr_addf_str(
		    errs, FE_INVALID, path, key,
		    "a qualified name " MSG_QNAME " with an optional DNS "
		    "subdomain prefix and '/' (e.g. 'example.com/MyName')");
		return;
	}
	if (slash && slash == key) {
		fielderr_addf_str(errs, FE_INVALID, path, key,
				  "prefix part must be non-empty");
	} else if (slash) {
		size_t pn = (size_t)(slash - key);

		if (pn > 253)
			fielderr_addf_str(errs, FE_INVALID, path, key,
					  "prefix part must be no more than "
					  "253 characters");
		if (!name_is_dns1123_subdomain(key, pn) &&
		    (pn <= 253 || !subdomain_syntax(key, pn)))
			fielderr_addf_str(
			    errs, FE_INVALID, path, key,
			    "prefix part a lowercase RFC 1123 subdomain must "
			    "consist of lower case alphanumeric characters, "
			    "'-' or '.', and must start and end with an "
			    "alphanumeric character (e.g. 'example.com', "
			    "regex used for validation is "
			    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-"
			    "z0-9]*[a-z0-9])?)*')");
	}
	if (n == 0)
		fielderr_addf_str(errs, FE_INVALID, path, key,
				  "name part must be non-empty");
	else if (n > 63)
		fielderr_addf_str(errs, FE_INVALID, path, key,
				  "name part must be no more than 63 "
				  "characters");
	if (!is_qualified_name_part(name, n))
		fielderr_addf_str(errs, FE_INVALID, path, key,
				  "name part " MSG_QNAME);
}

/* IsValidLabelValue: the length and the syntax are separate errors.
 * "" is a valid value; "v1.2_rc" is valid; "-v1" and "v1-" fail the
 * syntax (alphanumeric at both ends); 64 'a's fail the length only. */
void
validate_label_value(const char *value, const char *path,
		     struct fielderr_list *errs)
{
	size_t n = strlen(value);

	if (n == 0)
		return;
	if (n > 63)
		fielderr_addf_str(errs, FE_INVALID, path, value,
				  "must be no more than 63 characters");
	if (!is_qualified_name_part(value, n))
		fielderr_addf_str(
		    errs, FE_INVALID, path, value,
		    "a valid label must be an empty string or consist of "
		    "alphanumeric characters, '-', '_' or '.', and must start "
		    "and end with an alphanumeric character (e.g. "
		    "'MyValue',  or 'my_value',  or '12345', regex used for "
		    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])"
		    "?')");
}

/* ValidateLabels: every key (IsQualifiedName) and value
 * (IsValidLabelValue); the errors are reported on the map's path, with
 * the key or value as the bad value, as Kubernetes does. */
void
validate_labels(const struct strmap *m, const char *path,
		struct fielderr_list *errs)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		validate_label_key(m->v[i].key, path, errs);
		validate_label_value(m->v[i].value, path, errs);
	}
}

/* ValidateLabelSelector (apimachinery meta/v1/validation): matchLabels
 * as labels; per expression, In/NotIn need values, Exists/DoesNotExist
 * forbid them, any other operator is invalid, and the key must be a
 * qualified name. Kubernetes (1.27 and later) also checks the values of
 * In/NotIn as label values; drover does not. */
void
validate_selector(const struct label_selector *sel, const char *path,
		  struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;
	size_t i;

	strbuf_addf(&p, "%s.matchLabels", path);
	validate_labels(&sel->match_labels, p.buf, errs);
	for (i = 0; i < sel->match_expressions.n; i++) {
		const struct selector_req *r = &sel->match_expressions.v[i];
		const char *op = r->operator? r->operator: "";

		strbuf_reset(&p);
		strbuf_addf(&p, "%s.matchExpressions[%zu]", path, i);
		if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
			if (r->values.n == 0) {
				strbuf_addstr(&p, ".values");
				fielderr_add(errs, FE_REQUIRED, p.buf, NULL,
					     "must be specified when "
					     "`operator` is 'In' or 'NotIn'");
			}
		} else if (!strcmp(op, "Exists") ||
			   !strcmp(op, "DoesNotExist")) {
			if (r->values.n) {
				strbuf_addstr(&p, ".values");
				fielderr_add(errs, FE_FORBIDDEN, p.buf, NULL,
					     "may not be specified when "
					     "`operator` is 'Exists' or "
					     "'DoesNotExist'");
			}
		} else {
			strbuf_addstr(&p, ".operator");
			fielderr_addf_str(errs, FE_INVALID, p.buf, op,
					  "not a valid selector operator");
		}
		strbuf_reset(&p);
		strbuf_addf(&p, "%s.matchExpressions[%zu].key", path, i);
		validate_label_key(r->key ? r->key : "", p.buf, errs);
	}
	strbuf_release(&p);
}
