/*
 * libhmn — how much memory each GPU holds, and how much each process holds on it.
 *
 * This header is the GPU queries: a context, its GPUs, the processes on
 * them. Running and measuring a command is hmn-run.h; models and the memory
 * they need, hmn-model.h; what all three share, hmn-common.h.
 *
 * Usage: open one context, query it as often as you like, free it.
 *
 *     hmn_context *ctx = NULL;
 *     const char *why = NULL;
 *     int r = hmn_context_new(NULL, &ctx, &why);
 *     if (r < 0) ...print why, or strerror(-r) when why is NULL...
 *     struct hmn_gpu_list *gpus = NULL;
 *     r = hmn_query_gpus(ctx, &gpus);
 *     if (r < 0) fprintf(stderr, "%s\n", hmn_context_error(ctx));
 *     ...
 *     hmn_gpu_list_free(gpus);
 *     hmn_context_free(ctx);
 *
 * The conventions of every libhmn header are hmn-common.h's. A context is
 * not thread-safe: use one per thread, or lock around it.
 */
#ifndef HMN_H
#define HMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HMN_VALUE_UNKNOWN UINT32_MAX /* a telemetry figure nobody measured */

typedef struct hmn_context hmn_context;

enum hmn_log_level {
	HMN_LOG_WARNING, /* something the user should hear about: a GPU failed */
	HMN_LOG_INFO,    /* what -v shows: sources tried, fallbacks taken */
};

typedef void (*hmn_log_fn)(enum hmn_log_level level, const char *message, void *userdata);

struct hmn_options {
	/*
	 * Comma-separated list of sources, in the order to try them, e.g.
	 * "nvml,nvidia-smi". NULL: $HMN_BACKENDS if set, else every source
	 * built for this platform in its default order.
	 */
	const char *backends;
	hmn_log_fn log;      /* NULL: diagnostics are dropped */
	void *log_userdata;
	/*
	 * The most detailed level passed to log: HMN_LOG_WARNING (the zero
	 * value) or HMN_LOG_INFO. Messages beyond it are not even formatted.
	 */
	enum hmn_log_level log_level;
	/*
	 * Read utilisation, temperature and power with each GPU query (on
	 * NVML four more calls a GPU, 0.3-0.4 us each on an H100). Off, they
	 * stay HMN_VALUE_UNKNOWN and a snapshot costs the memory query alone.
	 */
	bool telemetry;
	/*
	 * Remember each process's name, owner, path and command line (and
	 * where it runs: container, pod) from one process query to the next,
	 * for a context queried again and again (hmn watch): on a busy node
	 * reading them is most of a query's cost. A process listed by two
	 * queries in a row is read once, when first listed, with its start time
	 * (struct hmn_process). Its start time and RAM (ram_bytes) are read again at
	 * each query, for a few milliseconds at most: a list of thousands is
	 * read again in turns over a few queries, each process keeping its last
	 * RAM until its turn. A pid whose start time changed was given to
	 * another process, which is read as the new process it is, and so is
	 * one given a pid that a query did not list (that pid is forgotten). A
	 * process that exec()s another program keeps the name and command
	 * line it was first read with. Linux; elsewhere ignored.
	 */
	bool remember_processes;
	/*
	 * Read each process's command line (struct hmn_process's command) with
	 * its name: on Linux one more file a process (/proc/PID/cmdline, which
	 * waits while the process holds its memory map's lock, as ps(1) does),
	 * on macOS one more sysctl. Off, command stays NULL. None on Windows.
	 */
	bool commands;
};

/*
 * Selects the sources. Each is opened at most once per context, the first
 * time a query needs it (NVML: one dlopen, one nvmlInit), and stays open
 * until hmn_context_free(). A source that is absent is skipped (said through
 * the log); that is not an error. A fallback source (nvidia-smi behind NVML)
 * is never opened while the one before it answers.
 * Returns 0, -EINVAL for a backend name that is unknown or does not exist
 * on this system, or a malformed HMN_* variable (HMN_BACKENDS, HMN_TIMEOUT,
 * a relative HMN_NVML_LIBRARY or HMN_NVIDIA_SMI; an empty one is as unset)
 * (ret_error, when not NULL, then gets a static message naming it), or
 * -ENOMEM.
 */
int hmn_context_new(const struct hmn_options *options, hmn_context **ret_ctx,
		    const char **ret_error);
/* Closes every source (NVML: one nvmlShutdown, one dlclose). */
hmn_context *hmn_context_free(hmn_context *ctx);

/*
 * A context remembers what cannot change while a GPU is not reset: each
 * GPU's identity (name, UUID, PCI id, driver version) and its MIG layout.
 * It reads them again by itself when a call fails as a reset makes it
 * fail; this makes the next query read them again anyway.
 */
void hmn_context_refresh(hmn_context *ctx);

/*
 * GPUs the system shows that no selected source could read (an NVIDIA card
 * in sysfs with NVML unloadable and nvidia-smi absent), known once the
 * first query has run. They keep their indices (the others do not shift),
 * the log has said so as a warning, and a tool should fail (hmn exits 1).
 */
unsigned hmn_context_unread_gpus(const hmn_context *ctx);

/* The explanation of the last failed query on ctx, or "" when none failed. */
const char *hmn_context_error(const hmn_context *ctx);

/* The names --backend accepts, NULL-terminated; stable order. */
const char *const *hmn_backend_names(void);

/*
 * Where a row is: a GPU, by its index, or one MIG instance of it. Every
 * part of hmn names a GPU, or an instance, by this one struct.
 */
struct hmn_place {
	unsigned index;             /* the GPU's: stable within a context, the sources' own order */
	bool is_mig;                /* one MIG instance of it, these two name it: */
	unsigned gpu_instance_id, compute_instance_id;
};
/* Is a the very place b is? (A MIG instance is not its GPU, nor the GPU it.) */
bool hmn_place_equal(const struct hmn_place *a, const struct hmn_place *b);
/* Is inner within outer: outer itself, or an instance of outer when outer is a whole GPU? */
bool hmn_place_within(const struct hmn_place *inner, const struct hmn_place *outer);

struct hmn_gpu {
	/*
	 * A MIG instance's row follows its GPU's, with the GPU's index; its name,
	 * uuid ("MIG-...") and sizes are the instance's own.
	 */
	struct hmn_place place;
	const char *name;           /* NULL: unknown */
	const char *uuid;           /* NULL: unknown */
	const char *vendor;         /* "nvidia", "amd", "intel", "apple" */
	const char *pci_bus_id;     /* "0000:01:00.0" form; NULL: unknown */
	uint64_t total_bytes;
	uint64_t free_bytes;
	uint64_t used_bytes;
	/*
	 * Set aside by driver and firmware. When known,
	 * total == reserved + used + free; when HMN_UNKNOWN, total == used + free.
	 */
	uint64_t reserved_bytes;
	/*
	 * System memory the GPU can map (amdgpu's GTT): how much, and how much
	 * is in use. HMN_UNKNOWN where the source does not measure it.
	 */
	uint64_t shared_total_bytes, shared_used_bytes;
	const char *driver_version; /* NULL: unknown */
	const char *source;         /* the source that measured this row, e.g. "nvml" */
	/*
	 * A GPU without memory of its own (Apple Silicon; NVIDIA GB10, Jetson,
	 * or any NVIDIA GPU whose driver answers NOT_SUPPORTED for memory): its
	 * total is the system's memory, free what the system has available
	 * (Linux MemAvailable), used the rest, reserved unknown.
	 */
	bool unified_memory;
	/*
	 * Telemetry, read with the memory from the same handles; each
	 * HMN_VALUE_UNKNOWN (compute_capability NULL) where the source cannot say.
	 */
	uint32_t utilization_percent;        /* the GPU busy, 0-100, over the driver's last period */
	uint32_t memory_utilization_percent; /* the memory controller busy, 0-100 */
	uint32_t temperature_celsius;
	uint32_t power_milliwatts;           /* power drawn now (or averaged by the driver) */
	uint32_t power_limit_milliwatts;     /* the limit the driver enforces */
	const char *compute_capability;      /* "9.0" (NVIDIA's CUDA compute capability) */
};

struct hmn_gpu_list {
	size_t count;               /* the rows: GPUs that answered, and their MIG instances */
	struct hmn_gpu *gpus;
	size_t found;               /* GPUs found, including those that failed to answer */
	size_t failed;              /* GPUs found that no source could read (said as warnings) */
	struct hmn_arena *arena;    /* private: owns the strings */
};

/*
 * Every GPU every selected source can see. Returns 0 when at least one GPU
 * answered (failures of others reach the log as warnings), -ENODEV when no
 * source found a GPU, -EIO when every GPU found failed to answer or when a
 * source that is there failed (nvidia-smi hung past HMN_TIMEOUT), -ENOMEM.
 */
int hmn_query_gpus(hmn_context *ctx, struct hmn_gpu_list **ret_list);
struct hmn_gpu_list *hmn_gpu_list_free(struct hmn_gpu_list *list);

enum hmn_process_type {
	HMN_PROCESS_COMPUTE = 1 << 0,
	HMN_PROCESS_GRAPHICS = 1 << 1,
};

struct hmn_process {
	uint32_t pid;
	const char *name;           /* basename of the executable; NULL: unknown or gone */
	const char *path;           /* full path of the executable; NULL: unknown */
	const char *user;           /* NULL: unknown */
	uint32_t uid;               /* HMN_UID_UNKNOWN: unknown */
	uint64_t used_bytes;        /* device memory; HMN_UNKNOWN when not measured */
	uint64_t shared_used_bytes; /* system memory the GPU maps for it; HMN_UNKNOWN */
	/*
	 * Host memory it holds: its resident set (Linux VmRSS, Windows working
	 * set, macOS physical footprint); HMN_UNKNOWN where unreadable.
	 */
	uint64_t ram_bytes;
	struct hmn_place place;     /* its GPU, or the MIG instance of it (mig_uuid) it runs on */
	const char *device_name;    /* NULL: unknown */
	const char *device_uuid;    /* NULL: unknown */
	unsigned type;              /* enum hmn_process_type bits */
	bool is_protected;          /* exists, but name or owner unreadable: no permission */
	bool exists;                /* false: exited, or in another PID namespace */
	const char *source;
	/*
	 * For a process in a nested PID namespace (a container) seen from
	 * outside: its pid inside (0: not in one, or unknown), and its
	 * container from its cgroup ("docker:0123456789ab"; NULL: none known).
	 */
	uint32_t ns_pid;
	const char *container;
	/*
	 * The Kubernetes pod such a process runs in, by its cgroup path: its
	 * UID ("1b2c3d4e-..."), the key of kube-state-metrics' kube_pod_info.
	 * NULL outside Kubernetes, and where the path is not the kubelet's.
	 */
	const char *pod_uid;
	const char *mig_uuid;       /* on a MIG instance: its UUID; NULL: unknown, or not on one */
	/* A client of NVIDIA's MPS server (nvidia-smi's type M+C); type keeps its compute bit. */
	bool is_mps_client;
	/*
	 * When the process started, in the OS's own units (Linux: clock ticks
	 * after boot); 0: unknown. With pid, it names one process: a pid the
	 * system gave again later is another process.
	 */
	uint64_t start_time;
	/*
	 * Its argument vector (argv[0] first), NULL-terminated, as the OS
	 * keeps it (a process that rewrote its argv shows what it wrote): its
	 * first 4 KiB, a longer one cut there, within its last word. NULL
	 * where it cannot be read (exited; a kernel thread's, which is empty;
	 * /proc mounted with hidepid; another user's on macOS; Windows), or
	 * not asked for (hmn_options.commands).
	 */
	const char *const *command;
};

struct hmn_process_list {
	size_t count;
	struct hmn_process *processes;
	/*
	 * Processes whose GPU use could not be read for lack of permission
	 * (another user's descriptors, under DRM): not in processes[], but not
	 * to be forgotten either.
	 */
	size_t unreadable;
	/* GPUs found whose processes could not be listed (a GPU fallen off the bus): said as warnings. */
	size_t failed_gpus;
	struct hmn_arena *arena;    /* private: owns the strings */
};

/* Restricts a process query; empty arrays mean no restriction, but for pids_given. */
struct hmn_process_filter {
	const uint32_t *pids;
	size_t n_pids;
	bool pids_given;            /* pids is the restriction even when empty: then no process matches */
	const unsigned *devices;    /* GPU indices as in struct hmn_gpu */
	size_t n_devices;
	/*
	 * Only the rows of the processes keep_pid keeps (1; 0 drops one): hmn
	 * run's hmn_command_keep_pid keeps its command's tree. host_numbered: the
	 * pid is a driver's, numbered in the kernel's initial PID namespace;
	 * -EXDEV: such a pid cannot be told apart here. NULL: any process.
	 */
	int (*keep_pid)(void *data, uint32_t pid, bool host_numbered);
	void *keep_pid_data;
	/*
	 * Only what changes: pids and figures, no name, owner or path (NULL,
	 * unknown), which hmn run asks once per process (hmn_query_process_name)
	 * instead of once a sample.
	 */
	bool figures_only;
};

/*
 * One row per (process, GPU), in source order. Names and owners are read
 * only for the rows the filter keeps. Returns as hmn_query_gpus() does;
 * an empty list is a success. -EXDEV when the filter's keep_pid could
 * not tell the pids a source numbers (a driver's pids are the host's, and
 * hmn runs in a PID namespace whose own /proc is at $HMN_PROCFS): the
 * caller can then only measure device-wide.
 */
int hmn_query_processes(hmn_context *ctx, const struct hmn_process_filter *filter,
			struct hmn_process_list **ret_list);
struct hmn_process_list *hmn_process_list_free(struct hmn_process_list *list);

/*
 * The exact peak device memory pid held on GPU device_index, where the
 * driver keeps per-process accounting (NVIDIA's accounting mode, which hmn
 * reads but never turns on; it also keeps records of processes that have
 * ended). The driver keeps one record per pid, the last process's: one that
 * started after alive_at_us (microseconds since the epoch, a time the
 * caller saw pid's process alive; 0: no check) is another process's that
 * reused the pid, and is not answered. Returns 0 with *ret_bytes; -ENOTSUP
 * where accounting is off or the source has none; -ENOENT when the driver
 * has no record of that process.
 */
int hmn_query_process_peak(hmn_context *ctx, uint32_t pid, unsigned device_index,
			   uint64_t alive_at_us, uint64_t *ret_bytes);

struct hmn_self_memory {
	uint64_t rss_bytes;         /* resident set size; HMN_UNKNOWN when unreadable */
	uint64_t gpu_bytes;         /* device memory this process holds on all GPUs */
};

/* The calling process's own memory: RSS, and device memory over every GPU. */
int hmn_query_self(hmn_context *ctx, struct hmn_self_memory *ret_self);

/*
 * The name of process pid (as $HMN_PROCFS numbers it) into buf: its
 * executable's name, else what the OS calls it. -ESRCH when it is gone.
 */
int hmn_query_process_name(hmn_context *ctx, uint32_t pid, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
