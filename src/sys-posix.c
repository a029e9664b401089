/*
 * sys.h on POSIX systems (Linux, macOS): signals and the sleep they end,
 * the clock's time, the terminal and its keys, getopt, COMMAND's lookup in
 * PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

void sys_utc_now(char buf[32])
{
	struct timespec t;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &t);
	gmtime_r(&t.tv_sec, &tm);
	/* strftime bounds every field (a year past 9999 is no concern of a clock today). */
	size_t n = strftime(buf, 32 - 5, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03dZ", (int)(t.tv_nsec / 1000000) % 1000);
}

void sys_local_now(struct local_time *ret_time)
{
	struct timespec t;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &t);
	localtime_r(&t.tv_sec, &tm);
	*ret_time = (struct local_time){
		.year = (unsigned)tm.tm_year + 1900, .month = (unsigned)tm.tm_mon + 1, .day = (unsigned)tm.tm_mday,
		.hour = (unsigned)tm.tm_hour, .minute = (unsigned)tm.tm_min, .second = (unsigned)tm.tm_sec,
		.ms = (unsigned)(t.tv_nsec / 1000000), .offset = tm.tm_gmtoff / 60,
	};
}

bool sys_is_terminal(FILE *out)
{
	return isatty(fileno(out));
}

bool sys_terminal_size(FILE *out, unsigned *ret_columns, unsigned *ret_rows)
{
	struct winsize w;
	*ret_columns = 80;
	*ret_rows = 24;
	if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &w) != 0 || w.ws_col == 0 || w.ws_row == 0)
		return false;
	*ret_columns = w.ws_col;
	*ret_rows = w.ws_row;
	return true;
}

void sys_stdout_binary(void)
{
}

/*
 * glibc re-initialises at optind 0 (reading the new optstring's '+'); BSD
 * and macOS want optreset.
 */
void sys_getopt_restart(void)
{
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
	optreset = 1;
	optind = 1;
#else
	optind = 0;
#endif
}

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
static sigset_t held_mask; /* the mask sys_signals_hold found, for sys_signals_release */

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
		signal_noted(sig, info && info->si_code <= 0);
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

void sys_signals_catch(bool wake_on_child, bool keep_ignored)
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

void sys_signals_restore(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		if (installed[i] && sigaction(caught[i], &before[i], NULL) == 0)
			installed[i] = false;
}

void sys_signals_end_by(int sig)
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

void sys_signals_ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

void sys_end_by_closed_pipe(void)
{
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
}

static void drain_wake_pipe(void)
{
	char buf[64];
	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void sys_signals_hold(void)
{
	/* Emptied before the look: a signal that comes after it leaves a byte for the next sleep. */
	drain_wake_pipe();
	/*
	 * The slots are taken from with the caught signals blocked: one that
	 * comes meanwhile is noted after, in a slot of its own, never seen as
	 * the one being taken (and dropped with it).
	 */
	sigset_t block;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&block, caught[i]);
	sigprocmask(SIG_BLOCK, &block, &held_mask);
}

void sys_signals_release(void)
{
	sigprocmask(SIG_SETMASK, &held_mask, NULL);
}

/*
 * Keys: the terminal in non-canonical mode without echo (ISIG kept: Ctrl-C
 * is still SIGINT), read while sys_nap sleeps. What is changed is given
 * back on every way out, from the handlers too (tcsetattr is
 * async-signal-safe); and only while hmn is the terminal's foreground,
 * where a background process's tcsetattr or read would stop it (SIGTTOU,
 * SIGTTIN).
 */
static struct termios keys_found;          /* the terminal as hmn found it */
static volatile sig_atomic_t keys_taken;   /* between sys_keys_start and sys_keys_stop */
static volatile sig_atomic_t keys_set;     /* the terminal is in single-key mode now */
static volatile sig_atomic_t keys_lost;    /* stdin hung up or failed: no longer read */
/* A stop and the return from it, and the signals that end hmn by default, each taken while keys are. */
static const int keys_stops[] = { SIGTSTP, SIGTTIN, SIGTTOU };
static const int keys_fatal[] = {
	SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ,
	SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2,
};
#define KEYS_SIGNALS_MAX 32
static int keys_caught[KEYS_SIGNALS_MAX];
static struct sigaction keys_before[KEYS_SIGNALS_MAX];
static size_t keys_n_caught;

static bool in_foreground(void)
{
	pid_t group = tcgetpgrp(STDIN_FILENO);
	return group >= 0 && group == getpgrp();
}

/* Single keys, no echo, where the terminal is ours now. */
static void keys_apply(void)
{
	struct termios t = keys_found;
	if (!keys_taken || !in_foreground()) {
		keys_set = 0; /* in the background: the shell set the terminal as it wants it */
		return;
	}
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0; /* a read after poll never waits */
	t.c_cc[VTIME] = 0;
	keys_set = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void keys_give_back(void)
{
	if (keys_set && in_foreground())
		tcsetattr(STDIN_FILENO, TCSANOW, &keys_found);
	keys_set = 0;
}

/* A signal that ends hmn: the terminal given back, then the signal's own end (SA_RESETHAND, SA_NODEFER). */
static void on_fatal(int sig)
{
	keys_give_back();
	raise(sig);
}

/* Ctrl-Z: the terminal given back for the shell, stopped, and taken again once continued in the foreground. */
static void on_stop(int sig)
{
	int saved = errno;
	struct sigaction ours, dfl = { .sa_handler = SIG_DFL };
	sigset_t one;

	keys_give_back();
	sigaction(sig, &dfl, &ours);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig); /* stopped here, until SIGCONT */
	sigprocmask(SIG_BLOCK, &one, NULL);
	sigaction(sig, &ours, NULL);
	keys_apply();
	errno = saved;
}

/* Continued after a stop hmn did not see (SIGSTOP), perhaps in the background now. */
static void on_continue(int sig)
{
	int saved = errno;
	(void)sig;
	keys_apply();
	errno = saved;
}

/* Takes sig while keys are, where it has its default action (a sanitizer's own handler, an ignore, stay). */
static void keys_catch(int sig, void (*handler)(int), int flags)
{
	struct sigaction sa = { .sa_handler = handler, .sa_flags = flags };
	sigemptyset(&sa.sa_mask);
	if (keys_n_caught == KEYS_SIGNALS_MAX || sigaction(sig, NULL, &keys_before[keys_n_caught]) < 0 ||
	    keys_before[keys_n_caught].sa_handler != SIG_DFL || sigaction(sig, &sa, NULL) < 0)
		return;
	keys_caught[keys_n_caught++] = sig;
}

bool sys_keys_start(void)
{
	if (keys_taken || !isatty(STDIN_FILENO) || !in_foreground() || tcgetattr(STDIN_FILENO, &keys_found) < 0)
		return false;
	keys_taken = 1;
	keys_lost = 0;
	for (size_t i = 0; i < sizeof(keys_fatal) / sizeof(keys_fatal[0]); i++)
		keys_catch(keys_fatal[i], on_fatal, SA_RESETHAND | SA_NODEFER);
	for (size_t i = 0; i < sizeof(keys_stops) / sizeof(keys_stops[0]); i++)
		keys_catch(keys_stops[i], on_stop, SA_RESTART);
	keys_catch(SIGCONT, on_continue, SA_RESTART);
	keys_apply();
	if (!keys_set)
		sys_keys_stop();
	return keys_taken;
}

void sys_keys_stop(void)
{
	if (!keys_taken)
		return;
	keys_taken = 0;
	keys_give_back();
	while (keys_n_caught > 0) {
		keys_n_caught--;
		sigaction(keys_caught[keys_n_caught], &keys_before[keys_n_caught], NULL);
	}
}

/*
 * What came on stdin: each q or Q a quit, anything else ignored. An end
 * or an error (the terminal hung up) ends the reading, never a loop of
 * wake-ups.
 */
static void read_keys(short revents)
{
	char buf[64];

	if (!(revents & POLLIN)) { /* a hang-up or an error alone: nothing more will come */
		keys_lost = 1;
		return;
	}
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		keys_lost = 1;
		return;
	}
	if (memchr(buf, 'q', (size_t)n) || memchr(buf, 'Q', (size_t)n))
		quit_key_noted();
}

bool sys_nap(uint64_t ms)
{
	struct pollfd p[2] = {
		{ .fd = wake_pipe[0], .events = POLLIN },
		/* Keys only where the terminal is in their mode now (not while in the background). */
		{ .fd = keys_taken && keys_set && !keys_lost ? STDIN_FILENO : -1, .events = POLLIN },
	};
	/* poll's timeout is an int of milliseconds: a longer sleep is taken in parts. An fd of -1 is passed over. */
	int n = poll(p, 2, ms > INT_MAX ? INT_MAX : (int)ms);
	if (n > 0 && p[1].revents)
		read_keys(p[1].revents);
	return n != 0;
}

bool sys_measures_spill(void)
{
	return false; /* WDDM's, Windows' alone */
}

/* Is path a regular file that we may execute? */
static bool is_executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* By its path, or, for a bare name, in PATH's entries as execvp looks. */
bool sys_names_a_path(const char *s)
{
	return strchr(s, '/') != NULL;
}

bool sys_found_all_the_same(const char *word)
{
	if (strchr(word, '/'))
		return is_executable_file(word);
	const char *path = getenv("PATH");
	char candidate[4096];
	for (const char *p = path ? path : ""; *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current directory, as execvp takes it. */
		int n = snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)len, p, len ? "/" : "", word);
		if (n > 0 && (size_t)n < sizeof(candidate) && is_executable_file(candidate))
			return true;
		p += len + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	return false;
}

void sys_say_exit_note(const struct hmn_command *command, const char *name)
{
	(void)command, (void)name; /* an exit status holds every exit code here */
}
