/*
 * hmn run's command on Windows: CreateProcessW (no shell) inside a job
 * object, which every process it starts inherits, so the job's process list
 * is the tree, detached descendants included. The program is argv[0] when
 * it names a path, else found in PATH's absolute entries (NAME, NAME.exe):
 * never in the current directory, where CreateProcess would look first.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../internal.h"

#include "paths.h"

#define LINE_MAX_CHARS 32768 /* CreateProcessW's limit */

struct hmn_command {
	HANDLE job, process;
	DWORD pid;
	bool exited;
	int exit_code;
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

/* NAME or NAME.exe in PATH's absolute entries; false when none has it. */
static bool find_in_path(const wchar_t *name, wchar_t *out, size_t size)
{
	static const wchar_t *const suffixes[] = { L"", L".exe" };
	wchar_t *path = _wgetenv(L"PATH");
	if (!path)
		return false;
	for (wchar_t *p = path; *p;) {
		wchar_t *end = wcschr(p, L';');
		size_t n = end ? (size_t)(end - p) : wcslen(p);
		bool absolute = n >= 3 && p[1] == L':' && (p[2] == L'\\' || p[2] == L'/');
		for (size_t k = 0; absolute && k < 2; k++) {
			if (_snwprintf(out, size, L"%.*ls\\%ls%ls", (int)n, p, name, suffixes[k]) < 0)
				continue;
			out[size - 1] = 0;
			if (is_file(out))
				return true;
		}
		p += n + (end ? 1 : 0);
	}
	return false;
}

static int errno_of(DWORD error)
{
	switch (error) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return -ENOENT;
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		return -ENOEXEC;
	case ERROR_NOT_ENOUGH_MEMORY:
		return -ENOMEM;
	default:
		return -EACCES;
	}
}

static wchar_t *to_utf16(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w = n > 0 ? malloc((size_t)n * sizeof(*w)) : NULL;
	if (w && MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0) {
		free(w);
		return NULL;
	}
	return w;
}

int hmn_command_start(char *const argv[], struct hmn_command **ret_command, bool *ret_exec_failed)
{
	*ret_exec_failed = false;
	static wchar_t line[LINE_MAX_CHARS];
	wchar_t program[MAX_PATH];
	size_t len = 0;
	int r = 0;

	line[0] = 0;
	for (size_t i = 0; argv[i] && r == 0; i++) {
		wchar_t *w = to_utf16(argv[i]);
		if (!w)
			r = -ENOMEM;
		else
			os_append_argument(line, LINE_MAX_CHARS, &len, w);
		if (i == 0 && w) {
			if (has_separator(w))
				_snwprintf(program, MAX_PATH, L"%ls", w);
			else if (!find_in_path(w, program, MAX_PATH))
				r = -ENOENT, *ret_exec_failed = true;
			program[MAX_PATH - 1] = 0;
		}
		free(w);
	}
	if (r < 0)
		return r;
	struct hmn_command *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->job = CreateJobObjectW(NULL, NULL);
	STARTUPINFOW si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	if (!c->job || !CreateProcessW(program, line, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL,
				       &si, &pi)) {
		*ret_exec_failed = c->job != NULL;
		r = errno_of(GetLastError());
		if (c->job)
			CloseHandle(c->job);
		free(c);
		return r;
	}
	AssignProcessToJobObject(c->job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	c->process = pi.hProcess;
	c->pid = pi.dwProcessId;
	*ret_command = c;
	return 0;
}

uint32_t hmn_command_pid(const struct hmn_command *command)
{
	return command->pid;
}

int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count)
{
	/* The list's header, then room for 1,024 pids: a job larger than that is listed in part. */
	struct {
		JOBOBJECT_BASIC_PROCESS_ID_LIST list;
		ULONG_PTR more[1024];
	} ids;
	(void)ctx;
	memset(&ids, 0, sizeof(ids));
	if (!QueryInformationJobObject(command->job, JobObjectBasicProcessIdList, &ids, sizeof(ids), NULL) &&
	    GetLastError() != ERROR_MORE_DATA)
		return -EIO;
	size_t n = ids.list.NumberOfProcessIdsInList;
	uint32_t *pids = malloc((n ? n : 1) * sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		pids[i] = (uint32_t)ids.list.ProcessIdList[i];
	*ret_pids = pids;
	*ret_count = n;
	return 0;
}

bool hmn_command_done(struct hmn_command *command)
{
	if (!command->exited && WaitForSingleObject(command->process, 0) == WAIT_OBJECT_0) {
		DWORD code = 0;
		GetExitCodeProcess(command->process, &code);
		command->exited = true;
		command->exit_code = (int)(code & 0xff);
	}
	JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info;
	if (!QueryInformationJobObject(command->job, JobObjectBasicAccountingInformation, &info,
				       sizeof(info), NULL))
		return command->exited;
	return command->exited && info.ActiveProcesses == 0;
}

int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal)
{
	if (!command->exited)
		return -EBUSY;
	*ret_exit_code = command->exit_code;
	*ret_signal = -1;
	return 0;
}

int hmn_command_signal(struct hmn_command *command, int sig)
{
	/* Windows has no signals to pass on: the job ends, with the code a signal's death reads as. */
	return TerminateJobObject(command->job, (UINT)(128 + sig)) ? 0 : -EIO;
}

struct hmn_command *hmn_command_free(struct hmn_command *command)
{
	if (command) {
		CloseHandle(command->process);
		CloseHandle(command->job);
		free(command);
	}
	return NULL;
}
