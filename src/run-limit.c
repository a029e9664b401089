/*
 * hmn run --limit: the tree's GPU memory at each sample against the
 * budget, and the tree stopped when it goes over (run-limit.h has the
 * phases). Everything here is said on stderr as "hmn: COMMAND: ...".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "render.h"
#include "run-limit.h"
#include "sys.h"
#include "util/clock.h"

#ifndef SIGKILL
#define SIGKILL 9 /* Windows has none: any signal ends the whole job there */
#endif

/*
 * After --limit's SIGKILL, what is left is waited for as long again as
 * --kill-after, and this long at least: a process that SIGKILL can end is
 * gone in milliseconds (its GPU memory given back in a second or two), one
 * still there is not going to go (uninterruptible sleep, not ours to signal).
 */
#define KILL_GRACE_MIN_US (1000 * CLOCK_US_PER_MS)

int limit_resolve(struct run_limit *l, const struct cli *cli, hmn_context *ctx, size_t n_devices,
		  uint64_t summed_total)
{
	*l = (struct run_limit){ .cli = cli, .ctx = ctx };
	hmn_budget_init(&l->budget, HMN_UNKNOWN, 1.0);
	if (!cli->limit.given)
		return 0;
	if (n_devices == 0)
		return -ENODEV;
	if (cli->limit.size.is_percent && summed_total == HMN_UNKNOWN)
		return -ERANGE;
	hmn_budget_init(&l->budget, size_for_total(&cli->limit.size, summed_total), 1.0);
	return 0;
}

void limit_started(struct run_limit *l, struct hmn_command *command, uint64_t start_us)
{
	l->command = command;
	l->start_us = start_us;
}

/* "hmn: CMD: " on stderr, for a line about the tree; false with -q (nothing to say). */
static bool say_about_command(const struct run_limit *l)
{
	if (l->cli->quiet)
		return false;
	fputs("hmn: ", stderr);
	put_command(stderr, l->cli->argv, l->cli->argc);
	fputs(": ", stderr);
	return true;
}

/*
 * Signals the tree for --limit. The tree counts as stopped (exit 124) once a
 * signal was sent to every process of it: not where some had no pid hmn
 * could tell (-EXDEV: the /proc at HMN_PROCFS numbers them in a namespace
 * hmn's pids do not reach), which are never signalled by another
 * namespace's number; then hmn exits as COMMAND does.
 */
static int signal_tree(struct run_limit *l, int sig)
{
	int sent = hmn_command_signal_tree(l->ctx, l->command, sig);
	/* -EXDEV: the others had it; another error: nobody did, and SIGTERM is due again. */
	if (sig == SIGTERM)
		l->term_again = sent < 0 && sent != -EXDEV;
	/*
	 * The tree could be told apart: every process signalled, or refused
	 * as not hmn's to signal (EPERM: waited for a while, see
	 * limit_wait_over), or gone already.
	 */
	if (sent >= 0 && l->phase == LIMIT_OVER)
		l->phase = LIMIT_STOPPING;
	else if (sent < 0 && !l->refusal_said && !l->cli->quiet) {
		fprintf(stderr, "hmn: --limit: the tree cannot be stopped: %s\n", hmn_context_error(l->ctx));
		l->refusal_said = true;
	}
	return sent;
}

/* The tree is over --limit, and its SIGTERM was sent to sent processes: said, after COMMAND's words. */
static void say_stopping(struct run_limit *l, int sent, bool device_wide)
{
	char size[SIZE_TEXT_MAX], limit[SIZE_TEXT_MAX], after[DURATION_TEXT_MAX];

	if (!say_about_command(l))
		return;
	format_size(l->exceeded_bytes, false, size);
	format_size(l->budget.limit, false, limit);
	/* Device-wide, the budget is the GPUs' rise: another job's memory can end COMMAND, said so. */
	if (device_wide)
		fprintf(stderr, "the GPUs' used memory rose %s, over --limit %s (%s)", size, limit,
			DEVICE_WIDE_LIMIT_NOTE);
	else
		fprintf(stderr, "%s of GPU memory, over --limit %s", size, limit);
	fprintf(stderr, ": SIGTERM to its %d process%s, SIGKILL in %s to what is left\n", sent > 0 ? sent : 0,
		sent == 1 ? "" : "es", format_duration(l->cli->kill_after_us, after));
	fflush(stderr);
}

/*
 * The first sample that finds the tree above the budget sends SIGTERM to
 * every process of the tree (again each sample where the tree could not be
 * listed for it); from --kill-after on, each sample sends SIGKILL to what is
 * left (a process that handles SIGTERM and goes on, or one started since).
 */
void limit_check(struct run_limit *l, uint64_t tree_bytes, bool device_wide)
{
	uint64_t now = clock_us();

	if (l->phase != LIMIT_WITHIN) {
		/*
		 * SIGKILL to what is left, stopped or not: where some processes
		 * could not be told apart (-EXDEV), the others had their SIGTERM
		 * and get their SIGKILL all the same.
		 */
		int sent;
		if (now >= l->kill_at_us)
			(void)signal_tree(l, SIGKILL);
		else if (l->term_again && (sent = signal_tree(l, SIGTERM)) >= 0)
			say_stopping(l, sent, device_wide);
		return;
	}
	if (!l->cli->limit.given || hmn_budget_set(&l->budget, tree_bytes) != -ENOSPC)
		return;
	l->phase = LIMIT_OVER; /* stopping, once the signal reaches every process */
	l->exceeded_us = now - l->start_us;
	l->exceeded_bytes = l->budget.current;
	l->kill_at_us = now + l->cli->kill_after_us;
	l->give_up_us = l->kill_at_us +
			(l->cli->kill_after_us > KILL_GRACE_MIN_US ? l->cli->kill_after_us : KILL_GRACE_MIN_US);
	int sent = signal_tree(l, SIGTERM);
	if (sent >= 0)
		say_stopping(l, sent, device_wide);
}

/*
 * A signal to hmn while --limit stops the tree: hmn is asked to stop
 * waiting for that. What is left gets its SIGKILL now, as no one would
 * send it once hmn has gone, and is waited for a moment at most, for that
 * to work.
 */
void limit_told_to_stop(struct run_limit *l, int sig)
{
	if (l->phase != LIMIT_STOPPING)
		return; /* within, or over and not stopped (hmn waits as without --limit); hurried once only */
	char signame[SIGNAL_NAME_MAX];
	uint64_t now = clock_us();
	int sent = signal_tree(l, SIGKILL);

	l->phase = LIMIT_HURRIED;
	if (now < l->kill_at_us)
		l->kill_at_us = now; /* each sample from now on sends SIGKILL to what is left */
	if (now + KILL_GRACE_MIN_US < l->give_up_us)
		l->give_up_us = now + KILL_GRACE_MIN_US;
	if (say_about_command(l)) {
		fprintf(stderr, "%s to hmn: SIGKILL now to its %d process%s left\n", signal_name(sig, signame),
			sent > 0 ? sent : 0, sent == 1 ? "" : "es");
		fflush(stderr);
	}
}

/*
 * --limit ended the tree: all of it is waited for, what is left getting its
 * SIGKILL at --kill-after; and then for a while only, not for ever: a
 * process in uninterruptible sleep (a hung NFS or driver call), or one hmn
 * may not signal (another user's, after a set-user-ID program), would keep
 * it waiting with nothing that could change it. What is still there is
 * said, and named in the report as left running.
 */
bool limit_wait_over(const struct run_limit *l)
{
	uint32_t *pids = NULL;
	size_t n = 0;
	char grace[DURATION_TEXT_MAX];

	if (clock_us() < l->give_up_us)
		return false;
	if (hmn_command_pids(l->ctx, l->command, &pids, &n) == 0 && n > 0 && say_about_command(l)) {
		fprintf(stderr, "%zu process%s of it still there %s after SIGKILL (in uninterruptible sleep, or not "
			"hmn's to signal): not waiting for %s\n", n, n == 1 ? "" : "es",
			format_duration(l->give_up_us - l->kill_at_us, grace), n == 1 ? "it" : "them");
		fflush(stderr);
	}
	free(pids);
	return true;
}

/*
 * Sooner than the next sample where a deadline of --limit's comes before
 * it (SIGKILL due, or the end of the wait for it to work), so that a long
 * --interval never puts them off.
 */
uint64_t limit_wake_at(const struct run_limit *l, uint64_t next_sample)
{
	if (l->phase == LIMIT_WITHIN)
		return next_sample;
	/* SIGKILL is due whether the tree could be stopped or not (see limit_check); the wait's end only if it was. */
	uint64_t now = clock_us();
	uint64_t deadline = now < l->kill_at_us ? l->kill_at_us : limit_stopped(l) ? l->give_up_us : next_sample;
	return deadline < next_sample ? deadline : next_sample;
}
