/*
 * What Windows says about a process: OpenProcess with the least access that
 * names it (PROCESS_QUERY_LIMITED_INFORMATION), QueryFullProcessImageNameW
 * for its path, its token for its owner, K32GetProcessMemoryInfo for its
 * working set (that access suffices since Windows 8.1). PID 4 is the kernel ("System").
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

#define KERNEL_PID 4

unsigned os_nvidia_gpus_shown(char *where, size_t size)
{
	/* a census of the PCI bus needs SetupAPI; not done yet */
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
	return (uint32_t)GetCurrentProcessId();
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

/*
 * Windows documents no cheap call for another process's command line: it
 * lies in that process's memory (its PEB), which ReadProcessMemory reaches
 * with more access than a name needs, through a layout Windows does not
 * document, and WMI's Win32_Process asks a COM service per query. None
 * here: the command stays NULL.
 */
void os_proc_root_read_commands(struct os_proc_root *root)
{
	(void)root;
}

/*
 * Owners seen in one listing: most processes belong to a handful of users,
 * and LookupAccountSidW may ask a domain controller, so each SID is looked
 * up once per listing.
 */
#define OWNERS_MAX 16
struct owners {
	struct { unsigned char sid[SECURITY_MAX_SID_SIZE]; const char *name; } seen[OWNERS_MAX];
	size_t n;
};

/*
 * The account name of a process's owner ("DOMAIN\\user" would be long and
 * rarely useful: the name alone, as whoami's), in arena; NULL when unreadable.
 */
static const char *token_user(HANDLE process, struct owners *owners, struct hmn_arena *arena)
{
	HANDLE token;
	union { TOKEN_USER user; char bytes[256]; } info;
	DWORD len = 0;
	wchar_t name[256], domain[256];
	DWORD name_len = 256, domain_len = 256;
	SID_NAME_USE use;
	char utf8[256];
	const char *found = NULL;

	if (!OpenProcessToken(process, TOKEN_QUERY, &token))
		return NULL;
	if (!GetTokenInformation(token, TokenUser, &info, sizeof(info), &len)) {
		CloseHandle(token);
		return NULL;
	}
	PSID sid = info.user.User.Sid;
	for (size_t i = 0; i < owners->n; i++)
		if (EqualSid(sid, (PSID)owners->seen[i].sid)) {
			CloseHandle(token);
			return owners->seen[i].name;
		}
	if (LookupAccountSidW(NULL, sid, name, &name_len, domain, &domain_len, &use) &&
	    utf16_to_utf8((const uint16_t *)name, name_len, utf8, sizeof(utf8)) > 0)
		found = arena_strdup(arena, utf8);
	DWORD sid_len = GetLengthSid(sid);
	if (found && owners->n < OWNERS_MAX && sid_len <= SECURITY_MAX_SID_SIZE) {
		memcpy(owners->seen[owners->n].sid, sid, sid_len);
		owners->seen[owners->n++].name = found;
	}
	CloseHandle(token);
	return found;
}

/* Fills d; -ENOMEM when a string could not be kept. */
static int read_process(uint32_t pid, struct os_process_details *d, struct owners *owners,
			struct hmn_arena *arena)
{
	*d = (struct os_process_details){ .uid = HMN_UID_UNKNOWN, .ram_bytes = HMN_UNKNOWN };
	if (pid == KERNEL_PID) {
		d->name = "[kernel]";
		d->exists = true;
		return 0;
	}
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (!h) {
		DWORD e = GetLastError();
		/* Access denied: it is there, but not ours to read. Invalid parameter: no such pid. */
		d->exists = e == ERROR_ACCESS_DENIED;
		d->is_protected = e == ERROR_ACCESS_DENIED;
		return 0;
	}
	DWORD code;
	d->exists = !GetExitCodeProcess(h, &code) || code == STILL_ACTIVE;
	wchar_t wide[MAX_PATH * 4];
	DWORD len = sizeof(wide) / sizeof(wide[0]);
	char path[MAX_PATH * 4 * 3];
	if (QueryFullProcessImageNameW(h, 0, wide, &len) &&
	    utf16_to_utf8((const uint16_t *)wide, len, path, sizeof(path)) > 0) {
		d->path = arena_strdup(arena, path);
		d->name = d->path ? arena_strdup(arena, path_basename_any(path)) : NULL;
	} else if (GetLastError() == ERROR_ACCESS_DENIED) {
		d->is_protected = true;
	}
	d->user = token_user(h, owners, arena);
	PROCESS_MEMORY_COUNTERS counters = { .cb = sizeof(counters) };
	if (d->exists && K32GetProcessMemoryInfo(h, &counters, sizeof(counters)))
		d->ram_bytes = counters.WorkingSetSize;
	CloseHandle(h);
	return d->path && !d->name ? -ENOMEM : 0;
}

int os_process_details(struct os_proc_root *root, const uint32_t *pids, size_t n,
		       struct os_process_details *out, struct hmn_arena *arena)
{
	struct owners owners = { .n = 0 };
	(void)root;
	for (size_t i = 0; i < n; i++) {
		int r = read_process(pids[i], &out[i], &owners, arena);
		if (r < 0)
			return r;
	}
	return 0;
}

int os_user_name(uint32_t uid, char *buf, size_t size)
{
	(void)uid, (void)buf, (void)size;
	return -ENOTSUP; /* Windows has SIDs, not uids: os_process_details names the owner */
}

int os_system_memory(const char *procfs, uint64_t *ret_total, uint64_t *ret_available)
{
	MEMORYSTATUSEX status = { .dwLength = sizeof(status) };
	(void)procfs;
	if (!GlobalMemoryStatusEx(&status) || status.ullTotalPhys == 0)
		return -EIO;
	*ret_total = status.ullTotalPhys;
	*ret_available = status.ullAvailPhys < status.ullTotalPhys ? status.ullAvailPhys : status.ullTotalPhys;
	return 0;
}

int os_self_rss(const char *procfs, uint64_t *ret_bytes)
{
	PROCESS_MEMORY_COUNTERS counters = { .cb = sizeof(counters) };
	(void)procfs;
	if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof(counters)))
		return -EIO;
	*ret_bytes = counters.WorkingSetSize;
	return 0;
}

const char os_process_memory_measure[] = "rss";

int os_process_memory(struct os_proc_root *root, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	(void)root;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	PROCESS_MEMORY_COUNTERS counters = { .cb = sizeof(counters) };
	if (!h)
		return GetLastError() == ERROR_INVALID_PARAMETER ? -ESRCH : -EACCES; /* no such process: gone */
	BOOL read = K32GetProcessMemoryInfo(h, &counters, sizeof(counters));
	CloseHandle(h);
	if (!read)
		return -EIO;
	*ret_bytes = counters.WorkingSetSize;
	*ret_is_rss = true;
	return 0;
}

bool os_process_running(struct os_proc_root *root, uint32_t pid)
{
	(void)root;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	DWORD code = 0;
	bool running = h && GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
	if (h)
		CloseHandle(h);
	return running;
}
