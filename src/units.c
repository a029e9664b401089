#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "util/number.h"

/* Fraction digits kept: 10^18 still fits in 64 bits; later digits cannot matter. */
#define FRACTION_DIGITS_MAX 18

/*
 * The number at the start of text: digits, at most one '.', digits after it
 * (at least one digit in all). *ret_end gets where it stopped. The integer
 * part is exact; the fraction is kept exactly too, as numerator / 10^digits.
 */
struct number {
	uint64_t whole;
	uint64_t numerator, denominator; /* the fraction: numerator / denominator, below 1 */
};

static bool parse_number(const char *text, const char **ret_end, struct number *ret)
{
	const char *p = text;
	struct number n = { .denominator = 1 };
	bool digits = false;

	if (parse_decimal(&p, text + strlen(text), UINT64_MAX, &n.whole))
		digits = true;
	else if (*p >= '0' && *p <= '9')
		return false; /* past 2^64-1 */
	if (*p == '.') {
		unsigned kept = 0;
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
			if (kept++ < FRACTION_DIGITS_MAX) {
				n.numerator = n.numerator * 10 + (unsigned)(*p - '0');
				n.denominator *= 10;
			}
	}
	if (!digits)
		return false;
	*ret_end = p;
	*ret = n;
	return true;
}

/* Is the number times factor below one (of the unit factor counts in)? Exact. */
static bool below_one(const struct number *n, uint64_t factor)
{
	/* numerator * factor < denominator, without overflow */
	return n->whole == 0 && n->numerator < (n->denominator - 1) / factor + 1;
}

/* The number times factor, rounded to a whole unit; false past 2^64-1. */
static bool scale(const struct number *n, uint64_t factor, uint64_t *ret)
{
	if (n->whole != 0 && factor > UINT64_MAX / n->whole)
		return false;
	uint64_t a = n->whole * factor;
	/* The fraction's share is below factor (at most 2^40 here): exact enough, and it fits. */
	double frac = (double)n->numerator / (double)n->denominator;
	uint64_t b = (uint64_t)(frac * (double)factor + 0.5);
	if (b > UINT64_MAX - a)
		return false;
	*ret = a + b;
	return true;
}

struct unit {
	const char *name;
	uint64_t factor;
};

/* The unit's factor by its name, in any case; false for none of them. */
static bool find_unit(const struct unit *units, size_t n_units, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < n_units; i++)
		if (strcasecmp(name, units[i].name) == 0) {
			*ret = units[i].factor;
			return true;
		}
	return false;
}

static const struct unit size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1ULL << 10 }, { "kib", 1ULL << 10 }, { "kb", 1000ULL },
	{ "m", 1ULL << 20 }, { "mib", 1ULL << 20 }, { "mb", 1000000ULL },
	{ "g", 1ULL << 30 }, { "gib", 1ULL << 30 }, { "gb", 1000000000ULL },
	{ "t", 1ULL << 40 }, { "tib", 1ULL << 40 }, { "tb", 1000000000000ULL },
};

bool parse_size(const char *text, struct size_arg *ret)
{
	const char *unit;
	struct number n;
	uint64_t factor, bytes;

	if (!parse_number(text, &unit, &n))
		return false;
	if (strcmp(unit, "%") == 0) {
		double percent = (double)n.whole + (double)n.numerator / (double)n.denominator;
		if (n.whole > 100 || percent > 100)
			return false;
		*ret = (struct size_arg){ .is_percent = true, .percent = percent };
		return true;
	}
	if (!find_unit(size_units, sizeof(size_units) / sizeof(size_units[0]), unit, &factor) ||
	    !scale(&n, factor, &bytes) || bytes == UINT64_MAX) /* UINT64_MAX is HMN_UNKNOWN: out of range */
		return false;
	*ret = (struct size_arg){ .bytes = bytes };
	return true;
}

bool parse_duration(const char *text, uint64_t *ret_us)
{
	static const struct unit units[] = {
		{ "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	const char *unit;
	struct number n;
	uint64_t factor, ms;

	if (!parse_number(text, &unit, &n) ||
	    !find_unit(units, sizeof(units) / sizeof(units[0]), unit, &factor))
		return false;
	/* Under 1 ms is refused, never rounded up to it: "0.5ms" is no interval hmn can keep. */
	if (below_one(&n, factor) || !scale(&n, factor, &ms) || ms > DURATION_MAX_US / 1000)
		return false;
	*ret_us = ms * 1000;
	return true;
}

bool parse_u32(const char *text, size_t len, uint32_t *ret)
{
	const char *end = text;
	uint64_t v;
	/* Ten digits at most, as 2^32 - 1 has: a run of leading zeros is no PID, count or index either. */
	if (len > 10 || !parse_decimal(&end, text + len, UINT32_MAX, &v) || end != text + len)
		return false;
	*ret = (uint32_t)v;
	return true;
}

int parse_gpu_index(const char *text, size_t len, unsigned *ret_index, unsigned *ret_gpu_instance,
		    unsigned *ret_compute_instance)
{
	const char *slash = memchr(text, '/', len);
	const char *dot = slash ? memchr(slash, '.', len - (size_t)(slash - text)) : NULL;
	uint32_t index, gi, ci;

	if (!slash && parse_u32(text, len, &index)) {
		*ret_index = index;
		return 1;
	}
	if (!dot || !parse_u32(text, (size_t)(slash - text), &index) ||
	    !parse_u32(slash + 1, (size_t)(dot - slash - 1), &gi) ||
	    !parse_u32(dot + 1, len - (size_t)(dot - text) - 1, &ci))
		return 0;
	*ret_index = index;
	*ret_gpu_instance = gi;
	*ret_compute_instance = ci;
	return 2;
}

uint64_t size_for_total(const struct size_arg *size, uint64_t total)
{
	if (!size->is_percent)
		return size->bytes;
	/* Rounded up: "50%" of an odd total must not pass with one byte short. */
	double bytes = (double)total * size->percent / 100.0;
	if (bytes >= 18446744073709551616.0) /* 2^64: (double)UINT64_MAX rounds up to it */
		return UINT64_MAX;
	uint64_t b = (uint64_t)bytes;
	return (double)b < bytes ? b + 1 : b;
}
