/* The one number parser: every number hmn reads from text goes through it, decimal or hexadecimal. */
#include "util/number.h"

/* The value of digit c in base (10 or 16), or -1 for no digit of it. */
static int digit(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool parse_in_base(const char **p, const char *end, unsigned base, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	if (s >= end || digit(*s, base) < 0)
		return false;
	for (; s < end && (d = digit(*s, base)) >= 0; s++) {
		if ((uint64_t)d > max || v > (max - (uint64_t)d) / base)
			return false;
		v = v * base + (uint64_t)d;
	}
	*p = s;
	*ret = v;
	return true;
}

bool parse_decimal(const char **p, const char *end, uint64_t max, uint64_t *ret)
{
	return parse_in_base(p, end, 10, max, ret);
}

bool parse_hex(const char **p, const char *end, uint64_t max, uint64_t *ret)
{
	return parse_in_base(p, end, 16, max, ret);
}
