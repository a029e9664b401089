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

#endif
