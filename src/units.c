#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/*
 * The number at the start of text: digits, at most one '.', digits after it
 * (at least one digit in all). *ret_end gets where it stopped; the value is
 * exact below 2^53 and for every integer (the integer part kept apart).
 */
static bool parse_number(const char *text, const char **ret_end, uint64_t *ret_int, double *ret_frac)
{
	const char *p = text;
	uint64_t whole = 0;
	double frac = 0, scale = 0.1;
	bool digits = false;

	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		unsigned d = (unsigned)(*p - '0');
		if (whole > (UINT64_MAX - d) / 10)
			return false;
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++, digits = true, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (!digits)
		return false;
	*ret_end = p;
	*ret_int = whole;
	*ret_frac = frac;
	return true;
}

/* whole.frac * factor in an integer, false past 2^64-1. */
static bool scale(uint64_t whole, double frac, uint64_t factor, uint64_t *ret)
{
	if (whole != 0 && factor > UINT64_MAX / whole)
		return false;
	uint64_t a = whole * factor;
	/* The fraction's share is below factor (at most 2^40 here): exact enough, and it fits. */
	uint64_t b = (uint64_t)(frac * (double)factor + 0.5);
	if (b > UINT64_MAX - a)
		return false;
	*ret = a + b;
	return true;
}

static const struct {
	const char *name;
	uint64_t factor;
} size_units[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1ULL << 10 }, { "kib", 1ULL << 10 }, { "kb", 1000ULL },
	{ "m", 1ULL << 20 }, { "mib", 1ULL << 20 }, { "mb", 1000000ULL },
	{ "g", 1ULL << 30 }, { "gib", 1ULL << 30 }, { "gb", 1000000000ULL },
	{ "t", 1ULL << 40 }, { "tib", 1ULL << 40 }, { "tb", 1000000000000ULL },
};

bool parse_size(const char *text, struct size_arg *ret)
{
	const char *unit;
	uint64_t whole;
	double frac;

	if (!parse_number(text, &unit, &whole, &frac))
		return false;
	if (strcmp(unit, "%") == 0) {
		double percent = (double)whole + frac;
		if (whole > 100 || percent <= 0 || percent > 100)
			return false;
		*ret = (struct size_arg){ .is_percent = true, .percent = percent };
		return true;
	}
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		uint64_t bytes;
		if (strcasecmp(unit, size_units[i].name) != 0)
			continue;
		if (!scale(whole, frac, size_units[i].factor, &bytes))
			return false;
		*ret = (struct size_arg){ .bytes = bytes };
		return true;
	}
	return false;
}

bool parse_duration(const char *text, uint64_t *ret_ms)
{
	static const struct {
		const char *name;
		uint64_t ms;
	} units[] = { { "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "h", 3600000 } };
	const char *unit;
	uint64_t whole, ms;
	double frac;

	if (!parse_number(text, &unit, &whole, &frac))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].name) != 0)
			continue;
		if (!scale(whole, frac, units[i].ms, &ms) || ms == 0 || ms > 366ULL * 24 * 3600 * 1000)
			return false;
		*ret_ms = ms;
		return true;
	}
	return false;
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
