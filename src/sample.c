#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

#include "sample.h"

uint64_t clock_ms(void)
{
#ifdef _WIN32
	return GetTickCount64();
#else
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
#endif
}

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

static volatile sig_atomic_t pending_signal, pending_from_process;

#ifdef _WIN32
static void on_signal(int sig)
{
	pending_signal = sig;
	pending_from_process = 0;
	signal(sig, on_signal);
}

void signals_catch(bool wake_on_child)
{
	(void)wake_on_child;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

void sleep_until(uint64_t deadline_ms)
{
	while (!pending_signal) {
		uint64_t now = clock_ms();
		if (now >= deadline_ms)
			return;
		uint64_t left = deadline_ms - now;
		Sleep((DWORD)(left < 50 ? left : 50)); /* short naps: a console handler runs on its own thread */
	}
}
#else
static void on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (sig == SIGCHLD)
		return; /* only to wake the sleep */
	pending_signal = sig;
	/* SI_USER and SI_QUEUE: kill() or sigqueue(); the terminal's signals come from the kernel. */
	pending_from_process = info && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
}

void signals_catch(bool wake_on_child)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: a signal ends the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (wake_on_child) {
		sa.sa_flags |= SA_NOCLDSTOP;
		sigaction(SIGCHLD, &sa, NULL);
	}
}

void sleep_until(uint64_t deadline_ms)
{
	uint64_t now = clock_ms();
	if (pending_signal || now >= deadline_ms)
		return;
	uint64_t left = deadline_ms - now;
	struct timespec t = { .tv_sec = (time_t)(left / 1000), .tv_nsec = (long)(left % 1000) * 1000000 };
	nanosleep(&t, NULL); /* EINTR: a signal, or a child ended: the caller looks */
}
#endif

int signal_take(bool *ret_sent_by_process)
{
	int sig = pending_signal;
	if (ret_sent_by_process)
		*ret_sent_by_process = pending_from_process;
	pending_signal = 0;
	return sig;
}
