/* The Metal source's arithmetic (gpu/metal/metal-parse.c; the kernel's records in metal-abi.h): pure, for the unit tests. */
#ifndef HMN_GPU_METAL_H
#define HMN_GPU_METAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

/* The index of the ledger entry called name among count templates; -1 if none. */
int ledger_entry_index(const void *templates, size_t count, const char *name);
/* Entry index's balance among count entries; HMN_UNKNOWN out of range or negative. */
uint64_t ledger_entry_balance(const void *entries, size_t count, int index);
/*
 * Unified memory: free is Metal's working-set budget (at most total; all of
 * total when there is no budget), used is the rest.
 */
void uma_figures(uint64_t total, uint64_t budget, uint64_t *ret_used, uint64_t *ret_free);

#endif
