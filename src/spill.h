/*
 * Spill, as hypomnesis's `spill` measures it on Windows: an episode is a run
 * of samples in which the tree's shared GPU memory (system memory WDDM pages
 * it out to) grows while the adapter's dedicated memory is at its budget.
 * Pure: fed one sample at a time, so it is tested anywhere.
 */
#ifndef HMN_SPILL_H
#define HMN_SPILL_H

#include <stdbool.h>
#include <stdint.h>

#include "render.h"

/* Dedicated memory at or above this share of the budget counts as "at the budget". */
#define SPILL_AT_BUDGET_PERCENT 95

struct spill_meter {
	struct run_spill result;
	bool in_episode, has_last;
	uint64_t episode_start_us, last_shared;
};

/*
 * One sample at now_us (microseconds after the start): the tree's shared bytes, and the adapter's
 * dedicated bytes in use and its budget (HMN_UNKNOWN where unmeasured: no
 * episode can be seen then).
 */
void spill_sample(struct spill_meter *m, uint64_t now_us, uint64_t tree_shared,
		  uint64_t dedicated_used, uint64_t dedicated_budget);
/* Closes an episode still open at the end. */
void spill_finish(struct spill_meter *m, uint64_t now_us);

#endif
