/* macOS's answers, read without macOS (os/darwin/darwin-parse.c): pure, for the unit tests. */
#ifndef HMN_OS_DARWIN_PARSE_H
#define HMN_OS_DARWIN_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How many entries of a zeroed buffer of capacity pids to read after
 * proc_listchildpids answered returned (a count of pids, or of bytes on
 * some releases; negative on failure).
 */
size_t darwin_child_count(int returned, size_t capacity);

/*
 * The argument vector in a KERN_PROCARGS2 answer of len bytes: argc (an
 * int), the executable's path, the NULs that pad it, argc words each
 * ending in a NUL, then the environment. Returns how many words (as
 * argv_words counts them, at most max bytes of them: a longer vector is
 * cut), the first at offset *ret_start, *ret_len the bytes they take, the
 * last one's NUL not counted; 0 where it holds none or is not such an
 * answer.
 */
size_t parse_procargs2(const char *buf, size_t len, size_t max, size_t *ret_start, size_t *ret_len);

#endif
