/*
 * Sets of pids, as sorted arrays without repeats (lib/util/pid-set.c): what
 * a tree's listing is, looked up by halves (hmn run's membership, the tree
 * meter, a reaped process taken out).
 */
#ifndef HMN_UTIL_PID_SET_H
#define HMN_UTIL_PID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* qsort's and bsearch's order of uint32_t pids. */
int compare_pids(const void *a, const void *b);
/* Makes pids (n of them, in any order) a set: sorted, each once. Returns how many are left. */
size_t pid_set_make(uint32_t *pids, size_t n);
/* Is pid in the set? */
bool pid_set_has(const uint32_t *pids, size_t n, uint32_t pid);
/* Takes pid out of the set, if it is there. Returns how many are left. */
size_t pid_set_remove(uint32_t *pids, size_t n, uint32_t pid);

#endif
