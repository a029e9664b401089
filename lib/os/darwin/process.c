/*
 * What macOS says about a process: proc_pidpath for its executable,
 * proc_pidinfo(PROC_PIDTBSDINFO) for its owner, proc_pid_rusage for its
 * physical footprint (what Activity Monitor calls Memory); task_info for
 * our own footprint. EPERM means another user's process (protected), ESRCH a
 * process that has exited.
 */
#include <errno.h>
#include <libproc.h>
#include <mach/mach.h>
#include <stdlib.h>
#include <string.h>
#include <sys/proc.h>
#include <unistd.h>

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
	int unused;
};

struct os_proc_root *os_proc_root_open(const char *path)
{
	(void)path;
	return calloc(1, sizeof(struct os_proc_root));
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

int os_process_details(struct os_proc_root *root, const uint32_t *pids, size_t n,
		       struct os_process_details *out, struct hmn_arena *arena)
{
	(void)root;
	for (size_t i = 0; i < n; i++) {
		int r = read_process(pids[i], &out[i], arena);
		if (r < 0)
			return r;
	}
	return 0;
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
