/*
 * JSON output, streamed one row at a time so memory stays flat however many
 * rows there are.
 *
 * The structure (fixed keys, integers) is written directly: sizes are raw
 * integer text, since a double would round above 2^53. String values that
 * are plain printable ASCII with no quote or backslash need no escaping and
 * are written as they are; every other string is made valid UTF-8
 * (utf8_repair: invalid bytes become U+FFFD) and escaped by cJSON. Building
 * a cJSON tree for every row cost more than everything else hmn ps does
 * together for 10,000 processes; tests/unit/test-json.c checks this writer
 * against cJSON's own output.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "outbuf.h"
#include "render.h"
#include "util/clock.h"

/* The renderer's buffer is the shared one (outbuf.h); these names keep the code short. */
#define json_out outbuf
#define put outbuf_put
#define PUT_LITERAL OUTBUF_LITERAL

/* Bytes a JSON string can hold as they are: printable ASCII but '"' and '\\'. */
static const bool plain[256] = {
	[' '] = 1, ['!'] = 1, ['#' ... '['] = 1, [']' ... '~'] = 1,
};

/*
 * cJSON's text with the control characters it leaves as they are escaped
 * too: DEL and C1 (U+0080-U+009F, "\xc2\x80"-"\xc2\x9f" in UTF-8), of
 * which U+009B starts a terminal's control sequence as ESC [ does. The
 * contract: control characters are escaped.
 */
static void put_escaping_controls(struct json_out *o, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t start = 0, i = 0;
	char escape[8];

	while (p[i]) {
		bool del = p[i] == 0x7f, c1 = p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f;
		if (!del && !c1) {
			i++;
			continue;
		}
		put(o, text + start, i - start);
		snprintf(escape, sizeof(escape), "\\u%04x", del ? 0x7f : p[i + 1]);
		put(o, escape, 6);
		i += del ? 1 : 2;
		start = i;
	}
	put(o, text + start, i - start);
}

/* Writes s as a JSON string; -ENOMEM if cJSON could not escape it. */
static int put_string(struct json_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	if (!s) {
		PUT_LITERAL(o, "null");
		return 0;
	}
	while (plain[p[n]])
		n++;
	if (p[n] == '\0') {
		put(o, "\"", 1);
		put(o, s, n);
		put(o, "\"", 1);
		return 0;
	}
	char *valid = utf8_repair(s);
	cJSON *item = valid ? cJSON_CreateString(valid) : NULL;
	char *text = item ? cJSON_PrintUnformatted(item) : NULL;
	if (text)
		put_escaping_controls(o, text);
	free(text);
	cJSON_Delete(item);
	free(valid);
	return text ? 0 : -ENOMEM;
}

int json_write_string(FILE *out, const char *s)
{
	struct outbuf *o = outbuf_new(out);
	if (!o)
		return -ENOMEM;
	int r = put_string(o, s);
	outbuf_close(o);
	return r;
}

static void put_u64(struct json_out *o, uint64_t value, uint64_t unknown)
{
	if (value == unknown)
		PUT_LITERAL(o, "null");
	else
		outbuf_put_u64(o, value);
}

/* Keys are ours, given with their quotes and colon: ",\"name\":". */
static int string_field(struct json_out *o, const char *key, size_t key_len, const char *value)
{
	put(o, key, key_len);
	return put_string(o, value);
}

static void u64_field(struct json_out *o, const char *key, size_t key_len, uint64_t value,
		      uint64_t unknown)
{
	put(o, key, key_len);
	put_u64(o, value, unknown);
}

/* A time kept in microseconds (the one clock's unit), written in the contract's milliseconds. */
static void ms_field(struct json_out *o, const char *key, size_t key_len, uint64_t us)
{
	u64_field(o, key, key_len, us == HMN_UNKNOWN ? HMN_UNKNOWN : us / CLOCK_US_PER_MS, HMN_UNKNOWN);
}

static void put_bool(struct json_out *o, const char *key, size_t key_len, bool value)
{
	put(o, key, key_len);
	if (value)
		PUT_LITERAL(o, "true");
	else
		PUT_LITERAL(o, "false");
}

#define KEY(name) ",\"" name "\":", sizeof(",\"" name "\":") - 1

/* ,"mig":{"gpu_instance_id":G,"compute_instance_id":C — the caller adds the rest. */
static void put_mig_ids(struct json_out *o, const struct hmn_place *at)
{
	PUT_LITERAL(o, ",\"mig\":{\"gpu_instance_id\":");
	put_u64(o, at->gpu_instance_id, HMN_UNKNOWN);
	PUT_LITERAL(o, ",\"compute_instance_id\":");
	put_u64(o, at->compute_instance_id, HMN_UNKNOWN);
}

/* A GPU row's ,"mig": null, or the instance's ids and its GPU's index. */
static void put_gpu_mig(struct json_out *o, const struct hmn_place *at)
{
	if (!at->is_mig) {
		PUT_LITERAL(o, ",\"mig\":null");
		return;
	}
	put_mig_ids(o, at);
	PUT_LITERAL(o, ",\"parent_index\":");
	put_u64(o, at->index, HMN_UNKNOWN);
	put(o, "}", 1);
}

static int write_gpu(struct json_out *o, const struct hmn_gpu *g)
{
	PUT_LITERAL(o, "{\"index\":");
	put_u64(o, g->place.index, HMN_UNKNOWN);
	int r = string_field(o, KEY("name"), g->name);
	r |= string_field(o, KEY("uuid"), g->uuid);
	r |= string_field(o, KEY("vendor"), g->vendor);
	r |= string_field(o, KEY("pci_bus_id"), g->pci_bus_id);
	u64_field(o, KEY("total_bytes"), g->total_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("free_bytes"), g->free_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("used_bytes"), g->used_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("reserved_bytes"), g->reserved_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("shared_total_bytes"), g->shared_total_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("shared_used_bytes"), g->shared_used_bytes, HMN_UNKNOWN);
	r |= string_field(o, KEY("driver_version"), g->driver_version);
	r |= string_field(o, KEY("source"), g->source);
	put_gpu_mig(o, &g->place);
	put_bool(o, KEY("unified_memory"), g->unified_memory);
	u64_field(o, KEY("utilization_percent"), g->utilization_percent, HMN_VALUE_UNKNOWN);
	u64_field(o, KEY("memory_utilization_percent"), g->memory_utilization_percent, HMN_VALUE_UNKNOWN);
	u64_field(o, KEY("temperature_celsius"), g->temperature_celsius, HMN_VALUE_UNKNOWN);
	u64_field(o, KEY("power_milliwatts"), g->power_milliwatts, HMN_VALUE_UNKNOWN);
	u64_field(o, KEY("power_limit_milliwatts"), g->power_limit_milliwatts, HMN_VALUE_UNKNOWN);
	r |= string_field(o, KEY("compute_capability"), g->compute_capability);
	put(o, "}", 1);
	return r;
}

/* A command's words as an array of strings: ["python3","train.py"]. */
static int put_words(struct json_out *o, const char *const *words, size_t n)
{
	int r = 0;

	put(o, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			put(o, ",", 1);
		r |= put_string(o, words[i]);
	}
	put(o, "]", 1);
	return r;
}

static int write_process(struct json_out *o, const struct hmn_process *p)
{
	PUT_LITERAL(o, "{\"pid\":");
	put_u64(o, p->pid, HMN_UNKNOWN);
	int r = string_field(o, KEY("name"), p->name);
	u64_field(o, KEY("used_bytes"), p->used_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("shared_used_bytes"), p->shared_used_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("device_index"), p->place.index, HMN_UNKNOWN);
	r |= string_field(o, KEY("device_name"), p->device_name);
	r |= string_field(o, KEY("device_uuid"), p->device_uuid);
	r |= string_field(o, KEY("type"), process_type_name(p->type, false));
	r |= string_field(o, KEY("user"), p->user);
	u64_field(o, KEY("uid"), p->uid, HMN_UID_UNKNOWN);
	r |= string_field(o, KEY("path"), p->path);
	put_bool(o, KEY("protected"), p->is_protected);
	r |= string_field(o, KEY("source"), p->source);
	u64_field(o, KEY("ns_pid"), p->ns_pid, 0);
	r |= string_field(o, KEY("container"), p->container);
	if (p->place.is_mig) {
		put_mig_ids(o, &p->place);
		r |= string_field(o, KEY("uuid"), p->mig_uuid);
		put(o, "}", 1);
	} else {
		PUT_LITERAL(o, ",\"mig\":null");
	}
	put_bool(o, KEY("mps"), p->is_mps_client);
	u64_field(o, KEY("ram_bytes"), p->ram_bytes, HMN_UNKNOWN);
	r |= string_field(o, KEY("pod_uid"), p->pod_uid);
	PUT_LITERAL(o, ",\"command\":");
	if (p->command)
		r |= put_words(o, p->command, strv_count(p->command));
	else
		PUT_LITERAL(o, "null");
	put(o, "}", 1);
	return r;
}

/* Puts "[row,row,...]" through write_row; nonzero when a string could not be escaped. */
static int put_array(struct json_out *o, const void *const *rows, size_t n,
		     int (*write_row)(struct json_out *, const void *))
{
	int r = 0;

	put(o, "[", 1);
	for (size_t i = 0; i < n && r == 0; i++) {
		if (i > 0)
			put(o, ",", 1);
		r = write_row(o, rows[i]);
	}
	put(o, "]", 1);
	return r;
}

/* Writes "[row,row,...]\n" through write_row. */
static int write_array(FILE *file, const void *const *rows, size_t n,
		       int (*write_row)(struct json_out *, const void *))
{
	struct json_out *o = outbuf_new(file);
	if (!o)
		return -ENOMEM;
	int r = put_array(o, rows, n, write_row);
	put(o, "\n", 1);
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

static int write_gpu_row(struct json_out *o, const void *row)
{
	return write_gpu(o, row);
}

static int write_process_row(struct json_out *o, const void *row)
{
	return write_process(o, row);
}

int render_gpus_json(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		     const struct render_options *options)
{
	return write_array(out, (const void *const *)gpus, n, write_gpu_row);
}

int render_processes_json(FILE *out, const struct hmn_process *const *rows, size_t n,
			  const struct render_options *options)
{
	return write_array(out, (const void *const *)rows, n, write_process_row);
}

int render_sample_json(FILE *out, const char *time, uint64_t elapsed_us,
		       const struct hmn_gpu *const *gpus, size_t n_gpus,
		       const struct hmn_process *const *rows, size_t n_rows)
{
	struct json_out *o = outbuf_new(out);
	if (!o)
		return -ENOMEM;
	PUT_LITERAL(o, "{\"time\":");
	int r = put_string(o, time);
	ms_field(o, KEY("elapsed_ms"), elapsed_us);
	PUT_LITERAL(o, ",\"gpus\":");
	r |= put_array(o, (const void *const *)gpus, n_gpus, write_gpu_row);
	PUT_LITERAL(o, ",\"processes\":");
	r |= put_array(o, (const void *const *)rows, n_rows, write_process_row);
	PUT_LITERAL(o, "}\n");
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

static void put_int_or_null(struct json_out *o, const char *key, size_t key_len, int value)
{
	put(o, key, key_len);
	if (value < 0)
		PUT_LITERAL(o, "null");
	else
		outbuf_put_u64(o, (uint64_t)value);
}

/* The contract's word for how hmn run measured; NULL: null (no GPU). */
static const char *measure_name(enum run_measure m)
{
	if (m == MEASURE_NONE)
		return NULL;
	return measure_is_device_wide(m) ? "device-wide" : "per-process";
}

static const char *process_peaks_name(enum process_peaks p)
{
	return p == PROCESS_PEAKS_ACCOUNTING ? "accounting" : p == PROCESS_PEAKS_SAMPLED ? "sampled" : NULL;
}

int render_run_report_json(FILE *out, const struct run_report *rep)
{
	struct json_out *o = outbuf_new(out);
	int r = 0;
	if (!o)
		return -ENOMEM;
	PUT_LITERAL(o, "{\"command\":");
	r |= put_words(o, (const char *const *)rep->argv, rep->argc);
	put_int_or_null(o, KEY("exit_code"), rep->exit_code);
	put_int_or_null(o, KEY("signal"), rep->signal);
	ms_field(o, KEY("duration_ms"), rep->duration_us);
	u64_field(o, KEY("samples"), rep->samples, HMN_UNKNOWN);
	ms_field(o, KEY("interval_ms"), rep->interval_us);
	r |= string_field(o, KEY("measure"), measure_name(rep->measure));
	u64_field(o, KEY("peak_bytes"), rep->peak_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("peak_shared_bytes"), rep->peak_shared_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("peak_ram_bytes"), rep->peak_ram_bytes, HMN_UNKNOWN);
	r |= string_field(o, KEY("ram_measure"), rep->ram_measure);
	u64_field(o, KEY("limit_bytes"), rep->limit_bytes, HMN_UNKNOWN);
	put_bool(o, KEY("limit_exceeded"), rep->limit_exceeded);
	ms_field(o, KEY("limit_exceeded_ms"), rep->limit_exceeded_us);
	u64_field(o, KEY("limit_exceeded_bytes"), rep->limit_exceeded_bytes, HMN_UNKNOWN);
	PUT_LITERAL(o, ",\"devices\":[");
	for (size_t i = 0; i < rep->n_devices; i++) {
		const struct run_device_peak *d = &rep->devices[i];
		if (i > 0)
			put(o, ",", 1);
		PUT_LITERAL(o, "{\"index\":");
		outbuf_put_u64(o, d->place.index);
		r |= string_field(o, KEY("uuid"), d->uuid);
		r |= string_field(o, KEY("name"), d->name);
		u64_field(o, KEY("peak_bytes"), d->peak_bytes, HMN_UNKNOWN);
		/* A MIG instance watched on its own says which, as hmn free's rows do; else null. */
		if (d->place.is_mig) {
			put_mig_ids(o, &d->place);
			put(o, "}", 1);
		} else {
			PUT_LITERAL(o, ",\"mig\":null");
		}
		put(o, "}", 1);
	}
	PUT_LITERAL(o, "],\"processes\":[");
	for (size_t i = 0; i < rep->n_processes; i++) {
		const struct run_process_peak *p = &rep->processes[i];
		if (i > 0)
			put(o, ",", 1);
		PUT_LITERAL(o, "{\"pid\":");
		outbuf_put_u64(o, p->pid);
		r |= string_field(o, KEY("name"), p->name);
		u64_field(o, KEY("device_index"), p->device_index, HMN_UNKNOWN);
		u64_field(o, KEY("peak_bytes"), p->peak_bytes, HMN_UNKNOWN);
		put(o, "}", 1);
	}
	put(o, "]", 1);
	if (rep->spill) {
		PUT_LITERAL(o, ",\"spill\":{\"episodes\":");
		outbuf_put_u64(o, rep->spill->episodes);
		ms_field(o, KEY("total_ms"), rep->spill->total_us);
		ms_field(o, KEY("longest_ms"), rep->spill->longest_us);
		u64_field(o, KEY("peak_shared_bytes"), rep->spill->peak_shared_bytes, HMN_UNKNOWN);
		put(o, "}", 1);
	} else {
		PUT_LITERAL(o, ",\"spill\":null");
	}
	r |= string_field(o, KEY("process_peaks"), process_peaks_name(rep->process_peaks));
	PUT_LITERAL(o, ",\"left_running\":[");
	for (size_t i = 0; i < rep->n_left_running; i++) {
		if (i > 0)
			put(o, ",", 1);
		PUT_LITERAL(o, "{\"pid\":");
		outbuf_put_u64(o, rep->left_running[i].pid);
		r |= string_field(o, KEY("name"), rep->left_running[i].name);
		put(o, "}", 1);
	}
	put(o, "]", 1);
	if (rep->picked) {
		PUT_LITERAL(o, ",\"picked\":[");
		for (size_t i = 0; i < rep->n_picked; i++) {
			if (i > 0)
				put(o, ",", 1);
			r |= put_string(o, rep->picked[i]);
		}
		put(o, "]", 1);
	} else {
		PUT_LITERAL(o, ",\"picked\":null");
	}
	PUT_LITERAL(o, "}\n");
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

/* hmn fit's document: the contract's keys, in its order. */
int render_fit_json(FILE *out, const struct fit_report *rep, const struct render_options *opts)
{
	const struct hmn_model *m = rep->model;
	const struct hmn_fit_parts *p = rep->parts;
	struct json_out *o = outbuf_new(out);
	int r = 0;
	(void)opts;
	if (!o)
		return -ENOMEM;
	PUT_LITERAL(o, "{\"model\":{\"path\":");
	r |= put_string(o, m->path);
	r |= string_field(o, KEY("format"), model_format_name(m->format));
	r |= string_field(o, KEY("architecture"), m->architecture);
	u64_field(o, KEY("parameters"), m->parameters, HMN_UNKNOWN);
	r |= string_field(o, KEY("dtype"), hmn_dtype_name(m->dtype));
	r |= string_field(o, KEY("quantization"), m->quantization);
	u64_field(o, KEY("layers"), m->n_layer, HMN_UNKNOWN);
	u64_field(o, KEY("context_length"), m->context_length, 0);
	r |= string_field(o, KEY("name"), m->name);
	r |= string_field(o, KEY("warning"), m->warning);
	put(o, "}", 1);
	u64_field(o, KEY("context"), rep->context, HMN_UNKNOWN);
	u64_field(o, KEY("batch"), rep->batch, HMN_UNKNOWN);
	r |= string_field(o, KEY("kv_dtype"), rep->kv_dtype);
	r |= string_field(o, KEY("weights_dtype"), rep->weights_dtype);
	put_bool(o, KEY("train"), rep->train);
	u64_field(o, KEY("gpus_split"), rep->gpus_split, HMN_UNKNOWN);
	PUT_LITERAL(o, ",\"parts\":{\"weights_bytes\":");
	put_u64(o, p->weights, HMN_UNKNOWN);
	u64_field(o, KEY("vision_bytes"), p->vision, HMN_UNKNOWN);
	u64_field(o, KEY("kv_cache_bytes"), p->kv_cache, HMN_UNKNOWN);
	u64_field(o, KEY("activations_bytes"), p->activations, HMN_UNKNOWN);
	u64_field(o, KEY("optimizer_bytes"), p->optimizer, HMN_UNKNOWN);
	u64_field(o, KEY("runtime_bytes"), p->runtime, HMN_UNKNOWN);
	u64_field(o, KEY("margin_bytes"), p->margin, HMN_UNKNOWN);
	put(o, "}", 1);
	u64_field(o, KEY("total_bytes"), rep->total_bytes, HMN_UNKNOWN);
	u64_field(o, KEY("per_gpu_bytes"), p->total, HMN_UNKNOWN);
	PUT_LITERAL(o, ",\"gpus\":[");
	for (size_t i = 0; i < rep->n_gpus; i++) {
		const struct fit_gpu *g = &rep->gpus[i];
		if (i > 0)
			put(o, ",", 1);
		PUT_LITERAL(o, "{\"index\":");
		put_u64(o, g->planned ? HMN_UNKNOWN : g->place.index, HMN_UNKNOWN);
		r |= string_field(o, KEY("name"), g->planned ? NULL : g->name);
		r |= string_field(o, KEY("uuid"), g->planned ? NULL : g->uuid);
		struct hmn_place at = g->place;
		at.is_mig &= !g->planned;
		put_gpu_mig(o, &at);
		u64_field(o, KEY("free_bytes"), g->free_bytes, HMN_UNKNOWN);
		put_bool(o, KEY("fits"), g->fits);
		u64_field(o, KEY("max_context"), g->max_context, HMN_UNKNOWN);
		u64_field(o, KEY("max_batch"), g->max_batch == UINT32_MAX ? HMN_UNKNOWN : g->max_batch, HMN_UNKNOWN);
		u64_field(o, KEY("gpu_layers"), g->gpu_layers == UINT32_MAX ? HMN_UNKNOWN : g->gpu_layers,
			  HMN_UNKNOWN);
		put_bool(o, KEY("planned"), g->planned);
		put(o, "}", 1);
	}
	PUT_LITERAL(o, "]}\n");
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}
