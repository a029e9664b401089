/*
 * What macOS says about a process: proc_pidpath for its executable,
 * proc_pidinfo(PROC_PIDTBSDINFO) for its owner, proc_pid_rusage for its
 * physical footprint (what Activity Monitor calls Memory), the
 * KERN_PROCARGS2 sysctl for its command line; task_info for our own
 * footprint. EPERM means another user's process (protected), ESRCH a
 * process that has exited.
 */
#include <errno.h>
#include <libproc.h>
#include <mach/mach.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "os/darwin/darwin-parse.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

unsigned os_nvidia_gpus_shown(char *where, size_t size)
{
	/* no NVIDIA GPU runs on a Mac that macOS drives */
	if (size)
		where[0] = '\0';
	return 0;
}

const char *os_procfs_root(void)
{
	return "the process table";
}

uint32_t os_self_pid(void)
{
	return (uint32_t)getpid();
}

struct os_proc_root {
	bool commands;        /* read each process's command line */
};

struct os_proc_root *os_proc_root_open(const char *path)
{
	(void)path;
	return calloc(1, sizeof(struct os_proc_root));
}

void os_proc_root_read_commands(struct os_proc_root *root)
{
	root->commands = true;
}

struct os_proc_root *os_proc_root_close(struct os_proc_root *root)
{
	free(root);
	return NULL;
}

const char os_process_memory_measure[] = "footprint";

/*
 * The physical footprint: what the kernel's ledger charges the process for
 * (its dirty and compressed pages; Activity Monitor's Memory), not the clean
 * pages of the files it maps, which a resident set would count in each
 * process that maps them.
 */
bool os_process_running(struct os_proc_root *root, uint32_t pid)
{
	struct proc_bsdinfo info;
	(void)root;
	if (proc_pidinfo((pid_t)pid, PROC_PIDTBSDINFO, 0, &info, sizeof(info)) != (int)sizeof(info))
		return errno == EPERM; /* there, but not ours to ask */
	return info.pbi_status != SZOMB;
}

int os_process_memory(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	struct rusage_info_v2 usage;
	(void)root;
	if (proc_pid_rusage((int)pid, RUSAGE_INFO_V2, (rusage_info_t *)&usage) != 0)
		return -errno; /* ESRCH: gone; EPERM: another user's, unless we are root */
	*ret_bytes = usage.ri_phys_footprint;
	*ret_is_rss = false;
	return 0;
}

static int read_process(uint32_t pid, struct os_process_details *d, struct hmn_arena *arena)
{
	char path[PROC_PIDPATHINFO_MAXSIZE];
	struct proc_bsdinfo info;

	*d = (struct os_process_details){ .uid = HMN_UID_UNKNOWN, .ram_bytes = HMN_UNKNOWN, .exists = true };
	if (proc_pidinfo((int)pid, PROC_PIDTBSDINFO, 0, &info, sizeof(info)) == (int)sizeof(info))
		d->uid = info.pbi_uid;
	else if (errno == ESRCH)
		d->exists = false;
	uint64_t footprint;
	bool is_rss;
	/* Another user's process answers EPERM unless we are root: unknown, then. */
	if (os_process_memory(NULL, pid, &footprint, &is_rss) == 0)
		d->ram_bytes = footprint;
	int n = proc_pidpath((int)pid, path, sizeof(path));
	if (n > 0) {
		path[n < (int)sizeof(path) ? n : (int)sizeof(path) - 1] = '\0';
		d->path = arena_strdup(arena, path);
		d->name = d->path ? arena_strdup(arena, path_basename_any(path)) : NULL;
		if (!d->name)
			return -ENOMEM;
	} else if (errno == EPERM || errno == EACCES) {
		d->is_protected = true;
	} else if (errno == ESRCH) {
		d->exists = false;
	}
	return 0;
}

/* The most a KERN_PROCARGS2 answer holds: kern.argmax (ARG_MAX, 1 MiB); 0 when it cannot be told. */
static size_t args_max(void)
{
	int mib[2] = { CTL_KERN, KERN_ARGMAX }, argmax = 0;
	size_t size = sizeof(argmax);
	return sysctl(mib, 2, &argmax, &size, NULL, 0) == 0 && argmax > 0 ? (size_t)argmax : 0;
}

/*
 * pid's command line (KERN_PROCARGS2, parse_procargs2), its first
 * OS_COMMAND_MAX bytes, in buf (size bytes: the kernel wants room for
 * kern.argmax): how many words, the first at *ret_start, each ending in a
 * NUL. 0 where it cannot be read (another user's process, unless we are
 * root; the kernel's, pid 0).
 */
static size_t read_command(uint32_t pid, char *buf, size_t size, size_t *ret_start)
{
	int mib[3] = { CTL_KERN, KERN_PROCARGS2, (int)pid };
	size_t len = size - 1, words_len; /* room for the last word's NUL */

	if (sysctl(mib, 3, buf, &len, NULL, 0) != 0)
		return 0;
	size_t n = parse_procargs2(buf, len, OS_COMMAND_MAX, ret_start, &words_len);
	if (n > 0)
		buf[*ret_start + words_len] = '\0';
	return n;
}

int os_process_details(struct os_proc_root *root, const uint32_t *pids, size_t n,
		       struct os_process_details *out, struct hmn_arena *arena)
{
	size_t size = root->commands ? args_max() + 1 : 0;
	char *args = size > 1 ? malloc(size) : NULL;
	int r = size > 1 && !args ? -ENOMEM : 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		r = read_process(pids[i], &out[i], arena);
		size_t start, words = r == 0 && args && out[i].exists ? read_command(pids[i], args, size, &start) : 0;
		if (words > 0 && !(out[i].command = arena_words(arena, args + start, words)))
			r = -ENOMEM;
	}
	free(args);
	return r;
}

int os_system_memory(const char *procfs, uint64_t *ret_total, uint64_t *ret_available)
{
	/* The metal source measures Apple's unified memory itself; no NVIDIA GPU runs macOS. */
	(void)procfs;
	(void)ret_total;
	(void)ret_available;
	return -ENOTSUP;
}

int os_self_rss(const char *procfs, uint64_t *ret_bytes)
{
	/* phys_footprint: what Activity Monitor calls Memory, compressed pages included. */
	task_vm_info_data_t info;
	mach_msg_type_number_t count = TASK_VM_INFO_COUNT;
	(void)procfs;
	if (task_info(mach_task_self(), TASK_VM_INFO, (task_info_t)&info, &count) != KERN_SUCCESS)
		return -EIO;
	*ret_bytes = info.phys_footprint;
	return 0;
}
