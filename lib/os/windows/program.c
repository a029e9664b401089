/*
 * External programs on Windows (nvidia-smi.exe): found by full path only
 * ($HMN_NVIDIA_SMI, absolute; else System32, else NVIDIA's NVSMI folder),
 * started with CreateProcessW and no shell, stdin from NUL, stdout and
 * stderr read up to a bound on two threads, inside a job object that is
 * terminated at the deadline, so that nothing it started outlives it.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "os/os.h"
#include "os/windows/paths.h"
#include "util/arena.h"
#include "util/text.h"

/*
 * Windows has no set-user-ID program nor file capabilities: a process runs
 * with its creator's token, or, elevated, with a new environment from the
 * user's own profile, so its environment never comes from a less privileged
 * caller. Nothing to ignore.
 */
const char *os_trusted_getenv(const char *name)
{
	return getenv(name);
}

int os_find_program(const char *name, const char *override_variable, char *out, size_t size,
		    char *why, size_t why_size)
{
	const char *override = os_trusted_getenv(override_variable);

	if (override && *override) {
		if (!os_path_is_absolute(override)) {
			snprintf(why, why_size, "%s=%s: not an absolute path, refused", override_variable,
				 override);
			return -EINVAL;
		}
		snprintf(out, size, "%s", override);
		return 0;
	}
	wchar_t dirs[2][MAX_PATH], path[MAX_PATH];
	int n = os_known_dirs(dirs, 2);
	for (int i = 0; i < n; i++) {
		if (_snwprintf(path, MAX_PATH, L"%ls\\%hs.exe", dirs[i], name) < 0)
			continue;
		path[MAX_PATH - 1] = 0;
		if (GetFileAttributesW(path) != INVALID_FILE_ATTRIBUTES &&
		    utf16_to_utf8((const uint16_t *)path, MAX_PATH, out, size) > 0)
			return 0;
	}
	snprintf(why, why_size, "%s.exe not found in System32 or the NVSMI folder", name);
	return -ENOENT;
}

/* Appends arg to a command line, quoted as the C runtime's parser reads it back. */
void os_append_argument(wchar_t *line, size_t size, size_t *len, const wchar_t *arg)
{
	size_t n = *len;
	if (n > 0 && n + 1 < size)
		line[n++] = L' ';
	if (n + 1 < size)
		line[n++] = L'"';
	for (const wchar_t *p = arg;; p++) {
		size_t backslashes = 0;
		while (*p == L'\\')
			p++, backslashes++;
		/* Backslashes double only before a quote, or before the closing one. */
		size_t times = *p == L'"' || *p == 0 ? backslashes * 2 : backslashes;
		for (size_t k = 0; k < times && n + 1 < size; k++)
			line[n++] = L'\\';
		if (*p == 0)
			break;
		if (*p == L'"' && n + 1 < size)
			line[n++] = L'\\';
		if (n + 1 < size)
			line[n++] = *p;
	}
	if (n + 1 < size)
		line[n++] = L'"';
	line[n] = 0;
	*len = n;
}

struct pipe_reader {
	HANDLE pipe, job;
	struct os_output *out;
	size_t max;
	bool truncated;
};

static DWORD WINAPI read_all(LPVOID data)
{
	struct pipe_reader *r = data;
	char buf[4096];
	DWORD got;

	while (ReadFile(r->pipe, buf, sizeof(buf), &got, NULL) && got > 0) {
		struct os_output *o = r->out;
		if (o->len + got > r->max) {
			r->truncated = true;
			TerminateJobObject(r->job, 1);
			break;
		}
		if (o->len + got + 1 > o->capacity) {
			size_t capacity = (o->len + got + 1) * 2;
			char *text = realloc(o->text, capacity);
			if (!text)
				break;
			o->text = text;
			o->capacity = capacity;
		}
		memcpy(o->text + o->len, buf, got);
		o->len += got;
		o->text[o->len] = '\0';
	}
	return 0;
}

void os_program_result_clear(struct os_program_result *r)
{
	free(r->out.text);
	free(r->err.text);
	*r = (struct os_program_result){ .status = -1 };
}

int os_run_program(const char *path, char *const argv[], double timeout_s, size_t max_output,
		   struct os_program_result *ret)
{
	static wchar_t line[32768];
	wchar_t wide_path[MAX_PATH], arg[1024];
	size_t len = 0;
	SECURITY_ATTRIBUTES inherit = { .nLength = sizeof(inherit), .bInheritHandle = TRUE };
	HANDLE out_read = NULL, out_write = NULL, err_read = NULL, err_write = NULL, null_in;
	struct os_program_result r = { .status = -1 };

	if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, wide_path, MAX_PATH))
		return -ENAMETOOLONG;
	line[0] = 0;
	for (size_t i = 0; argv[i]; i++) {
		if (!MultiByteToWideChar(CP_UTF8, 0, argv[i], -1, arg, 1024))
			return -E2BIG;
		os_append_argument(line, sizeof(line) / sizeof(line[0]), &len, i == 0 ? wide_path : arg);
	}
	null_in = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
			      OPEN_EXISTING, 0, NULL);
	if (!CreatePipe(&out_read, &out_write, &inherit, 0) || !CreatePipe(&err_read, &err_write, &inherit, 0)) {
		/* fall through to clean-up with what was made */
		r.status = -2;
	}
	/* Our ends must not be inherited, or the child would hold its own pipes open. */
	if (out_read)
		SetHandleInformation(out_read, HANDLE_FLAG_INHERIT, 0);
	if (err_read)
		SetHandleInformation(err_read, HANDLE_FLAG_INHERIT, 0);

	HANDLE job = CreateJobObjectW(NULL, NULL);
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
	limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (job)
		SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof(limits));

	STARTUPINFOW si = { .cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES,
			    .hStdInput = null_in, .hStdOutput = out_write, .hStdError = err_write };
	PROCESS_INFORMATION pi = { 0 };
	BOOL started = r.status != -2 && null_in != INVALID_HANDLE_VALUE && job &&
		       CreateProcessW(wide_path, line, NULL, NULL, TRUE,
				      CREATE_SUSPENDED | CREATE_NO_WINDOW, NULL, NULL, &si, &pi);
	DWORD error = started ? 0 : GetLastError();
	if (out_write)
		CloseHandle(out_write);
	if (err_write)
		CloseHandle(err_write);
	if (null_in != INVALID_HANDLE_VALUE)
		CloseHandle(null_in);
	if (!started) {
		if (out_read)
			CloseHandle(out_read);
		if (err_read)
			CloseHandle(err_read);
		if (job)
			CloseHandle(job);
		return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? -ENOENT : -EIO;
	}
	AssignProcessToJobObject(job, pi.hProcess);
	ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);

	r.status = -1;
	struct pipe_reader readers[2] = {
		{ .pipe = out_read, .job = job, .out = &r.out, .max = max_output },
		{ .pipe = err_read, .job = job, .out = &r.err, .max = max_output },
	};
	HANDLE threads[2] = {
		CreateThread(NULL, 0, read_all, &readers[0], 0, NULL),
		CreateThread(NULL, 0, read_all, &readers[1], 0, NULL),
	};
	DWORD wait = WaitForSingleObject(pi.hProcess, (DWORD)(timeout_s * 1000));
	if (wait == WAIT_TIMEOUT) {
		r.timed_out = true;
		TerminateJobObject(job, 1);
		WaitForSingleObject(pi.hProcess, INFINITE);
	}
	for (int i = 0; i < 2; i++)
		if (threads[i]) {
			WaitForSingleObject(threads[i], INFINITE);
			CloseHandle(threads[i]);
		} else {
			read_all(&readers[i]); /* no thread: read it here, the child has ended */
		}
	r.truncated = readers[0].truncated || readers[1].truncated;
	DWORD code;
	if (!r.timed_out && !r.truncated && GetExitCodeProcess(pi.hProcess, &code))
		r.status = (int)code;
	CloseHandle(pi.hProcess);
	CloseHandle(out_read);
	CloseHandle(err_read);
	CloseHandle(job);
	*ret = r;
	return 0;
}
