/*
 * JSON through cJSON, one row at a time: each row is built, printed into a
 * reused buffer and freed, so memory stays flat however many rows there are.
 * Sizes go in as raw integer text (cJSON keeps numbers as doubles, which
 * would round above 2^53). Strings are made valid UTF-8 first; cJSON
 * escapes the control characters.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "render.h"

static bool add_string(cJSON *o, const char *key, const char *value)
{
	if (!value)
		return cJSON_AddNullToObject(o, key) != NULL;
	char *valid = utf8_repair(value);
	bool ok = valid && cJSON_AddStringToObject(o, key, valid) != NULL;
	free(valid);
	return ok;
}

static bool add_u64(cJSON *o, const char *key, uint64_t value, uint64_t unknown)
{
	char text[24];
	if (value == unknown)
		return cJSON_AddNullToObject(o, key) != NULL;
	snprintf(text, sizeof(text), "%" PRIu64, value);
	return cJSON_AddRawToObject(o, key, text) != NULL;
}

struct json_stream {
	FILE *out;
	size_t rows;
	char buffer[16384];
};

static void stream_begin(struct json_stream *s, FILE *out)
{
	s->out = out;
	s->rows = 0;
	fputc('[', out);
}

/* Prints and frees one row; -ENOMEM if it could not be built or printed. */
static int stream_row(struct json_stream *s, cJSON *row, bool built)
{
	int r = 0;

	if (!built) {
		r = -ENOMEM;
	} else {
		if (s->rows++ > 0)
			fputc(',', s->out);
		if (cJSON_PrintPreallocated(row, s->buffer, (int)sizeof(s->buffer), 0)) {
			fputs(s->buffer, s->out);
		} else {
			char *text = cJSON_PrintUnformatted(row); /* a row over 16 KiB */
			if (text)
				fputs(text, s->out);
			else
				r = -ENOMEM;
			free(text);
		}
	}
	cJSON_Delete(row);
	return r;
}

static void stream_end(struct json_stream *s)
{
	fputs("]\n", s->out);
}

static bool build_gpu(cJSON *o, const struct hmn_gpu *g)
{
	return add_u64(o, "index", g->index, HMN_UNKNOWN) &&
	       add_string(o, "name", g->name) &&
	       add_string(o, "uuid", g->uuid) &&
	       add_string(o, "vendor", g->vendor) &&
	       add_string(o, "pci_bus_id", g->pci_bus_id) &&
	       add_u64(o, "total_bytes", g->total_bytes, HMN_UNKNOWN) &&
	       add_u64(o, "free_bytes", g->free_bytes, HMN_UNKNOWN) &&
	       add_u64(o, "used_bytes", g->used_bytes, HMN_UNKNOWN) &&
	       add_u64(o, "reserved_bytes", g->reserved_bytes, HMN_UNKNOWN) &&
	       add_string(o, "driver_version", g->driver_version) &&
	       add_string(o, "source", g->source);
}

static bool build_process(cJSON *o, const struct hmn_process *p)
{
	return add_u64(o, "pid", p->pid, HMN_UNKNOWN) &&
	       add_string(o, "name", p->name) &&
	       add_u64(o, "used_bytes", p->used_bytes, HMN_UNKNOWN) &&
	       add_u64(o, "shared_used_bytes", p->shared_used_bytes, HMN_UNKNOWN) &&
	       add_u64(o, "device_index", p->device_index, HMN_UNKNOWN) &&
	       add_string(o, "device_name", p->device_name) &&
	       add_string(o, "device_uuid", p->device_uuid) &&
	       add_string(o, "type", process_type_name(p->type, false)) &&
	       add_string(o, "user", p->user) &&
	       add_u64(o, "uid", p->uid, HMN_UID_UNKNOWN) &&
	       add_string(o, "path", p->path) &&
	       cJSON_AddBoolToObject(o, "protected", p->is_protected) &&
	       add_string(o, "source", p->source);
}

int render_gpus_json(FILE *out, const struct hmn_gpu *const *gpus, size_t n)
{
	struct json_stream *s = malloc(sizeof(*s));
	int r = 0;

	if (!s)
		return -ENOMEM;
	stream_begin(s, out);
	for (size_t i = 0; i < n && r == 0; i++) {
		cJSON *o = cJSON_CreateObject();
		r = stream_row(s, o, o && build_gpu(o, gpus[i]));
	}
	stream_end(s);
	free(s);
	return r;
}

int render_processes_json(FILE *out, const struct hmn_process *const *rows, size_t n)
{
	struct json_stream *s = malloc(sizeof(*s));
	int r = 0;

	if (!s)
		return -ENOMEM;
	stream_begin(s, out);
	for (size_t i = 0; i < n && r == 0; i++) {
		cJSON *o = cJSON_CreateObject();
		r = stream_row(s, o, o && build_process(o, rows[i]));
	}
	stream_end(s);
	free(s);
	return r;
}
