/* client_local.h - the in-process client over an api (drover serve).
 * Requests and watches reach the API handlers directly; a watch's events
 * come from the loop, when the store delivers a turn's writes after their
 * commit (store_deliver), never inside the write that makes them.
 *
 * client_local_new_on_loop adds request_async (the request made at once,
 * the answer handed to the callback from the loop) and reports a refused
 * watch from the loop as an ERROR event then NULL, as the HTTP client on
 * a loop does (client.h).
 *
 * Ownership: borrows api and loop; free with c->ops->free(c), which
 * closes the watches still open and drops the answers not yet delivered
 * (their callbacks are not called); on a loop, the loop must then run
 * once more. */
#ifndef DROVER_API_CLIENT_LOCAL_H
#define DROVER_API_CLIENT_LOCAL_H

#include <uv.h>

#include "api.h"
#include "client.h"

struct client *client_local_new(struct api *api);
struct client *client_local_new_on_loop(struct api *api, uv_loop_t *loop);

#endif
