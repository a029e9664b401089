#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "render.h"
#include "sys.h"
#include "table.h"

const char *process_type_cell(const struct hmn_process *p)
{
	/* As nvidia-smi types an MPS client; JSON keeps "compute" and says "mps". */
	return p->is_mps_client ? "M+C" : process_type_name(p->type, true);
}

const char *process_type_name(unsigned type, bool short_form)
{
	bool c = type & HMN_PROCESS_COMPUTE, g = type & HMN_PROCESS_GRAPHICS;
	if (c && g)
		return short_form ? "C+G" : "compute+graphics";
	if (g)
		return short_form ? "G" : "graphics";
	return short_form ? "C" : "compute";
}

const char *gpu_cell(char buf[GPU_CELL_MAX], const struct hmn_place *at)
{
	if (at->is_mig)
		snprintf(buf, GPU_CELL_MAX, "%u/%u.%u", at->index, at->gpu_instance_id, at->compute_instance_id);
	else
		snprintf(buf, GPU_CELL_MAX, "%u", at->index);
	return buf;
}

/*
 * "nvml", or "nvml/unified" for a GPU without memory of its own: its
 * figures are the system's memory, and must not be taken for VRAM.
 */
const char *source_cell(char *buf, size_t size, const struct hmn_gpu *g)
{
	snprintf(buf, size, "%s%s", g->source, g->unified_memory ? "/unified" : "");
	return buf;
}

/* hmn free's columns, NAME last; UTIL, TEMP and POWER with -l/--long only. */
enum { COLUMN_UTIL = 5, COLUMN_POWER = 7, GPU_COLUMNS = 10 };
static const struct table_column gpu_columns[GPU_COLUMNS] = {
	{ "GPU", ALIGN_RIGHT },
	{ "USED", ALIGN_RIGHT },
	{ "FREE", ALIGN_RIGHT },
	{ "TOTAL", ALIGN_RIGHT },
	{ "RESERVED", ALIGN_RIGHT },
	{ "UTIL", ALIGN_RIGHT },
	{ "TEMP", ALIGN_RIGHT },
	{ "POWER", ALIGN_RIGHT },
	{ "SOURCE", ALIGN_LEFT },
	{ "NAME", ALIGN_LEFT },
};

/* "37%", "41C", "71W" (whole watts, rounded); "-" where unknown. */
static const char *telemetry_cell(char buf[24], uint32_t value, const char *unit, unsigned divisor)
{
	if (value == HMN_VALUE_UNKNOWN)
		return "-";
	snprintf(buf, 24, "%u%s", (value + divisor / 2) / divisor, unit);
	return buf;
}

static int finish(struct table *t, int r, FILE *out, bool no_header)
{
	unsigned columns, rows;

	/* On a terminal, a line never wraps: it is cut with "…" at the window's edge, NAME first (the contract's Tables). */
	if (r == 0)
		table_print_cut(t, out, no_header, sys_terminal_size(out, &columns, &rows) ? columns : 0);
	table_free(t);
	return r;
}

int render_gpus_table(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		      const struct render_options *o)
{
	struct table_column columns[GPU_COLUMNS];
	size_t n_columns = 0;
	for (size_t k = 0; k < GPU_COLUMNS; k++)
		if (o->long_format || k < COLUMN_UTIL || k > COLUMN_POWER)
			columns[n_columns++] = gpu_columns[k];
	struct table *t = table_new(columns, n_columns);
	char index[GPU_CELL_MAX], s[4][SIZE_TEXT_MAX], source[64], util[24], temp[24], power[24];
	char name[256];
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct hmn_gpu *g = gpus[i];
		const char *cells[] = {
			gpu_cell(index, &g->place),
			format_size(g->used_bytes, o->bytes, s[0]),
			format_size(g->free_bytes, o->bytes, s[1]),
			format_size(g->total_bytes, o->bytes, s[2]),
			format_size(g->reserved_bytes, o->bytes, s[3]),
			telemetry_cell(util, g->utilization_percent, "%", 1),
			telemetry_cell(temp, g->temperature_celsius, "C", 1),
			telemetry_cell(power, g->power_milliwatts, "W", 1000),
			source_cell(source, sizeof(source), g),
			g->name ? gpu_product_name(g->name, name, sizeof(name)) : "?",
		};
		for (size_t k = 0; k < GPU_COLUMNS && r == 0; k++)
			if (o->long_format || k < COLUMN_UTIL || k > COLUMN_POWER)
				r = table_add_cell(t, cells[k]);
	}
	return t ? finish(t, r, out, o->no_header) : r;
}

/* hmn ps's columns, NAME last; with -l/--long, COMMAND after it. */
enum { COLUMN_COMMAND = 8, PROCESS_COLUMNS = 9 };
static const struct table_column process_columns[PROCESS_COLUMNS] = {
	{ "PID", ALIGN_RIGHT },
	{ "USER", ALIGN_LEFT },
	{ "TYPE", ALIGN_LEFT },
	{ "VRAM", ALIGN_RIGHT },
	{ "SHARED", ALIGN_RIGHT },
	{ "RAM", ALIGN_RIGHT },
	{ "GPU", ALIGN_RIGHT },
	{ "NAME", ALIGN_LEFT },
	{ "COMMAND", ALIGN_LEFT },
};

int render_processes_table(FILE *out, const struct hmn_process *const *rows, size_t n,
			   const struct render_options *o)
{
	size_t n_columns = o->long_format ? PROCESS_COLUMNS : COLUMN_COMMAND;
	struct table *t = table_new(process_columns, n_columns);
	char pid[16], uid[16], device[GPU_CELL_MAX], used[SIZE_TEXT_MAX], shared[SIZE_TEXT_MAX];
	char ram[SIZE_TEXT_MAX];
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct hmn_process *p = rows[i];
		char *command = NULL;
		snprintf(pid, sizeof(pid), "%" PRIu32, p->pid);
		/* A uid with no name (a container's user) still beats '?'. */
		if (p->uid != HMN_UID_UNKNOWN)
			snprintf(uid, sizeof(uid), "%" PRIu32, p->uid);
		if (o->long_format && p->command && !(command = command_text(p->command, strv_count(p->command))))
			r = -ENOMEM;
		const char *cells[PROCESS_COLUMNS] = {
			pid,
			p->user ? p->user : p->uid != HMN_UID_UNKNOWN ? uid : "?",
			process_type_cell(p),
			format_size(p->used_bytes, o->bytes, used),
			format_size(p->shared_used_bytes, o->bytes, shared),
			format_size(p->ram_bytes, o->bytes, ram),
			gpu_cell(device, &p->place),
			p->name ? p->name : "?",
			command ? command : "?",
		};
		for (size_t k = 0; k < n_columns && r == 0; k++)
			r = table_add_cell(t, cells[k]);
		free(command);
	}
	return t ? finish(t, r, out, o->no_header) : r;
}

/* ---- hmn fit ------------------------------------------------------------------ */

/* "hmn fit: Meta-Llama-3-8B: llama, 8.03B parameters (bf16), 8192 tokens x 1 sequence" */
static void print_fit_title(FILE *out, const struct fit_report *rep)
{
	const struct hmn_model *m = rep->model;
	char params[32], shown[256], architecture[128];
	const char *name = m->name ? m->name : m->path;
	/* Both as the file says them: neither may reach the terminal as it is. */
	sanitize_for_terminal(name ? name : "model", shown, sizeof(shown));
	sanitize_for_terminal(m->architecture ? m->architecture : "?", architecture, sizeof(architecture));
	fprintf(out, "hmn fit: %s: %s, %s parameters (%s), %llu tokens x %u sequence%s%s", shown,
		architecture, parameters_text(m->parameters, params),
		rep->weights_dtype ? rep->weights_dtype : "?", (unsigned long long)rep->context, rep->batch,
		rep->batch == 1 ? "" : "s", rep->train ? ", training" : "");
	if (rep->gpus_split > 1)
		/* The total below is one GPU's, where JSON's total_bytes is all of them. */
		fprintf(out, ", split over %u GPUs, sizes per GPU", rep->gpus_split);
	fputc('\n', out);
}

static const struct table_column part_columns[] = {
	{ "PART", ALIGN_LEFT },
	{ "SIZE", ALIGN_RIGHT },
};

static int render_fit_parts(FILE *out, const struct fit_report *rep, const struct render_options *o)
{
	const struct hmn_fit_parts *p = rep->parts;
	struct {
		const char *name;
		uint64_t bytes;
	} rows[] = {
		{ "weights", p->weights },         { "vision", p->vision },
		{ "kv_cache", p->kv_cache },
		{ "activations", p->activations }, { "optimizer", p->optimizer },
		{ "runtime", p->runtime },         { "margin", p->margin },
		{ "total", p->total },
	};
	struct table *t = table_new(part_columns, 2);
	char size[SIZE_TEXT_MAX], weights[64];
	int r = t ? 0 : -ENOMEM;
	/* The format the weights are priced in, in the one word a PART cell is: "weights(mxfp4)". */
	if (rep->quantization) {
		char format[32];
		sanitize_for_terminal(rep->quantization, format, sizeof(format));
		snprintf(weights, sizeof(weights), "weights(%s)", format);
		rows[0].name = weights;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && r == 0; i++) {
		/* Not training; a text-only model, or --text-only. */
		if (rows[i].bytes == HMN_UNKNOWN && (!strcmp(rows[i].name, "optimizer") || !strcmp(rows[i].name, "vision")))
			continue;
		r = table_add_cell(t, rows[i].name);
		if (r == 0)
			r = table_add_cell(t, format_size(rows[i].bytes, o->bytes, size));
	}
	return t ? finish(t, r, out, o->no_header) : r;
}

/* The GPUs' table; LAYERS (llama.cpp's --gpu-layers) for a GGUF model only. */
static int render_fit_gpus(FILE *out, const struct fit_report *rep, const struct render_options *o)
{
	enum { LAYERS_COLUMN = 5, N_COLUMNS = 7 };
	bool gguf = rep->model->format == HMN_MODEL_GGUF;
	const struct table_column columns[N_COLUMNS] = {
		{ "GPU", ALIGN_RIGHT },     { "FREE", ALIGN_RIGHT }, { "FITS", ALIGN_LEFT },
		{ "MAX_CONTEXT", ALIGN_RIGHT }, { "MAX_BATCH", ALIGN_RIGHT }, { "LAYERS", ALIGN_RIGHT },
		{ "NAME", ALIGN_LEFT },
	};
	struct table_column shown[N_COLUMNS];
	size_t n_columns = 0;
	for (size_t k = 0; k < N_COLUMNS; k++)
		if (gguf || k != LAYERS_COLUMN)
			shown[n_columns++] = columns[k];
	struct table *t = table_new(shown, n_columns);
	char index[GPU_CELL_MAX], free_text[SIZE_TEXT_MAX], context[24], batch[24], layers[24], name[256];
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < rep->n_gpus && r == 0; i++) {
		const struct fit_gpu *g = &rep->gpus[i];
		if (g->max_context != HMN_UNKNOWN)
			snprintf(context, sizeof(context), "%llu", (unsigned long long)g->max_context);
		if (g->max_batch != UINT32_MAX)
			snprintf(batch, sizeof(batch), "%u", g->max_batch);
		if (g->gpu_layers != UINT32_MAX)
			snprintf(layers, sizeof(layers), "%u", g->gpu_layers);
		const char *cells[N_COLUMNS] = {
			g->planned ? "-" : gpu_cell(index, &g->place),
			format_size(g->free_bytes, o->bytes, free_text),
			g->fits ? "yes" : "no",
			g->max_context != HMN_UNKNOWN ? context : "-",
			g->max_batch != UINT32_MAX ? batch : "-",
			g->fits ? "all" : g->gpu_layers != UINT32_MAX ? layers : "-",
			g->planned ? "(--memory)" : g->name ? gpu_product_name(g->name, name, sizeof(name)) : "?",
		};
		for (size_t k = 0; k < N_COLUMNS && r == 0; k++)
			if (gguf || k != LAYERS_COLUMN)
				r = table_add_cell(t, cells[k]);
	}
	return t ? finish(t, r, out, o->no_header) : r;
}

int render_fit_table(FILE *out, const struct fit_report *rep, const struct render_options *o)
{
	if (!o->no_header)
		print_fit_title(out, rep);
	int r = render_fit_parts(out, rep, o);
	return r < 0 ? r : render_fit_gpus(out, rep, o);
}
