#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>
#endif

#include "sample.h"
#include "util/clock.h"

void utc_now(char buf[32])
{
#ifdef _WIN32
	SYSTEMTIME st;
	GetSystemTime(&st);
	snprintf(buf, 32, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", st.wYear % 10000u, st.wMonth % 100u,
		 st.wDay % 100u, st.wHour % 100u, st.wMinute % 100u, st.wSecond % 100u,
		 st.wMilliseconds % 1000u);
#else
	struct timespec t;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	/* strftime bounds every field (a year past 9999 is no concern of a clock today). */
	size_t n = strftime(buf, 32 - 5, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03dZ", (int)(t.tv_nsec / 1000000) % 1000);
#endif
}

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
static void note_signal(int sig, bool from_process)
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

static bool any_pending(void)
{
	for (size_t i = 0; i < PENDING_MAX; i++)
		if (pending_turn[i])
			return true;
	return false;
}

#ifdef _WIN32
static void on_signal(int sig)
{
	note_signal(sig, false);
	signal(sig, on_signal);
}

void signals_catch(bool wake_on_child)
{
	(void)wake_on_child;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

void signals_catch_for_command(void)
{
	signals_catch(true);
}

void signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void signals_end_by(int sig)
{
	(void)sig; /* no signal ends a Windows process as it ended the command */
}

void signals_ignore_sigpipe(void)
{
}

void sleep_until(uint64_t deadline_us)
{
	while (!any_pending()) {
		uint64_t now = clock_us();
		if (now >= deadline_us)
			return;
		uint64_t left_ms = (deadline_us - now + CLOCK_US_PER_MS - 1) / CLOCK_US_PER_MS;
		Sleep((DWORD)(left_ms < 50 ? left_ms : 50)); /* short naps: a console handler runs on its own thread */
	}
}
#else
/*
 * One wake-up mechanism, with no lost wake-up: the handler notes the signal
 * and writes a byte into a pipe, and the sleep is a poll() on that pipe. A
 * signal that comes between a look at what is pending and the poll leaves
 * its byte there, and the poll returns at once (with nanosleep it cost a
 * whole interval, and --interval allows days).
 */
static int wake_pipe[2] = { -1, -1 };
static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
static struct sigaction before[sizeof(caught) / sizeof(caught[0])];
static bool installed[sizeof(caught) / sizeof(caught[0])];

static void on_signal(int sig, siginfo_t *info, void *context)
{
	int saved = errno;
	(void)context;
	/*
	 * A child's end only wakes the sleep. Sent by a process: kill(),
	 * sigqueue(), tgkill() (SI_USER, SI_QUEUE, SI_TKILL: every code of those
	 * is 0 or less); the terminal's come from the kernel (SI_KERNEL).
	 */
	if (sig != SIGCHLD)
		note_signal(sig, info && info->si_code <= 0);
	if (wake_pipe[1] >= 0)
		(void)!write(wake_pipe[1], "", 1); /* full: a wake-up is pending already */
	errno = saved;
}

static int open_wake_pipe(void)
{
	if (wake_pipe[0] >= 0)
		return 0;
	if (pipe(wake_pipe) < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

static void catch_signals(bool wake_on_child, bool keep_ignored)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/*
	 * SA_RESTART: a write interrupted by a signal goes on (a child that
	 * ended mid-report lost the whole report to ERESTARTSYS). The sleep is
	 * a poll, which a signal ends all the same.
	 */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/* One handler at a time: each blocks the others while it notes its signal. */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&sa.sa_mask, caught[i]);
	(void)open_wake_pipe(); /* without it, a signal still ends the sleep by EINTR */
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		int sig = caught[i];
		if ((sig == SIGCHLD && !wake_on_child) || sigaction(sig, NULL, &before[i]) < 0)
			continue;
		/* Ignored when we started (nohup's SIGHUP): left ignored, for us and what we run. */
		if (keep_ignored && sig != SIGCHLD && before[i].sa_handler == SIG_IGN)
			continue;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | (sig == SIGCHLD ? SA_NOCLDSTOP : 0);
		installed[i] = sigaction(sig, &sa, NULL) == 0;
	}
}

void signals_catch(bool wake_on_child)
{
	catch_signals(wake_on_child, false);
}

void signals_catch_for_command(void)
{
	catch_signals(true, true);
}

void signals_restore(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		if (installed[i] && sigaction(caught[i], &before[i], NULL) == 0)
			installed[i] = false;
}

void signals_end_by(int sig)
{
	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return;
	struct sigaction now;
	/* Ignored by whoever started us: it cannot end us; the caller exits 128+sig. */
	if (sigaction(sig, NULL, &now) < 0 || now.sa_handler == SIG_IGN)
		return;
	signal(sig, SIG_DFL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

void signals_ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

static void drain_wake_pipe(void)
{
	char buf[64];
	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void sleep_until(uint64_t deadline_us)
{
	for (;;) {
		uint64_t now = clock_us();
		if (any_pending() || now >= deadline_us)
			return;
		/* Rounded up: a sleep that ended a fraction of a millisecond early would be taken again at once. */
		uint64_t left = (deadline_us - now + CLOCK_US_PER_MS - 1) / CLOCK_US_PER_MS;
		struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };
		/* poll's timeout is an int of milliseconds: a longer sleep is taken in parts. */
		int r = poll(&p, wake_pipe[0] >= 0 ? 1 : 0, left > INT_MAX ? INT_MAX : (int)left);
		if (r != 0)
			return; /* a signal, or a child ended: the caller looks */
	}
}
#endif

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

int signal_take(bool *ret_sent_by_process)
{
#ifdef _WIN32
	return take_first(ret_sent_by_process);
#else
	/* Emptied before the look: a signal that comes after it leaves a byte for the next sleep. */
	drain_wake_pipe();
	/*
	 * The slots are taken from with the caught signals blocked: one that
	 * comes meanwhile is noted after, in a slot of its own, never seen as
	 * the one being taken (and dropped with it).
	 */
	sigset_t block, saved;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&block, caught[i]);
	sigprocmask(SIG_BLOCK, &block, &saved);
	int sig = take_first(ret_sent_by_process);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return sig;
#endif
}
