#include "spill.h"

static void close_episode(struct spill_meter *m, uint64_t now_us)
{
	uint64_t length = now_us - m->episode_start_us;
	m->result.total_us += length;
	if (length > m->result.longest_us)
		m->result.longest_us = length;
	m->in_episode = false;
}

void spill_sample(struct spill_meter *m, uint64_t now_us, uint64_t tree_shared,
		  uint64_t dedicated_used, uint64_t dedicated_budget)
{
	bool known = tree_shared != HMN_UNKNOWN && dedicated_used != HMN_UNKNOWN &&
		     dedicated_budget != HMN_UNKNOWN && dedicated_budget > 0;
	bool at_budget = known && dedicated_used / SPILL_AT_BUDGET_PERCENT >=
					  dedicated_budget / 100; /* no overflow near 2^64 */
	bool grew = known && m->has_last && tree_shared > m->last_shared;
	bool held = known && m->has_last && tree_shared >= m->last_shared;

	if (m->in_episode && !(at_budget && held))
		close_episode(m, now_us);
	else if (!m->in_episode && at_budget && grew) {
		m->in_episode = true;
		m->episode_start_us = now_us;
		m->result.episodes++;
	}
	if (m->in_episode && tree_shared > m->result.peak_shared_bytes)
		m->result.peak_shared_bytes = tree_shared;
	m->has_last = tree_shared != HMN_UNKNOWN;
	m->last_shared = tree_shared;
}

void spill_finish(struct spill_meter *m, uint64_t now_us)
{
	if (m->in_episode)
		close_episode(m, now_us);
}
