/*
 * libhmn — what every part of it shares: the markers of a size and an owner
 * nobody measured, the library's version, and a memory budget (hmn run's
 * --limit, hmn fit's reservation). Included by hmn.h, hmn-run.h and
 * hmn-model.h.
 *
 * Conventions (systemd style), in every libhmn header:
 * - Functions that can fail return 0 (or a count) on success and a negative
 *   errno-style code on failure. After a failure of a query,
 *   hmn_context_error() explains it in a sentence the caller can print;
 *   elsewhere a why buffer does.
 * - Out-parameters are named ret_*; they are left untouched on failure.
 * - Every *_free() function accepts NULL and returns NULL, so that
 *   `x = hmn_x_free(x);` leaves no dangling pointer.
 * - The library never prints and never exits. Diagnostics (which source was
 *   used or skipped, and why; a GPU that failed) reach the caller through the
 *   log callback in struct hmn_options.
 * - Sizes are bytes. HMN_UNKNOWN marks a size nobody measured; times are
 *   microseconds, or say their unit in their name.
 */
#ifndef HMN_COMMON_H
#define HMN_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HMN_UNKNOWN UINT64_MAX      /* a size nobody measured */
#define HMN_UID_UNKNOWN UINT32_MAX  /* an owner nobody could read */

/* The library's version, "X.Y.Z". */
const char *hmn_version(void);

/*
 * ---- A memory budget ---------------------------------------------------------
 *
 * Bytes against a limit, with a factor for what allocators lose (alignment,
 * fragmentation): a reservation is refused when the current use times the
 * factor would pass the limit. Plain data: declare one, fill it with
 * hmn_budget_init(), no free needed. Not thread-safe.
 */
struct hmn_budget {
	uint64_t limit;             /* HMN_UNKNOWN: no limit */
	uint64_t current;           /* reserved now */
	uint64_t peak;              /* the most ever reserved at once */
	double overhead;            /* ≥ 1: the factor applied before comparing with the limit */
};
/* overhead below 1 (or NaN) is taken as 1. */
void hmn_budget_init(struct hmn_budget *budget, uint64_t limit, double overhead);
/* Would bytes more stay within the limit? */
bool hmn_budget_would_fit(const struct hmn_budget *budget, uint64_t bytes);
/* Reserves bytes: 0, or -ENOSPC (nothing reserved) when it would pass the limit. */
int hmn_budget_reserve(struct hmn_budget *budget, uint64_t bytes);
/* Gives bytes back (never below zero). */
void hmn_budget_release(struct hmn_budget *budget, uint64_t bytes);
/*
 * The use measured now replaces the current one (hmn run --limit: the tree's
 * size at a sample), the peak kept; it is taken whatever the limit says.
 * Returns 0, or -ENOSPC when it (times the overhead) is above the limit.
 */
int hmn_budget_set(struct hmn_budget *budget, uint64_t bytes);
/* The current use times the overhead: what the limit is compared with. */
uint64_t hmn_budget_charged(const struct hmn_budget *budget);

/*
 * The process's environment as libhmn reads it, for a tool that reads the
 * same variables (hmn's HMN_PICK_LOCK): a variable that names a file is
 * NULL where the process runs with privileges its caller lacks
 * (secure_getenv); a path is absolute or not by the OS's rule.
 */
const char *hmn_trusted_getenv(const char *name);
bool hmn_path_is_absolute(const char *path);
/* This process's id, as its OS numbers it. */
uint32_t hmn_self_pid(void);

#ifdef __cplusplus
}
#endif

#endif
