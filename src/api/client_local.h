/* client_local.h - the in-process client over an api (drover serve). */
#ifndef DROVER_API_CLIENT_LOCAL_H
#define DROVER_API_CLIENT_LOCAL_H

#include "api.h"
#include "client.h"

/* Borrows api; free with c->ops->free(c). */
struct client *client_local_new(struct api *api);

#endif
