/* Private to libhmn: the source interface, the OS layer and small helpers. */
#ifndef HMN_INTERNAL_H
#define HMN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

#define HMN_ERROR_MAX 512

/* ---- arena: the strings a result list owns, freed at once ---------------- */

struct hmn_arena;
struct hmn_arena *arena_new(void);
struct hmn_arena *arena_free(struct hmn_arena *arena);
/* A copy of s in the arena; NULL for NULL s or when out of memory. */
const char *arena_strdup(struct hmn_arena *arena, const char *s);
/* Moves every string of from into into, and frees from. */
void arena_adopt(struct hmn_arena *into, struct hmn_arena *from);

/* ---- growable arrays ------------------------------------------------------ */

/* Makes room for one more element of size elem; -ENOMEM on failure. */
int array_reserve(void **items, size_t *capacity, size_t count, size_t elem);
/* qsort's and bsearch's order of uint32_t pids, for the sorted pid arrays of every OS. */
int compare_pids(const void *a, const void *b);

/* ---- logging and errors, from inside the library ---------------------------- */

/* mingw checks formats against Microsoft's printf unless told it is the C99 one we build with. */
#ifdef __MINGW_PRINTF_FORMAT
#define HMN_PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#else
#define HMN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
void hmn_log(const hmn_context *ctx, enum hmn_log_level level, const char *fmt, ...) HMN_PRINTF(3, 4);
/* Records the explanation hmn_context_error() returns; returns r. */
int hmn_fail(hmn_context *ctx, int r, const char *fmt, ...) HMN_PRINTF(3, 4);
/*
 * -v: what a source found when it opened, as each source says it:
 * "nvml: libnvidia-ml.so.1 (driver 580.159.04), 8 GPUs". fmt says what it used.
 */
void hmn_log_found(const hmn_context *ctx, const char *source, unsigned gpus, const char *fmt, ...)
	HMN_PRINTF(4, 5);

/* ---- what a source hands back ------------------------------------------------ */

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

struct row_index;
struct process_sink {
	hmn_context *ctx;
	struct hmn_process_list *list;
	size_t capacity;
	unsigned base;
	const char *source;
	const struct hmn_process_filter *filter;
	struct row_index *index;       /* (pid, device) → row, for merging */
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
	unsigned local_index;       /* the source's device index */
	uint64_t used_bytes;        /* HMN_UNKNOWN: not measured */
	uint64_t shared_bytes;      /* system memory mapped for it; HMN_UNKNOWN: not measured */
	unsigned type;              /* enum hmn_process_type bits */
	const char *device_name, *device_uuid;
	/* Where the source names the process itself (nvidia-smi does): used
	 * only where the OS cannot name it. */
	const char *reported_path;
	bool mps;                   /* from the MPS client list */
	bool is_mig;
	unsigned gpu_instance_id, compute_instance_id;
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
struct hmn_source {
	const char *name;
	const char *family;
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
	/*
	 * Optional. How many GPUs this source saw but left to the "nvidia"
	 * family (NVIDIA cards in sysfs), and where ("0000:3b:00.0, ...").
	 */
	unsigned (*nvidia_seen)(void *state, char *where, size_t size);
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

/* ---- OS layer: one file per concern per OS ----------------------------------- */

/* NVML's library, by the name the platform gives it. */
#ifdef _WIN32
#define OS_NVML_LIBRARY "nvml.dll"
#else
#define OS_NVML_LIBRARY "libnvidia-ml.so.1"
#endif

/* Dynamic libraries (lib/linux/dynlib.c). Never from the current directory. */
void *os_library_open(const char *name_or_path, char *why_buf, size_t why_size);
void *os_library_symbol(void *library, const char *symbol);
void os_library_close(void *library);

/* Process details (lib/linux/process.c). */
struct os_process_details {
	const char *name;     /* NULL: unknown */
	const char *path;     /* NULL: unknown */
	const char *container;/* NULL: none, or unknown */
	const char *pod_uid;  /* NULL: not in a Kubernetes pod, or unknown */
	const char *user;     /* where the OS names the owner itself (Windows); else NULL */
	uint32_t uid;         /* HMN_UID_UNKNOWN: unknown */
	uint32_t ns_pid;      /* 0: not in a nested PID namespace, or unknown */
	uint64_t start_time;  /* as struct hmn_process says; 0: unknown */
	uint64_t ram_bytes;   /* resident set (VmRSS, working set, footprint); HMN_UNKNOWN */
	bool exists;
	bool is_protected;
};
/*
 * The process table ($HMN_PROCFS or /proc), opened once per context so that
 * each per-process read resolves a short relative path. NULL on ENOMEM.
 */
struct os_proc_root;
struct os_proc_root *os_proc_root_open(const char *path);
struct os_proc_root *os_proc_root_close(struct os_proc_root *root);
/*
 * Linux: os_process_details reads each process's start time too (one more
 * file a process: only for a context that remembers processes). macOS and
 * Windows give none yet (0).
 */
void os_proc_root_read_start_times(struct os_proc_root *root);
/*
 * Linux: when a process started (what os_process_details reads as
 * start_time), from its stat alone: a remembered pid is checked with it at
 * every query. -ENOENT, -ESRCH: gone; -ENODATA: unreadable.
 */
int os_process_start_time(struct os_proc_root *root, uint32_t pid, uint64_t *ret_start_time);
/*
 * As os_process_start_time, with the resident set from the same read (stat's
 * field 24) into *ret_ram_bytes when not NULL (HMN_UNKNOWN where stat has it
 * not: a test tree's). Linux.
 */
int os_process_stat(struct os_proc_root *root, uint32_t pid, uint64_t *ret_start_time, uint64_t *ret_ram_bytes);
/* Linux: a process's resident set now (what os_process_details reads as ram_bytes). */
int os_process_ram(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes);
/*
 * Reads what the OS says of each of n processes into out[i], the strings
 * into arena. Never fails for one process (what can't be read stays
 * unknown); -ENOMEM as a whole. Long lists are read on several threads.
 */
int os_process_details(struct os_proc_root *root, const uint32_t *pids, size_t n,
		       struct os_process_details *out, struct hmn_arena *arena);
/* External programs (lib/linux/spawn.c, lib/linux/program.c). */
struct os_output {
	char *text;           /* NUL-terminated; NULL when nothing came */
	size_t len, capacity;
};
struct os_program_result {
	struct os_output out, err;
	int status;           /* exit status; -1 when killed or it died of a signal */
	bool timed_out;       /* killed at the deadline */
	bool truncated;       /* killed for printing more than the bound */
};
/*
 * Runs path (absolute) with argv, no shell, stdin from /dev/null; reads its
 * stdout and stderr up to max_output bytes each; kills it and its process
 * group after timeout_s seconds. Returns 0 with *ret filled (free it with
 * os_program_result_clear), or a negative code when it could not start.
 */
int os_run_program(const char *path, char *const argv[], double timeout_s, size_t max_output,
		   struct os_program_result *ret);
void os_program_result_clear(struct os_program_result *r);
/* The program to run: $override_variable (absolute), else name in PATH's absolute entries. */
int os_find_program(const char *name, const char *override_variable, char *out, size_t size,
		    char *why, size_t why_size);

/* Windows (lib/windows/dynlib.c): "C:\\..." or "\\\\server\\..."; POSIX: "/...". */
#ifdef _WIN32
bool os_path_is_absolute(const char *path);
#else
static inline bool os_path_is_absolute(const char *path)
{
	return path[0] == '/';
}
#endif

/*
 * Process trees (lib/linux/tree.c, lib/darwin/tree.c). os_become_subreaper:
 * orphaned descendants are re-parented to the caller (Linux); -ENOTSUP
 * elsewhere. os_add_descendants (macOS; Linux walks its children files in
 * lib/linux/tree.c): appends every living descendant of root (not root) to
 * *pids.
 */
int os_become_subreaper(void);
int os_add_descendants(const char *procfs, uint32_t root, uint32_t **pids, size_t *count,
		       size_t *capacity);
/*
 * The tree of one command (hmn run): COMMAND and what it starts, never a
 * child the caller had before (os_tree_new takes note of them; the
 * programs the sources run are waited for inside a query, never between).
 * Pids are as $HMN_PROCFS numbers them.
 */
struct os_tree;
int os_tree_new(const char *procfs, struct os_tree **ret);
/* COMMAND, by the pid fork() answered. */
void os_tree_set_command(struct os_tree *t, int pid);
/* COMMAND was reaped: its pid may be another process's from now on. */
void os_tree_command_reaped(struct os_tree *t);
/* A sample begins: processes the last one did not ask about have ended, and are forgotten. */
void os_tree_sample(struct os_tree *t);
/*
 * Is pid in the tree? 1 or 0, looked up once per process; -EXDEV when
 * host_numbered (a driver's pid, numbered in the kernel's initial PID
 * namespace) and $HMN_PROCFS numbers otherwise (a container's own /proc).
 */
int os_tree_owns(struct os_tree *t, uint32_t pid, bool host_numbered);
/* The tree's living processes now, COMMAND included while it runs: malloc'd. */
int os_tree_living(struct os_tree *t, uint32_t **ret_pids, size_t *ret_count);
/*
 * Sends sig to each of the tree's living processes, by its pid in the
 * caller's own numbering (translated from $HMN_PROCFS's, through NSpid,
 * where the two differ: a container with the host's /proc), and only to
 * the process the tree listed (a pid given to another process since is
 * left alone). Returns how many it was sent to; *ret_refused: how many
 * could not be sent to because nothing names them in the caller's
 * numbering (they live above its namespace; $HMN_PROCFS has no pid for
 * the caller). -errno when the tree cannot be listed.
 */
int os_tree_signal(struct os_tree *t, int sig, size_t *ret_refused);
struct os_tree *os_tree_free(struct os_tree *t);

#ifndef _WIN32
#include <signal.h>
#include <sys/types.h>
/*
 * fork() with every signal blocked across it (lib/posix/fork.c). In the
 * child, every signal the caller catches is back to its default (one it
 * ignores stays ignored), and all are still blocked: a signal that comes
 * before the child is ready stays pending, never runs the caller's handler
 * there, and does what it does to the child once the child unblocks it.
 * The parent has its own mask again on return. *ret_saved_mask: that mask,
 * for the child to set (or another) when ready. Returns as fork() does, or
 * -errno.
 */
pid_t os_fork_blocked(sigset_t *ret_saved_mask);
#endif

/*
 * Signals sent to the caller's whole process group, told from those sent to
 * it alone (lib/linux/group.c): a sentinel child in the group keeps them
 * pending. os_group_watch_got: 1 when sig reached the group (and is taken
 * from the sentinel), 0 when it reached the caller alone, -ENOTSUP (macOS)
 * or -errno when it cannot be told.
 */
struct os_group_watch {
	int pid;              /* the sentinel; -1: none */
	int sock;
};
int os_group_watch_start(struct os_group_watch *w);
int os_group_watch_got(struct os_group_watch *w, int sig);
void os_group_watch_stop(struct os_group_watch *w);

/*
 * Is pid in the command's tree (posix/command.c, windows/command.c)? 1 or
 * 0; -EXDEV when host_numbered (a driver's pid, numbered in the kernel's
 * initial PID namespace) cannot be matched to the tree's numbering.
 */
int command_owns(struct hmn_command *command, uint32_t pid, bool host_numbered);

/* The user name for uid, cached; NULL when it has none. */
const char *os_user_name(hmn_context *ctx, uint32_t uid);
/*
 * The system's memory and what it has available (Linux: MemTotal and
 * MemAvailable of $HMN_PROCFS/meminfo), for GPUs without memory of their own.
 */
int os_system_memory(const char *procfs, uint64_t *ret_total, uint64_t *ret_available);
/* Resident set size of the calling process, in bytes. */
int os_self_rss(const char *procfs, uint64_t *ret_bytes);
#ifndef _WIN32
/*
 * One process's share of the host memory of a tree, each page counted once
 * across the tree where the OS can say (lib/linux/process.c,
 * lib/darwin/process.c): Linux its Pss from smaps_rollup, VmRSS where that
 * cannot be read (*ret_is_rss); macOS its physical footprint. 0 with the
 * bytes, -ESRCH when it has gone (a zombie too: its memory is freed),
 * another negative code when it cannot be read at all.
 */
int os_process_memory(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss);
/* Is the process still running: there, and not a zombie? */
bool os_process_running(struct os_proc_root *root, uint32_t pid);
/* The name of what os_process_memory() measures where it is exact: "pss", "footprint". */
extern const char os_process_memory_measure[];
#endif
/*
 * hmn_tree_meter's core (lib/tree-meter.c), pure: brings the meter's last
 * readings to the tree's pids now (sorted, distinct), reading again first
 * the processes it has no reading of, then the others in turn from where
 * the last call stopped, while time_left() says so (at least one is read),
 * and sums what it knows. read answers as os_process_memory() does;
 * running (NULL: not asked) says whether a process read in this call is
 * still running after the reads.
 */
struct tree_meter_entry {
	uint32_t pid;
	uint64_t bytes;
	bool is_rss;
	bool has_reading;     /* false: listed, but no call has had time to read it yet */
	uint64_t read_call;   /* the call that read it last */
	uint64_t first_call;  /* the call that first listed it */
};
struct hmn_tree_meter {
	struct tree_meter_entry *entries; /* sorted by pid: each process's last reading */
	size_t n;
	uint32_t next;                    /* the rotation goes on from the first pid at or above it */
	uint64_t calls;
	uint64_t grew_call;               /* the last call that found a process it had not seen */
};
int tree_meter_update(struct hmn_tree_meter *m, const uint32_t *pids, size_t n, const char *exact_measure,
		      int (*read)(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss),
		      bool (*time_left)(void *data), bool (*running)(void *data, uint32_t pid), void *data,
		      struct hmn_tree_memory *ret);
/*
 * One call's time (hmn_tree_meter_read), in nanoseconds on a monotonic
 * clock. The budget runs from the call's start: the tree's listing before
 * the reads is paid from it.
 */
struct tree_meter_clock {
	uint64_t deadline;        /* 0: no bound */
	uint64_t reads_start;     /* when the first read began */
	uint64_t reads;           /* read so far */
};
/* Is there time for one more read, as long as those so far took on average? */
bool tree_meter_time_left(const struct tree_meter_clock *c, uint64_t now);
uint32_t os_self_pid(void);
/*
 * An environment variable that names a file or program hmn would load, run
 * or read instead of the system's (HMN_NVML_LIBRARY, HMN_NVIDIA_SMI,
 * HMN_PROCFS, HMN_SYSFS, HMN_PCI_IDS, LD_LIBRARY_PATH): NULL when hmn runs
 * with privileges its caller lacks (set-user-ID, set-group-ID, file
 * capabilities: glibc's secure_getenv, issetugid on macOS), so that such a
 * copy never loads a library of the caller's choosing. hmn_context_new
 * logs each one it ignores.
 */
const char *os_trusted_getenv(const char *name);
/* The root to read instead of /proc ($HMN_PROCFS), never NULL. */
const char *os_procfs_root(void);
/* Milliseconds on a monotonic clock. */
uint64_t os_clock_ms(void);

/* ---- parsers, exposed for the unit tests and fuzzers --------------------------- */

/*
 * Parses the text of /proc/PID/status: the Name line (unescaped into name,
 * truncated to name_size - 1) and the effective uid (second Uid field).
 * Returns 0 with what was found (*ret_uid HMN_UID_UNKNOWN when absent), or
 * -EINVAL when the text is not a status file at all.
 */
int parse_proc_status(const char *text, size_t len, char *name, size_t name_size,
		      uint32_t *ret_uid, uint64_t *ret_rss_bytes);
/*
 * A /proc/PID/task/TID/children text: pids separated by spaces. Calls add
 * for each; stops at the first thing that is not one. Returns how many.
 */
size_t parse_pid_list(const char *text, size_t len, void (*add)(uint32_t pid, void *data), void *data);
/* The parent pid in a /proc/PID/stat text (after the last ')': state, then ppid). */
int parse_stat_ppid(const char *text, size_t len, uint32_t *ret_ppid);
/* What hmn reads of a /proc/PID/stat text. */
struct proc_stat {
	uint32_t ppid;
	char state;           /* 'R', 'S', 'Z' (a zombie), ... */
	uint64_t start_time;  /* clock ticks after boot (field 22); 0: unreadable */
	uint64_t rss_pages;   /* resident pages (field 24, as statm and VmRSS count them); HMN_UNKNOWN: none */
};
int parse_stat(const char *text, size_t len, struct proc_stat *ret);
/* The resident pages of a /proc/PID/statm text (its second field, as VmRSS counts them). */
int parse_statm_resident(const char *text, size_t len, uint64_t *ret_pages);
/*
 * A signal mask line of a status text ("ShdPnd", "SigPnd", "SigBlk"...):
 * bit N-1 for signal N. -ENOENT when the line is absent, -EINVAL when bad.
 */
int parse_signal_mask(const char *text, size_t len, const char *key, uint64_t *ret_mask);
/*
 * The proportional set size of a /proc/PID/smaps_rollup text, in bytes: each
 * page divided among the processes that map it. -ENODATA for an empty text
 * (a zombie, a kernel thread: nothing mapped), -EINVAL when it has no
 * well-formed "Pss: N kB" line.
 */
int parse_smaps_pss(const char *text, size_t len, uint64_t *ret_bytes);
/*
 * MemTotal and MemAvailable of a /proc/meminfo text, in bytes. -EINVAL when
 * either is missing or malformed; MemAvailable is capped at MemTotal.
 */
int parse_meminfo(const char *text, size_t len, uint64_t *ret_total, uint64_t *ret_available);
/*
 * The NSpid line of a status file: the pid in the innermost PID namespace,
 * and how many namespaces deep (1: not in a nested one). -ENOENT when the
 * kernel prints no NSpid (before 4.1), -EINVAL when it is malformed.
 */
int parse_proc_nspid(const char *text, size_t len, uint32_t *ret_ns_pid, unsigned *ret_depth);
/* The same with the outermost pid too (the one the status file's own /proc numbers it by). */
int parse_proc_nspids(const char *text, size_t len, uint32_t *ret_outer, uint32_t *ret_inner,
		      unsigned *ret_depth);
/*
 * The pid at one level of the NSpid line (0: the namespace of the /proc it
 * was read from, 1: the namespace below it, ...): a process's pid as a
 * process that many namespaces down numbers it. -ERANGE when the line stops
 * above that level (the process is not in that namespace, nor below it),
 * -ENOENT when there is no NSpid line (before Linux 4.1), -EINVAL when bad.
 */
/*
 * /proc/loadavg: how many tasks exist (threads included, in every PID
 * namespace), and the last pid the kernel gave in the reader's namespace.
 */
int parse_loadavg(const char *text, size_t len, uint64_t *ret_threads, uint32_t *ret_last_pid);
/* /proc/stat's "processes": how many tasks were ever made (fork and clone, threads too). -ENOENT without. */
int parse_stat_forks(const char *text, size_t len, uint64_t *ret_forks);
int parse_proc_nspid_at(const char *text, size_t len, unsigned level, uint32_t *ret_pid);
/*
 * The container a /proc/PID/cgroup text places a process in, as
 * "docker:0123456789ab", "podman:...", "containerd:...", "cri-o:...",
 * "kubernetes:..." or "lxc:NAME"; false when it names none.
 */
bool parse_container(const char *text, size_t len, char *out, size_t size);
/* A pod UID with its NUL: 8-4-4-4-12 hex digits. */
#define HMN_POD_UID_SIZE 37
/*
 * The Kubernetes pod a /proc/PID/cgroup text places a process in, from the
 * kubelet's cgroup layout (either driver, cgroup v1 or v2, seen from a
 * cgroup namespace too): 1 with the UID in out (dashed, as the API has it),
 * 0 when it names no pod, -EINVAL when its paths break the layout or
 * contradict each other (nothing is taken then), -ENOBUFS when size is
 * below HMN_POD_UID_SIZE.
 */
int parse_pod_uid(const char *text, size_t len, char *out, size_t size);
/* The last path component of a /proc/PID/exe target, " (deleted)" removed. */
const char *exe_basename(const char *path, char *buf, size_t size);
/* Is this a driver whose _v3 process calls write 32-byte entries (535.43.02 to 535.98)? */
bool nvml_v3_entries_are_32_bytes(const char *driver_version);
/* Normalises an NVML bus id ("00000000:01:00.0") to sysfs form ("0000:01:00.0"). */
void normalize_pci_bus_id(const char *in, char *out, size_t size);

/* nvidia-smi's CSV (lib/nvsmi-parse.c). */
enum smi_field {
	SMI_OTHER,            /* a column we do not read */
	/* --query-gpu */
	SMI_INDEX, SMI_UUID, SMI_NAME, SMI_PCI_BUS_ID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED,
	SMI_MEMORY_FREE, SMI_MEMORY_RESERVED, SMI_DRIVER_VERSION,
	SMI_UTILIZATION_GPU, SMI_UTILIZATION_MEMORY, SMI_TEMPERATURE, SMI_POWER_DRAW, SMI_POWER_LIMIT,
	SMI_COMPUTE_CAP,
	/* --query-compute-apps */
	SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME,
};
struct smi_gpu_row {
	uint32_t index;
	char uuid[96], name[96], pci_bus_id[32], driver_version[80]; /* "": unknown */
	uint64_t total, used, free, reserved;                        /* HMN_UNKNOWN: unknown */
	bool memory_not_available; /* total, used and free all [N/A]: unified memory */
	uint32_t utilization, memory_utilization, temperature; /* HMN_VALUE_UNKNOWN: unknown */
	uint32_t power_mw, power_limit_mw;                     /* W with decimals, in mW */
	char compute_cap[16];                                  /* "9.0"; "": unknown */
};
struct smi_process_row {
	uint32_t pid;
	uint64_t used;        /* HMN_UNKNOWN: [N/A] */
	char gpu_uuid[96];
	char name[512];       /* as nvidia-smi prints it: often a full path */
};
/* Is this cell one of nvidia-smi's "[N/A]"-like non-values (or empty)? */
bool smi_cell_unknown(const char *p, size_t n);
/* A cell of whole units, "37" or "37 %" (unit ignored); HMN_VALUE_UNKNOWN for anything else. */
uint32_t smi_parse_integer(const char *p, size_t n);
/* Watts with decimals ("71.23", "71.23 W") in milliwatts; HMN_VALUE_UNKNOWN for anything else. */
uint32_t smi_parse_watts(const char *p, size_t n);
/* A MiB cell ("81559" or "81559 MiB") in bytes; HMN_UNKNOWN for anything else. */
uint64_t smi_parse_mib(const char *p, size_t n);
/*
 * Parses --query-gpu output whose columns are fields[]. Lines of another
 * shape, and rows without index or memory, are skipped and counted. The
 * rows are malloc'd.
 */
int smi_parse_gpus(const char *text, size_t len, const enum smi_field *fields, size_t n_fields,
		   struct smi_gpu_row **ret_rows, size_t *ret_count, size_t *ret_skipped);
/*
 * Parses --query-compute-apps output whose columns are fields[]; the
 * process-name column may hold commas (it is split from both ends). Rows
 * without a pid are skipped and counted.
 */
int smi_parse_processes(const char *text, size_t len, const enum smi_field *fields,
			size_t n_fields, struct smi_process_row **ret_rows, size_t *ret_count,
			size_t *ret_skipped);
/*
 * The last component of a path (what nvidia-smi names a process): a path that
 * starts with / is POSIX (a backslash is part of a name), any other may also
 * use \ (Windows).
 */
const char *path_basename_any(const char *path);

/* DRM fdinfo (lib/drm-fdinfo.c). */
struct drm_fdinfo {
	char driver[32];          /* "amdgpu", "i915", "xe" */
	char pdev[32];            /* "0000:08:00.0"; "": not printed */
	uint64_t client_id;
	bool has_client_id;
	uint64_t local_bytes;     /* resident device memory; HMN_UNKNOWN: no such line */
	uint64_t shared_bytes;    /* resident system memory the GPU maps; HMN_UNKNOWN: none */
	unsigned engines;         /* enum hmn_process_type bits of the engines it has used */
};
/* "2068 KiB", "16 MiB" or "4096" in bytes; false when it breaks the contract. */
bool drm_parse_size(const char *p, size_t n, uint64_t *ret_bytes);
/* Parses one fdinfo text; -EINVAL when it has no drm-driver line (not DRM). */
int drm_parse_fdinfo(const char *text, size_t len, struct drm_fdinfo *ret_info);

/* One DRM client as one process reaches it (lib/drm-clients.c). */
struct drm_usage {
	uint32_t pid;
	unsigned gpu;             /* the source's device index */
	uint64_t client_id;
	bool has_client_id;       /* false: a kernel without drm-client-id; never merged */
	uint64_t local_bytes;     /* HMN_UNKNOWN: not measured */
	uint64_t shared_bytes;    /* HMN_UNKNOWN: not measured */
	unsigned type;            /* enum hmn_process_type bits; 0: no engine used yet */
	bool dropped;             /* private to drm_merge_clients() */
};
/*
 * Merges clients into one row per (pid, gpu), at the front of c, sorted by
 * pid then gpu; returns how many. A client reached by several descriptors of
 * one process counts once; one held by several processes has its memory
 * counted in the lowest pid's row alone (the others get 0 from it).
 */
size_t drm_merge_clients(struct drm_usage *c, size_t n);

/* The device's name in a pci.ids text (lib/pci-ids.c); false when absent. */
bool pci_ids_name(const char *text, size_t len, unsigned vendor, unsigned device, char *out,
		  size_t size);

/* Windows' text, parsed anywhere (lib/windows-parse.c). */
/*
 * UTF-16 (up to n units or a 0) into UTF-8, NUL-terminated, cut at a
 * character's boundary to fit size; a lone surrogate becomes U+FFFD.
 * Returns the bytes written, without the NUL.
 */
size_t utf16_to_utf8(const uint16_t *in, size_t n, char *out, size_t size);
/*
 * A PDH GPU counter instance: "pid_1234_luid_0x00000000_0x0000D1A3_phys_0"
 * (GPU Process Memory) or "luid_0x00000000_0x0000D1A3_phys_0" (GPU Adapter
 * Memory). The LUID is the adapter's, as DXGI reports it.
 */
struct pdh_instance {
	uint32_t pid;
	bool has_pid;
	uint32_t luid_high, luid_low;
	uint32_t phys;
	char engine_type[24];     /* "3D", "Compute_0", ... from "_eng_N_engtype_X"; "" none */
	uint32_t engine;          /* N of "_eng_N" */
	bool has_engine;
};
bool pdh_parse_instance(const char *name, struct pdh_instance *ret);
/* One \GPU Engine(*)\Utilization Percentage value: a process's share of one engine. */
struct pdh_engine_load {
	struct pdh_instance instance;
	double percent;
};
/*
 * An adapter's utilisation as Task Manager shows it: each engine's load
 * summed over its processes, the busiest engine's sum, at most 100.
 * HMN_VALUE_UNKNOWN when no engine of that LUID is listed.
 */
uint32_t pdh_adapter_utilization(const struct pdh_engine_load *loads, size_t n, uint32_t luid_high,
				 uint32_t luid_low);

/*
 * hmn run's exit status for a Windows exit code: the code itself when it is
 * 0-255 (NULL returned); else what it was, with a status that is never 0:
 * a crash (an NTSTATUS error: access violation, stack overflow, ...) is
 * 128 + the signal it is on POSIX (139 for SIGSEGV), a DLL that failed to
 * load 126, exit(-1) to exit(-256) (0xFFFFFFFF-0xFFFFFF00) their low 8
 * bits as on POSIX (exit(-1) is 255) but 1 for exit(-256), any other code
 * above 255 (exit(256)) 1.
 */
const char *windows_exit_status(uint32_t code, int *ret_status);
/* One PATHEXT entry, ".EXE"; cmd.exe's default when PATHEXT is unset. */
struct pathext_entry {
	uint16_t ext[16];
};
/*
 * PATHEXT (";"-separated; NULL or "": .COM;.EXE;.BAT;.CMD) into at most max
 * entries, in order, each ".EXT" once (case-insensitive); returns how many.
 */
size_t pathext_split(const uint16_t *pathext, struct pathext_entry *out, size_t max);
/* Whether name ends with one of the n extensions (ASCII case-insensitive). */
bool pathext_has(const uint16_t *name, const struct pathext_entry *exts, size_t n);
/*
 * How much of name names the file Windows opens: without the trailing dots
 * and spaces that Win32 path rules drop from a name ("run.bat. ." opens
 * run.bat), nor a "::$DATA" suffix (the file's default stream, the file
 * itself). Pure text: the caller resolves "." and ".." (GetFullPathNameW).
 */
size_t windows_name_length(const uint16_t *name);
/*
 * Whether name is a batch file (.bat, .cmd, any case), which only cmd.exe
 * runs: by what windows_name_length leaves of it, so that "run.bat." and
 * "run.bat::$DATA", which Windows runs as run.bat, are batch files too.
 */
bool windows_is_batch(const uint16_t *name);
/*
 * Appends arg to a command line (a space first unless it is empty), quoted
 * as the C runtime reads it back. -E2BIG when the line (size units with its
 * NUL; CreateProcess takes 32,767 characters) cannot hold it; then the line
 * is as it was.
 */
int cmdline_append(uint16_t *line, size_t size, size_t *len, const uint16_t *arg);
/*
 * The same for an argument of a batch file run by cmd.exe /c: quoted and
 * escaped so that cmd.exe passes it on as one argument and expands nothing
 * in it (%VAR%). -EINVAL for an argument no quoting makes safe (a line
 * break); -E2BIG as above.
 */
int cmdline_append_batch(uint16_t *line, size_t size, size_t *len, const uint16_t *arg);

/* The macOS source's arithmetic (lib/darwin-parse.c; records in darwin-abi.h). */
/* The index of the ledger entry called name among count templates; -1 if none. */
int ledger_entry_index(const void *templates, size_t count, const char *name);
/* Entry index's balance among count entries; HMN_UNKNOWN out of range or negative. */
uint64_t ledger_entry_balance(const void *entries, size_t count, int index);
/*
 * Unified memory: free is Metal's working-set budget (at most total; all of
 * total when there is no budget), used is the rest.
 */
void uma_figures(uint64_t total, uint64_t budget, uint64_t *ret_used, uint64_t *ret_free);
/*
 * How many entries of a zeroed buffer of capacity pids to read after
 * proc_listchildpids answered returned (a count of pids, or of bytes on
 * some releases; negative on failure).
 */
size_t darwin_child_count(int returned, size_t capacity);

/* ---- the context, as the sources see it --------------------------------------- */

struct user_cache_entry {
	uint32_t uid;
	const char *name;     /* in the context's arena; NULL: no such user */
};

struct source_slot {
	const struct hmn_source *source;
	bool opened;          /* open() was tried: it is never tried twice */
	void *state;          /* NULL: not open (see why) */
	char why[256];        /* why open() failed */
	bool told;            /* -v said why it was skipped in a query (once a context, not a query) */
	bool broken;          /* open() failed as a source that is there fails (hung: -ETIMEDOUT) */
	bool has_base;
	unsigned base;        /* global index of its device 0, shared by its family */
	unsigned count;       /* devices it found when opened */
};

struct known_process;

struct hmn_context {
	struct source_slot *slots;
	size_t n_slots;
	unsigned next_base;               /* where the next family's index range starts */
	unsigned unread_gpus;             /* GPUs shown but read by no source; their indices kept */
	char error[HMN_ERROR_MAX];
	hmn_log_fn log;
	void *log_userdata;
	enum hmn_log_level log_level;
	bool telemetry;                   /* hmn_options.telemetry */
	const char *procfs;
	struct os_proc_root *proc_root;   /* opened at the first process query */
	struct hmn_arena *arena;          /* lives as long as the context */
	struct user_cache_entry *users;
	size_t n_users, users_capacity;
	bool remember_processes;          /* hmn_options.remember_processes */
	struct known_process *known;      /* the last process query's, sorted by pid */
	size_t n_known;
	uint32_t refresh_next;            /* the pid the next query's re-reading of known ones starts at */
};

#endif
