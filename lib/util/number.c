/* The one decimal parser: every number hmn reads from text goes through it. */
#include "util/number.h"

bool parse_decimal(const char **p, const char *end, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s >= end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > max || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*ret = v;
	return true;
}
