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
 * ---- process trees (os/linux/tree.c, os/darwin/tree.c) ----
 *
 * os_become_subreaper:
 * orphaned descendants are re-parented to the caller (Linux); -ENOTSUP
 * elsewhere. os_add_descendants (macOS; Linux walks its children files in
 * os/linux/tree.c): appends every living descendant of root (not root) to
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
 * fork() with every signal blocked across it (os/posix/fork.c). In the
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
 * it alone (os/linux/group.c): a sentinel child in the group keeps them
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
#ifndef _WIN32
/*
 * One process's share of the host memory of a tree, each page counted once
 * across the tree where the OS can say (os/linux/process.c,
 * os/darwin/process.c): Linux its Pss from smaps_rollup, VmRSS where that
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

/* ---- files: read at 64-bit offsets, folders listed (os/posix/file.c, os/windows/file.c) ---- */

enum os_path_kind { OS_PATH_MISSING, OS_PATH_FILE, OS_PATH_DIRECTORY };
/* What path is: -errno when it cannot be told. */
int os_path_kind(const char *path);
/* Opens path for reading at offsets (64-bit on every OS): a reader named path. */
int os_file_open(const char *path, struct reader *ret_reader);
void os_file_close(struct reader *reader);
/* The files in dir whose names end with suffix, sorted, into *ret (empty on entry). */
int os_list_dir(const char *dir, const char *suffix, size_t max, struct name_list *ret);
/* path made absolute, "." and ".." resolved (links too, where the OS does), malloc'd; NULL on failure. */
char *os_full_path(const char *path);

#endif
