/* yaml_out.h - JSON values printed as YAML (libyaml's emitter), for
 * `-o yaml`. Keys keep their order; strings that would read back as
 * another type are quoted. */
#ifndef DROVER_CODEC_YAML_OUT_H
#define DROVER_CODEC_YAML_OUT_H

#include <jansson.h>

#include "strbuf.h"

/* Appends j as one YAML document to sb. Returns 0, or -1 on an emitter
 * error. */
int yaml_emit(json_t *j, struct strbuf *sb);

#endif
