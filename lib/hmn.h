/*
 * libhmn — how much memory each GPU holds, and how much each process holds on it.
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
 * Conventions (systemd style):
 * - Functions that can fail return 0 (or a count) on success and a negative
 *   errno-style code on failure. After a failure of a query,
 *   hmn_context_error() explains it in a sentence the caller can print.
 * - Out-parameters are named ret_*; they are left untouched on failure.
 * - Every *_free() function accepts NULL and returns NULL, so that
 *   `x = hmn_x_free(x);` leaves no dangling pointer.
 * - The library never prints and never exits. Diagnostics (which source was
 *   used or skipped, and why; a GPU that failed) reach the caller through the
 *   log callback in struct hmn_options.
 * - Sizes are bytes. HMN_UNKNOWN marks a size the source does not know.
 * - A context is not thread-safe: use one per thread, or lock around it.
 */
#ifndef HMN_H
#define HMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HMN_UNKNOWN UINT64_MAX      /* a size nobody measured */
#define HMN_UID_UNKNOWN UINT32_MAX  /* an owner nobody could read */
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
	 * Remember each process's name, owner and path (and where it runs:
	 * container, pod) from one process query to the next, for a context
	 * queried again and again (hmn watch): on a busy node reading them is
	 * most of a query's cost. A process listed by two queries in a row is
	 * read once, when first listed, with its start time (struct
	 * hmn_process). Its start time and RAM (ram_bytes) are read again at
	 * each query, for a few milliseconds at most: a list of thousands is
	 * read again in turns over a few queries, each process keeping its last
	 * RAM until its turn. A pid whose start time changed was given to
	 * another process, which is read as the new process it is, and so is
	 * one given a pid that a query did not list (that pid is forgotten). A
	 * process that exec()s another program keeps the name it was first
	 * read with. Linux; elsewhere ignored.
	 */
	bool remember_processes;
};

/*
 * Selects the sources. Each is opened at most once per context, the first
 * time a query needs it (NVML: one dlopen, one nvmlInit), and stays open
 * until hmn_context_free(). A source that is absent is skipped (said through
 * the log); that is not an error. A fallback source (nvidia-smi behind NVML)
 * is never opened while the one before it answers.
 * Returns 0, -EINVAL for an unknown backend name (ret_error, when not NULL,
 * then gets a static message naming it) or -ENOMEM.
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

struct hmn_gpu {
	unsigned index;             /* stable within a context: the source's own order */
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
	 * A MIG instance: its row follows its GPU's and has the GPU's index;
	 * name and uuid ("MIG-...") and the sizes are the instance's own.
	 */
	bool is_mig;
	unsigned gpu_instance_id, compute_instance_id;
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
	unsigned device_index;
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
	/* On a MIG instance of the GPU: which one. */
	bool is_mig;
	unsigned gpu_instance_id, compute_instance_id;
	const char *mig_uuid;       /* NULL: unknown, or not on a MIG instance */
	/* A client of NVIDIA's MPS server (nvidia-smi's type M+C); type keeps its compute bit. */
	bool is_mps_client;
	/*
	 * When the process started, in the OS's own units (Linux: clock ticks
	 * after boot); 0: unknown. With pid, it names one process: a pid the
	 * system gave again later is another process.
	 */
	uint64_t start_time;
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

/* Restricts a process query; empty arrays mean no restriction. */
struct hmn_process_filter {
	const uint32_t *pids;
	size_t n_pids;
	const unsigned *devices;    /* GPU indices as in struct hmn_gpu */
	size_t n_devices;
	/*
	 * Only the rows of this command's tree (hmn run), each process looked
	 * up once in its life, not once per sample; NULL: any process.
	 */
	struct hmn_command *command;
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
 * an empty list is a success. With a filter's command: -EXDEV when a
 * source numbers pids in a way the command's tree cannot be matched to (a
 * driver's pids are the host's, and hmn runs in a PID namespace whose own
 * /proc is at $HMN_PROCFS): the caller can then only measure device-wide.
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
 * ---- A command and everything it starts (hmn run) ---------------------------
 *
 * hmn_command_start() runs argv (PATH searched as execvp does, no shell)
 * with the caller's stdin, stdout and stderr, its signal dispositions (a
 * signal the caller ignores stays ignored; one it catches is the default
 * again, as exec makes it) and an empty signal mask. On Linux the caller
 * becomes a child subreaper first, so that descendants which detach
 * (double fork, setsid) come back to it rather than to init; on Windows
 * the command runs in a job object, which its descendants inherit.
 *
 * The tree is the command and what it starts: never a child the caller had
 * before (a shell that exec'd into it left them), never a process that only
 * reuses one of its pids.
 */
struct hmn_command;

/*
 * Returns 0, or a negative errno with nothing left running. *ret_exec_failed
 * says which: true when the command itself failed to start (-ENOENT: not
 * found; -EACCES, -ENOEXEC, ...: found but could not run; -E2BIG: on Windows,
 * a command line past 32,767 characters), false when the caller could not
 * start anything (fork, pipe: -EAGAIN, -ENOMEM, ...).
 */
int hmn_command_start(hmn_context *ctx, char *const argv[], struct hmn_command **ret_command,
		      bool *ret_exec_failed);
/* The command's pid (0 once reaped is not a concern: it stays the one started). */
uint32_t hmn_command_pid(const struct hmn_command *command);
/*
 * A sample of the tree begins (before its hmn_query_processes with the
 * command in the filter): processes the last sample did not list are
 * forgotten. Returns 0; -EXDEV (on Windows) when the tree cannot be told
 * at all (the job object could not take the command), so that the caller
 * measures device-wide.
 */
int hmn_command_sample(hmn_context *ctx, struct hmn_command *command);
/*
 * The pids of the command (while it runs) and every living descendant,
 * adopted ones included, sorted, each once: malloc'd, in *ret_pids (free it). From $HMN_PROCFS
 * on Linux (and in its numbering), proc_listchildpids on macOS, the job's
 * list on Windows. On Linux and macOS listed once a sample, by the first
 * call after hmn_command_sample or hmn_command_done (a tree of thousands
 * costs milliseconds to walk): the later calls until then answer the same
 * list, less what was reaped since.
 */
int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count);
/*
 * Reaps whatever of the tree has ended, without waiting. Returns true once
 * the command and every descendant it left to us are gone.
 */
bool hmn_command_done(hmn_context *ctx, struct hmn_command *command);
/*
 * How the command ended, once it has: its exit code and -1 for signal, or
 * -1 and the signal that ended it. -EBUSY while it runs. The exit code is
 * 0-255 everywhere: on Windows a process's 32-bit code above 255 is mapped,
 * never to 0 and never cut to 8 bits (exit(256) is 1, not 0; a crash's
 * NTSTATUS is 128 + its POSIX signal: an access violation, 0xC0000005, is
 * 139, not 5), save exit(-1) to exit(-255), read as POSIX reads them (255
 * to 1; exit(-256) is 1), and hmn_command_exit_note says what it was.
 */
int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal);
/*
 * Once the command has ended, the largest resident set of any one process
 * of its tree that was reaped (Linux, macOS: what wait4 says of the
 * command, of what it reaped itself, and of the orphans the caller
 * adopted): a floor for a tree that ended before any reading of it.
 * -EBUSY while it runs, -ENODATA when none was said, -EOPNOTSUPP on Windows
 * (where the job's peak is read instead).
 */
int hmn_command_peak_rss(const struct hmn_command *command, uint64_t *ret_bytes);
/* Sends signal sig to the command (on Windows: any signal ends the job). */
int hmn_command_signal(struct hmn_command *command, int sig);
/*
 * Passes on sig, which reached the caller (from_kernel: the terminal sent
 * it, not a process), unless the command got it itself: a signal sent to
 * the whole process group reaches the command directly, and is not sent a
 * second time. Returns 1 when it was sent, 0 when it was not needed.
 */
int hmn_command_pass_on(struct hmn_command *command, int sig, bool from_kernel);
/* Forgets the command (it is not killed); accepts NULL. */
struct hmn_command *hmn_command_free(struct hmn_command *command);

/*
 * The name of process pid (as $HMN_PROCFS numbers it) into buf: its
 * executable's name, else what the OS calls it. -ESRCH when it is gone.
 */
int hmn_query_process_name(hmn_context *ctx, uint32_t pid, char *buf, size_t size);

/*
 * ---- What hmn run measures and does to the whole tree -------------------------
 */
struct hmn_tree_memory {
	uint64_t bytes;       /* HMN_UNKNOWN: nothing could be measured */
	/*
	 * How: "pss" (Linux: the sum of each process's proportional set size,
	 * each page counted once), "rss" (Linux: some process's Pss could not
	 * be read and its resident set stands in; Windows where the job keeps
	 * no figures: working sets), "footprint" (macOS: the sum of physical
	 * footprints), "commit" (Windows: the job's committed memory).
	 */
	const char *measure;
	bool is_peak;         /* Windows' "commit": the job's peak so far, not its use now */
	/*
	 * Every process was read in this call. false: the time it was given ran
	 * out first, and some count with what an earlier call read of them.
	 */
	bool complete;
	/*
	 * Every process was read since the tree last gained one. false: a fork
	 * since some reading may have split its pages with the newcomer, which
	 * Pss then counts twice: the sum is too high until they are read again.
	 */
	bool settled;
	/*
	 * What the tree holds at least, each page counted once: bytes where
	 * settled; else bytes less the figures of the processes that came
	 * since the oldest reading the sum keeps (the pages such a reading may
	 * count again are theirs, and count at most as much as they do).
	 * HMN_UNKNOWN where bytes is.
	 */
	uint64_t lower_bytes;
};
/*
 * Reads a command's tree's host memory again and again (hmn run's
 * peak_ram_bytes), keeping each process's last reading between calls.
 */
struct hmn_tree_meter;
struct hmn_tree_meter *hmn_tree_meter_new(void);
struct hmn_tree_meter *hmn_tree_meter_free(struct hmn_tree_meter *meter);
/*
 * The host memory the command's tree holds now (on Windows, the job's peak
 * so far), each page counted once where the OS can say. Reading it costs
 * Linux a walk of each process's page tables (smaps_rollup: some 10 ms per
 * GiB a process maps, so a parent's 4 GiB and 99 forked workers mapping it
 * cost seconds): a call reads for about budget_ms (0: no bound), the
 * processes it has no reading of first, then the others in turn from where
 * the last call stopped; those it did not reach count with their last
 * reading, and the next calls go on with them.
 */
int hmn_tree_meter_read(hmn_context *ctx, struct hmn_tree_meter *meter, struct hmn_command *command,
			uint64_t budget_ms, struct hmn_tree_memory *ret);
/*
 * Sends sig to every process of the command's tree (hmn run --limit:
 * SIGTERM, then SIGKILL to what is left); on Windows any signal ends the
 * whole job. Each process is signalled by its pid in the caller's own PID
 * namespace, and only the process the tree listed (never one that took its
 * pid since). Returns how many processes it was sent to (0: none left), or
 * a negative errno: -EXDEV when some process of the tree has no pid that
 * the caller can tell (a /proc at HMN_PROCFS that numbers it in a PID
 * namespace the caller's pids do not reach), which then was not signalled
 * (the others were: hmn_context_error() says how many); another when the
 * tree could not be listed.
 */
int hmn_command_signal_tree(hmn_context *ctx, struct hmn_command *command, int sig);

/*
 * ---- A memory budget ---------------------------------------------------------
 *
 * Bytes against a limit, with a factor for what allocators lose (alignment,
 * fragmentation): a reservation is refused when the current use times the
 * factor would pass the limit. Plain data: declare one, fill it with
 * hmn_budget_init(), no free needed. Not thread-safe.
 */
struct hmn_budget {
	uint64_t limit;             /* HMN_UNKNOWN: no limit */
	uint64_t current;           /* reserved now */
	uint64_t peak;              /* the most ever reserved at once */
	double overhead;            /* ≥ 1: the factor applied before comparing with the limit */
};
/* overhead below 1 (or NaN) is taken as 1. */
void hmn_budget_init(struct hmn_budget *budget, uint64_t limit, double overhead);
/* Would bytes more stay within the limit? */
bool hmn_budget_would_fit(const struct hmn_budget *budget, uint64_t bytes);
/* Reserves bytes: 0, or -ENOSPC (nothing reserved) when it would pass the limit. */
int hmn_budget_reserve(struct hmn_budget *budget, uint64_t bytes);
/* Gives bytes back (never below zero). */
void hmn_budget_release(struct hmn_budget *budget, uint64_t bytes);
/*
 * The use measured now replaces the current one (hmn run --limit: the tree's
 * size at a sample), the peak kept; it is taken whatever the limit says.
 * Returns 0, or -ENOSPC when it (times the overhead) is above the limit.
 */
int hmn_budget_set(struct hmn_budget *budget, uint64_t bytes);
/* The current use times the overhead: what the limit is compared with. */
uint64_t hmn_budget_charged(const struct hmn_budget *budget);

#ifdef _WIN32
/*
 * Windows: when the command's exit code was one hmn_command_status could
 * not give as it is (a crash's NTSTATUS, any code above 255), what it was
 * ("an access violation", "a stack overflow", ...) and, in *ret_code, the
 * code itself; NULL for an exit code of 0-255 or a command still running.
 */
const char *hmn_command_exit_note(const struct hmn_command *command, uint32_t *ret_code);
#endif

/*
 * ---- Models and the memory they need (hmn fit) ------------------------------
 *
 * Everything here is arithmetic over a model's headers: no GPU, no context,
 * no allocation of a size a file claims. Read a model once, then ask:
 *
 *     struct hmn_model *m = NULL;
 *     char why[256];
 *     if (hmn_model_open("llama-3-8b.Q4_K_M.gguf", &m, why, sizeof(why)) < 0)
 *         ...print why...
 *     struct hmn_fit_request req;
 *     hmn_fit_request_init(&req);
 *     req.context = 8192;
 *     struct hmn_fit_parts parts;
 *     hmn_fit_estimate(m, &req, &parts);
 *     hmn_model_free(m);
 */

/*
 * The type of a tensor's elements. GGUF's types keep ggml's own ids (0-39);
 * safetensors' types with no ggml id, and int4 (accelerate's 4 bits a
 * parameter), come after.
 */
enum hmn_dtype {
	HMN_DTYPE_F32 = 0, HMN_DTYPE_F16 = 1, HMN_DTYPE_Q4_0 = 2, HMN_DTYPE_Q4_1 = 3,
	HMN_DTYPE_Q5_0 = 6, HMN_DTYPE_Q5_1 = 7, HMN_DTYPE_Q8_0 = 8, HMN_DTYPE_Q8_1 = 9,
	HMN_DTYPE_Q2_K = 10, HMN_DTYPE_Q3_K = 11, HMN_DTYPE_Q4_K = 12, HMN_DTYPE_Q5_K = 13,
	HMN_DTYPE_Q6_K = 14, HMN_DTYPE_Q8_K = 15, HMN_DTYPE_IQ2_XXS = 16, HMN_DTYPE_IQ2_XS = 17,
	HMN_DTYPE_IQ3_XXS = 18, HMN_DTYPE_IQ1_S = 19, HMN_DTYPE_IQ4_NL = 20, HMN_DTYPE_IQ3_S = 21,
	HMN_DTYPE_IQ2_S = 22, HMN_DTYPE_IQ4_XS = 23, HMN_DTYPE_I8 = 24, HMN_DTYPE_I16 = 25,
	HMN_DTYPE_I32 = 26, HMN_DTYPE_I64 = 27, HMN_DTYPE_F64 = 28, HMN_DTYPE_IQ1_M = 29,
	HMN_DTYPE_BF16 = 30, HMN_DTYPE_TQ1_0 = 34, HMN_DTYPE_TQ2_0 = 35, HMN_DTYPE_MXFP4 = 39,
	/* safetensors' types beyond ggml's */
	HMN_DTYPE_BOOL = 64, HMN_DTYPE_U8, HMN_DTYPE_U16, HMN_DTYPE_U32, HMN_DTYPE_U64,
	HMN_DTYPE_F8_E4M3, HMN_DTYPE_F8_E5M2, HMN_DTYPE_F8_E8M0, HMN_DTYPE_F8_E4M3FNUZ,
	HMN_DTYPE_F8_E5M2FNUZ, HMN_DTYPE_C64, HMN_DTYPE_F4, HMN_DTYPE_F6_E2M3, HMN_DTYPE_F6_E3M2,
	HMN_DTYPE_INT4,     /* int4 as --dtype plans it: 4 bits a parameter, no scales */
	HMN_DTYPE_NONE = -1 /* "as in the file" */
};

/*
 * The type called name: a GGUF type ("q4_k", "Q4_K_M" is not one), a
 * safetensors dtype ("BF16", "F8_E4M3"), or one of --dtype's words ("fp8",
 * "int8", "int4", "fp16", "fp32"); case-insensitive. -EINVAL when unknown.
 */
int hmn_dtype_from_name(const char *name, enum hmn_dtype *ret_dtype);
/* Its name in lower case ("q4_k", "bf16", "f8_e4m3"); NULL for a value that is none. */
const char *hmn_dtype_name(enum hmn_dtype dtype);
/* Elements a block holds and the bytes of one block (F16: 1 and 2; Q4_K: 256 and 144; F4: 2 and 1). */
int hmn_dtype_block(enum hmn_dtype dtype, uint32_t *ret_elements, uint32_t *ret_bytes);

/*
 * The bytes of a tensor of n_dims dimensions (dims[0] the innermost, as GGUF
 * orders them; a product does not care) in dtype: ggml's rule for block
 * types (dims[0] a whole number of blocks, else -EINVAL), whole bytes for
 * sub-byte types. -EINVAL for an unknown dtype, -EOVERFLOW past 2^64.
 */
int hmn_tensor_bytes(enum hmn_dtype dtype, const uint64_t *dims, size_t n_dims, uint64_t *ret_bytes);

/*
 * The memory one attention layer's forward pass holds for batch sequences of
 * seq tokens attending to kv_len positions (kv_len = seq without a cache):
 * Q (heads × head_dim), K and V (kv_heads × head_dim), the output, in
 * elem_bytes each; with eager true also the heads × seq × kv_len scores, in
 * elem_bytes, and their softmax (the s² matrices); a fused kernel (flash
 * attention) keeps neither. HMN_UNKNOWN on overflow.
 */
uint64_t hmn_attention_bytes(uint64_t batch, uint64_t seq, uint64_t kv_len, uint32_t heads,
			     uint32_t kv_heads, uint32_t head_dim, uint32_t elem_bytes, bool eager);

enum hmn_model_format { HMN_MODEL_GGUF = 1, HMN_MODEL_SAFETENSORS, HMN_MODEL_CONFIG };

/* What a layer keeps per token, or in a fixed state. */
enum hmn_layer_kind {
	HMN_LAYER_ATTENTION,   /* a KV cache as long as the context */
	HMN_LAYER_SLIDING,     /* a KV cache capped at the sliding window */
	HMN_LAYER_RECURRENT,   /* a fixed state per sequence (Mamba, RWKV) */
	HMN_LAYER_NO_CACHE,    /* keeps nothing (a layer that reuses another's cache) */
};

struct hmn_model_layer {
	enum hmn_layer_kind kind;
	uint32_t n_head_kv;         /* KV heads of this layer (0 for a recurrent one) */
	uint64_t weights_bytes;     /* this layer's tensors, as stored */
	uint64_t matrix_elements;   /* elements of its tensors of 2 or more dimensions */
	uint64_t vector_bytes;      /* bytes of its 1-D tensors (norms, biases) */
};

struct hmn_model {
	enum hmn_model_format format;
	const char *path;           /* as given */
	const char *name;           /* general.name, or the folder's name, as it is (not made printable); NULL: none */
	/* "llama", "gemma3", "deepseek2" as the file names it, printable (as why is in hmn_model_open()) */
	const char *architecture;
	/*
	 * NULL, or what the caller should hear (printable, as why is): an
	 * unknown architecture read as a generic transformer.
	 */
	const char *warning;
	enum hmn_dtype dtype;       /* the type most of the weights' bytes are in */
	enum hmn_dtype float_dtype; /* the float type of the model (its activations, safetensors' KV default) */
	uint64_t parameters;
	uint64_t weights_bytes;     /* every tensor (GGUF: as mapped, padded to the alignment) */
	/*
	 * The tensors outside the layers, summed as a layer's are: the token
	 * embeddings (llama.cpp keeps them in host memory), the output norm and
	 * head (no head when tied to the embeddings), and the rest (position
	 * embeddings, a next-token-prediction block past the layer count).
	 */
	struct hmn_model_layer input, output, other;
	uint64_t context_length;    /* trained; 0: unknown */
	uint32_t n_layer;
	struct hmn_model_layer *layers; /* n_layer of them */
	uint32_t n_embd, n_ff, n_head, n_head_kv, n_vocab;
	uint32_t key_length, value_length; /* per head */
	uint32_t sliding_window;    /* 0: none */
	uint32_t n_expert, n_expert_used, n_ff_expert, n_shared_expert;
	uint32_t kv_lora_rank, rope_dim;   /* multi-head latent attention (DeepSeek): both non-zero */
	uint32_t ssm_conv, ssm_inner, ssm_state, ssm_group; /* Mamba's state */
	bool tied_embeddings;
	size_t n_tensors, n_files;
	struct hmn_arena *arena;    /* private */
};

/*
 * Reads a model's headers: a GGUF file (with the other parts of a split
 * one), a .safetensors file (with the config.json beside it, when there is
 * one), a folder holding config.json and its safetensors files, or a
 * config.json alone. A folder's weights are the shards its
 * model.safetensors.index.json names; without one, model.safetensors, else
 * all of model-NNNNN-of-MMMMM.safetensors, else consolidated.safetensors,
 * else all of consolidated-NNNNN-of-MMMMM.safetensors, else the one file
 * (or set of shards) that is not a LoRA adapter (adapter_*): never two
 * copies of the weights summed.
 * Returns 0, or a negative errno with one line in why (what, and where:
 * the file and the offset), printable: each byte of a control character or
 * of invalid UTF-8 from the file's names a '?'. -EINVAL a malformed or
 * hostile file, -ENOENT a missing file, -EFBIG a header past the bounds,
 * -ENOTSUP a format or version hmn does not read, -ENOMEM, or what the OS
 * said.
 */
int hmn_model_open(const char *path, struct hmn_model **ret_model, char *why, size_t why_size);
struct hmn_model *hmn_model_free(struct hmn_model *model);

/* How an estimate is asked for; hmn_fit_request_init() sets the contract's defaults. */
struct hmn_fit_request {
	uint64_t context;           /* tokens per sequence; 0: the model's trained context */
	uint32_t batch;             /* sequences; 0 means 1 */
	uint32_t ubatch;            /* tokens of one forward step (llama.cpp's n_ubatch); 0 means 512 */
	enum hmn_dtype dtype;       /* weights priced in this type; HMN_DTYPE_NONE: as stored */
	enum hmn_dtype kv_dtype;    /* HMN_DTYPE_NONE: f16 for GGUF, the float type for safetensors */
	bool train;
	bool eager_attention;       /* the s² scores held (no fused kernel) */
	uint32_t gpus;              /* tensor parallel over this many; 0 means 1 */
	double margin;              /* factor on the sum; 0 means 1.1 */
	const char *vendor;         /* whose runtime ("nvidia", "amd", "intel", "apple"); NULL: nvidia */
	/* GGUF: the last this many layers on the GPU (llama.cpp's --gpu-layers); UINT32_MAX: all */
	uint32_t gpu_layers;
};
/* Every field 0 but dtype and kv_dtype (HMN_DTYPE_NONE) and gpu_layers (all). */
void hmn_fit_request_init(struct hmn_fit_request *req);

/* The estimate for one GPU, each part in bytes. */
struct hmn_fit_parts {
	uint64_t weights, kv_cache, activations;
	uint64_t optimizer;         /* HMN_UNKNOWN unless train */
	uint64_t runtime, margin;
	uint64_t total;             /* the parts and the margin: what one GPU needs */
	uint64_t context;           /* the context it was made for (padded as the runtime pads it) */
	enum hmn_dtype kv_dtype;    /* the KV cache's type it was made for */
};

/*
 * Each part on its own, for one GPU (already divided by req->gpus), in
 * bytes; HMN_UNKNOWN on overflow. The weights of the layers req->gpu_layers
 * names, repriced at req->dtype (tensors of 2 or more dimensions; norms and
 * biases stay as stored).
 */
uint64_t hmn_fit_weights(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * The KV cache (and recurrent state). GGUF as llama.cpp allocates it: the
 * context padded to 256 cells a sequence, sliding-window layers at
 * pad(min(context, window + ubatch), 256). safetensors as vLLM does:
 * 2 × kv_heads × head_dim a token and layer (MLA: kv_lora_rank + rope_dim,
 * once), in blocks of 16 tokens, sliding-window layers at their window.
 */
uint64_t hmn_fit_kv_cache(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * Inference: the compute buffer of one step of min(batch × context, ubatch)
 * tokens over the full cache (the largest of the attention, feed-forward
 * and output phases, as llama.cpp's graph allocator sizes it; the logits in
 * f32). Training: the activations kept for the backward pass (Korthikanti
 * et al. 2022, without recomputation; the s² term only with eager attention).
 */
uint64_t hmn_fit_activations(const struct hmn_model *m, const struct hmn_fit_request *req);
/*
 * Training's optimizer state beside the weights: gradients in the weights'
 * type, fp32 master weights when that type is narrower, AdamW's two fp32
 * moments: with 16-bit weights, 16 bytes a parameter in all (ZeRO's count).
 */
uint64_t hmn_fit_optimizer(uint64_t parameters, enum hmn_dtype dtype);
/* What the GPU's runtime takes in each process: 512 MiB on NVIDIA (CUDA context, libraries). */
uint64_t hmn_fit_runtime(const char *vendor);

/*
 * The whole estimate for one GPU: each part, the margin and the total
 * (with train, no KV cache: a training step's K and V are activations).
 * -EINVAL for a request the model cannot answer (no context known, a dtype
 * of no size), -EOVERFLOW.
 */
int hmn_fit_estimate(const struct hmn_model *m, const struct hmn_fit_request *req,
		     struct hmn_fit_parts *ret_parts);

/*
 * Reserves each part of req's estimate for one GPU in budget, in the
 * contract's order (weights, kv_cache, activations, optimizer, runtime).
 * Returns 0 when all fit, -ENOSPC when one did not (*ret_part, when not
 * NULL, names it; what fitted stays reserved), or hmn_fit_estimate()'s errors.
 */
int hmn_fit_reserve(struct hmn_budget *budget, const struct hmn_model *m,
		    const struct hmn_fit_request *req, const char **ret_part);
/*
 * Does what req asks fit in limit bytes, its margin included (req->margin,
 * else 1.1)? 1 or 0, or hmn_fit_estimate()'s errors.
 */
int hmn_fit_fits(const struct hmn_model *m, const struct hmn_fit_request *req, uint64_t limit);
/*
 * The longest context (tokens per sequence) whose estimate fits in limit
 * bytes, at most the model's trained context (req->context, when set, is
 * the cap instead); for a GGUF a multiple of 256. -ENOSPC when not even the
 * shortest does.
 */
int hmn_fit_max_context(const struct hmn_model *m, const struct hmn_fit_request *req,
			uint64_t limit, uint64_t *ret_context);
/*
 * GGUF: how many of the model's layers fit on a GPU with limit bytes
 * (llama.cpp's --gpu-layers: the last ones, the output with the last count,
 * n_layer + 1), their KV cache, the compute buffer and the runtime with
 * them. 0 when none does; -ENOTSUP for another format.
 */
int hmn_fit_gpu_layers(const struct hmn_model *m, const struct hmn_fit_request *req,
		       uint64_t limit, uint32_t *ret_layers);

/* The library's version, "X.Y.Z". */
const char *hmn_version(void);

#ifdef __cplusplus
}
#endif

#endif
