/*
 * Loading a DLL at run time, on Windows. A bare name ("nvml.dll") is looked
 * for in System32, then in NVIDIA's NVSMI folder under Program Files, and
 * loaded by its full path; never through the default search, which starts
 * with the application's and the current directory. An explicit path must
 * be absolute. The DLL's own dependencies are searched in its folder and in
 * System32 only.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "os/os.h"
#include "os/windows/paths.h"
#include "util/arena.h"
#include "util/text.h"

#define LOAD_FLAGS (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32)

bool os_path_is_absolute(const char *p)
{
	bool drive = ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
		     (p[2] == '\\' || p[2] == '/');
	return drive || (p[0] == '\\' && p[1] == '\\');
}

int os_known_dirs(wchar_t dirs[][MAX_PATH], int max)
{
	int n = 0;
	UINT len = GetSystemDirectoryW(dirs[n], MAX_PATH);
	if (len > 0 && len < MAX_PATH && n < max)
		n++;
	/* A 32-bit process sees the 64-bit folder as ProgramW6432. */
	const wchar_t *vars[] = { L"ProgramW6432", L"ProgramFiles" };
	for (size_t i = 0; i < 2 && n < max; i++) {
		wchar_t base[MAX_PATH];
		DWORD k = GetEnvironmentVariableW(vars[i], base, MAX_PATH);
		if (k == 0 || k >= MAX_PATH)
			continue;
		if (_snwprintf(dirs[n], MAX_PATH, L"%ls\\NVIDIA Corporation\\NVSMI", base) > 0) {
			dirs[n][MAX_PATH - 1] = 0;
			n++;
			break;
		}
	}
	return n;
}

static void *load_full_path(const wchar_t *path)
{
	return LoadLibraryExW(path, NULL, LOAD_FLAGS);
}

void *os_library_open(const char *name_or_path, char *why_buf, size_t why_size)
{
	wchar_t path[MAX_PATH];
	HMODULE module;

	if (strchr(name_or_path, '/') || strchr(name_or_path, '\\') || strchr(name_or_path, ':')) {
		if (!os_path_is_absolute(name_or_path)) {
			snprintf(why_buf, why_size, "%s: not an absolute path, refused", name_or_path);
			return NULL;
		}
		if (!MultiByteToWideChar(CP_UTF8, 0, name_or_path, -1, path, MAX_PATH)) {
			snprintf(why_buf, why_size, "%s: path too long", name_or_path);
			return NULL;
		}
		module = load_full_path(path);
		if (!module)
			snprintf(why_buf, why_size, "%s: cannot load (error %lu)", name_or_path,
				 (unsigned long)GetLastError());
		return module;
	}
	wchar_t dirs[2][MAX_PATH], name[64];
	int n = os_known_dirs(dirs, 2);
	if (!MultiByteToWideChar(CP_UTF8, 0, name_or_path, -1, name, 64))
		return NULL;
	for (int i = 0; i < n; i++) {
		if (_snwprintf(path, MAX_PATH, L"%ls\\%ls", dirs[i], name) < 0)
			continue;
		path[MAX_PATH - 1] = 0;
		if (GetFileAttributesW(path) == INVALID_FILE_ATTRIBUTES)
			continue;
		module = load_full_path(path);
		if (module)
			return module;
	}
	snprintf(why_buf, why_size, "%s not found in System32 or the NVSMI folder", name_or_path);
	return NULL;
}

void *os_library_symbol(void *library, const char *symbol)
{
	FARPROC f = GetProcAddress((HMODULE)library, symbol);
	void *p;
	/* A function pointer as the object pointer the callers cast back. */
	memcpy(&p, &f, sizeof(p));
	return p;
}

void os_library_close(void *library)
{
	if (library)
		FreeLibrary((HMODULE)library);
}
