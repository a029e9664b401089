/*
 * The signals that came and the sleep between samples, as hmn watch and
 * hmn run share them; how a signal is caught and a sleep woken is the
 * OS's (sys.h).
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "sample.h"
#include "sys.h"
#include "util/clock.h"

/*
 * The signals that came and were not taken yet: a slot each, so that a
 * second, different signal before the first is taken (SIGTERM, then a
 * Ctrl-C) is kept, not written over. Each slot holds when it came (its
 * turn: 0, none pending) and whether a process sent it. A signal that comes
 * again before it is taken is one, as the kernel keeps it.
 */
#define PENDING_MAX 4 /* SIGINT, SIGTERM, SIGHUP; Windows' SIGBREAK */
static volatile sig_atomic_t pending_sig[PENDING_MAX], pending_turn[PENDING_MAX], pending_from_process[PENDING_MAX];
static volatile sig_atomic_t turns;

/*
 * Notes sig (from a handler). The handlers run with each other's signals
 * blocked (POSIX) or on one console thread (Windows): one at a time.
 */
void signal_noted(int sig, bool from_process)
{
	size_t free_slot = PENDING_MAX;
	for (size_t i = 0; i < PENDING_MAX; i++) {
		if (pending_turn[i] && pending_sig[i] == sig)
			return; /* pending already: the same signal twice is one */
		if (!pending_turn[i] && free_slot == PENDING_MAX)
			free_slot = i;
	}
	if (free_slot == PENDING_MAX)
		return; /* every slot taken: only as many signals as can be caught */
	pending_sig[free_slot] = sig;
	pending_from_process[free_slot] = from_process;
	pending_turn[free_slot] = ++turns;
}

/*
 * q is Ctrl-C's twin: noted as the SIGINT a terminal sends, so that it ends
 * what Ctrl-C ends, the same way. Noted outside a handler: with the
 * handlers held off meanwhile, as they hold off each other.
 */
void quit_key_noted(void)
{
	sys_signals_hold();
	signal_noted(SIGINT, false);
	sys_signals_release();
}

static bool any_pending(void)
{
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending_turn[i])
			return true;
	return false;
}

/* The signal that came first of those pending, taken from its slot; 0: none. */
static int take_first(bool *ret_sent_by_process)
{
	size_t first = PENDING_MAX;
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending_turn[i] && (first == PENDING_MAX || pending_turn[i] < pending_turn[first]))
			first = i;
	if (first == PENDING_MAX)
		return 0;
	int sig = pending_sig[first];
	if (ret_sent_by_process)
		*ret_sent_by_process = pending_from_process[first];
	pending_turn[first] = 0;
	return sig;
}

void signals_catch(bool wake_on_child)
{
	sys_signals_catch(wake_on_child, false);
}

void signals_catch_for_command(void)
{
	sys_signals_catch(true, true);
}

void signals_restore(void)
{
	sys_signals_restore();
}

void signals_end_by(int sig)
{
	sys_signals_end_by(sig);
}

void signals_ignore_sigpipe(void)
{
	sys_signals_ignore_sigpipe();
}

int signal_take(bool *ret_sent_by_process)
{
	sys_signals_hold();
	int sig = take_first(ret_sent_by_process);
	sys_signals_release();
	return sig;
}

void sleep_until(uint64_t deadline_us)
{
	for (;;) {
		uint64_t now = clock_us();
		if (any_pending() || now >= deadline_us)
			return;
		/* Rounded up: a sleep that ended a fraction of a millisecond early would be taken again at once. */
		uint64_t left_ms = (deadline_us - now + CLOCK_US_PER_MS - 1) / CLOCK_US_PER_MS;
		if (sys_nap(left_ms))
			return; /* a signal, or a child ended: the caller looks */
	}
}
