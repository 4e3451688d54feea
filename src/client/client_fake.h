/* client_fake.h - a recording fake client for tests of the controllers
 * and the agent (Kubernetes' fake clientset): it answers requests from a
 * table the test fills, records every request for assertions, and lets
 * the test push events to the watches that are open.
 *
 * Answers: the entry for (method, path) set last with client_fake_answer;
 * otherwise, with client_fake_echo_writes on, a POST is 201 and a PUT or
 * PATCH 200 with the request's body (a resourceVersion added if it has
 * none: "fake-1", "fake-2", ...; a POST with a generateName and no name
 * gets one, "<generateName>fake1", ...); otherwise 404 NotFound as a
 * Status.
 * A watch (ops->watch) is recorded as a GET with its query and opens at
 * once (out->status 200), with no events until the test emits some.
 * request_async (on a client made with a loop) answers from the table,
 * its callback from the loop, as client.h says.
 *
 * Ownership: the fake copies what it is given (client_fake_answer takes
 * a reference to body; emitted events are read, not kept); the records
 * belong to the fake until client_fake_clear or ops->free. */
#ifndef DROVER_CLIENT_CLIENT_FAKE_H
#define DROVER_CLIENT_CLIENT_FAKE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#include "client.h"
#include "kinds.h"

/* One request as the fake saw it; body NULL when it had none. */
struct client_fake_request {
	char *method;
	char *path;
	char *query; /* "" when none */
	json_t *body;
};

/* loop may be NULL: then request_async is refused, as on the real ones. */
struct client *client_fake_new(uv_loop_t *loop);
/* (method, path) answers status with body (a copy is handed out each
 * time; body may be NULL). Replaces an earlier answer for the pair. */
void client_fake_answer(struct client *c, const char *method, const char *path,
			int status, json_t *body);
/* The list of kind k in all namespaces answers 200 with no items at
 * resourceVersion "5": what an informer lists first in a test that then
 * emits its objects as watch events. */
void client_fake_answer_empty_list(struct client *c, enum kind_id k);
/* Unanswered writes succeed with their own body (see above). */
void client_fake_echo_writes(struct client *c, bool on);
/* The requests so far, in order; i < client_fake_count(c). */
size_t client_fake_count(struct client *c);
const struct client_fake_request *client_fake_request(struct client *c,
						      size_t i);
/* The number of recorded requests with this method and path. */
size_t client_fake_count_of(struct client *c, const char *method,
			    const char *path);
/* The last request with this method and path, or NULL. */
const struct client_fake_request *
client_fake_last(struct client *c, const char *method, const char *path);
void client_fake_clear(struct client *c);
/* Hands ev to every open watch on path (the query is not matched), at
 * once; ev NULL ends those watches (their callbacks get NULL, then
 * nothing more). Returns how many watches it reached. */
size_t client_fake_emit(struct client *c, const char *path, json_t *ev);
/* client_fake_emit of the event printf would print from fmt (JSON
 * text of at most 4 KiB): how many watches it reached, or 0 if the text
 * is not JSON (then nothing is sent). */
size_t client_fake_emitf(struct client *c, const char *path, const char *fmt,
			 ...) __attribute__((format(printf, 3, 4)));
/* Watches open (not unwatched, not ended). */
size_t client_fake_watches(struct client *c);

#endif
