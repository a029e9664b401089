/*
 * fork() for a child of hmn run's (the command, before it execs; the
 * group sentinel) that must never run the parent's signal handlers.
 *
 * Between fork() and exec() a child still has its parent's handlers: a
 * SIGINT or SIGTERM that reaches it then (a Ctrl-C, a kill to the group)
 * runs hmn's handler in the child, which notes it in a copy of hmn's memory
 * that exec() throws away: the signal is lost, and the command runs on as
 * if nobody had asked it to stop. So every signal is blocked across the
 * fork, and the child puts each caught one back to its default before it
 * unblocks anything: a signal that came meanwhile waits, pending, and then
 * does to the child what it would have done to the program it execs.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "os/posix/posix.h"

/* In the child: each signal with a handler back to its default; an ignored one stays ignored (nohup). */
static void default_caught_signals(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;
		/* SIGKILL, SIGSTOP and the C library's own real-time signals refuse: nothing to do. */
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now) < 0)
			continue;
		if (now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN)
			(void)sigaction(sig, &dfl, NULL);
	}
}

pid_t os_fork_blocked(sigset_t *ret_saved_mask)
{
	sigset_t all, saved;
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &saved) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		default_caught_signals();
		*ret_saved_mask = saved;
		return 0;
	}
	int e = errno;
	(void)sigprocmask(SIG_SETMASK, &saved, NULL);
	if (pid < 0)
		return -e;
	*ret_saved_mask = saved;
	return pid;
}
