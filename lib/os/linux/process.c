/*
 * What Linux says about a process: /proc/PID/exe for its name and path,
 * /proc/PID/status for its owner and resident set (VmRSS), smaps_rollup for
 * its proportional set (Pss, hmn run's tree), /proc/PID/comm when exe is unreadable,
 * /proc/PID/cgroup for its container and Kubernetes pod, /proc/PID/cmdline
 * for its command line.
 * $HMN_PROCFS replaces /proc, for a host's /proc mounted in a container and
 * for test trees.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

const char *os_procfs_root(void)
{
	const char *root = os_trusted_getenv("HMN_PROCFS");
	return root && *root ? root : "/proc";
}

uint32_t os_self_pid(void)
{
	return (uint32_t)getpid();
}

struct os_proc_root {
	int fd;               /* -1: could not open; paths then fail as ENOENT */
	bool start_times;     /* read each process's stat for its start time */
	bool commands;        /* read each process's cmdline */
};

void os_proc_root_read_start_times(struct os_proc_root *root)
{
	root->start_times = true;
}

void os_proc_root_read_commands(struct os_proc_root *root)
{
	root->commands = true;
}

struct os_proc_root *os_proc_root_open(const char *path)
{
	struct os_proc_root *root = malloc(sizeof(*root));
	if (root) {
		root->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		root->start_times = root->commands = false;
	}
	return root;
}

struct os_proc_root *os_proc_root_close(struct os_proc_root *root)
{
	if (root) {
		if (root->fd >= 0)
			close(root->fd);
		free(root);
	}
	return NULL;
}

static bool is_permission_error(int r)
{
	return r == -EACCES || r == -EPERM;
}

/* "PID/" into buf; returns where the file name goes. */
static char *pid_dir(char buf[32], uint32_t pid)
{
	size_t len = linux_put_uint(buf, 0, pid);
	buf[len++] = '/';
	return buf + len;
}

/*
 * "PID/task/TID/" into buf for a thread of pid other than its first, where
 * the first has ended and others run on (pthread_exit in main): the
 * process's own files then read as a zombie's (smaps_rollup ESRCH, statm
 * zeros, no VmRSS), a running thread's as the whole process's, which they
 * share. Returns where the file name goes; NULL where pid has no such
 * thread (a zombie, all of it; gone).
 */
static char *other_thread_dir(int procfs, uint32_t pid, char buf[64])
{
	char *file = pid_dir(buf, pid);
	strcpy(file, "task");
	int fd = openat(procfs, buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *end = NULL;
	struct dirent *e;
	while (!end && (e = readdir(dir))) {
		char *p;
		unsigned long tid = strtoul(e->d_name, &p, 10);
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*p && tid != pid && tid <= UINT32_MAX) {
			size_t len = (size_t)(file - buf) + strlen("task/");
			len = linux_put_uint(buf, len, tid);
			buf[len++] = '/';
			end = buf + len;
		}
	}
	closedir(dir);
	if (end)
		memcpy(file, "task/", strlen("task/"));
	return end;
}

/* statm's resident pages in dir (a process's or one of its threads'), in bytes. */
static int read_statm(int procfs, const char *path, uint64_t *ret_bytes)
{
	char buf[256];
	uint64_t pages;
	ssize_t n = linux_read_head(procfs, path, buf, sizeof(buf));
	if (n <= 0 || parse_statm_resident(buf, (size_t)n, &pages) < 0)
		return -ENODATA;
	long page = sysconf(_SC_PAGESIZE);
	*ret_bytes = pages * (uint64_t)(page > 0 ? page : 4096);
	return 0;
}

/* The resident set of a process whose first thread has ended, from another's statm; -ESRCH: it has no other. */
static int other_thread_ram(int procfs, uint32_t pid, uint64_t *ret_bytes)
{
	char path[64];
	char *file = other_thread_dir(procfs, pid, path);
	if (!file)
		return -ESRCH;
	strcpy(file, "statm");
	return read_statm(procfs, path, ret_bytes);
}

/* One process, into a caller's buffers: this runs per process, so it allocates nothing. */
struct process_read {
	char name[256];       /* "": unknown */
	char path[4096];      /* "": unknown */
	char container[96];   /* "": none */
	char pod_uid[HMN_POD_UID_SIZE]; /* "": none */
	uint32_t uid, ns_pid;
	uint64_t start_time;
	uint64_t ram_bytes;   /* VmRSS; HMN_UNKNOWN: none (a kernel thread) or unreadable */
	bool exists, is_protected;
	/* One byte past the bound, to tell a longer cmdline, and its NUL. */
	char command[OS_COMMAND_MAX + 2];
	size_t command_words; /* 0: none (unreadable, empty), or not read */
};

static void read_process(struct os_proc_root *root, uint32_t pid, struct process_read *info)
{
	/* VmRSS sits below Groups, which can be long: room for a few hundred groups. */
	char path[32], buf[16384];
	uint32_t uid = HMN_UID_UNKNOWN;
	uint64_t rss = HMN_UNKNOWN;
	char *file = pid_dir(path, pid);
	int dir = root->fd;
	ssize_t n;

	info->name[0] = info->path[0] = info->container[0] = info->pod_uid[0] = '\0';
	info->uid = HMN_UID_UNKNOWN;
	info->ns_pid = 0;
	info->start_time = 0;
	info->ram_bytes = HMN_UNKNOWN;
	info->exists = info->is_protected = false;

	/* status first: if it is gone, so is the process. */
	strcpy(file, "status");
	n = dir >= 0 ? linux_read_head(dir, path, buf, sizeof(buf)) : -ENOENT;
	if (n == -ENOENT || n == -ESRCH)
		return; /* exited, or lives in another PID namespace */
	info->exists = true;
	if (n < 0)
		info->is_protected = is_permission_error((int)n);
	else if (parse_proc_status(buf, (size_t)n, NULL, 0, &uid, &rss) == 0)
		info->uid = uid, info->ram_bytes = rss;
	/* No VmRSS: a zombie, or a process whose first thread has ended (its others' is its). */
	if (n > 0 && info->ram_bytes == HMN_UNKNOWN)
		other_thread_ram(dir, pid, &info->ram_bytes);
	unsigned depth = 0;
	if (n > 0 && parse_proc_nspid(buf, (size_t)n, &info->ns_pid, &depth) == 0 && depth > 1) {
		/* In a nested PID namespace: a container, most likely. Only then read cgroup. */
		strcpy(file, "cgroup");
		ssize_t m = linux_read_head(dir, path, buf, sizeof(buf));
		if (m > 0 && !parse_container(buf, (size_t)m, info->container, sizeof(info->container)))
			info->container[0] = '\0';
		if (m > 0 && parse_pod_uid(buf, (size_t)m, info->pod_uid, sizeof(info->pod_uid)) <= 0)
			info->pod_uid[0] = '\0';
	} else {
		info->ns_pid = 0;
	}
	/* When it started: with the pid, which process this is (a pid is given again later). */
	struct proc_stat st;
	strcpy(file, "stat");
	n = root->start_times ? linux_read_head(dir, path, buf, sizeof(buf)) : -ENOENT;
	if (n > 0 && parse_stat(buf, (size_t)n, &st) == 0)
		info->start_time = st.start_time;

	strcpy(file, "exe");
	n = readlinkat(dir, path, info->path, sizeof(info->path) - 1);
	if (n > 0) {
		info->path[n] = '\0';
		exe_basename(info->path, info->name, sizeof(info->name));
		return;
	}
	info->path[0] = '\0';
	/*
	 * exe is unreadable for other users' processes (EACCES) and absent for
	 * kernel threads: comm still names them, cut to 15 bytes.
	 */
	strcpy(file, "comm");
	n = linux_read_head(dir, path, info->name, sizeof(info->name));
	if (n > 0) {
		if (info->name[n - 1] == '\n')
			info->name[n - 1] = '\0';
	} else if (n == -ENOENT || n == -ESRCH) {
		info->exists = false; /* exited between the two reads */
		info->uid = HMN_UID_UNKNOWN;
		info->ram_bytes = HMN_UNKNOWN;
		info->is_protected = false;
	} else {
		info->name[0] = '\0';
		if (is_permission_error((int)n))
			info->is_protected = true;
	}
}

/*
 * The command line, cut at OS_COMMAND_MAX bytes: the words of cmdline
 * (argv_words) into info->command, each NUL-terminated. The kernel reads
 * it from the process's memory under its memory map's lock: a process
 * that holds that lock long (stuck in a page fault) holds this read as
 * long, as it holds ps(1)'s; hence only for a context that shows it.
 */
static void read_command(int dir, uint32_t pid, struct process_read *info)
{
	char path[32];
	size_t len;

	strcpy(pid_dir(path, pid), "cmdline");
	ssize_t n = linux_read_head(dir, path, info->command, sizeof(info->command));
	if (n <= 0)
		return;
	bool cut = n > OS_COMMAND_MAX;
	info->command_words = argv_words(info->command, cut ? OS_COMMAND_MAX : (size_t)n, cut, &len);
	info->command[len] = '\0';
}

int os_process_ram(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes)
{
	char path[64];
	char *file = pid_dir(path, pid);
	uint64_t rss = HMN_UNKNOWN;

	if (root->fd < 0)
		return -ENOENT;
	/* statm: a line the kernel makes far more cheaply than status. */
	strcpy(file, "statm");
	if (read_statm(root->fd, path, ret_bytes) == 0) {
		/* Nothing resident: a zombie, or a process whose first thread has ended (its other threads' statm). */
		if (*ret_bytes == 0)
			other_thread_ram(root->fd, pid, ret_bytes);
		return 0;
	}
	/* No statm (a test tree): status's VmRSS, as read_process reads it. */
	char status[4096];
	strcpy(file, "status");
	ssize_t n = linux_read_head(root->fd, path, status, sizeof(status));
	if (n < 0)
		return (int)n;
	if (parse_proc_status(status, (size_t)n, NULL, 0, NULL, &rss) < 0 || rss == HMN_UNKNOWN)
		return -ENODATA;
	*ret_bytes = rss;
	return 0;
}

bool os_process_running(struct os_proc_root *root, uint32_t pid)
{
	struct proc_stat st;
	if (root->fd < 0)
		return false;
	int r = linux_read_stat(root->fd, pid, &st);
	/* A stat that cannot be read otherwise, or parsed (a test tree has none): there, so running. */
	if (r == -ENOENT || r == -ESRCH)
		return false;
	return r < 0 || proc_stat_running(&st);
}

int os_process_stat(struct os_proc_root *root, uint32_t pid, uint64_t *ret_start_time, uint64_t *ret_ram_bytes)
{
	struct proc_stat st;
	if (root->fd < 0)
		return -ENOENT;
	int r = linux_read_stat(root->fd, pid, &st);
	if (r < 0)
		return r == -EINVAL ? -ENODATA : r;
	if (st.start_time == 0)
		return -ENODATA;
	*ret_start_time = st.start_time;
	/* A first thread that ended while others run on: stat's rss is its own, 0 (os_process_ram reads the others'). */
	bool leaderless = st.state == 'Z' && st.threads > 1;
	if (ret_ram_bytes && st.rss_pages != HMN_UNKNOWN && !leaderless) {
		long page = sysconf(_SC_PAGESIZE);
		*ret_ram_bytes = st.rss_pages * (uint64_t)(page > 0 ? page : 4096);
	} else if (ret_ram_bytes) {
		*ret_ram_bytes = HMN_UNKNOWN;
	}
	return 0;
}

int os_process_start_time(struct os_proc_root *root, uint32_t pid, uint64_t *ret_start_time)
{
	return os_process_stat(root, pid, ret_start_time, NULL);
}

/* Reads pids[begin, end) into out, strings into arena; -ENOMEM. */
static int read_range(struct os_proc_root *root, const uint32_t *pids, size_t begin, size_t end,
		      struct os_process_details *out, struct hmn_arena *arena)
{
	struct process_read *info = malloc(sizeof(*info));
	int r = 0;

	if (!info)
		return -ENOMEM;
	for (size_t i = begin; i < end && r == 0; i++) {
		read_process(root, pids[i], info);
		info->command_words = 0; /* stays 0 where it cannot be read */
		if (info->exists && root->commands)
			read_command(root->fd, pids[i], info);
		out[i] = (struct os_process_details){
			.name = info->name[0] ? arena_strdup(arena, info->name) : NULL,
			.path = info->path[0] ? arena_strdup(arena, info->path) : NULL,
			.container = info->container[0] ? arena_strdup(arena, info->container) : NULL,
			.pod_uid = info->pod_uid[0] ? arena_strdup(arena, info->pod_uid) : NULL,
			.command = info->command_words ? arena_words(arena, info->command, info->command_words) : NULL,
			.uid = info->uid,
			.ns_pid = info->ns_pid,
			.start_time = info->start_time,
			.ram_bytes = info->ram_bytes,
			.exists = info->exists,
			.is_protected = info->is_protected,
		};
		if ((info->name[0] && !out[i].name) || (info->path[0] && !out[i].path) ||
		    (info->container[0] && !out[i].container) || (info->pod_uid[0] && !out[i].pod_uid) ||
		    (info->command_words && !out[i].command))
			r = -ENOMEM;
	}
	free(info);
	return r;
}

struct worker {
	struct os_proc_root *root;
	const uint32_t *pids;
	size_t begin, end;
	struct os_process_details *out;
	struct hmn_arena *arena;
	int r;
};

static void *worker_main(void *data)
{
	struct worker *w = data;
	w->r = read_range(w->root, w->pids, w->begin, w->end, w->out, w->arena);
	return NULL;
}

/*
 * Below this many processes a second thread costs more than it saves; above
 * it, reading /proc is all system calls, and two cores halve the time.
 */
#define THREAD_THRESHOLD 512

int os_process_details(struct os_proc_root *root, const uint32_t *pids, size_t n,
		       struct os_process_details *out, struct hmn_arena *arena)
{
	struct worker w = { .root = root, .pids = pids, .begin = n / 2, .end = n, .out = out };
	pthread_t thread;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < THREAD_THRESHOLD || cpus < 2 || !(w.arena = arena_new()))
		return read_range(root, pids, 0, n, out, arena);
	if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
		arena_free(w.arena);
		return read_range(root, pids, 0, n, out, arena);
	}
	int r = read_range(root, pids, 0, n / 2, out, arena);
	pthread_join(thread, NULL);
	arena_adopt(arena, w.arena);
	return r < 0 ? r : w.r;
}

const char os_process_memory_measure[] = "pss";

/* Pss, or VmRSS, from dir: a process's, or one of its threads' (other_thread_dir). */
static int read_memory(int procfs, char *path, char *file, uint64_t *ret_bytes, bool *ret_is_rss)
{
	char buf[4096];
	uint64_t bytes;

	strcpy(file, "smaps_rollup");
	ssize_t n = linux_read_head(procfs, path, buf, sizeof(buf));
	int r = n >= 0 ? parse_smaps_pss(buf, (size_t)n, &bytes) : (int)n;
	if (r == -ENODATA || r == -ESRCH)
		return -ESRCH; /* empty: a zombie, its memory freed: gone as far as memory goes */
	if (r == 0) {
		*ret_bytes = bytes;
		*ret_is_rss = false;
		return 0;
	}
	char status[16384]; /* VmRSS sits below Groups, which can be long */
	strcpy(file, "status");
	n = linux_read_head(procfs, path, status, sizeof(status));
	if (n == -ENOENT || n == -ESRCH)
		return -ESRCH;
	if (n < 0)
		return (int)n;
	if (parse_proc_status(status, (size_t)n, NULL, 0, NULL, &bytes) < 0)
		return -EINVAL;
	/* No VmRSS: a zombie's status (or a kernel thread's): nothing held, gone. */
	if (bytes == HMN_UNKNOWN)
		return -ESRCH;
	*ret_bytes = bytes;
	*ret_is_rss = true;
	return 0;
}

/*
 * Pss, not the resident set: a page shared by k processes counts 1/k in
 * each, so that a parent's memory its forked workers only read counts once
 * in the tree, not once per worker. Where smaps_rollup cannot be read (a
 * kernel before 4.14; a process we may not ptrace-read) VmRSS stands in.
 * A process whose first thread has ended reads as gone: its other threads
 * answer for it.
 */
int os_process_memory(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	char path[64];

	if (root->fd < 0)
		return -ENOENT;
	int r = read_memory(root->fd, path, pid_dir(path, pid), ret_bytes, ret_is_rss);
	char *file;
	if (r == -ESRCH && (file = other_thread_dir(root->fd, pid, path)))
		r = read_memory(root->fd, path, file, ret_bytes, ret_is_rss);
	return r;
}

int os_system_memory(const char *procfs, uint64_t *ret_total, uint64_t *ret_available)
{
	char path[4096], buf[8192];

	snprintf(path, sizeof(path), "%s/meminfo", procfs);
	ssize_t n = linux_read_head(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse_meminfo(buf, (size_t)n, ret_total, ret_available);
}

int os_self_rss(const char *procfs, uint64_t *ret_bytes)
{
	/* VmRSS sits below Groups, which can be long. */
	char path[4096], buf[16384];
	uint64_t rss = HMN_UNKNOWN;

	snprintf(path, sizeof(path), "%s/self/status", procfs);
	ssize_t n = linux_read_head(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (parse_proc_status(buf, (size_t)n, NULL, 0, NULL, &rss) < 0 || rss == HMN_UNKNOWN)
		return -EINVAL;
	*ret_bytes = rss;
	return 0;
}
