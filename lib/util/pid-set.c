/* Sets of pids, as sorted arrays. */
#include <stdint.h>

#include "util/pid-set.h"

int compare_pids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}
