#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "format.h"
#include "render.h"
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

/* "0", or "0/2.0" for GPU 0's MIG instance with GPU instance 2 and compute instance 0. */
static const char *gpu_cell(char buf[48], unsigned index, bool is_mig, unsigned gi, unsigned ci)
{
	if (is_mig)
		snprintf(buf, 48, "%u/%u.%u", index, gi, ci);
	else
		snprintf(buf, 48, "%u", index);
	return buf;
}

/*
 * "nvml", or "nvml (unified)" for a GPU without memory of its own: its
 * figures are the system's memory, and must not be taken for VRAM.
 */
const char *source_cell(char *buf, size_t size, const struct hmn_gpu *g)
{
	snprintf(buf, size, "%s%s", g->source, g->unified_memory ? " (unified)" : "");
	return buf;
}

/* hmn free's columns; UTIL, TEMP and POWER with -l/--long only. */
enum { COLUMN_UTIL = 6, COLUMN_POWER = 8, GPU_COLUMNS = 10 };
static const struct table_column gpu_columns[GPU_COLUMNS] = {
	{ "GPU", ALIGN_RIGHT },
	{ "NAME", ALIGN_LEFT },
	{ "USED", ALIGN_RIGHT },
	{ "FREE", ALIGN_RIGHT },
	{ "TOTAL", ALIGN_RIGHT },
	{ "RESERVED", ALIGN_RIGHT },
	{ "UTIL", ALIGN_RIGHT },
	{ "TEMP", ALIGN_RIGHT },
	{ "POWER", ALIGN_RIGHT },
	{ "SOURCE", ALIGN_LEFT },
};

/* "37%", "41C", "71 W" (whole watts, rounded); "-" where unknown. */
static const char *telemetry_cell(char buf[24], uint32_t value, const char *unit, unsigned divisor)
{
	if (value == HMN_VALUE_UNKNOWN)
		return "-";
	snprintf(buf, 24, "%u%s", (value + divisor / 2) / divisor, unit);
	return buf;
}

static int finish(struct table *t, int r, FILE *out, bool no_header)
{
	if (r == 0)
		table_print(t, out, no_header);
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
	char index[48], s[4][SIZE_TEXT_MAX], source[64], util[24], temp[24], power[24];
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct hmn_gpu *g = gpus[i];
		const char *cells[] = {
			gpu_cell(index, g->index, g->is_mig, g->gpu_instance_id, g->compute_instance_id),
			g->name ? g->name : "?",
			format_size(g->used_bytes, o->bytes, s[0]),
			format_size(g->free_bytes, o->bytes, s[1]),
			format_size(g->total_bytes, o->bytes, s[2]),
			format_size(g->reserved_bytes, o->bytes, s[3]),
			telemetry_cell(util, g->utilization_percent, "%", 1),
			telemetry_cell(temp, g->temperature_celsius, "C", 1),
			telemetry_cell(power, g->power_milliwatts, " W", 1000),
			source_cell(source, sizeof(source), g),
		};
		for (size_t k = 0; k < GPU_COLUMNS && r == 0; k++)
			if (o->long_format || k < COLUMN_UTIL || k > COLUMN_POWER)
				r = table_add_cell(t, cells[k]);
	}
	return t ? finish(t, r, out, o->no_header) : r;
}

static const struct table_column process_columns[] = {
	{ "PID", ALIGN_RIGHT },
	{ "USER", ALIGN_LEFT },
	{ "TYPE", ALIGN_LEFT },
	{ "VRAM", ALIGN_RIGHT },
	{ "SHARED", ALIGN_RIGHT },
	{ "GPU", ALIGN_RIGHT },
	{ "NAME", ALIGN_LEFT },
};

int render_processes_table(FILE *out, const struct hmn_process *const *rows, size_t n,
			   const struct render_options *o)
{
	struct table *t = table_new(process_columns,
				    sizeof(process_columns) / sizeof(process_columns[0]));
	char pid[16], uid[16], device[48], used[SIZE_TEXT_MAX], shared[SIZE_TEXT_MAX];
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct hmn_process *p = rows[i];
		snprintf(pid, sizeof(pid), "%" PRIu32, p->pid);
		/* A uid with no name (a container's user) still beats '?'. */
		if (p->uid != HMN_UID_UNKNOWN)
			snprintf(uid, sizeof(uid), "%" PRIu32, p->uid);
		const char *cells[] = {
			pid,
			p->user ? p->user : p->uid != HMN_UID_UNKNOWN ? uid : "?",
			process_type_cell(p),
			format_size(p->used_bytes, o->bytes, used),
			format_size(p->shared_used_bytes, o->bytes, shared),
			gpu_cell(device, p->device_index, p->is_mig, p->gpu_instance_id,
				 p->compute_instance_id),
			p->name ? p->name : "?",
		};
		for (size_t k = 0; k < sizeof(cells) / sizeof(cells[0]) && r == 0; k++)
			r = table_add_cell(t, cells[k]);
	}
	return t ? finish(t, r, out, o->no_header) : r;
}
