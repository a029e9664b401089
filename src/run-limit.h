/*
 * hmn run --limit SIZE: the tree's GPU memory against a budget at each
 * sample; the first sample over it sends SIGTERM to every process of the
 * tree, each from --kill-after on SIGKILL to what is left, and what is
 * still there a while after that is not waited for.
 */
#ifndef HMN_RUN_LIMIT_H
#define HMN_RUN_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "hmn-common.h"
#include "hmn-run.h"

/*
 * Where --limit stands. Once over, never within again:
 *
 *   WITHIN --over: SIGTERM reached every process------------> STOPPING --a signal to hmn--> HURRIED
 *     |                                                           ^
 *     +--over: some process could not be signalled--> OVER --a later SIGKILL reached them all
 *
 * The deadlines stay times (kill_at_us, give_up_us), not phases: each
 * sample and each wake-up compares the clock with them.
 */
enum limit_phase {
	LIMIT_WITHIN,   /* no --limit, or the tree has not gone over it */
	/*
	 * Over it, and some process of the tree could not be signalled (no pid
	 * hmn can tell, -EXDEV): the others get their SIGKILL all the same;
	 * hmn waits, and exits, as without --limit.
	 */
	LIMIT_OVER,
	/*
	 * Over it, and the signal reached every process: SIGKILL from
	 * kill_at_us to what is left, waited for until give_up_us; exit 124.
	 */
	LIMIT_STOPPING,
	/* Stopping, and then a signal reached hmn: SIGKILL at once, the wait cut short. */
	LIMIT_HURRIED,
};

struct run_limit {
	const struct cli *cli;       /* --limit, --kill-after; -q and COMMAND's words, for what is said */
	hmn_context *ctx;
	struct hmn_command *command; /* NULL until it started */
	uint64_t start_us;           /* when it started */
	struct hmn_budget budget;    /* the tree's GPU memory at each sample against it */
	enum limit_phase phase;
	bool refusal_said;           /* why some process could not be signalled, said once */
	bool term_again;             /* SIGTERM found no listing of the tree (out of descriptors): again each sample */
	uint64_t exceeded_us, exceeded_bytes; /* when (after the start) and at what size */
	uint64_t kill_at_us;         /* SIGKILL to what is left from then on */
	uint64_t give_up_us;         /* what is left then is not waited for (see limit_wait_over) */
};

/*
 * --limit in bytes: SIZE, or N% of the devices run watches, their totals
 * summed (HMN_UNKNOWN: one does not say). -ENODEV when there is no device to
 * measure the tree on, -ERANGE when a share is asked of devices whose
 * totals are unknown: a budget that cannot be enforced is refused, never
 * dropped.
 */
int limit_resolve(struct run_limit *l, const struct cli *cli, hmn_context *ctx, size_t n_devices,
		  uint64_t summed_total);
/* COMMAND started at start_us: its tree is the one to stop. */
void limit_started(struct run_limit *l, struct hmn_command *command, uint64_t start_us);
/*
 * At each sample: the tree's GPU memory (device_wide: the GPUs' rise, as
 * the report counts it) against the budget, and the signals that are due.
 */
void limit_check(struct run_limit *l, uint64_t tree_bytes, bool device_wide);
/* A signal reached hmn (sig); the first once --limit is stopping the tree hurries the end. */
void limit_told_to_stop(struct run_limit *l, int sig);
/* Is the tree past waiting for, once --limit is stopping it? Said when something of it is left. */
bool limit_wait_over(const struct run_limit *l);
/* When to wake: next_sample, or sooner where a deadline of --limit's comes first. */
uint64_t limit_wake_at(const struct run_limit *l, uint64_t next_sample);

static inline bool limit_exceeded(const struct run_limit *l)
{
	return l->phase != LIMIT_WITHIN;
}
/* --limit stopped the tree: waited for a while only, and exit 124. */
static inline bool limit_stopped(const struct run_limit *l)
{
	return l->phase == LIMIT_STOPPING || l->phase == LIMIT_HURRIED;
}

#endif
