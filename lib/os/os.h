/*
 * lib/os: the seam between libhmn and the operating system — loading a
 * library, running a program, what a process is (name, owner, memory), a
 * command's tree of processes, files read at offsets and folders listed,
 * users, the environment. linux/, posix/, windows/ and darwin/ each
 * implement this header and nothing else (posix/ what Linux and macOS
 * share); the pure parsers of what an OS prints (linux/proc-parse.c,
 * windows/command-line.c, darwin/darwin-parse.c) are built on every OS,
 * for the unit tests and fuzzers. os/ uses lib/util alone: it knows no GPU,
 * no command of hmn run, no model.
 */
#ifndef HMN_OS_H
#define HMN_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-common.h"
#include "util/reader.h"

struct hmn_arena;
struct name_list;

/* NVML's library, by the name the platform gives it. */
#ifdef _WIN32
#define OS_NVML_LIBRARY "nvml.dll"
#else
#define OS_NVML_LIBRARY "libnvidia-ml.so.1"
#endif

/* ---- libraries: loaded at run time, never from the current directory ---- */

void *os_library_open(const char *name_or_path, char *why_buf, size_t why_size);
void *os_library_symbol(void *library, const char *symbol);
void os_library_close(void *library);

/* ---- processes: what the OS says of each (os/linux/process.c and the others) ---- */

struct os_process_details {
	const char *name;     /* NULL: unknown */
	const char *path;     /* NULL: unknown */
	const char *container;/* NULL: none, or unknown */
	const char *pod_uid;  /* NULL: not in a Kubernetes pod, or unknown */
	const char *user;     /* where the OS names the owner itself (Windows); else NULL */
	/* Its argument vector, NULL-terminated (os_proc_root_read_commands); NULL: unknown, or not read. */
	const char *const *command;
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
 * os_process_details reads each process's command line too, its first
 * OS_COMMAND_MAX bytes (one more file a process on Linux, one more sysctl
 * on macOS: only for a context that shows them). Windows documents no
 * cheap call for another process's command line (it lies in that
 * process's memory, its PEB): none there.
 */
void os_proc_root_read_commands(struct os_proc_root *root);
#define OS_COMMAND_MAX 4096
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
/* ---- programs: run with a timeout, no shell, bounded output (os/posix/spawn.c) ---- */

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

/* Windows (os/windows/dynlib.c): "C:\\..." or "\\\\server\\..."; POSIX: "/...". */
#ifdef _WIN32
bool os_path_is_absolute(const char *path);
#else
static inline bool os_path_is_absolute(const char *path)
{
	return path[0] == '/';
}
#endif

/*
 * ---- a command and its tree, for hmn run (os/posix/command.c, os/windows/command.c) ----
 *
 * The command runs with the caller's stdio and signal dispositions (one it
 * ignores stays ignored, one it catches is the default again) in a tree the
 * OS can list: on Linux the caller becomes a child subreaper first, so that
 * what detaches comes back to it; on Windows a job object, which every
 * descendant inherits. The tree is COMMAND and what it starts, never a
 * child the caller had before, never a process that only reuses a pid.
 */
struct os_command;

/* How a command ended. */
struct os_command_exit {
	int exit_code;        /* 0-255 (Windows' wider codes mapped, never to 0); -1 when a signal ended it */
	int signal;           /* the signal that ended it; -1: none */
	uint32_t code;        /* the process's own exit code (Windows: 32 bits) */
	const char *note;     /* Windows: what a code exit_code cannot hold was ("an access violation"); else NULL */
	uint64_t peak_rss;    /* POSIX: the largest resident set of what of the tree was reaped; 0: none said */
};

/*
 * Starts argv (PATH searched as execvp does, no shell; on Windows as
 * cmd.exe finds it, never in the current folder). 0, or a negative errno
 * with nothing left running; *ret_exec_failed: the command itself could not
 * start (-ENOENT, -EACCES, -ENOEXEC, Windows' -E2BIG), not the caller.
 */
int os_command_start(char *const argv[], struct os_command **ret_command, bool *ret_exec_failed);
uint32_t os_command_pid(const struct os_command *c);
/*
 * The tree's living processes now (COMMAND while it runs, a zombie none),
 * malloc'd, in any order, as $HMN_PROCFS numbers them (Linux); in
 * *ret_starts (malloc'd) each one's start time beside it, where the OS
 * says it (Linux; else NULL). -EXDEV where the tree cannot be told at all
 * (Windows: the job object refused the command), another negative errno
 * when it cannot be listed.
 */
int os_command_tree(struct os_command *c, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count);
/*
 * When process pid started, in os_command_tree's units: 0, -ENOENT or
 * -ESRCH when it has gone, -ENOTSUP where the listing says no start times.
 */
int os_command_start_time(struct os_command *c, uint32_t pid, uint64_t *ret_start);
/*
 * Are a driver's pids, numbered in the kernel's initial PID namespace, the
 * tree's numbering? false where $HMN_PROCFS is a PID namespace's own /proc.
 */
bool os_command_numbers_as_drivers(const struct os_command *c);
/*
 * Reaps what of the tree has ended, without waiting, reaped(data, pid) for
 * each. Returns true once COMMAND itself has ended (os_command_exit says
 * how).
 */
bool os_command_reap(struct os_command *c, void (*reaped)(void *data, uint32_t pid), void *data);
/*
 * Does os_command_reap name every process of the tree that ends (POSIX: it
 * reaps each)? Where it does not (Windows), a listing made before is stale
 * as soon as anything may have ended.
 */
bool os_command_reap_names_ends(void);
/* How COMMAND ended: 0, or -EBUSY while it runs. */
int os_command_exit(const struct os_command *c, struct os_command_exit *ret_exit);
/* Sends sig to COMMAND alone (on Windows any signal ends the job). */
int os_command_signal(struct os_command *c, int sig);
/*
 * Did COMMAND get sig by itself? sig reached the caller (from_kernel: the
 * terminal sent it, not a process); one sent to the caller's whole process
 * group reached COMMAND too, when it is still in that group.
 */
bool os_command_got_signal(struct os_command *c, int sig, bool from_kernel);
/*
 * Sends sig to each of the tree's living processes (Windows: ends the
 * job), by its pid in the caller's own numbering, and only to the process
 * the tree listed. Returns how many it was sent to; *ret_refused: how many
 * have no pid the caller can tell (they live in a namespace above it). A
 * negative errno when the tree cannot be listed.
 */
int os_command_signal_tree(struct os_command *c, int sig, size_t *ret_refused);
/*
 * The host memory the whole tree holds, where the OS keeps it for the tree
 * (Windows' job: its peak commit, or its processes' working sets where it
 * keeps none), into *ret_bytes, with what it measures ("commit", "rss")
 * and whether it is a peak. -ENOTSUP where each process is read instead
 * (os_process_memory).
 */
int os_command_memory(struct os_command *c, uint64_t *ret_bytes, const char **ret_measure, bool *ret_is_peak);
struct os_command *os_command_free(struct os_command *c);

/* ---- users, memory, the environment ---- */

/* uid's user name into buf: 0, -ENOENT when it has none, -ENOTSUP on Windows (owners are named with the details). */
int os_user_name(uint32_t uid, char *buf, size_t size);
/*
 * The system's memory and what it has available (Linux: MemTotal and
 * MemAvailable of $HMN_PROCFS/meminfo), for GPUs without memory of their own.
 */
int os_system_memory(const char *procfs, uint64_t *ret_total, uint64_t *ret_available);
/* Resident set size of the calling process, in bytes. */
int os_self_rss(const char *procfs, uint64_t *ret_bytes);
/*
 * One process's share of the host memory of a tree, each page counted once
 * across the tree where the OS can say (os/linux/process.c,
 * os/darwin/process.c): Linux its Pss from smaps_rollup, VmRSS where that
 * cannot be read (*ret_is_rss); macOS its physical footprint; Windows its
 * working set (is_rss: hmn run reads the job's own figure first). 0 with
 * the bytes, -ESRCH when it has gone (a zombie too: its memory is freed),
 * another negative code when it cannot be read at all.
 */
int os_process_memory(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss);
/* Is the process still running: there, and not a zombie? */
bool os_process_running(struct os_proc_root *root, uint32_t pid);
/* The name of what os_process_memory() measures where it is exact: "pss", "footprint", "rss". */
extern const char os_process_memory_measure[];
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

/*
 * How many NVIDIA GPUs the system shows, whether or not a driver answers
 * for them (Linux: display-class PCI functions under $HMN_SYSFS or /sys),
 * their PCI addresses into where ("0000:01:00.0, ..."); 0 where the OS has
 * no such census (Windows, macOS).
 */
unsigned os_nvidia_gpus_shown(char *where, size_t size);

/* ---- files: read at 64-bit offsets, folders listed (os/posix/file.c, os/windows/file.c) ---- */

enum os_path_kind { OS_PATH_MISSING, OS_PATH_FILE, OS_PATH_DIRECTORY };
/* What path is: -errno when it cannot be told. */
int os_path_kind(const char *path);
/*
 * Is path a symbolic link that leads nowhere (its target deleted)? False
 * for anything else, and on Windows, where os_path_kind() already says
 * such a link is a file and opening it says why it cannot be.
 */
bool os_path_dangling(const char *path);
/* Opens path for reading at offsets (64-bit on every OS): a reader named path. */
int os_file_open(const char *path, struct reader *ret_reader);
void os_file_close(struct reader *reader);
/* The files in dir whose names end with suffix, sorted, into *ret (empty on entry). */
int os_list_dir(const char *dir, const char *suffix, size_t max, struct name_list *ret);
/* The folders in dir (links to folders included, no dot-names), sorted, into *ret (empty on entry). */
int os_list_folders(const char *dir, size_t max, struct name_list *ret);
/* path made absolute, "." and ".." resolved (links too, where the OS does), malloc'd; NULL on failure. */
char *os_full_path(const char *path);

#endif
