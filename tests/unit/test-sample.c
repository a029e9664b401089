/*
 * hmn run's and watch's signals and sleep (src/sample.c): no lost wake-up,
 * SA_RESTART, dispositions found at the start kept or given back.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample.h"
#include "util/clock.h"
#include "tap.h"

static struct sigaction disposition(int sig)
{
	struct sigaction sa;
	sigaction(sig, NULL, &sa);
	return sa;
}

/* A child that ends before the sleep begins: its SIGCHLD, already handled, still wakes the sleep. */
static void test_no_lost_wake_up(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	siginfo_t info;
	/* Returns once the child has ended (SIGCHLD delivered), leaving it unreaped. */
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		;
	uint64_t start = clock_us();
	sleep_until(start + 5000 * CLOCK_US_PER_MS);
	uint64_t slept = (clock_us() - start) / CLOCK_US_PER_MS;
	ok(slept < 2500, "a child's end just before the sleep wakes it at once (slept %llu ms of 5000)",
	   (unsigned long long)slept);
	waitpid(pid, NULL, 0);
	(void)signal_take(NULL); /* the wake-up is spent */
}

static void test_dispositions(void)
{
	signal(SIGHUP, SIG_IGN); /* as nohup leaves it */
	signal(SIGINT, SIG_DFL);
	signals_catch_for_command();
	ok(disposition(SIGHUP).sa_handler == SIG_IGN, "hmn run: SIGHUP ignored at the start stays ignored");
	struct sigaction sa = disposition(SIGINT);
	ok(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN, "SIGINT caught");
	ok(sa.sa_flags & SA_RESTART, "with SA_RESTART: a write it interrupts goes on");
	ok(disposition(SIGCHLD).sa_flags & SA_RESTART, "SIGCHLD too");
	test_no_lost_wake_up();
	raise(SIGTERM);
	bool from_process = false;
	ok(signal_take(&from_process) == SIGTERM && from_process,
	   "a signal is noted, and taken once; raise()'s tgkill is a process's, not the terminal's");
	ok(signal_take(NULL) == 0, "then none");
	/* A second, different signal before the first is taken: each is kept, in the order they came. */
	raise(SIGTERM);
	raise(SIGINT);
	raise(SIGTERM); /* again before it is taken: one, as the kernel keeps it */
	int first = signal_take(NULL), second = signal_take(NULL), third = signal_take(NULL);
	ok(first == SIGTERM && second == SIGINT && third == 0,
	   "SIGTERM then SIGINT: both taken, first come first (%d, %d, %d)", first, second, third);
	raise(SIGINT);
	uint64_t start = clock_us();
	sleep_until(start + 5000 * CLOCK_US_PER_MS);
	ok(clock_us() - start < 2500 * CLOCK_US_PER_MS && signal_take(NULL) == SIGINT, "a pending signal ends the sleep at once");
	signals_restore();
	ok(disposition(SIGINT).sa_handler == SIG_DFL && disposition(SIGTERM).sa_handler == SIG_DFL,
	   "restored: the defaults found at the start, before the report");
	ok(disposition(SIGHUP).sa_handler == SIG_IGN, "and the ignored one still ignored");
	signals_catch(false);
	ok(disposition(SIGHUP).sa_handler != SIG_IGN, "hmn watch catches SIGHUP, ignored or not");
	signals_restore();
}

int main(void)
{
	test_dispositions();
	return tap_done();
}
