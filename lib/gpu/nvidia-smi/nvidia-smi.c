/*
 * The nvidia-smi source: NVIDIA's command-line tool, run when NVML cannot
 * be loaded or fails, or when --backend asks for it. It counts the GPUs
 * itself. Slow (often a second a run) but present wherever a driver is.
 *
 * The program is $HMN_NVIDIA_SMI or nvidia-smi in PATH's absolute entries,
 * run without a shell, bounded in output and in time ($HMN_TIMEOUT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpu/nvidia-smi/nvidia-smi.h"
#include "gpu/pci.h"
#include "gpu/source.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/text.h"

#define MAX_OUTPUT (4u << 20)

enum optional_field {
	OPT_RESERVED, OPT_DRIVER_VERSION, OPT_UTIL_GPU, OPT_UTIL_MEMORY, OPT_TEMPERATURE,
	OPT_POWER_DRAW, OPT_POWER_LIMIT, OPT_COMPUTE_CAP, N_OPTIONAL,
};

struct nvsmi {
	hmn_context *ctx;
	char program[4096];
	double timeout;
	/* Older drivers reject some fields; once rejected, not asked again. */
	bool rejected[N_OPTIONAL];
	struct smi_gpu_row *gpus;
	size_t n_gpus;
	size_t unreadable;    /* GPU lines it printed that could not be read: failed GPUs */
	bool fresh;           /* gpus holds the answer of open(), not yet handed out */
};

static const struct {
	enum smi_field field;
	const char *name;
	int optional;         /* an enum optional_field, or -1 */
} gpu_fields[] = {
	{ SMI_INDEX, "index", -1 },
	{ SMI_UUID, "uuid", -1 },
	{ SMI_NAME, "name", -1 },
	{ SMI_PCI_BUS_ID, "pci.bus_id", -1 },
	{ SMI_MEMORY_TOTAL, "memory.total", -1 },
	{ SMI_MEMORY_USED, "memory.used", -1 },
	{ SMI_MEMORY_FREE, "memory.free", -1 },
	{ SMI_MEMORY_RESERVED, "memory.reserved", OPT_RESERVED },
	{ SMI_DRIVER_VERSION, "driver_version", OPT_DRIVER_VERSION },
	{ SMI_UTILIZATION_GPU, "utilization.gpu", OPT_UTIL_GPU },
	{ SMI_UTILIZATION_MEMORY, "utilization.memory", OPT_UTIL_MEMORY },
	{ SMI_TEMPERATURE, "temperature.gpu", OPT_TEMPERATURE },
	{ SMI_POWER_DRAW, "power.draw", OPT_POWER_DRAW },
	{ SMI_POWER_LIMIT, "enforced.power.limit", OPT_POWER_LIMIT },
	{ SMI_COMPUTE_CAP, "compute_cap", OPT_COMPUTE_CAP },
};
#define N_GPU_FIELDS (sizeof(gpu_fields) / sizeof(gpu_fields[0]))

static const enum smi_field process_fields[] = {
	SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME,
};

/* The first line of what it printed, for a message. */
static void first_line(const struct os_program_result *r, char *out, size_t size)
{
	const char *text = r->out.len ? r->out.text : r->err.len ? r->err.text : "";
	while (*text == '\n' || *text == ' ')
		text++;
	size_t n = strcspn(text, "\r\n");
	if (n > 200)
		n = 200;
	snprintf(out, size, "%.*s", (int)n, text);
}

/* Runs nvidia-smi with one query argument; 0 when it answered, else why. */
static int run(struct nvsmi *s, const char *query, struct os_program_result *r, char *why,
	       size_t why_size)
{
	char *argv[] = { "nvidia-smi", (char *)query, "--format=csv,noheader,nounits", NULL };
	char line[256];

	/* Empty where it could not run (os_run_program leaves it untouched): the callers clear it all the same. */
	*r = (struct os_program_result){ .status = -1 };
	int e = os_run_program(s->program, argv, s->timeout, MAX_OUTPUT, r);
	if (e < 0) {
		snprintf(why, why_size, "%s: cannot run: %s", s->program, strerror(-e));
		return e;
	}
	if (r->timed_out) {
		snprintf(why, why_size, "%s did not answer within %g s (HMN_TIMEOUT): killed",
			 s->program, s->timeout);
		return -ETIMEDOUT;
	}
	if (r->truncated) {
		snprintf(why, why_size, "%s printed more than %u MiB: killed", s->program,
			 MAX_OUTPUT >> 20);
		return -EFBIG;
	}
	if (r->status != 0) {
		first_line(r, line, sizeof(line));
		snprintf(why, why_size, "%s (exit %d)", line[0] ? line : "nvidia-smi failed", r->status);
		return -EIO;
	}
	return 0;
}

static bool mentions(const struct os_program_result *r, const char *field)
{
	return (r->out.text && strstr(r->out.text, field) && strstr(r->out.text, "not a valid field")) ||
	       (r->err.text && strstr(r->err.text, field) && strstr(r->err.text, "not a valid field"));
}

/*
 * Asks for the GPUs. A driver that rejects memory.reserved (before R510) or
 * driver_version is asked again without it; the field is then unknown.
 */
static int query_gpus(struct nvsmi *s, char *why, size_t why_size)
{
	for (int attempt = 0; attempt <= N_OPTIONAL; attempt++) {
		char query[512] = "--query-gpu=";
		enum smi_field fields[N_GPU_FIELDS];
		size_t n = 0;
		struct os_program_result r;

		for (size_t i = 0; i < N_GPU_FIELDS; i++) {
			if (gpu_fields[i].optional >= 0 && s->rejected[gpu_fields[i].optional])
				continue;
			if (n > 0)
				strcat(query, ",");
			strcat(query, gpu_fields[i].name);
			fields[n++] = gpu_fields[i].field;
		}
		int e = run(s, query, &r, why, why_size);
		bool retry = false;
		for (size_t i = 0; e == -EIO && i < N_GPU_FIELDS; i++) {
			int opt = gpu_fields[i].optional;
			if (opt >= 0 && !s->rejected[opt] && mentions(&r, gpu_fields[i].name)) {
				hmn_log(s->ctx, HMN_LOG_INFO,
					"nvidia-smi: this driver has no %s: asking without it",
					gpu_fields[i].name);
				s->rejected[opt] = retry = true;
			}
		}
		if (retry) {
			os_program_result_clear(&r);
			continue;
		}
		/* "No devices were found" is an answer: zero GPUs. */
		if (e == -EIO && r.out.text && strstr(r.out.text, "No devices were found")) {
			os_program_result_clear(&r);
			free(s->gpus);
			s->gpus = NULL;
			s->n_gpus = 0;
			return 0;
		}
		if (e < 0) {
			os_program_result_clear(&r);
			return e;
		}
		struct smi_gpu_row *rows = NULL;
		size_t count = 0, skipped = 0;
		e = smi_parse_gpus(r.out.text ? r.out.text : "", r.out.len, fields, n, &rows, &count,
				   &skipped);
		os_program_result_clear(&r);
		if (e < 0)
			return e;
		if (skipped)
			hmn_log(s->ctx, HMN_LOG_WARNING,
				"nvidia-smi: %zu GPU line%s could not be read", skipped,
				skipped == 1 ? "" : "s");
		free(s->gpus);
		s->gpus = rows;
		s->n_gpus = count;
		s->unreadable = skipped;
		s->fresh = true;
		return 0;
	}
	snprintf(why, why_size, "nvidia-smi rejected every query");
	return -EIO;
}

static void nvsmi_close(void *state)
{
	struct nvsmi *s = state;
	if (!s)
		return;
	free(s->gpus);
	free(s);
}

static int nvsmi_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	struct nvsmi *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->timeout = context_program_timeout(ctx);
	int e = os_find_program("nvidia-smi", "HMN_NVIDIA_SMI", s->program, sizeof(s->program), why,
				why_size);
	if (e == 0)
		e = query_gpus(s, why, why_size);
	if (e < 0) {
		nvsmi_close(s);
		return e;
	}
	hmn_log_found(ctx, "nvidia-smi", (unsigned)s->n_gpus, "%s (driver %s)", s->program,
		      s->n_gpus && s->gpus[0].driver_version[0] ? s->gpus[0].driver_version : "unknown");
	*ret_state = s;
	return 0;
}

static unsigned nvsmi_device_count(void *state)
{
	const struct nvsmi *s = state;
	return (unsigned)(s->n_gpus + s->unreadable);
}

/* The answer of open() serves the first query; later ones ask again. */
static int current_gpus(struct nvsmi *s, size_t *ret_failed)
{
	char why[HMN_ERROR_MAX];

	if (!s->fresh) {
		int r = query_gpus(s, why, sizeof(why));
		if (r < 0) {
			hmn_log(s->ctx, HMN_LOG_WARNING, "nvidia-smi: %s", why);
			return r;
		}
	}
	s->fresh = false;
	*ret_failed = s->unreadable;
	return 0;
}

static int nvsmi_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct nvsmi *s = state;
	int r = current_gpus(s, ret_failed);

	for (size_t i = 0; r == 0 && i < s->n_gpus; i++) {
		const struct smi_gpu_row *g = &s->gpus[i];
		struct hmn_gpu gpu = {
			.place.index = g->index,
			.name = g->name[0] ? g->name : NULL,
			.uuid = g->uuid[0] ? g->uuid : NULL,
			.vendor = "nvidia",
			.pci_bus_id = g->pci_bus_id[0] ? g->pci_bus_id : NULL,
			.total_bytes = g->total,
			.used_bytes = g->used,
			.free_bytes = g->free,
			.reserved_bytes = g->reserved,
			.shared_total_bytes = HMN_UNKNOWN,
			.shared_used_bytes = HMN_UNKNOWN,
			.driver_version = g->driver_version[0] ? g->driver_version : NULL,
			.utilization_percent = g->utilization,
			.memory_utilization_percent = g->memory_utilization,
			.temperature_celsius = g->temperature,
			.power_milliwatts = g->power_mw,
			.power_limit_milliwatts = g->power_limit_mw,
			.compute_capability = g->compute_cap[0] ? g->compute_cap : NULL,
		};
		/*
		 * nvidia-smi rounds each figure to whole MiB, so they need not add
		 * up (the H100 recording: 479 + 19818 + 61263 = 81560 of 81559).
		 * Free is derived, so that total = reserved + used + free holds
		 * as with every other source.
		 */
		uint64_t reserved = g->reserved == HMN_UNKNOWN ? 0 : g->reserved;
		if (g->memory_not_available) {
			/* No memory of its own: the system's is what it has (as NVML's unified path). */
			uint64_t total, available;
			if (os_system_memory(context_procfs(s->ctx), &total, &available) < 0) {
				hmn_log(s->ctx, HMN_LOG_WARNING,
					"GPU %u: memory [N/A] and the system's memory unreadable (nvidia-smi)",
					sink->base + g->index);
				(*ret_failed)++;
				continue;
			}
			gpu.total_bytes = total;
			gpu.free_bytes = available;
			gpu.used_bytes = total - available;
			gpu.reserved_bytes = HMN_UNKNOWN;
			gpu.unified_memory = true;
		} else if (reserved + g->used <= g->total) {
			gpu.free_bytes = g->total - reserved - g->used;
		}
		r = gpu_sink_add(sink, &gpu);
	}
	return r;
}

static const struct smi_gpu_row *gpu_by_uuid(const struct nvsmi *s, const char *uuid)
{
	for (size_t i = 0; i < s->n_gpus; i++)
		if (uuid[0] && strcasecmp(s->gpus[i].uuid, uuid) == 0)
			return &s->gpus[i];
	return NULL;
}

/* nvidia-smi lists compute processes only: there is no query for graphics ones. */
static int nvsmi_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct nvsmi *s = state;
	struct os_program_result out;
	struct smi_process_row *rows = NULL;
	size_t count = 0, skipped = 0;
	char why[HMN_ERROR_MAX];

	int r = current_gpus(s, ret_failed);
	if (r < 0)
		return r;
	r = run(s, "--query-compute-apps=pid,used_memory,gpu_uuid,process_name", &out, why,
		sizeof(why));
	if (r < 0) {
		os_program_result_clear(&out);
		hmn_log(s->ctx, HMN_LOG_WARNING, "nvidia-smi: %s", why);
		return r;
	}
	r = smi_parse_processes(out.out.text ? out.out.text : "", out.out.len, process_fields,
				sizeof(process_fields) / sizeof(process_fields[0]), &rows, &count,
				&skipped);
	os_program_result_clear(&out);
	if (r < 0)
		return r;
	if (skipped)
		hmn_log(s->ctx, HMN_LOG_WARNING, "nvidia-smi: %zu process line%s could not be read",
			skipped, skipped == 1 ? "" : "s");
	for (size_t i = 0; r == 0 && i < count; i++) {
		const struct smi_process_row *p = &rows[i];
		const struct smi_gpu_row *g = gpu_by_uuid(s, p->gpu_uuid);
		if (!g) {
			hmn_log(s->ctx, HMN_LOG_INFO, "nvidia-smi: pid %u is on GPU %s, which it did not list",
				p->pid, p->gpu_uuid[0] ? p->gpu_uuid : "?");
			continue;
		}
		if (!process_sink_wants_device(sink, g->index))
			continue;
		struct process_entry e = {
			.shared_bytes = HMN_UNKNOWN,
			.pid = p->pid,
			.place.index = g->index,
			.used_bytes = plausible_process_bytes(p->used, g->total),
			.type = HMN_PROCESS_COMPUTE,
			.device_name = g->name[0] ? g->name : NULL,
			.device_uuid = g->uuid[0] ? g->uuid : NULL,
			.reported_path = p->name[0] ? p->name : NULL,
		};
		r = process_sink_add(sink, &e);
	}
	free(rows);
	return r;
}

const struct hmn_source hmn_source_nvidia_smi = {
	.name = "nvidia-smi",
	.family = FAMILY_NVIDIA,
	.open = nvsmi_open,
	.close = nvsmi_close,
	.device_count = nvsmi_device_count,
	.gpus = nvsmi_gpus,
	.processes = nvsmi_processes,
	.host_pids = true,
};
