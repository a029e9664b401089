/*
 * Loading a shared library at run time, on Linux and macOS.
 *
 * A bare name goes through the dynamic loader's search (LD_LIBRARY_PATH, the
 * ld.so cache, the system directories). An empty or relative entry in
 * LD_LIBRARY_PATH would make that search look in the current directory, so
 * in that case we search ourselves: the absolute entries, then the usual
 * system directories, each by full path.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

static const char *const system_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
	"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", /* NVIDIA container toolkit */
	"/usr/lib/wsl/lib",                                  /* WSL2 */
	NULL,
};

static bool search_path_is_safe(const char *list)
{
	if (!list || !*list)
		return true;
	for (const char *p = list;;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		if (n == 0 || p[0] != '/')
			return false;
		if (!colon)
			return true;
		p = colon + 1;
	}
}

static void *open_in(const char *dir, size_t dir_len, const char *name)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%.*s/%s", (int)dir_len, dir, name);
	if (n < 0 || (size_t)n >= sizeof(path) || access(path, R_OK) != 0)
		return NULL;
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void *open_by_search(const char *name)
{
	const char *list = os_trusted_getenv("LD_LIBRARY_PATH");
	void *lib;

	for (const char *p = list; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && p[0] == '/' && (lib = open_in(p, n, name)))
			return lib;
		if (!colon)
			break;
		p = colon + 1;
	}
	for (size_t i = 0; system_dirs[i]; i++)
		if ((lib = open_in(system_dirs[i], strlen(system_dirs[i]), name)))
			return lib;
	return NULL;
}

void *os_library_open(const char *name_or_path, char *why_buf, size_t why_size)
{
	void *lib;

	if (strchr(name_or_path, '/')) {
		/* An explicit path: only an absolute one, never relative to the cwd. */
		if (name_or_path[0] != '/') {
			snprintf(why_buf, why_size, "%s: not an absolute path, refused", name_or_path);
			return NULL;
		}
		lib = dlopen(name_or_path, RTLD_NOW | RTLD_LOCAL);
	} else if (search_path_is_safe(os_trusted_getenv("LD_LIBRARY_PATH"))) {
		lib = dlopen(name_or_path, RTLD_NOW | RTLD_LOCAL);
	} else {
		lib = open_by_search(name_or_path);
		if (!lib) {
			snprintf(why_buf, why_size,
				 "%s: not found (relative LD_LIBRARY_PATH entries ignored)", name_or_path);
			return NULL;
		}
	}
	if (!lib) {
		const char *err = dlerror();
		snprintf(why_buf, why_size, "%s", err ? err : "cannot be loaded");
	}
	return lib;
}

void *os_library_symbol(void *library, const char *symbol)
{
	return dlsym(library, symbol);
}

void os_library_close(void *library)
{
	if (library)
		dlclose(library);
}
