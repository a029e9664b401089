/*
 * The tree's host memory over a run (hmn run's peak_ram_bytes), fed one
 * reading at a time: its peak, and how that peak was measured. A reading
 * taken while some process's figure predates a fork (not settled: the sum
 * counts the pages the fork split twice) counts at its lower bound, the
 * sum without what it may count twice. Pure, so it is tested anywhere.
 */
#ifndef HMN_RAM_METER_H
#define HMN_RAM_METER_H

#include <stdbool.h>
#include <stdint.h>

#include "hmn-run.h"

/* A sample reads host memory for at most this share of the interval (1/2). */
#define RAM_SHARE_OF_INTERVAL 2

struct ram_meter {
	uint64_t peak;          /* HMN_UNKNOWN: nothing measured */
	const char *measure;    /* how the peak's reading was measured ("pss", "rss", ...); NULL: nothing */
	uint64_t readings, partial; /* readings taken; those the time ran out in (some processes' older) */
	uint64_t measured;      /* readings that found some process of the tree */
	bool is_peak;           /* the readings are peaks themselves (Windows' job): read at the end too */
};

void ram_meter_init(struct ram_meter *m);
void ram_meter_add(struct ram_meter *m, const struct hmn_tree_memory *reading);
/*
 * The largest resident set the OS kept of the tree's processes once they
 * ended (wait4), for a tree the samples did not see running: it is the
 * peak ("rss") where nothing was measured, or where the one reading that
 * found the tree caught COMMAND starting or ending (`hmn run -- true`) and
 * says less.
 */
void ram_meter_exit_floor(struct ram_meter *m, uint64_t bytes);

#endif
