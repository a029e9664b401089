/* Sets of pids, as sorted arrays (lib/util/pid-set.c). */
#ifndef HMN_UTIL_PID_SET_H
#define HMN_UTIL_PID_SET_H

/* qsort's and bsearch's order of uint32_t pids, for the sorted pid arrays of every OS. */
int compare_pids(const void *a, const void *b);

#endif
