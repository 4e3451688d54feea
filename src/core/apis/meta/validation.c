/* validation.c - the validation rules every API group shares
 * (validation.h), with Kubernetes' field paths and messages:
 *
 *   k8s.io/apimachinery/pkg/api/validation (objectmeta.go)
 *       ValidateObjectMeta, ValidateAnnotations -> validate_object_meta,
 *       validate_annotations
 *   k8s.io/apimachinery/pkg/util/validation (validation.go)
 *       IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
 *       IsQualifiedName (labels.c)
 *   k8s.io/apimachinery/pkg/apis/meta/v1/validation
 *       ValidateLabelSelector, ValidateLabels (labels.c)
 *
 * Errors are appended in Kubernetes' order, because `kubectl` and drover
 * print them in list order and tests compare the whole list. Paths are
 * Kubernetes' field.Path strings ("spec.template.spec.containers[0].
 * ports[1].name"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intstr.h"
#include "labels.h"
#include "names.h"
#include "validation.h"
#include "xalloc.h"

const char *
val_pathf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(sb);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return sb->buf;
}

/* ValidateNonnegativeField: "must be greater than or equal to 0", the
 * value printed as a number. */
void
val_nonneg(int64_t v, const char *path, struct fielderr_list *errs)
{
	if (v < 0)
		fielderr_addf_int(errs, FE_INVALID, path, v, MSG_GE0);
}

/* The same for an optional field (a Go *int32): unset is valid. */
void
val_nonneg_opt(const struct opt_int *o, const char *path,
	       struct fielderr_list *errs)
{
	if (o->set)
		val_nonneg(o->v, path, errs);
}

/* The RFC 1123 label regex alone, with no length limit:
 * [a-z0-9]([-a-z0-9]*[a-z0-9])?  ("a", "web-1" yes; "", "-a", "a-",
 * "Web" no). */
static bool
dns1123_label_syntax(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		bool alnum = (s[i] >= 'a' && s[i] <= 'z') ||
			     (s[i] >= '0' && s[i] <= '9');

		if (!alnum && (s[i] != '-' || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

/* IsDNS1123Subdomain / IsDNS1123Label: the length error and the syntax
 * error are separate, as in Kubernetes. A subdomain is 1..253 characters
 * of dot-separated labels, each matching the label regex ("a.b-c.d");
 * the 63-character limit applies to each label only in the label case
 * (Kubernetes' subdomain regex has no per-label limit either). A name of
 * 300 'a's gets one error (too long), "A" one (syntax), 300 'A's both. */
void
validate_dns1123(const char *s, bool label, const char *path,
		 struct fielderr_list *errs)
{
	size_t n = strlen(s), max = label ? 63 : 253, start = 0, i;
	bool ok = true;

	if (n > max) {
		struct strbuf m = STRBUF_INIT;

		strbuf_addf(&m, "must be no more than %zu characters", max);
		fielderr_addf_str(errs, FE_INVALID, path, s, m.buf);
		strbuf_release(&m);
	}
	if (label) {
		ok = dns1123_label_syntax(s, n);
	} else {
		for (i = 0; i <= n && ok; i++)
			if (i == n || s[i] == '.') {
				ok = dns1123_label_syntax(s + start, i - start);
				start = i + 1;
			}
	}
	if (!ok)
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  label ? MSG_DNS1123_LABEL
					: MSG_DNS1123_SUBDOMAIN);
}

/* ValidateAnnotations: keys are qualified names compared in lower case,
 * and the total size is limited to 256 KiB.
 *
 * Keys are lowered before the check, so "Example.com/Key" is accepted
 * where a label key of that spelling would be refused (Kubernetes does the
 * same; annotations are not selectable, so case does not matter). The
 * size is Σ len(key) + len(value) in bytes (ValidateAnnotationsSize,
 * TotalAnnotationSizeLimitB = 256 << 10 = 262144); one error on the
 * annotations path as a whole, not per key. */
void
validate_annotations(const struct strmap *a, const char *path,
		     struct fielderr_list *errs)
{
	size_t i, j, total = 0;

	for (i = 0; i < a->n; i++) {
		char *lower = xstrdup(a->v[i].key);
		struct fielderr_list tmp = {0};

		for (j = 0; lower[j]; j++)
			if (lower[j] >= 'A' && lower[j] <= 'Z')
				lower[j] = (char)(lower[j] - 'A' + 'a');
		validate_label_key(lower, path, &tmp);
		/* report the key as written, not lowered */
		for (j = 0; j < tmp.n; j++)
			fielderr_addf_str(errs, tmp.v[j].type, path,
					  a->v[i].key, tmp.v[j].detail);
		fielderr_list_release(&tmp);
		free(lower);
		total += strlen(a->v[i].key) + strlen(a->v[i].value);
	}
	if (total > 262144)
		fielderr_add(errs, FE_TOO_LONG, path, NULL,
			     "must have at most 262144 bytes");
}

/* ValidateObjectMeta with NameIsDNSSubdomain as the name function (what
 * Deployment, ReplicaSet and Pod use), and ValidateNamespaceName (a DNS
 * label) for the namespace. Differences: generateName itself is not
 * checked (the name generated from it is, on create), and an empty
 * namespace is not reported (Kubernetes' Required for namespaced kinds):
 * drover's callers supply the namespace. */
void
validate_object_meta(const struct object_meta *m, bool namespaced,
		     const char *path, struct fielderr_list *errs)
{
	struct strbuf p = STRBUF_INIT;

	if ((m->name == NULL || !*m->name) &&
	    (m->generate_name == NULL || !*m->generate_name))
		fielderr_add(errs, FE_REQUIRED, val_pathf(&p, "%s.name", path),
			     NULL, "name or generateName is required");
	else if (m->name && *m->name)
		validate_dns1123(m->name, false, val_pathf(&p, "%s.name", path),
				 errs);
	if (namespaced && m->namespace && *m->namespace)
		validate_dns1123(m->namespace, true,
				 val_pathf(&p, "%s.namespace", path), errs);
	validate_labels(&m->labels, val_pathf(&p, "%s.labels", path), errs);
	validate_annotations(&m->annotations,
			     val_pathf(&p, "%s.annotations", path), errs);
	val_nonneg(m->generation, val_pathf(&p, "%s.generation", path), errs);
	strbuf_release(&p);
}

/* Renders a label map like Go's %#v of map[string]string, as Kubernetes
 * prints it in the selector-mismatch error. Keys come out in the strmap's
 * order (sorted), as Go's fmt sorts map keys:
 *   map[string]string{"app":"web", "tier":"front"}
 * strbuf_addjsonstr quotes the way Go's %q does for plain printable
 * ASCII, which valid label keys and values are. */
void
val_render_map(const struct strmap *m, struct strbuf *sb)
{
	size_t i;

	strbuf_addstr(sb, "map[string]string{");
	for (i = 0; i < m->n; i++) {
		if (i)
			strbuf_addstr(sb, ", ");
		strbuf_addjsonstr(sb, m->v[i].key);
		strbuf_addch(sb, ':');
		strbuf_addjsonstr(sb, m->v[i].value);
	}
	strbuf_addch(sb, '}');
}

/* Go's %#v of a v1.LabelSelector, the value Kubernetes prints for a bad
 * selector; absent and empty collections print as nil. Example, for
 * matchLabels {app: web} and no expressions:
 *   v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
 *   MatchExpressions:[]v1.LabelSelectorRequirement(nil)}
 * (on one line). Go would print an empty but non-nil map as
 * map[string]string{}; the decoder does not keep that distinction, and
 * a selector whose matchLabels is {} prints as nil here. */
void
val_render_selector(const struct label_selector *sel, struct strbuf *sb)
{
	size_t i, j;

	strbuf_addstr(sb, "v1.LabelSelector{MatchLabels:");
	if (sel->match_labels.n)
		val_render_map(&sel->match_labels, sb);
	else
		strbuf_addstr(sb, "map[string]string(nil)");
	strbuf_addstr(sb, ", MatchExpressions:");
	if (sel->match_expressions.n == 0) {
		strbuf_addstr(sb, "[]v1.LabelSelectorRequirement(nil)}");
		return;
	}
	strbuf_addstr(sb, "[]v1.LabelSelectorRequirement{");
	for (i = 0; i < sel->match_expressions.n; i++) {
		const struct selector_req *r = &sel->match_expressions.v[i];

		if (i)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, "v1.LabelSelectorRequirement{Key:");
		strbuf_addjsonstr(sb, r->key ? r->key : "");
		strbuf_addstr(sb, ", Operator:");
		strbuf_addjsonstr(sb, r->operator ? r->operator : "");
		strbuf_addstr(sb, ", Values:");
		if (r->values.n == 0) {
			strbuf_addstr(sb, "[]string(nil)}");
			continue;
		}
		strbuf_addstr(sb, "[]string{");
		for (j = 0; j < r->values.n; j++) {
			if (j)
				strbuf_addstr(sb, ", ");
			strbuf_addjsonstr(sb, r->values.v[j]);
		}
		strbuf_addstr(sb, "}}");
	}
	strbuf_addstr(sb, "}}");
}

/* ValidatePositiveIntOrPercent (despite the name, 0 is allowed): an int
 * must be >= 0, a string must match ^[0-9]+%$ ("25%" yes; "25", "-5%",
 * "1.5%", "%" no). An absent value is not an error here: defaulting put
 * 25% there, and the both-zero rule below treats absent as 0. */
void
validate_intstr_nonneg(const struct intstr *v, const char *path,
		       struct fielderr_list *errs)
{
	if (v->type == INTSTR_INT) {
		val_nonneg(v->ival, path, errs);
	} else if (v->type == INTSTR_STRING) {
		if (!intstr_is_percent(v->sval))
			fielderr_addf_str(errs, FE_INVALID, path, v->sval,
					  MSG_PERCENT);
	}
}

/* IsDNS1035Label, the syntax of a Service's name (ValidateServiceName
 * is NameIsDNS1035Label): [a-z]([-a-z0-9]*[a-z0-9])?, at most 63
 * characters, so "web" and "web-2" pass and "2web" or "web.example"
 * do not (a Service's name becomes a DNS label). */
#define MSG_DNS1035_LABEL                                                      \
	"a DNS-1035 label must consist of lower case alphanumeric "            \
	"characters or '-', start with an alphabetic character, and end "      \
	"with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "      \
	"regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

/* The length and the syntax are separate errors, as in
 * validate_dns1123: 64 letters get one error, "2web" one, 64 characters
 * starting with a digit both. */
void
validate_dns1035(const char *s, const char *path, struct fielderr_list *errs)
{
	size_t n = strlen(s);

	if (n > 63)
		fielderr_addf_str(errs, FE_INVALID, path, s,
				  "must be no more than 63 characters");
	if (!dns1123_label_syntax(s, n) || !(s[0] >= 'a' && s[0] <= 'z'))
		fielderr_addf_str(errs, FE_INVALID, path, s, MSG_DNS1035_LABEL);
}

/* IsNotMoreThan100Percent (checked last, as in Kubernetes). "150%" is
 * refused; an int 150 is not a percentage and passes (max_unavailable
 * clamps it to replicas). */
void
validate_not_over_100_percent(const struct intstr *v, const char *path,
			      struct fielderr_list *errs)
{
	if (v->type == INTSTR_STRING && intstr_is_percent(v->sval) &&
	    intstr_raw_value(v) > 100)
		fielderr_addf_str(errs, FE_INVALID, path, v->sval,
				  "must not be greater than 100%");
}
