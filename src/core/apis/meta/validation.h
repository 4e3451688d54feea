/* validation.h - the validation rules every API group shares
 * (k8s.io/apimachinery's api/validation and util/validation): object
 * metadata, annotations, DNS names, non-negative and int-or-percent
 * values, and the helpers that build field paths and print maps and
 * selectors in Kubernetes' messages. Each group's validation
 * (core_validate.h, apps_validate.h, discovery_validate.h) builds on
 * these; the registry reaches them all through validate.h.
 *
 * Every function appends every problem it finds to errs (field path,
 * value, reason, with Kubernetes' messages) and never stops at the first
 * one. The caller owns errs. */
#ifndef DROVER_VALIDATION_H
#define DROVER_VALIDATION_H

#include <stdbool.h>
#include <stdint.h>

#include "fielderr.h"
#include "meta.h"
#include "strbuf.h"

#define MSG_GE0 "must be greater than or equal to 0"
#define MSG_PERCENT                                                            \
	"a valid percent string must be a numeric string followed by an "      \
	"ending '%' (e.g. '1%',  or '93%', regex used for validation is "      \
	"'[0-9]+%')"

/* A path builder: val_pathf(sb, "%s.spec", base) without repeating strbuf
 * calls. The returned pointer is sb's buffer: valid until the next
 * val_pathf on sb, which is enough because fielderr_add* copy the path. */
const char *val_pathf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* ValidateNonnegativeField, of a plain and of an optional (*int32) one. */
void val_nonneg(int64_t v, const char *path, struct fielderr_list *errs);
void val_nonneg_opt(const struct opt_int *o, const char *path,
		    struct fielderr_list *errs);
/* IsDNS1123Label (label) or IsDNS1123Subdomain, and IsDNS1035Label. */
void validate_dns1123(const char *s, bool label, const char *path,
		      struct fielderr_list *errs);
void validate_dns1035(const char *s, const char *path,
		      struct fielderr_list *errs);
void validate_annotations(const struct strmap *a, const char *path,
			  struct fielderr_list *errs);
/* namespaced: the object lives in a namespace (all kinds so far). */
void validate_object_meta(const struct object_meta *m, bool namespaced,
			  const char *path, struct fielderr_list *errs);
/* ValidatePositiveIntOrPercent: a number >= 0 or a percent string. */
void validate_intstr_nonneg(const struct intstr *v, const char *path,
			    struct fielderr_list *errs);
/* IsNotMoreThan100Percent: a percent string above 100% is refused. */
void validate_not_over_100_percent(const struct intstr *v, const char *path,
				   struct fielderr_list *errs);
/* A map and a selector as Kubernetes prints them in messages. */
void val_render_map(const struct strmap *m, struct strbuf *sb);
void val_render_selector(const struct label_selector *sel, struct strbuf *sb);

#endif
