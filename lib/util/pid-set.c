/* Sets of pids, as sorted arrays without repeats. */
#include <stdlib.h>
#include <string.h>

#include "util/pid-set.h"

int compare_pids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

size_t pid_set_make(uint32_t *pids, size_t n)
{
	size_t kept = 0;
	if (n > 1)
		qsort(pids, n, sizeof(*pids), compare_pids);
	for (size_t i = 0; i < n; i++)
		if (kept == 0 || pids[i] != pids[kept - 1])
			pids[kept++] = pids[i];
	return kept;
}

bool pid_set_has(const uint32_t *pids, size_t n, uint32_t pid)
{
	return n && bsearch(&pid, pids, n, sizeof(pid), compare_pids);
}

size_t pid_set_remove(uint32_t *pids, size_t n, uint32_t pid)
{
	uint32_t *at = n ? bsearch(&pid, pids, n, sizeof(pid), compare_pids) : NULL;
	if (!at)
		return n;
	size_t i = (size_t)(at - pids);
	memmove(at, at + 1, (n - i - 1) * sizeof(*at));
	return n - 1;
}
