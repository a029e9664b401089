/* Formatting shared by the table and JSON renderers. Pure functions. */
#ifndef HMN_FORMAT_H
#define HMN_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIZE_TEXT_MAX 32

/*
 * A size as the tables show it: whole MiB below 1 GiB ("512 MiB"), GiB with
 * one decimal above ("8.2 GiB"), or the exact byte count when exact is set.
 * HMN_UNKNOWN prints "-". Returns buf.
 */
const char *format_size(uint64_t bytes, bool exact, char buf[SIZE_TEXT_MAX]);

/*
 * Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s[0] starts
 * no valid sequence (stray continuation, overlong form, surrogate, beyond
 * U+10FFFF, or cut short by n).
 */
size_t utf8_sequence_length(const unsigned char *s, size_t n, uint32_t *ret_codepoint);

/*
 * Copies s into out (out_size bytes, always terminated) for a terminal: every
 * byte of a control character (C0, DEL, C1) or of invalid UTF-8 becomes '?'.
 * Returns the display width in code points.
 */
size_t sanitize_for_terminal(const char *s, char *out, size_t out_size);

/*
 * Copies s into a malloc'd string in which each byte of invalid UTF-8 is
 * replaced by U+FFFD, so a JSON encoder gets valid UTF-8. NULL on ENOMEM.
 */
char *utf8_repair(const char *s);

#endif
