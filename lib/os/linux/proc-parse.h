/*
 * What Linux prints in /proc, parsed (os/linux/proc-parse.c): pure, built on
 * every OS for the unit tests and fuzzers.
 */
#ifndef HMN_OS_LINUX_PROC_PARSE_H
#define HMN_OS_LINUX_PROC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn-common.h"

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
	char state;           /* 'R', 'S', 'Z' (a zombie, or a leader whose other threads run on), ... */
	uint64_t threads;     /* its threads (field 20); 0: unreadable */
	uint64_t start_time;  /* clock ticks after boot (field 22); 0: unreadable */
	uint64_t rss_pages;   /* resident pages (field 24, as statm and VmRSS count them); HMN_UNKNOWN: none */
};
int parse_stat(const char *text, size_t len, struct proc_stat *ret);
/*
 * Does the process that stat is of still run? Not when it is dead ('X') or
 * a zombie, but a main thread that ended alone (pthread_exit in main) reads
 * 'Z' while its other threads run on: that process runs, its memory and
 * GPU memory held (ps says "Zl"). A zombie counts the main thread alone.
 */
bool proc_stat_running(const struct proc_stat *st);
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

#endif
