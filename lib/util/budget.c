/* A memory budget: bytes against a limit, with a factor for what allocators lose. */
#include <errno.h>
#include <math.h>

#include "hmn-common.h"

void hmn_budget_init(struct hmn_budget *budget, uint64_t limit, double overhead)
{
	budget->limit = limit;
	budget->current = 0;
	budget->peak = 0;
	budget->overhead = overhead >= 1.0 && isfinite(overhead) ? overhead : 1.0;
}

/* bytes times the overhead, rounded up; UINT64_MAX when that does not fit. */
static uint64_t charged(uint64_t bytes, double overhead)
{
	double x = ceil((double)bytes * overhead);
	return x >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)x;
}

uint64_t hmn_budget_charged(const struct hmn_budget *budget)
{
	return charged(budget->current, budget->overhead);
}

bool hmn_budget_would_fit(const struct hmn_budget *budget, uint64_t bytes)
{
	if (bytes > UINT64_MAX - budget->current)
		return false;
	if (budget->limit == HMN_UNKNOWN)
		return true;
	return charged(budget->current + bytes, budget->overhead) <= budget->limit;
}

int hmn_budget_reserve(struct hmn_budget *budget, uint64_t bytes)
{
	if (!hmn_budget_would_fit(budget, bytes))
		return -ENOSPC;
	budget->current += bytes;
	if (budget->current > budget->peak)
		budget->peak = budget->current;
	return 0;
}

void hmn_budget_release(struct hmn_budget *budget, uint64_t bytes)
{
	budget->current = bytes > budget->current ? 0 : budget->current - bytes;
}

int hmn_budget_set(struct hmn_budget *budget, uint64_t bytes)
{
	budget->current = bytes;
	if (bytes > budget->peak)
		budget->peak = bytes;
	return budget->limit != HMN_UNKNOWN && hmn_budget_charged(budget) > budget->limit ? -ENOSPC : 0;
}
