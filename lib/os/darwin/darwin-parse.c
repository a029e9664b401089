/* What macOS answers, read without macOS: pure, so that it is unit-tested on Linux. */
#include "os/darwin/darwin-parse.h"

size_t darwin_child_count(int returned, size_t capacity)
{
	/*
	 * proc_listchildpids answers a count of pids on success, a count of
	 * bytes on some releases: the buffer is zeroed before the call, so
	 * every entry up to either count (and the capacity) is a pid or 0.
	 */
	if (returned <= 0)
		return 0;
	return (size_t)returned < capacity ? (size_t)returned : capacity;
}
