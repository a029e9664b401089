/*
 * Finding an external program on Linux and macOS: the path in the override variable,
 * or the first executable of that name in an absolute entry of PATH. An
 * empty or relative PATH entry would mean the current directory: skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

const char *os_trusted_getenv(const char *name)
{
#ifdef __APPLE__
	/* macOS has no secure_getenv: issetugid says the same (set-user-ID or set-group-ID). */
	return issetugid() ? NULL : getenv(name);
#else
	/* AT_SECURE: set-user-ID, set-group-ID, file capabilities, an LSM's transition. */
	return secure_getenv(name);
#endif
}

int os_find_program(const char *name, const char *override_variable, char *out, size_t size,
		    char *why, size_t why_size)
{
	const char *override = os_trusted_getenv(override_variable);

	if (override && *override) {
		if (override[0] != '/') {
			snprintf(why, why_size, "%s=%s: not an absolute path, refused", override_variable,
				 override);
			return -EINVAL;
		}
		if (access(override, X_OK) != 0) {
			snprintf(why, why_size, "%s: %s", override, strerror(errno));
			return -ENOENT;
		}
		snprintf(out, size, "%s", override);
		return 0;
	}
	/* A privileged copy does not search the caller's PATH either: the system's directories only. */
	const char *path = os_trusted_getenv("PATH");
	for (const char *p = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		if (n > 0 && p[0] == '/') {
			int len = snprintf(out, size, "%.*s/%s", (int)n, p, name);
			if (len > 0 && (size_t)len < size && access(out, X_OK) == 0)
				return 0;
		}
		p = colon ? colon + 1 : NULL;
	}
	snprintf(why, why_size, "%s not found in the absolute entries of PATH", name);
	return -ENOENT;
}
