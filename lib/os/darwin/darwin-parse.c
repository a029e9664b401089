/* What macOS answers, read without macOS: pure, so that it is unit-tested on Linux. */
#include <string.h>

#include "os/darwin/darwin-parse.h"
#include "util/text.h"

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

size_t parse_procargs2(const char *buf, size_t len, size_t max, size_t *ret_start, size_t *ret_len)
{
	int argc;
	const char *end = buf + len, *p;

	if (len < sizeof(argc))
		return 0;
	memcpy(&argc, buf, sizeof(argc));
	p = memchr(buf + sizeof(argc), '\0', len - sizeof(argc));
	if (argc <= 0 || !p)
		return 0;
	/* Past the executable's path and the NULs that align what follows. */
	while (p < end && *p == '\0')
		p++;
	/* argc words and no more: the environment follows them. */
	const char *words = p;
	for (int i = 0; i < argc && p < end; i++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		p = nul ? nul + 1 : end;
	}
	size_t bytes = (size_t)(p - words);
	*ret_start = (size_t)(words - buf);
	return argv_words(words, bytes < max ? bytes : max, bytes > max, ret_len);
}
