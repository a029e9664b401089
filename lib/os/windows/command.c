/*
 * hmn run's command on Windows: CreateProcessW (no shell) inside a job
 * object, which every process it starts inherits, so the job's process list
 * is the tree, detached descendants included. The program is argv[0] when
 * it names a path, else found in PATH's absolute entries as cmd.exe finds
 * it (PATHEXT): never in the current directory, where CreateProcess would
 * look first. A batch file (by the name Windows opens: "run.bat." is one)
 * runs through cmd.exe /c, its arguments quoted for cmd.exe. The exit code
 * is the process's whole 32-bit code, which os_command_exit maps to 0-255
 * (a crash's NTSTATUS is never 0 or 5).
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "os/os.h"
#include "os/windows/command-line.h"
#include "os/windows/paths.h"
#include "os/windows/win32.h"

#define LINE_MAX_CHARS 32768 /* CreateProcessW's limit */

struct os_command {
	HANDLE job, process;
	DWORD pid;
	bool exited;
	uint32_t exit_code;   /* the process's own, 32 bits */
	bool in_job;          /* the job took the command: its list is the tree */
};

static bool has_separator(const wchar_t *s)
{
	return wcschr(s, L'\\') || wcschr(s, L'/') || wcschr(s, L':');
}

static bool is_file(const wchar_t *path)
{
	DWORD a = GetFileAttributesW(path);
	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/*
 * NAME in PATH's absolute entries, as cmd.exe looks for it: in each folder,
 * NAME itself when it already ends with one of PATHEXT's extensions, then
 * NAME with each extension of PATHEXT in turn (.COM;.EXE;.BAT;.CMD when it
 * is unset). NAME without an extension is never run: Node's "npm" beside
 * "npm.cmd" is a shell script, which Windows cannot start. False when none
 * has it.
 */
static bool find_in_path(const wchar_t *name, wchar_t *out, size_t size)
{
	struct pathext_entry exts[32];
	size_t n_exts = pathext_split((const uint16_t *)_wgetenv(L"PATHEXT"), exts, 32);
	bool has_ext = pathext_has((const uint16_t *)name, exts, n_exts);
	wchar_t *path = _wgetenv(L"PATH");
	if (!path)
		return false;
	for (wchar_t *p = path; *p;) {
		wchar_t *end = wcschr(p, L';');
		size_t n = end ? (size_t)(end - p) : wcslen(p);
		bool absolute = n >= 3 && p[1] == L':' && (p[2] == L'\\' || p[2] == L'/');
		for (size_t k = has_ext ? 0 : 1; absolute && k <= n_exts; k++) {
			const wchar_t *ext = k == 0 ? L"" : (const wchar_t *)exts[k - 1].ext;
			int w = _snwprintf(out, size, L"%.*ls\\%ls%ls", (int)n, p, name, ext);
			if (w < 0 || (size_t)w >= size)
				continue;
			if (is_file(out))
				return true;
		}
		p += n + (end ? 1 : 0);
	}
	return false;
}

/* program: argv[0] when it names a path, else found in PATH; -ENOENT when not found. */
static int find_program(const char *name, wchar_t *program, size_t size)
{
	wchar_t *w;
	int r = os_utf16(name, &w);
	if (r < 0)
		return r;
	if (has_separator(w)) {
		int n = _snwprintf(program, size, L"%ls", w);
		r = n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
	} else if (!find_in_path(w, program, size)) {
		r = -ENOENT;
	}
	free(w);
	return r;
}

/*
 * program's full name, as CreateProcess will open it: GetFullPathNameW
 * applies the same Win32 path rules ("." and ".." components, the trailing
 * dots and spaces of the last one), so that the name checked for a batch
 * file is the file that runs ("run.bat\x\.." is run.bat).
 */
static int full_path(const wchar_t *program, wchar_t *out, size_t size)
{
	DWORD n = GetFullPathNameW(program, (DWORD)size, out, NULL);
	if (n == 0)
		return os_errno_of(GetLastError(), -EACCES);
	return n < size ? 0 : -ENAMETOOLONG;
}

/*
 * A batch file's command line up to its arguments, "SYSTEM\cmd.exe" /e:on
 * /v:off /d /c ""SCRIPT", with cmd.exe from the system folder (never PATH
 * or ComSpec) as the program. -EINVAL when script still holds what Windows
 * drops from a name (a "::$DATA" suffix; the trailing dots that a name
 * under \\?\ keeps): cmd.exe is given the name of the file that runs, or
 * nothing.
 */
static int batch_start(const wchar_t *script, wchar_t *program, size_t program_size, wchar_t *line,
		       size_t size, size_t *len)
{
	wchar_t cmd[MAX_PATH];
	UINT n = GetSystemDirectoryW(cmd, MAX_PATH);
	if (wcschr(script, L'"'))
		return -EINVAL; /* no file name holds one; nothing could quote it */
	if (windows_name_length((const uint16_t *)script) != wcslen(script))
		return -EINVAL;
	if (n == 0 || n + 9 > MAX_PATH)
		return -ENOENT;
	_snwprintf(cmd + n, MAX_PATH - n, L"\\cmd.exe");
	int w = _snwprintf(line, size, L"\"%ls\" /e:on /v:off /d /c \"\"%ls\"", cmd, script);
	if (w < 0 || (size_t)w >= size)
		return -E2BIG;
	*len = (size_t)w;
	_snwprintf(program, program_size, L"%ls", cmd);
	return 0;
}

/*
 * The command line for program and argv: the C runtime's quoting; for a
 * batch file (by its full name, which CreateProcess goes by), cmd.exe's,
 * and cmd.exe becomes the program. -E2BIG past CreateProcess's 32,767
 * characters (never cut short), -EINVAL for an argument or a script name
 * cmd.exe cannot be given safely.
 */
static int build_command_line(char *const argv[], wchar_t *program, size_t program_size,
			      wchar_t *line, size_t size)
{
	uint16_t *l = (uint16_t *)line;
	wchar_t full[MAX_PATH];
	size_t len = 0;
	line[0] = 0;
	int r = full_path(program, full, MAX_PATH);
	if (r < 0)
		return r;
	bool batch = windows_is_batch((const uint16_t *)full);
	if (batch)
		r = batch_start(full, program, program_size, line, size, &len);
	/* argv[0] as given (the command sees it), unless cmd.exe runs the script. */
	for (size_t i = batch ? 1 : 0; argv[i] && r == 0; i++) {
		wchar_t *w = NULL;
		if ((r = os_utf16(argv[i], &w)) < 0)
			break;
		if (batch)
			r = cmdline_append_batch(l, size - 1, &len, (const uint16_t *)w); /* and the last quote */
		else
			r = cmdline_append(l, size, &len, (const uint16_t *)w);
		free(w);
	}
	if (r == 0 && batch) {
		line[len++] = L'"';
		line[len] = 0;
	}
	return r;
}

int os_command_start(char *const argv[], struct os_command **ret_command, bool *ret_exec_failed)
{
	*ret_exec_failed = false;
	static wchar_t line[LINE_MAX_CHARS];
	wchar_t program[MAX_PATH];

	int r = find_program(argv[0], program, MAX_PATH);
	if (r == 0)
		r = build_command_line(argv, program, MAX_PATH, line, LINE_MAX_CHARS);
	if (r < 0) {
		*ret_exec_failed = r != -ENOMEM;
		return r;
	}
	struct os_command *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->job = CreateJobObjectW(NULL, NULL);
	STARTUPINFOW si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	if (!c->job || !CreateProcessW(program, line, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
				       &si, &pi)) {
		*ret_exec_failed = c->job != NULL;
		r = os_errno_of(GetLastError(), -EACCES);
		if (c->job)
			CloseHandle(c->job);
		free(c);
		return r;
	}
	/*
	 * Refused (a job the caller's own job forbids nesting in, before
	 * Windows 8): the tree cannot be told, and the caller measures
	 * device-wide (os_command_tree says so).
	 */
	c->in_job = AssignProcessToJobObject(c->job, pi.hProcess) != 0;
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	c->process = pi.hProcess;
	c->pid = pi.dwProcessId;
	*ret_command = c;
	return 0;
}

uint32_t os_command_pid(const struct os_command *c)
{
	return c->pid;
}

/* The job's processes now, never a list in part (which would drop the rest's GPU rows). */
static int job_pids(struct os_command *c, uint32_t **ret_pids, size_t *ret_count)
{
	/*
	 * Room for as many as the job says it has (and some that start
	 * meanwhile); ERROR_MORE_DATA: more came, asked again with more room.
	 */
	for (size_t room = 1024;; room *= 2) {
		size_t size = offsetof(JOBOBJECT_BASIC_PROCESS_ID_LIST, ProcessIdList) + room * sizeof(ULONG_PTR);
		JOBOBJECT_BASIC_PROCESS_ID_LIST *list = calloc(1, size);
		if (!list)
			return -ENOMEM;
		if (!QueryInformationJobObject(c->job, JobObjectBasicProcessIdList, list, (DWORD)size, NULL)) {
			DWORD e = GetLastError();
			size_t assigned = list->NumberOfAssignedProcesses;
			free(list);
			if (e != ERROR_MORE_DATA || room > (1u << 24))
				return -EIO;
			if (assigned > room)
				room = assigned; /* doubled on the way round */
			continue;
		}
		size_t n = list->NumberOfProcessIdsInList;
		uint32_t *pids = malloc((n ? n : 1) * sizeof(*pids));
		if (!pids) {
			free(list);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			pids[i] = (uint32_t)list->ProcessIdList[i];
		free(list);
		*ret_pids = pids;
		*ret_count = n;
		return 0;
	}
}

int os_command_tree(struct os_command *c, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count)
{
	*ret_starts = NULL; /* the job lists its processes alone, as long as they live */
	if (!c->in_job)
		return -EXDEV; /* the job object refused the command: its list is not the tree */
	return job_pids(c, ret_pids, ret_count);
}

int os_command_start_time(struct os_command *c, uint32_t pid, uint64_t *ret_start)
{
	(void)c, (void)pid, (void)ret_start;
	return -ENOTSUP;
}

bool os_command_numbers_as_drivers(const struct os_command *c)
{
	(void)c;
	return true; /* one numbering */
}

bool os_command_reap(struct os_command *c, void (*reaped)(void *data, uint32_t pid), void *data)
{
	(void)reaped, (void)data; /* Windows keeps nothing of an ended process to reap */
	if (!c->exited && WaitForSingleObject(c->process, 0) == WAIT_OBJECT_0) {
		DWORD code = 0;
		GetExitCodeProcess(c->process, &code);
		c->exited = true;
		c->exit_code = code;
	}
	return c->exited;
}

bool os_command_reap_names_ends(void)
{
	return false; /* nothing to reap: the job lists what lives */
}

int os_command_exit(const struct os_command *c, struct os_command_exit *ret_exit)
{
	if (!c->exited)
		return -EBUSY;
	*ret_exit = (struct os_command_exit){ .signal = -1, .code = c->exit_code };
	ret_exit->note = windows_exit_status(c->exit_code, &ret_exit->exit_code);
	return 0;
}

int os_command_signal(struct os_command *c, int sig)
{
	/* Windows has no signals to pass on: the job ends, with the code a signal's death reads as. */
	return TerminateJobObject(c->job, (UINT)(128 + sig)) ? 0 : -EIO;
}

bool os_command_got_signal(struct os_command *c, int sig, bool from_kernel)
{
	(void)c, (void)sig;
	/* A console's Ctrl-C reaches every process attached to it, the command included. */
	return from_kernel;
}

int os_command_signal_tree(struct os_command *c, int sig, size_t *ret_refused)
{
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info;
	*ret_refused = 0;
	if (!QueryInformationJobObject(c->job, JobObjectBasicAccountingInformation, &info, sizeof(info), NULL))
		return -EIO;
	if (info.ActiveProcesses == 0)
		return 0;
	/* Windows has no SIGTERM to send: the job ends at once, with the code a signal's death reads as. */
	return TerminateJobObject(c->job, (UINT)(128 + sig)) ? (int)info.ActiveProcesses : -EIO;
}

/* The working sets of the job's processes, summed: where the job keeps no memory figures (Wine). */
static int job_working_sets(struct os_command *c, uint64_t *ret_bytes)
{
	uint32_t *pids = NULL;
	size_t n = 0;
	uint64_t total = 0;
	int r = job_pids(c, &pids, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pids[i]);
		PROCESS_MEMORY_COUNTERS counters = { .cb = sizeof(counters) };
		if (h && K32GetProcessMemoryInfo(h, &counters, sizeof(counters)))
			total += counters.WorkingSetSize;
		if (h)
			CloseHandle(h);
	}
	free(pids);
	*ret_bytes = total;
	return 0;
}

int os_command_memory(struct os_command *c, uint64_t *ret_bytes, const char **ret_measure, bool *ret_is_peak)
{
	/*
	 * The job counts each process's committed memory once, however its
	 * pages are shared, and keeps its peak itself: nothing between two
	 * samples is missed.
	 */
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION info;
	memset(&info, 0, sizeof(info));
	if (QueryInformationJobObject(c->job, JobObjectExtendedLimitInformation, &info, sizeof(info), NULL) &&
	    info.PeakJobMemoryUsed > 0) {
		*ret_bytes = info.PeakJobMemoryUsed;
		*ret_measure = "commit";
		*ret_is_peak = true;
		return 0;
	}
	int r = job_working_sets(c, ret_bytes);
	if (r < 0)
		return r;
	*ret_measure = "rss";
	*ret_is_peak = false;
	return 0;
}

struct os_command *os_command_free(struct os_command *c)
{
	if (c) {
		CloseHandle(c->process);
		CloseHandle(c->job);
		free(c);
	}
	return NULL;
}
