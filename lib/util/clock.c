/* The one clock, in microseconds: monotonic, and since the epoch. */
#include <time.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

#include "util/clock.h"

uint64_t clock_us(void)
{
#ifdef _WIN32
	/* Milliseconds (of 10-16 ms steps) that go on while the machine sleeps: all Windows' deadlines need. */
	return GetTickCount64() * CLOCK_US_PER_MS;
#else
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * CLOCK_US_PER_S + (uint64_t)t.tv_nsec / 1000u;
#endif
}

uint64_t clock_wall_us(void)
{
#ifdef _WIN32
	FILETIME ft;
	GetSystemTimeAsFileTime(&ft);
	uint64_t ticks = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime; /* 100 ns since 1601 */
	return ticks / 10 - 11644473600000000ULL;
#else
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * CLOCK_US_PER_S + (uint64_t)t.tv_nsec / 1000u;
#endif
}
