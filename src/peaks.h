/*
 * The largest figure seen for each (process, GPU) over many samples (hmn
 * watch's summary, hmn run's report): O(1) a row, however many processes.
 * A process is its pid and its start time: a pid given again later is
 * another process, with its own peak and name.
 */
#ifndef HMN_PEAKS_H
#define HMN_PEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"
#include "util/hash-index.h"

struct peak {
	uint32_t pid;
	uint64_t start_time;  /* with pid, the process (a pid given again is another); 0: unknown */
	struct hmn_place place; /* its GPU, or the MIG instance it ran on */
	uint64_t bytes;       /* the largest known figure seen */
	char *name;           /* the first name seen; NULL: unknown */
	uint64_t last_seen_us; /* when a row last had a figure (the caller's clock; 0: not kept) */
};

struct peaks {
	struct peak *items;
	size_t count, capacity;
	struct hash_index index; /* the items by process and place */
	/*
	 * 0: every process is kept (hmn run's tree). Else the memory is bounded
	 * however many processes come and go (hmn watch for months): at 2 *
	 * limit entries only the limit highest are kept. A process dropped and
	 * seen again starts from its figure then, below the limit-th anyway.
	 */
	size_t limit;
};

/*
 * Records a row's figure (unknown figures are not peaks) seen at seen_us
 * (hmn run's accounting check: a driver's record of a later process with
 * the pid is not this one's); -ENOMEM.
 */
int peaks_add(struct peaks *p, const struct hmn_process *row, uint64_t seen_us);
/* The peaks, largest first (ties by pid): a malloc'd array of pointers into p. */
const struct peak **peaks_sorted(const struct peaks *p);
/* How many processes held memory (a figure above 0): a pid on two GPUs is one. */
size_t peaks_pids_held(const struct peaks *p);
/* Frees what p holds; its limit stays. */
void peaks_clear(struct peaks *p);

#endif
