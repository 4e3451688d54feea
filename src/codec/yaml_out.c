/* yaml_out.c - jansson -> YAML through libyaml's event emitter. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yaml_out.h"

static int
write_cb(void *data, unsigned char *buf, size_t size)
{
	strbuf_add(data, buf, size);
	return 1;
}

/* A plain scalar that YAML 1.2 would resolve to something else must be
 * quoted to stay a string. */
static bool
needs_quotes(const char *s)
{
	char *end;

	if (*s == '\0')
		return true;
	if (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL") ||
	    !strcmp(s, "~") || !strcmp(s, "true") || !strcmp(s, "True") ||
	    !strcmp(s, "TRUE") || !strcmp(s, "false") || !strcmp(s, "False") ||
	    !strcmp(s, "FALSE") || !strcmp(s, "yes") || !strcmp(s, "no") ||
	    !strcmp(s, "on") || !strcmp(s, "off") || !strcmp(s, "y") ||
	    !strcmp(s, "n"))
		return true;
	strtod(s, &end);
	if (*end == '\0')
		return true;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o'))
		return true;
	/* Times and versions read back as strings by YAML 1.2 parsers, but
	 * YAML 1.1 ones (and people) see timestamps: quote them, as
	 * kubectl does. */
	if (s[0] >= '0' && s[0] <= '9')
		return true;
	return false;
}

static int
emit_scalar(yaml_emitter_t *e, const char *v, bool quote)
{
	yaml_event_t ev;

	/* Untagged: a quoted scalar must be quoted_implicit, or libyaml
	 * refuses it ("neither tag nor implicit flags are specified"). */
	yaml_scalar_event_initialize(
	    &ev, NULL, NULL, (yaml_char_t *)v, (int)strlen(v), !quote, 1,
	    quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	return yaml_emitter_emit(e, &ev) ? 0 : -1;
}

static int
emit(yaml_emitter_t *e, json_t *j)
{
	yaml_event_t ev;
	char buf[64];
	const char *k;
	json_t *v;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_object_foreach(j, k, v)
		{
			if (emit_scalar(e, k, needs_quotes(k)) || emit(e, v))
				return -1;
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_ARRAY:
		yaml_sequence_start_event_initialize(
		    &ev, NULL, NULL, 1,
		    json_array_size(j) ? YAML_BLOCK_SEQUENCE_STYLE
				       : YAML_FLOW_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		json_array_foreach(j, i, v)
		{
			if (emit(e, v))
				return -1;
		}
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case JSON_STRING:
		return emit_scalar(e, json_string_value(j),
				   needs_quotes(json_string_value(j)));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(j));
		return emit_scalar(e, buf, false);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%.17g", json_real_value(j));
		/* 1.0 prints as "1", which reads back as an integer. */
		if (strpbrk(buf, ".eE") == NULL)
			strcat(buf, ".0");
		return emit_scalar(e, buf, false);
	case JSON_TRUE:
		return emit_scalar(e, "true", false);
	case JSON_FALSE:
		return emit_scalar(e, "false", false);
	default:
		return emit_scalar(e, "null", false);
	}
}

int
yaml_emit(json_t *j, struct strbuf *sb)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int rc = -1;

	yaml_emitter_initialize(&e);
	yaml_emitter_set_output(&e, write_cb, sb);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	if (emit(&e, j))
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	rc = 0;
out:
	yaml_emitter_delete(&e);
	return rc;
}
