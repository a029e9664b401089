/* A monotonic clock in milliseconds (Linux and macOS). */
#include <time.h>

#include "../internal.h"

uint64_t os_clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}
