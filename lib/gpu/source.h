/*
 * A GPU source, as the context (gpu/context.c) drives it: a const table of
 * function pointers, and the sinks it hands its rows to. Private to lib/gpu.
 */
#ifndef HMN_GPU_SOURCE_H
#define HMN_GPU_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

/*
 * What a source may ask of its context: the /proc to read ($HMN_PROCFS), whether telemetry is wanted,
 * how many seconds an external program may run ($HMN_TIMEOUT, checked when the context was made).
 */
const char *context_procfs(const hmn_context *ctx);
bool context_telemetry(const hmn_context *ctx);
double context_program_timeout(const hmn_context *ctx);

/*
 * -v: what a source found when it opened, as each source says it:
 * "nvml: libnvidia-ml.so.1 (driver 580.159.04), 8 GPUs". fmt says what it used.
 */
void hmn_log_found(const hmn_context *ctx, const char *source, unsigned gpus, const char *fmt, ...)
	HMN_PRINTF(4, 5);

/*
 * A source reports one device at a time through gpu_sink_add() and the
 * processes on it through process_sink_add(). Strings are copied.
 */
struct gpu_sink {
	hmn_context *ctx;
	struct hmn_gpu_list *list;
	size_t capacity;
	unsigned base;        /* global index of the source's device 0 */
	const char *source;
};
int gpu_sink_add(struct gpu_sink *sink, const struct hmn_gpu *gpu);
/* For a source's struct hmn_gpu initialiser: telemetry unknown until it reads some. */
#define GPU_TELEMETRY_UNKNOWN                                                                   \
	.utilization_percent = HMN_VALUE_UNKNOWN, .memory_utilization_percent = HMN_VALUE_UNKNOWN, \
	.temperature_celsius = HMN_VALUE_UNKNOWN, .power_milliwatts = HMN_VALUE_UNKNOWN,           \
	.power_limit_milliwatts = HMN_VALUE_UNKNOWN

struct hash_index;
struct process_sink {
	hmn_context *ctx;
	struct hmn_process_list *list;
	size_t capacity;
	unsigned base;
	const char *source;
	const struct hmn_process_filter *filter;
	struct hash_index *index;      /* (pid, device) → row, for merging */
	const char *last_name, *last_uuid; /* device strings, stored once per device */
	size_t unmatched;              /* rows left out: pids the filter's command cannot match */
};
/*
 * A process's device memory as a source reported it, or HMN_UNKNOWN when it
 * cannot be true: more than the whole GPU has (a driver bug, seen with
 * NVML's all-ones "not available" too). Never a number that is wrong.
 */
static inline uint64_t plausible_process_bytes(uint64_t used, uint64_t device_total)
{
	return device_total != HMN_UNKNOWN && used != HMN_UNKNOWN && used > device_total
		       ? HMN_UNKNOWN : used;
}

/* Is this global device index wanted by the filter? Sources skip the rest. */
bool process_sink_wants_device(const struct process_sink *sink, unsigned local_index);
/* Is this pid wanted by the filter? Sources skip the rest before reading anything. */
bool process_sink_wants_pid(struct process_sink *sink, uint32_t pid);
/* One process on one device, as a source reports it. */
struct process_entry {
	uint32_t pid;
	struct hmn_place place;     /* its index the source's own (the sink adds the source's base) */
	uint64_t used_bytes;        /* HMN_UNKNOWN: not measured */
	uint64_t shared_bytes;      /* system memory mapped for it; HMN_UNKNOWN: not measured */
	unsigned type;              /* enum hmn_process_type bits */
	const char *device_name, *device_uuid;
	/* Where the source names the process itself (nvidia-smi does): used
	 * only where the OS cannot name it. */
	const char *reported_path;
	bool mps;                   /* from the MPS client list */
	const char *mig_uuid;
};
/*
 * Adds or merges the row for (pid, device, MIG instance): a process listed
 * twice on one device (compute and graphics lists) becomes one row with both
 * type bits. Filtered-out pids are dropped here.
 */
int process_sink_add(struct process_sink *sink, const struct process_entry *e);

/*
 * A source: a const table of function pointers. The one explicit array of
 * them lives in context.c. Sources of the same family measure the same GPUs
 * (nvml and nvidia-smi both see NVIDIA GPUs): the first that opens and
 * answers is used, the later ones are its fallbacks.
 */
/* Which GPUs a source measures: sources of one family see the same GPUs. */
enum source_family {
	FAMILY_NVIDIA,        /* nvml, nvidia-smi */
	FAMILY_DRM,           /* AMD and Intel through DRM (Linux) */
	FAMILY_WINDOWS,       /* dxgi, pdh: every GPU Windows has */
	FAMILY_APPLE,         /* metal */
};
/* "nvidia", "drm", "windows", "apple": as -v names a family. */
const char *source_family_name(enum source_family family);

struct hmn_source {
	const char *name;
	enum source_family family;
	/*
	 * Loads and initialises the source once per context. Returns 0 and a
	 * state, or a negative code with a one-line explanation in why_buf.
	 */
	int (*open)(hmn_context *ctx, void **ret_state, char *why_buf, size_t why_size);
	void (*close)(void *state);
	/* Number of devices, fixed at open: it fixes each source's index range. */
	unsigned (*device_count)(void *state);
	/*
	 * Reports every device that answers. A device that fails is logged as
	 * a warning and counted in *ret_failed. Returns 0 or a negative code
	 * when the source as a whole failed.
	 */
	int (*gpus)(void *state, struct gpu_sink *sink, size_t *ret_failed);
	int (*processes)(void *state, struct process_sink *sink, size_t *ret_failed);
	/*
	 * Optional. The executable the driver recorded for pid (NVML's
	 * nvmlSystemGetProcessName), asked only where the OS cannot say:
	 * 0 with path in buf, or a negative code.
	 */
	int (*process_path)(void *state, uint32_t pid, char *buf, size_t size);
	/*
	 * Optional. A process's exact peak on a device from the driver's
	 * accounting; -ENOENT for a record of a process that started after
	 * alive_at_us (the pid's reuser).
	 */
	int (*process_peak)(void *state, uint32_t pid, unsigned local_index, uint64_t alive_at_us,
			    uint64_t *ret_bytes);
	/* Optional. Forget what was read once per context (identity, MIG layout). */
	void (*refresh)(void *state);
	/*
	 * Its pids are a driver's: numbered in the kernel's initial PID
	 * namespace, whatever namespace hmn runs in (NVML, nvidia-smi). Else
	 * they are $HMN_PROCFS's own (DRM reads them there).
	 */
	bool host_pids;
};

extern const struct hmn_source hmn_source_nvml;
extern const struct hmn_source hmn_source_nvidia_smi;
#ifdef __linux__
extern const struct hmn_source hmn_source_drm;
#endif
#ifdef __APPLE__
extern const struct hmn_source hmn_source_metal;
#endif
#ifdef _WIN32
extern const struct hmn_source hmn_source_dxgi;
extern const struct hmn_source hmn_source_pdh;
#endif

#endif
