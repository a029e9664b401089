/*
 * The instance names of the PDH GPU counters and an adapter's utilisation
 * from them, parsed without Windows: pure, so that the unit tests run them
 * on Linux and under Wine alike.
 */
#include <errno.h>
#include <string.h>

#include "gpu/dxgi-pdh/dxgi-pdh-parse.h"
#include "hmn.h"
#include "util/number.h"

/* "0x0000D1A3" → 0xD1A3; advances *p. */
static bool parse_hex32(const char **p, uint32_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (s += 2; digits < 9; s++, digits++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v * 16 + (unsigned)d;
	}
	if (digits == 0 || digits > 8)
		return false;
	*ret = (uint32_t)v;
	*p = s;
	return true;
}

static bool parse_dec32(const char **p, uint32_t *ret)
{
	uint64_t v;
	if (!parse_decimal(p, *p + strlen(*p), UINT32_MAX, &v))
		return false;
	*ret = (uint32_t)v;
	return true;
}

static bool skip(const char **p, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(*p, word, n) != 0)
		return false;
	*p += n;
	return true;
}

bool pdh_parse_instance(const char *name, struct pdh_instance *ret)
{
	struct pdh_instance inst = { 0 };
	const char *p = name;

	if (skip(&p, "pid_")) {
		if (!parse_dec32(&p, &inst.pid) || !skip(&p, "_"))
			return false;
		inst.has_pid = true;
	}
	if (!skip(&p, "luid_") || !parse_hex32(&p, &inst.luid_high) || !skip(&p, "_") ||
	    !parse_hex32(&p, &inst.luid_low) || !skip(&p, "_phys_") || !parse_dec32(&p, &inst.phys))
		return false;
	/* GPU Engine counters go on: "_eng_3_engtype_3D", "_eng_5_engtype_Compute_0". */
	if (skip(&p, "_eng_")) {
		if (!parse_dec32(&p, &inst.engine) || !skip(&p, "_engtype_"))
			return false;
		inst.has_engine = true;
		size_t n = strlen(p);
		if (n == 0 || n >= sizeof(inst.engine_type))
			return false;
		memcpy(inst.engine_type, p, n + 1);
		p += n;
	}
	if (*p != '\0')
		return false;
	*ret = inst;
	return true;
}

uint32_t pdh_adapter_utilization(const struct pdh_engine_load *loads, size_t n, uint32_t luid_high,
				 uint32_t luid_low)
{
	/* Each engine's load is the sum of its processes'; the adapter's is its busiest engine's. */
	double best = -1;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_instance *a = &loads[i].instance;
		if (a->luid_high != luid_high || a->luid_low != luid_low || !a->has_engine)
			continue;
		double sum = 0;
		bool first = true;
		for (size_t k = 0; k < n && first; k++) {
			const struct pdh_instance *b = &loads[k].instance;
			if (b->luid_high != luid_high || b->luid_low != luid_low || !b->has_engine ||
			    b->phys != a->phys || b->engine != a->engine)
				continue;
			if (k < i)
				first = false; /* this engine was summed at its first row */
			else if (loads[k].percent > 0)
				sum += loads[k].percent;
		}
		if (first && sum > best)
			best = sum;
	}
	if (best < 0)
		return HMN_VALUE_UNKNOWN;
	return best >= 100 ? 100 : (uint32_t)(best + 0.5);
}

