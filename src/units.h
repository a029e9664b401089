/* The SIZE and DURATION arguments (the contract's words), parsed once for the whole tool. Pure. */
#ifndef HMN_UNITS_H
#define HMN_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct size_arg {
	bool is_percent;
	uint64_t bytes;       /* when !is_percent */
	double percent;       /* when is_percent: 0 <= percent <= 100 */
};

/*
 * SIZE: a number (decimals allowed) and an optional unit, case-insensitive:
 * none or B bytes; K M G T and KiB MiB GiB TiB powers of 1024; KB MB GB TB
 * powers of 1000; or N% of each GPU's total (0 to 100). Returns false for
 * anything else, including a size of 2^64-1 bytes or more (never a wrap-around;
 * 2^64-1 is HMN_UNKNOWN)
 * or a percent above 100.
 */
bool parse_size(const char *text, struct size_arg *ret);

/* The longest DURATION, in microseconds (the one clock's unit): a year (a leap one). */
#define DURATION_MAX_US (366ULL * 24 * 3600 * 1000000)

/*
 * DURATION: a positive number and an optional unit ms, s (the default), m,
 * h or d, case-insensitive ("250ms", "1.5s", "2m"), rounded to whole
 * milliseconds, into microseconds: false for anything under 1 ms (zero,
 * "0.5ms": refused, never rounded up), a sign, more than a year, or any
 * other text.
 */
bool parse_duration(const char *text, uint64_t *ret_us);

/* A whole number of decimal digits alone, below 2^32: a PID, a count, an index. */
bool parse_u32(const char *text, size_t len, uint32_t *ret);

/*
 * A GPU in a --device LIST as the GPU column prints it: an index ("0"), or
 * a MIG instance ("0/2.0": GPU 0, GPU instance 2, compute instance 0).
 * Returns 2 for an instance, 1 for an index, 0 for anything else (which may
 * still be a UUID: the caller decides).
 */
int parse_gpu_index(const char *text, size_t len, unsigned *ret_index, unsigned *ret_gpu_instance,
		    unsigned *ret_compute_instance);

/* Bytes of a SIZE for a GPU of total bytes (a percent is of that total). */
uint64_t size_for_total(const struct size_arg *size, uint64_t total);

#endif
