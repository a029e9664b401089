/* A monotonic clock in milliseconds (Windows: it goes on while the machine sleeps). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "../internal.h"

uint64_t os_clock_ms(void)
{
	return GetTickCount64();
}
