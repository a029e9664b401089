/* Model files on Windows: UTF-8 paths as UTF-16, 64-bit offsets through OVERLAPPED, folders listed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "os/os.h"
#include "os/windows/win32.h"
#include "util/names.h"

int os_path_kind(const char *path)
{
	wchar_t *w;
	int r = os_utf16(path, &w);
	if (r < 0)
		return r;
	DWORD attributes = GetFileAttributesW(w);
	DWORD error = GetLastError();
	free(w);
	if (attributes == INVALID_FILE_ATTRIBUTES)
		return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? OS_PATH_MISSING
										      : os_errno_of(error, -EIO);
	return attributes & FILE_ATTRIBUTE_DIRECTORY ? OS_PATH_DIRECTORY : OS_PATH_FILE;
}

bool os_path_dangling(const char *path)
{
	(void)path;
	return false;
}

static int read_at(void *userdata, uint64_t offset, void *buf, size_t len)
{
	HANDLE h = userdata;
	while (len) {
		OVERLAPPED at = { .Offset = (DWORD)offset, .OffsetHigh = (DWORD)(offset >> 32) };
		DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len, got = 0;
		if (!ReadFile(h, buf, chunk, &got, &at))
			return os_errno_of(GetLastError(), -EIO);
		if (got == 0)
			return -EIO;
		buf = (char *)buf + got;
		len -= got;
		offset += got;
	}
	return 0;
}

int os_file_open(const char *path, struct reader *ret_reader)
{
	wchar_t *w;
	int r = os_utf16(path, &w);
	if (r < 0)
		return r;
	HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return os_errno_of(GetLastError(), -EIO);
	LARGE_INTEGER size;
	if (GetFileType(h) != FILE_TYPE_DISK || !GetFileSizeEx(h, &size) || size.QuadPart < 0) {
		CloseHandle(h);
		return -EINVAL;
	}
	*ret_reader = (struct reader){
		.read_at = read_at,
		.size = (uint64_t)size.QuadPart,
		.userdata = h,
		.name = path,
	};
	return 0;
}

void os_file_close(struct reader *reader)
{
	if (reader && reader->read_at == read_at)
		CloseHandle(reader->userdata);
}

static int list_dir(const char *dir, const char *suffix, bool folders, size_t max, struct name_list *ret)
{
	size_t dlen = strlen(dir);
	/* One separator before the *: a \\?\ path is taken as typed, and "dir\\*" is no such folder there. */
	bool ends = dlen && (dir[dlen - 1] == '\\' || dir[dlen - 1] == '/');
	char *pattern = malloc(dlen + 3);
	if (!pattern)
		return -ENOMEM;
	memcpy(pattern, dir, dlen);
	memcpy(pattern + dlen, ends ? "*" : "\\*", ends ? 2 : 3);
	wchar_t *w;
	int r = os_utf16(pattern, &w);
	free(pattern);
	if (r < 0)
		return r;
	WIN32_FIND_DATAW fd;
	HANDLE find = FindFirstFileW(w, &fd);
	free(w);
	if (find == INVALID_HANDLE_VALUE)
		return os_errno_of(GetLastError(), -EIO);
	do {
		char name[MAX_PATH * 4];
		if (!(fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == !folders &&
		    WideCharToMultiByte(CP_UTF8, 0, fd.cFileName, -1, name, sizeof(name), NULL, NULL))
			r = name_list_add(ret, name, suffix, max);
	} while (r >= 0 && FindNextFileW(find, &fd));
	FindClose(find);
	return name_list_finish(ret, r);
}

int os_list_dir(const char *dir, const char *suffix, size_t max, struct name_list *ret)
{
	return list_dir(dir, suffix, false, max, ret);
}

int os_list_folders(const char *dir, size_t max, struct name_list *ret)
{
	return list_dir(dir, "", true, max, ret);
}

char *os_full_path(const char *path)
{
	wchar_t *w, *full = NULL;
	char *utf8 = NULL;
	if (os_utf16(path, &w) < 0)
		return NULL;
	DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
	if (n > 0 && (full = malloc((size_t)n * sizeof(*full))) && GetFullPathNameW(w, n, full, NULL) < n) {
		int len = WideCharToMultiByte(CP_UTF8, 0, full, -1, NULL, 0, NULL, NULL);
		if (len > 0 && (utf8 = malloc((size_t)len)) &&
		    WideCharToMultiByte(CP_UTF8, 0, full, -1, utf8, len, NULL, NULL) <= 0) {
			free(utf8);
			utf8 = NULL;
		}
	}
	free(full);
	free(w);
	return utf8;
}
