/* The spill meter (src/spill.c): episodes of shared memory growing at the dedicated budget. */
#include <stdlib.h>

#include "spill.h"
#include "tap.h"

#define GIB (1ULL << 30)
#define MS 1000 /* the meter's times are microseconds */

int main(void)
{
	struct spill_meter m = { 0 };
	uint64_t budget = 8 * GIB;

	/* 0-300 ms: below the budget, shared growing: not a spill. */
	for (uint64_t t = 0; t <= 300; t += 100)
		spill_sample(&m, t * MS, t * 1000, 4 * GIB, budget);
	ok(m.result.episodes == 0, "shared growing below the budget is no spill");
	/* 400-700 ms: at the budget, shared growing: one episode. */
	for (uint64_t t = 400; t <= 700; t += 100)
		spill_sample(&m, t * MS, GIB + t * 1000000, budget - GIB / 100, budget);
	/* 800 ms: shared falls back: the episode ends. */
	spill_sample(&m, 800 * MS, GIB, budget, budget);
	ok(m.result.episodes == 1, "one episode");
	is_u64(m.result.total_us, 400 * MS, "it lasted from 400 to 800 ms");
	is_u64(m.result.peak_shared_bytes, GIB + 700000000ULL, "its peak shared figure");
	/* 900-1000 ms: again, still open at the end. */
	spill_sample(&m, 900 * MS, 3 * GIB, budget, budget);
	spill_sample(&m, 1000 * MS, 4 * GIB, budget, budget);
	spill_finish(&m, 1100 * MS);
	ok(m.result.episodes == 2, "a second episode");
	is_u64(m.result.longest_us, 400 * MS, "the longest");
	is_u64(m.result.total_us, (400 + 200) * MS, "the second closed at the end: 900 to 1100 ms");

	struct spill_meter u = { 0 };
	for (uint64_t t = 0; t < 500; t += 100)
		spill_sample(&u, t * MS, HMN_UNKNOWN, budget, budget);
	spill_sample(&u, 600 * MS, 5 * GIB, HMN_UNKNOWN, budget);
	spill_sample(&u, 700 * MS, 6 * GIB, budget, HMN_UNKNOWN);
	spill_finish(&u, 800 * MS);
	ok(u.result.episodes == 0 && u.result.total_us == 0, "unknown figures: no episode, never a guess");

	struct spill_meter big = { 0 };
	spill_sample(&big, 0 * MS, 1, UINT64_MAX - 1, UINT64_MAX - 1);
	spill_sample(&big, 100 * MS, 2, UINT64_MAX - 1, UINT64_MAX - 1);
	ok(big.result.episodes == 1, "figures near 2^64 do not overflow the budget test");
	return tap_done();
}
