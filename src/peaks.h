/*
 * The largest figure seen for each (process, GPU) over many samples (hmn
 * watch's summary, hmn run's report): O(1) a row, however many processes.
 */
#ifndef HMN_PEAKS_H
#define HMN_PEAKS_H

#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

struct peak {
	uint32_t pid;
	unsigned device_index;
	unsigned instance;    /* MIG GPU instance + 1; 0: the whole GPU */
	uint64_t bytes;       /* the largest known figure seen */
	char *name;           /* the first name seen; NULL: unknown */
};

struct peaks {
	struct peak *items;
	size_t count, capacity;
	size_t *slots;        /* item + 1 by hash; 0 empty */
	size_t n_slots;
};

/* Records a row's figure (unknown figures are not peaks); -ENOMEM. */
int peaks_add(struct peaks *p, const struct hmn_process *row);
/* The peaks, largest first (ties by pid): a malloc'd array of pointers into p. */
const struct peak **peaks_sorted(const struct peaks *p);
void peaks_clear(struct peaks *p);

#endif
