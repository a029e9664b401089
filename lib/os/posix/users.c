/* User names for uids, on Linux and macOS (the GPU context caches them: lib/gpu/processes.c). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>

#include "os/os.h"

int os_user_name(uint32_t uid, char *buf, size_t size)
{
	struct passwd pw, *found = NULL;
	char entry[4096];
	int r = getpwuid_r((uid_t)uid, &pw, entry, sizeof(entry), &found);
	if (r != 0)
		return -r;
	if (!found)
		return -ENOENT;
	snprintf(buf, size, "%s", found->pw_name);
	return 0;
}
