/*
 * Text from outside hmn (a model's names and keys, a file's name, a
 * process's name) as a terminal may be shown it. One rule of what is
 * printable, shared by the library's messages and the tool's tables, so
 * that the two never disagree on what can move a terminal's cursor; and a
 * process's argument vector, as the OS keeps it, in words.
 */
#ifndef HMN_UTIL_TEXT_H
#define HMN_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length of the valid UTF-8 sequence s begins with (n bytes at most),
 * its code point into *ret_codepoint (when not NULL); 0 for an invalid,
 * overlong or truncated one, a surrogate or a code point past U+10FFFF.
 */
size_t utf8_sequence_length(const unsigned char *s, size_t n, uint32_t *ret_codepoint);

/*
 * A process's argument vector as the OS keeps it, its words one after
 * another each ending in a NUL (Linux's /proc/PID/cmdline, the arguments
 * in macOS's KERN_PROCARGS2), in len bytes (cut: it went on past them).
 * Returns how many words, with *ret_len the bytes they take, each word's
 * NUL but the last one's (the caller writes that at text[*ret_len]); 0 for
 * a text that holds none (a kernel thread's, a zombie's cmdline: empty).
 * NULs at the end are no words: they pad an argv a process rewrote
 * (setproctitle: "postgres: writer\0\0\0...", one word), and an empty last
 * argument cannot be told from them. A cut text ends before the character
 * the cut fell inside.
 */
size_t argv_words(const char *text, size_t len, bool cut, size_t *ret_len);

/* C0 and C1 controls and DEL: what starts an escape sequence or moves the cursor. */
bool codepoint_is_control(uint32_t cp);

/*
 * s (NULL: "") into out, each byte of a control character or of invalid
 * UTF-8 a '?', cut at a character's boundary to fit size bytes with the
 * NUL. out may be s itself: the text keeps its length. Returns out.
 */
char *printable_name(const char *s, char *out, size_t size);

/*
 * UTF-16 (up to n units or a 0) into UTF-8, NUL-terminated, cut at a
 * character's boundary to fit size; a lone surrogate becomes U+FFFD.
 * Returns the bytes written, without the NUL. (Windows' names, parsed
 * anywhere.)
 */
size_t utf16_to_utf8(const uint16_t *in, size_t n, char *out, size_t size);

/*
 * The last component of a path (what nvidia-smi names a process): a path that
 * starts with / is POSIX (a backslash is part of a name), any other may also
 * use \ (Windows).
 */
const char *path_basename_any(const char *path);

#endif
