/* sys.h's -o FILE on Windows: a temporary file beside it, moved over it. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
#include <windows.h>
#include <sddl.h>

#include "os/windows/win32.h" /* libhmn's UTF-16 and Win32-error helpers (static: linked in) */
#include "output.h"
#include "sys.h"

/*
 * Every path goes through the wide (UTF-16) calls. hmn holds its arguments
 * in UTF-8 (wmain turned them so); the ANSI calls (_open, MoveFileExA)
 * would read those bytes in the ANSI code page, and a name such as
 * Jérôme.json would come out garbled or not at all.
 */

/* The attributes a replaced file keeps (a read-only one is refused, see open_replacement). */
#define KEPT_ATTRIBUTES (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_ARCHIVE | \
			 FILE_ATTRIBUTE_NOT_CONTENT_INDEXED)

/* The length of path's directory part, its last separator (or a drive's colon, C:x) included. */
static size_t dir_length(const wchar_t *path)
{
	size_t len = 0;
	for (size_t i = 0; path[i]; i++)
		if (path[i] == L'\\' || path[i] == L'/' || (i == 1 && path[i] == L':'))
			len = i + 1;
	return len;
}

/*
 * Is path a DOS device (NUL, CON, COM1, nul.txt, \\.\pipe\x)? Windows
 * itself says so: their full path is in the device namespace, \\.\.
 * Such a name is never created nor replaced, whatever its attributes say
 * (GetFileAttributesW answers "archive" for NUL).
 */
static bool is_device_name(const wchar_t *path)
{
	DWORD n = GetFullPathNameW(path, 0, NULL, NULL);
	wchar_t *full = n ? malloc((size_t)n * sizeof(*full)) : NULL;
	DWORD len = full ? GetFullPathNameW(path, n, full, NULL) : 0;
	bool device = len >= 4 && len < n && wcsncmp(full, L"\\\\.\\", 4) == 0;
	free(full);
	return device;
}

/* A descriptor for h, which it then owns; h is closed on failure. */
static int fd_for(HANDLE h)
{
	int fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
	if (fd < 0) {
		int e = errno;
		CloseHandle(h);
		return -e;
	}
	return fd;
}

/*
 * o->target becomes the path of the file h is open on, its symbolic links
 * followed (and Wine's Unix ones, which show no reparse point): that file
 * is replaced, in its own directory, and the link stays. Where Windows
 * cannot say (a volume with no drive letter), the name as given is kept,
 * unless it is itself a link: then replacing it would replace the link.
 */
static int follow_link(struct output *o, HANDLE h)
{
	DWORD flags = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, flags);

	if (n) {
		wchar_t *final = malloc((size_t)n * sizeof(*final));
		if (!final)
			return -ENOMEM;
		DWORD len = GetFinalPathNameByHandleW(h, final, n, flags);
		if (len > 0 && len < n) {
			free(o->target);
			o->target = final;
			return 0;
		}
		free(final);
	}
	DWORD error = GetLastError();
	DWORD attributes = GetFileAttributesW(o->target);
	if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
		return os_errno_of(error, -EIO);
	return 0;
}

/*
 * A new temporary file ".NAME.hmn-XXXXXX" beside o->target, as on POSIX,
 * with the attributes the file will have. CREATE_NEW makes it ours alone;
 * the clock and the process id in its name make a clash (another hmn
 * writing the same FILE) rare, and a clash only means another name.
 */
static int open_temp(struct output *o, DWORD attributes)
{
	static const wchar_t digits[] = L"abcdefghijklmnopqrstuvwxyz012345";
	size_t dir_len = dir_length(o->target), len = wcslen(o->target);
	wchar_t *name = malloc((len + 16) * sizeof(*name));
	LARGE_INTEGER now;

	if (!name)
		return -ENOMEM;
	QueryPerformanceCounter(&now);
	uint32_t seed = (uint32_t)now.QuadPart ^ (uint32_t)GetCurrentProcessId() << 16;
	wmemcpy(name, o->target, dir_len);
	name[dir_len] = L'.';
	wmemcpy(name + dir_len + 1, o->target + dir_len, len - dir_len);
	wchar_t *suffix = name + len + 1;
	wmemcpy(suffix, L".hmn-", 5);
	suffix += 5;
	for (uint32_t tries = 0; tries < 100; tries++) {
		uint32_t x = seed + tries * 2654435761u; /* Knuth's multiplier: far apart names */
		for (int i = 0; i < 6; i++, x >>= 5)
			suffix[i] = digits[x & 31];
		suffix[6] = L'\0';
		HANDLE h = CreateFileW(name, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW, attributes, NULL);
		if (h != INVALID_HANDLE_VALUE) {
			int fd = fd_for(h);
			if (fd < 0)
				DeleteFileW(name), free(name);
			else
				o->temp_path = name;
			return fd;
		}
		DWORD e = GetLastError();
		if (e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS) {
			free(name);
			return os_errno_of(e, -EIO);
		}
	}
	free(name);
	return -EEXIST;
}

/*
 * FILE is a file on disk, h open on it: a temporary file to replace it,
 * with its attributes. A read-only file is refused now: MoveFileExW would
 * refuse it after the work (Wine, run as root, opens it for writing).
 */
static int open_replacement(struct output *o, HANDLE h)
{
	BY_HANDLE_FILE_INFORMATION info;
	DWORD attributes = GetFileInformationByHandle(h, &info) ? info.dwFileAttributes : 0;
	int r = attributes & FILE_ATTRIBUTE_READONLY ? -EACCES : follow_link(o, h);
	CloseHandle(h);
	if (r < 0)
		return r;
	attributes &= KEPT_ATTRIBUTES;
	return open_temp(o, attributes ? attributes : FILE_ATTRIBUTE_NORMAL);
}

/*
 * FILE is there but could not be opened for writing (error). A folder, a
 * read-only file and a device in use are refused at once; a file another
 * program holds is replaced, if it lets go by then.
 */
static int open_unwritable(struct output *o, DWORD error)
{
	if (is_device_name(o->target))
		return os_errno_of(error, -EIO);
	DWORD attributes = GetFileAttributesW(o->target);
	if (attributes == INVALID_FILE_ATTRIBUTES)
		return os_errno_of(error, -EIO);
	if (attributes & FILE_ATTRIBUTE_DIRECTORY)
		return -EISDIR;
	/* Its attributes alone: no read, write or delete access, which is all others' sharing can deny. */
	HANDLE h = CreateFileW(o->target, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return os_errno_of(GetLastError(), -EIO);
	return open_replacement(o, h);
}

/*
 * FILE is opened for writing as it is: what opens and is no disk file (NUL, CON, COM1, a pipe) is
 * written in place, never replaced (a rename over NUL would fail, or make
 * a file of that name); a file on disk gets a temporary file beside the
 * file its links name. Nothing there: a new temporary file, unless FILE is
 * a link to nothing (its target cannot be known without reading the
 * link; replacing the link is not allowed) or a device.
 */
int sys_output_open(struct output *o)
{
	int r = os_utf16(o->path, &o->target);
	if (r < 0)
		return r;
	HANDLE h = CreateFileW(o->target, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	if (h != INVALID_HANDLE_VALUE)
		return GetFileType(h) == FILE_TYPE_DISK ? open_replacement(o, h) : fd_for(h);

	DWORD error = GetLastError();
	if (error != ERROR_FILE_NOT_FOUND && error != ERROR_PATH_NOT_FOUND)
		return open_unwritable(o, error);
	DWORD attributes = GetFileAttributesW(o->target);
	if ((attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT)) ||
	    is_device_name(o->target))
		return os_errno_of(error, -EIO);
	return open_temp(o, FILE_ATTRIBUTE_NORMAL);
}

int sys_name_unnamed(struct output *o)
{
	(void)o;
	return -EOPNOTSUPP; /* never unnamed: Windows makes a temporary file with a name */
}

int sys_sync_file(FILE *f)
{
	return _commit(_fileno(f));
}

/*
 * A reader that opened FILE without FILE_SHARE_DELETE (the C runtime's
 * fopen does) keeps it from being replaced while it reads: a moment's
 * wait for it to let go, not a failed document.
 */
int sys_replace_file(const wchar_t *from, const wchar_t *to)
{
	for (int tries = 0;; tries++) {
		if (MoveFileExW(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
			return 0;
		DWORD e = GetLastError();
		if ((e != ERROR_ACCESS_DENIED && e != ERROR_SHARING_VIOLATION) || tries == 20)
			return os_errno_of(e, -EIO);
		Sleep(50);
	}
}

void sys_remove_file(const wchar_t *path)
{
	DeleteFileW(path);
}

/* ---- --pick's holds file ------------------------------------------------------------ */

#define PICK_LOCK_POLL_MS 5

/* $HMN_PICK_LOCK, else %ProgramData%\hmn-pick: one folder every user of the machine can write to. */
static void pick_file_path(char *buf, size_t size)
{
	const char *path = hmn_trusted_getenv("HMN_PICK_LOCK"), *data = getenv("ProgramData");
	if (path && *path)
		snprintf(buf, size, "%s", path);
	else
		snprintf(buf, size, "%s\\hmn-pick", data && *data ? data : "C:\\ProgramData");
}

/*
 * %ProgramData%'s files are their creator's alone to write (CREATOR OWNER;
 * Users may only read): the file is made with its own list, every
 * authenticated user reading and writing it, SYSTEM and Administrators all.
 */
static HANDLE create_pick_file(const wchar_t *path)
{
	SECURITY_ATTRIBUTES sa = { .nLength = sizeof(sa) };
	PSECURITY_DESCRIPTOR sd = NULL;
	if (ConvertStringSecurityDescriptorToSecurityDescriptorW(L"D:(A;;FRFW;;;AU)(A;;FA;;;SY)(A;;FA;;;BA)",
								 SDDL_REVISION_1, &sd, NULL))
		sa.lpSecurityDescriptor = sd;
	/* Never through a reparse point (a link another user made). */
	HANDLE h = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
			       OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	DWORD error = GetLastError();
	LocalFree(sd);
	SetLastError(error);
	return h;
}

int sys_pick_file_lock(uint64_t wait_ms, int *ret_fd, char *where, size_t where_size)
{
	wchar_t *wide = NULL;
	pick_file_path(where, where_size);
	int r = os_utf16(where, &wide);
	if (r < 0)
		return r;
	HANDLE h = create_pick_file(wide);
	free(wide);
	if (h == INVALID_HANDLE_VALUE)
		return os_errno_of(GetLastError(), -EACCES);
	/* A plain file of one name. */
	BY_HANDLE_FILE_INFORMATION info;
	if (!GetFileInformationByHandle(h, &info) || info.nNumberOfLinks != 1 ||
	    (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) ||
	    GetFileType(h) != FILE_TYPE_DISK) {
		CloseHandle(h);
		return -EPERM;
	}
	OVERLAPPED whole = { 0 };
	ULONGLONG give_up = GetTickCount64() + wait_ms;
	bool locked;
	while (!(locked = LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD,
				     &whole)) &&
	       GetTickCount64() < give_up)
		Sleep(PICK_LOCK_POLL_MS);
	int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
	if (fd < 0) {
		CloseHandle(h);
		return -EMFILE;
	}
	*ret_fd = fd; /* locked, or not: its holds may still be read */
	return locked ? 0 : -ETIMEDOUT;
}

long sys_pick_file_read(int fd, char *buf, size_t size)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED at = { 0 };
	DWORD n = 0;
	if (size == 0)
		return 0;
	if (!ReadFile(h, buf, (DWORD)(size - 1 > MAXDWORD ? MAXDWORD : size - 1), &n, &at) &&
	    GetLastError() != ERROR_HANDLE_EOF)
		return os_errno_of(GetLastError(), -EIO);
	buf[n] = '\0';
	return (long)n;
}

int sys_pick_file_write(int fd, const char *text, size_t len)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED at = { 0 };
	DWORD n = 0;
	LARGE_INTEGER end = { .QuadPart = (LONGLONG)len };
	if (!WriteFile(h, text, (DWORD)len, &n, &at) || n != len || !SetFilePointerEx(h, end, NULL, FILE_BEGIN) ||
	    !SetEndOfFile(h))
		return os_errno_of(GetLastError(), -EIO);
	return 0;
}

void sys_pick_file_unlock(int fd)
{
	if (fd >= 0)
		_close(fd); /* closing the handle ends its lock */
}

bool sys_pid_alive(uint32_t pid)
{
	HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, pid);
	if (!h)
		return GetLastError() != ERROR_INVALID_PARAMETER; /* no such process; denied: it is there */
	bool running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
	CloseHandle(h);
	return running;
}

int sys_setenv(const char *name, const char *value)
{
	wchar_t *wide_name = NULL, *wide_value = NULL;
	int r = os_utf16(name, &wide_name);
	if (r == 0)
		r = os_utf16(value, &wide_value);
	/* The C runtime's copy and the process's own: CreateProcessW hands the latter on. */
	if (r == 0 && (_wputenv_s(wide_name, wide_value) != 0 || !SetEnvironmentVariableW(wide_name, wide_value)))
		r = -EINVAL;
	free(wide_name);
	free(wide_value);
	return r;
}

/* o->target is UTF-16 already: the wide call, as every path here. */
FILE *sys_open_read(const wchar_t *path)
{
	return _wfopen(path, L"rb");
}
