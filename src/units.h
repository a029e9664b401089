/* The SIZE and DURATION arguments (the contract's words), parsed once for the whole tool. Pure. */
#ifndef HMN_UNITS_H
#define HMN_UNITS_H

#include <stdbool.h>
#include <stdint.h>

struct size_arg {
	bool is_percent;
	uint64_t bytes;       /* when !is_percent */
	double percent;       /* when is_percent: 0 < percent <= 100 */
};

/*
 * SIZE: a number (decimals allowed) and an optional unit, case-insensitive:
 * none or B bytes; K M G T and KiB MiB GiB TiB powers of 1024; KB MB GB TB
 * powers of 1000; or N% of each GPU's total. Returns false for anything else,
 * including a size beyond 2^64-1 bytes (never a wrap-around) or a percent
 * above 100.
 */
bool parse_size(const char *text, struct size_arg *ret);

/*
 * DURATION: a positive number and an optional unit ms, s (the default), m
 * or h ("250ms", "1.5s", "2m"), in whole milliseconds: false for zero, a
 * sign, anything under 1 ms, more than a year, or any other text.
 */
bool parse_duration(const char *text, uint64_t *ret_ms);

/* Bytes of a SIZE for a GPU of total bytes (a percent is of that total). */
uint64_t size_for_total(const struct size_arg *size, uint64_t total);

#endif
