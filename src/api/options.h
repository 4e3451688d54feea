/* options.h - the query parameters of reads, checked as kube-apiserver
 * checks them before it does anything (options.c): the numbers of
 * ListOptions and PodLogOptions (strconv.ParseInt's errors, 400), a
 * label selector's keys and values (labels.Parse, 400), a continue token
 * (storage.DecodeContinue, 400), the PodLogOptions bounds (422), and a
 * namespace of "." or ".." (the storage key's check, 500). Each returns
 * 0, or -1 with the refusal in resp. */
#ifndef DROVER_API_OPTIONS_H
#define DROVER_API_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "api_int.h"

/* An int64 parameter: *set false when absent (or empty), else the value;
 * "abc" is 400 `strconv.ParseInt: parsing "abc": invalid syntax`. */
int query_int64(const struct query *q, const char *key, int64_t *v, bool *set,
		struct api_resp *resp);

/* A list's or a watch's timeoutSeconds and limit: numbers. */
int list_numbers_check(const struct query *q, struct api_resp *resp);

/* A list's continue token: drover answers every list whole and hands out
 * no token, so a token that decodes is one it cannot continue (410
 * Expired, as for a token whose version is compacted); one that does not
 * is 400 "invalid continue token: continue key is not valid: ...". */
int list_continue_check(const struct query *q, struct api_resp *resp);

/* The keys and values of a parsed labelSelector, as labels.Parse checks
 * them: 400 "unable to parse requirement: values[0][a]: Invalid value:
 * \"$$$\": a valid label must be ...". */
int label_selector_check(const struct label_selector *sel,
			 struct api_resp *resp);

/* A route whose namespace or name is "." or "..": the name as the
 * registry refuses it (400 `Name parameter invalid: "..": may not be
 * '..'`), the namespace as the storage refuses its key (500 `invalid
 * key: "/pods/.."`, a plain error: no reason). */
int route_dots_check(const struct route *rt, struct api_resp *resp);

/* PodLogOptions of pods/NAME/log: sinceSeconds, tailLines and limitBytes
 * (400 on what is not a number; 422 `PodLogOptions "NAME" is invalid:
 * limitBytes: Invalid value: -1: must be greater than 0` and the like);
 * -1 in each one absent. */
struct log_options {
	int64_t since_seconds, tail_lines, limit_bytes;
};
int log_options_parse(const struct query *q, const char *pod,
		      struct log_options *o, struct api_resp *resp);

#endif
