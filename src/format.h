/* Formatting shared by the table and JSON renderers. Pure functions. */
#ifndef HMN_FORMAT_H
#define HMN_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hmn-model.h"
#include "hmn.h"
#include "util/text.h" /* utf8_sequence_length(), printable_name(): the library's rule */

#define SIZE_TEXT_MAX 32
#define DURATION_TEXT_MAX 32

/*
 * A size as the tables and messages show it, one word: whole MiB below
 * 1 GiB ("512MiB"), GiB with one decimal below 1 TiB ("8.2GiB"), else TiB
 * with one decimal ("1.5TiB"); the exact byte count when exact is set.
 * HMN_UNKNOWN prints "-". Returns buf.
 */
const char *format_size(uint64_t bytes, bool exact, char buf[SIZE_TEXT_MAX]);
/*
 * A size in hmn run's text report, one word: below 1 MiB in bytes or whole
 * KiB ("0B", "700B", "512KiB"), where format_size would say "0MiB" of a
 * command that held little (hmn run -- true); from there as format_size.
 * The tables keep format_size's forms. Returns buf.
 */
const char *format_size_fine(uint64_t bytes, char buf[SIZE_TEXT_MAX]);

/*
 * A length of time in the unit that fits, one word: "20ms" below a second,
 * "12.4s" below a minute, then "4m05s", "2h10m", "3d04h". Returns buf.
 */
const char *format_duration(uint64_t us, char buf[DURATION_TEXT_MAX]);
#define SIGNAL_NAME_MAX 24
/* "SIGTERM", as kill -l names it, or "signal N" in buf. */
const char *signal_name(int sig, char buf[SIGNAL_NAME_MAX]);

/*
 * A GPU's name as a table shows it: the first product a pci.ids name gives
 * in brackets, after the vendor ("AMD Navi 31 [Radeon RX 7900 XT/7900 XTX]"
 * is "AMD Radeon RX 7900 XT"), else the name as it is (returned, not
 * copied). JSON keeps the whole name.
 */
const char *gpu_product_name(const char *name, char *buf, size_t size);

/*
 * Columns a code point takes in a terminal: 0 for combining marks and
 * zero-width characters, 2 for East Asian Wide and Fullwidth ones, else 1.
 * From a built-in table, the same in every locale and on every OS.
 */
unsigned codepoint_width(uint32_t cp);

/*
 * How many of text's first len bytes fit in columns display columns: the
 * longest start no wider, which never splits a UTF-8 sequence nor a wide
 * character, and keeps the zero-width ones that follow the last character
 * that fits. Its width into *ret_width.
 */
size_t text_fit(const char *text, size_t len, size_t columns, size_t *ret_width);
/*
 * Writes text's first len bytes (terminal-safe already) cut to columns
 * display columns: a text too wide ends in "…" in its last column. A wide
 * character never straddles the cut, and the cut never splits a UTF-8
 * sequence.
 */
void print_cut(FILE *out, const char *text, size_t len, size_t columns);

/*
 * Copies s into out (out_size bytes, always terminated) for a terminal: every
 * byte of a control character (C0, DEL, C1) or of invalid UTF-8 becomes '?'
 * (printable_name(), the rule the library's messages follow too). Returns
 * the display width in terminal columns (codepoint_width()).
 */
size_t sanitize_for_terminal(const char *s, char *out, size_t out_size);

/*
 * A command's word as a POSIX shell would need it typed, made safe for a
 * terminal first: as it is when every byte is one a shell leaves alone
 * (letters, digits, and %+,-./:=@_), else in single quotes, each ' as '\''.
 * out (out_size bytes) is always terminated; a word too long is cut.
 */
void shell_quote_word(const char *word, char *out, size_t out_size);

/*
 * A command line as a shell would take it back, for a person and a table:
 * argc words of argv, each as shell_quote_word() quotes it, joined by
 * single spaces, in a malloc'd string (terminal-safe). NULL on ENOMEM.
 */
char *command_text(const char *const *argv, size_t argc);
/* The words of a NULL-terminated vector (a process's command). */
size_t strv_count(const char *const *v);

/*
 * Copies s into a malloc'd string in which each byte of invalid UTF-8 is
 * replaced by U+FFFD, so a JSON encoder gets valid UTF-8. NULL on ENOMEM.
 */
char *utf8_repair(const char *s);

/* hmn fit's words: a model's format ("gguf", "safetensors", "config"). */
const char *model_format_name(enum hmn_model_format format);
/* A parameter count as people say it: "8.03B", "124.4M". */
const char *parameters_text(uint64_t parameters, char buf[32]);

#endif
