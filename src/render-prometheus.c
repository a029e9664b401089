/*
 * Prometheus' text exposition format 0.0.4, for node_exporter's textfile
 * collector: # HELP and # TYPE gauge for each family that has a sample,
 * base units (bytes, ratios 0-1, celsius, watts), label values escaped
 * (backslash, quote) with each control character and each byte of invalid
 * UTF-8 shown as '?', as the table shows them. A value nobody measured
 * is left out, never written as 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "outbuf.h"
#include "render.h"

static int put_label_value(struct outbuf *o, const char *s)
{
	char *shown = NULL;
	if (!s)
		s = "";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f) {
			if (!(shown = text_shown(s)))
				return -ENOMEM;
			s = shown;
			break;
		}
	for (const char *p = s; *p; p++) {
		if (*p == '\\')
			OUTBUF_LITERAL(o, "\\\\");
		else if (*p == '"')
			OUTBUF_LITERAL(o, "\\\"");
		else
			outbuf_put(o, p, 1);
	}
	free(shown);
	return 0;
}

/* name="value" pairs, comma-separated, in braces. */
static int put_labels(struct outbuf *o, const char *const *names, const char *const *values, size_t n)
{
	int r = 0;
	outbuf_put(o, "{", 1);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			outbuf_put(o, ",", 1);
		outbuf_puts(o, names[i]);
		OUTBUF_LITERAL(o, "=\"");
		r |= put_label_value(o, values[i]);
		outbuf_put(o, "\"", 1);
	}
	outbuf_put(o, "}", 1);
	return r;
}

static void put_header(struct outbuf *o, const char *name, const char *help)
{
	OUTBUF_LITERAL(o, "# HELP ");
	outbuf_puts(o, name);
	outbuf_put(o, " ", 1);
	outbuf_puts(o, help);
	OUTBUF_LITERAL(o, "\n# TYPE ");
	outbuf_puts(o, name);
	OUTBUF_LITERAL(o, " gauge\n");
}

/* A value in thousandths as a decimal: 71234 -> "71.234", 370 of 1000 -> "0.37". */
static void put_fixed(struct outbuf *o, uint64_t value, unsigned divisor)
{
	char buf[40];
	unsigned digits = divisor == 100 ? 2 : 3;
	snprintf(buf, sizeof(buf), "%" PRIu64 ".%0*" PRIu64, value / divisor, (int)digits, value % divisor);
	outbuf_puts(o, buf);
}

/* ---- hmn free ------------------------------------------------------------------ */

enum gpu_metric {
	M_TOTAL, M_USED, M_FREE, M_RESERVED, M_SHARED_TOTAL, M_SHARED_USED, M_UTIL, M_MEM_UTIL,
	M_TEMP, M_POWER, M_POWER_LIMIT, N_GPU_METRICS,
};

static const struct {
	const char *name, *help;
	unsigned divisor;     /* 1: an integer; 100: a percent as a ratio; 1000: mW as W */
} gpu_metrics[N_GPU_METRICS] = {
	[M_TOTAL] = { "hmn_gpu_memory_total_bytes", "Memory the GPU has (for unified memory: the system's).", 1 },
	[M_USED] = { "hmn_gpu_memory_used_bytes", "GPU memory in use.", 1 },
	[M_FREE] = { "hmn_gpu_memory_free_bytes", "GPU memory free.", 1 },
	[M_RESERVED] = { "hmn_gpu_memory_reserved_bytes", "GPU memory the driver and firmware set aside.", 1 },
	[M_SHARED_TOTAL] = { "hmn_gpu_shared_memory_total_bytes", "System memory the GPU can map (GTT).", 1 },
	[M_SHARED_USED] = { "hmn_gpu_shared_memory_used_bytes", "System memory the GPU maps, in use.", 1 },
	[M_UTIL] = { "hmn_gpu_utilization_ratio", "Share of time the GPU was busy.", 100 },
	[M_MEM_UTIL] = { "hmn_gpu_memory_utilization_ratio", "Share of time the memory controller was busy.", 100 },
	[M_TEMP] = { "hmn_gpu_temperature_celsius", "GPU temperature.", 1 },
	[M_POWER] = { "hmn_gpu_power_watts", "Power the GPU draws.", 1000 },
	[M_POWER_LIMIT] = { "hmn_gpu_power_limit_watts", "Power limit the driver enforces.", 1000 },
};

/* The metric's value for a GPU, or UINT64_MAX when nobody measured it. */
static uint64_t gpu_value(const struct hmn_gpu *g, enum gpu_metric m)
{
	uint32_t v32;
	switch (m) {
	case M_TOTAL: return g->total_bytes;
	case M_USED: return g->used_bytes;
	case M_FREE: return g->free_bytes;
	case M_RESERVED: return g->reserved_bytes;
	case M_SHARED_TOTAL: return g->shared_total_bytes;
	case M_SHARED_USED: return g->shared_used_bytes;
	case M_UTIL: v32 = g->utilization_percent; break;
	case M_MEM_UTIL: v32 = g->memory_utilization_percent; break;
	case M_TEMP: v32 = g->temperature_celsius; break;
	case M_POWER: v32 = g->power_milliwatts; break;
	case M_POWER_LIMIT: v32 = g->power_limit_milliwatts; break;
	default: return UINT64_MAX;
	}
	return v32 == HMN_VALUE_UNKNOWN ? UINT64_MAX : v32;
}

static int put_gpu_labels(struct outbuf *o, const struct hmn_gpu *g)
{
	static const char *const names[] = { "gpu", "uuid", "name", "vendor", "source" };
	char index[GPU_CELL_MAX];
	const char *values[] = { gpu_cell(index, &g->place), g->uuid, g->name, g->vendor, g->source };
	return put_labels(o, names, values, 5);
}

int render_gpus_prometheus(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
			   const struct render_options *options)
{
	struct outbuf *o = outbuf_new(out);
	int r = 0;
	if (!o)
		return -ENOMEM;
	for (int m = 0; m < N_GPU_METRICS; m++) {
		bool header = false;
		for (size_t i = 0; i < n; i++) {
			uint64_t v = gpu_value(gpus[i], (enum gpu_metric)m);
			if (v == UINT64_MAX)
				continue;
			if (!header)
				put_header(o, gpu_metrics[m].name, gpu_metrics[m].help);
			header = true;
			outbuf_puts(o, gpu_metrics[m].name);
			r |= put_gpu_labels(o, gpus[i]);
			outbuf_put(o, " ", 1);
			if (gpu_metrics[m].divisor == 1)
				outbuf_put_u64(o, v);
			else
				put_fixed(o, v, gpu_metrics[m].divisor);
			outbuf_put(o, "\n", 1);
		}
	}
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

/* ---- hmn ps -------------------------------------------------------------------- */

static int put_process_labels(struct outbuf *o, const struct hmn_process *p)
{
	static const char *const names[] = { "pid", "name", "user", "gpu", "uuid", "type", "container", "pod_uid" };
	char pid[16], gpu[GPU_CELL_MAX], uid[16];
	snprintf(pid, sizeof(pid), "%" PRIu32, p->pid);
	gpu_cell(gpu, &p->place);
	const char *user = p->user;
	if (!user && p->uid != HMN_UID_UNKNOWN) {
		snprintf(uid, sizeof(uid), "%" PRIu32, p->uid);
		user = uid;
	}
	const char *values[] = {
		pid, p->name, user, gpu, p->place.is_mig && p->mig_uuid ? p->mig_uuid : p->device_uuid,
		process_type_name(p->type, false), p->container, p->pod_uid,
	};
	return put_labels(o, names, values, sizeof(names) / sizeof(names[0]));
}

static int put_process_family(struct outbuf *o, const struct hmn_process *const *rows, size_t n,
			      bool shared, const char *name, const char *help)
{
	bool header = false;
	int r = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = shared ? rows[i]->shared_used_bytes : rows[i]->used_bytes;
		if (v == HMN_UNKNOWN)
			continue;
		if (!header)
			put_header(o, name, help);
		header = true;
		outbuf_puts(o, name);
		r |= put_process_labels(o, rows[i]);
		outbuf_put(o, " ", 1);
		outbuf_put_u64(o, v);
		outbuf_put(o, "\n", 1);
	}
	return r;
}

int render_processes_prometheus(FILE *out, const struct hmn_process *const *rows, size_t n,
				const struct render_options *options)
{
	struct outbuf *o = outbuf_new(out);
	if (!o)
		return -ENOMEM;
	int r = put_process_family(o, rows, n, false, "hmn_process_gpu_memory_bytes",
				   "GPU memory a process holds on one GPU.");
	r |= put_process_family(o, rows, n, true, "hmn_process_gpu_shared_memory_bytes",
				"System memory a GPU maps for a process.");
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}

/* ---- every document: did hmn get its answer ---------------------------------------- */

/*
 * hmn_up (1 when every GPU found answered, as Prometheus' own up) and
 * hmn_driver_info{source, driver_version} 1, once per source and version
 * among gpus (driver_version "" where the source does not say it). A
 * failed run writes hmn_up 0 and no GPU series: a dead GPU is never an idle one.
 */
int render_prometheus_health(FILE *out, const char *command, bool up, const struct hmn_gpu *const *gpus, size_t n)
{
	static const char *const up_names[] = { "command" };
	static const char *const info_names[] = { "command", "source", "driver_version" };
	struct outbuf *o = outbuf_new(out);
	int r = 0;
	if (!o)
		return -ENOMEM;
	put_header(o, "hmn_up", "1 when every GPU found answered, 0 when none was found or one could not be read.");
	OUTBUF_LITERAL(o, "hmn_up");
	r |= put_labels(o, up_names, &command, 1);
	outbuf_put(o, up ? " 1\n" : " 0\n", 3);
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		const char *version = gpus[i]->driver_version ? gpus[i]->driver_version : "";
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(gpus[k]->source, gpus[i]->source) == 0 &&
			       strcmp(gpus[k]->driver_version ? gpus[k]->driver_version : "", version) == 0;
		if (seen)
			continue;
		if (!header)
			put_header(o, "hmn_driver_info", "The driver each source answered with (always 1).");
		header = true;
		OUTBUF_LITERAL(o, "hmn_driver_info");
		const char *values[] = { command, gpus[i]->source, version };
		r |= put_labels(o, info_names, values, 3);
		OUTBUF_LITERAL(o, " 1\n");
	}
	outbuf_close(o);
	return r ? -ENOMEM : 0;
}
