/* Numbers in text (lib/util/number.c). */
#ifndef HMN_UTIL_NUMBER_H
#define HMN_UTIL_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The unsigned decimal number that starts at *p, before end: one digit or
 * more, no sign, no blank before it, at most max. On success *ret is its
 * value and *p points past its last digit; false, nothing moved, for no
 * digit or a number past max. For a NUL-terminated string, end may be
 * where its NUL is (or any bound past it: a NUL is no digit).
 */
bool parse_decimal(const char **p, const char *end, uint64_t max, uint64_t *ret);
/* The same for a hexadecimal number (digits 0-9, a-f, A-F; no "0x": the caller reads its prefix). */
bool parse_hex(const char **p, const char *end, uint64_t max, uint64_t *ret);

#endif
