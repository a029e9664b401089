/*
 * A process's descendants on macOS: proc_listchildpids, breadth first.
 * macOS has no subreaper: a descendant that detaches (double fork) is
 * re-parented to launchd, and from then on is not found here.
 */
#include <errno.h>
#include <libproc.h>
#include <stdlib.h>

#include "../internal.h"

int os_become_subreaper(void)
{
	return -ENOTSUP;
}

int os_add_descendants(const char *procfs, uint32_t root, uint32_t **pids, size_t *count,
		       size_t *capacity)
{
	int children[4096];
	size_t next = *count;
	(void)procfs;

	for (uint32_t parent = root;; parent = (*pids)[next++]) {
		int n = proc_listchildpids((pid_t)parent, children, (int)sizeof(children));
		/* It answers a count of pids on success (bytes on some releases: bounded either way). */
		if (n > (int)(sizeof(children) / sizeof(children[0])))
			n = (int)(sizeof(children) / sizeof(children[0]));
		for (int i = 0; i < n; i++) {
			if (children[i] <= 0)
				continue;
			if (array_reserve((void **)pids, capacity, *count, sizeof(**pids)) < 0)
				return -ENOMEM;
			(*pids)[(*count)++] = (uint32_t)children[i];
		}
		if (next >= *count)
			return 0;
	}
}
