/* libhmn's memory budget (lib/util/budget.c): what hmn fit fills part by part and hmn run --limit enforces. */
#include <errno.h>
#include <stdint.h>

#include "hmn-common.h"
#include "tap.h"

static void test_budget(void)
{
	struct hmn_budget b;
	hmn_budget_init(&b, 1000, 1.1);
	ok(hmn_budget_would_fit(&b, 909), "909 x 1.1 fits 1000");
	ok(!hmn_budget_would_fit(&b, 910), "910 x 1.1 does not");
	ok(hmn_budget_reserve(&b, 500) == 0 && b.current == 500 && b.peak == 500, "reserve 500");
	ok(hmn_budget_reserve(&b, 410) == -ENOSPC && b.current == 500, "a refused reservation changes nothing");
	ok(hmn_budget_reserve(&b, 400) == 0 && b.current == 900, "reserve 400 more");
	hmn_budget_release(&b, 600);
	ok(b.current == 300 && b.peak == 900, "release keeps the peak");
	hmn_budget_release(&b, 1000);
	ok(b.current == 0, "release never goes below zero");
	ok(hmn_budget_reserve(&b, UINT64_MAX) == -ENOSPC, "2^64 - 1 bytes do not fit");
	hmn_budget_init(&b, HMN_UNKNOWN, 0.5);
	ok(b.overhead == 1.0, "an overhead below 1 is 1");
	ok(hmn_budget_reserve(&b, 1ull << 62) == 0 && hmn_budget_reserve(&b, 1ull << 62) == 0,
	   "no limit: anything fits");
	ok(hmn_budget_reserve(&b, 1ull << 63) == -ENOSPC, "but not past 2^64");
	is_u64(hmn_budget_charged(&b), 1ull << 63, "charged is current times the overhead");

	/* hmn run --limit: each sample's measured size replaces the current one. */
	hmn_budget_init(&b, 1000, 1.0);
	ok(hmn_budget_set(&b, 600) == 0 && b.current == 600 && b.peak == 600, "a sample under the limit");
	ok(hmn_budget_set(&b, 1000) == 0, "at the limit is not over it");
	ok(hmn_budget_set(&b, 1001) == -ENOSPC && b.current == 1001 && b.peak == 1001,
	   "over it: -ENOSPC, and the size is taken all the same");
	ok(hmn_budget_set(&b, 10) == 0 && b.current == 10 && b.peak == 1001, "a smaller sample keeps the peak");
	hmn_budget_init(&b, 1000, 1.1);
	ok(hmn_budget_set(&b, 909) == 0 && hmn_budget_set(&b, 910) == -ENOSPC, "the overhead applies");
	hmn_budget_init(&b, HMN_UNKNOWN, 1.0);
	ok(hmn_budget_set(&b, UINT64_MAX - 1) == 0, "no limit: never over");
	hmn_budget_init(&b, 0, 1.0);
	ok(hmn_budget_set(&b, 0) == 0 && hmn_budget_set(&b, 1) == -ENOSPC, "a limit of 0: one byte is over");
}

int main(void)
{
	test_budget();
	return tap_done();
}
