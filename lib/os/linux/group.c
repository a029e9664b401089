/*
 * Was a signal we got sent to our whole process group (kill -TERM 0, the
 * terminal's Ctrl-C, a job control kill %1), which COMMAND, in the same
 * group, got by itself? Or to us alone (kill PID), so that COMMAND must get
 * it from us? siginfo cannot tell the two apart: both are SI_USER from the
 * same sender. A sentinel can: a child of ours, in our group, that blocks
 * SIGINT, SIGTERM and SIGHUP and does nothing else. A signal to the group
 * stays pending in it (its ShdPnd line in /proc/PID/status says so); one to
 * us alone never reaches it. The kernel queues a group's signal to its
 * newest members first, the sentinel before us, within the one kill().
 *
 * The sentinel is a fork of us that runs no code of ours: it waits on a
 * socket for "drain" (take the pending signals, answer) or its end (we
 * exited, or closed it), with every other descriptor closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/linux/proc-parse.h"
#include "os/posix/posix.h"

/*
 * The sentinel, forked with every signal blocked and each we catch at its
 * default (os_fork_blocked): a group's signal that came before this runs
 * is pending here already, as one after it will be.
 */
static void sentinel_main(int sock, const sigset_t *saved)
{
	sigset_t watched, mask = *saved;
	sigemptyset(&watched);
	sigaddset(&watched, SIGINT);
	sigaddset(&watched, SIGTERM);
	sigaddset(&watched, SIGHUP);
	/* The watched ones stay blocked for good; the rest as our parent had them. */
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	/* Only the socket: no pipe of ours (stdout to a reader waiting for its end) is kept open. */
	if (sock != 3 && dup2(sock, 3) < 0)
		_exit(1);
	for (int fd = 0; fd < 3; fd++)
		close(fd);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
#endif
		for (long fd = 4, max = sysconf(_SC_OPEN_MAX); fd < max && fd < 65536; fd++)
			close((int)fd);
	for (;;) {
		char c;
		ssize_t n = read(3, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		struct timespec now = { 0, 0 };
		while (sigtimedwait(&watched, NULL, &now) > 0)
			;
		while (write(3, "k", 1) < 0 && errno == EINTR)
			;
	}
}

int os_group_watch_start(struct os_group_watch *w)
{
	int socks[2];

	w->pid = -1;
	w->sock = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, socks) < 0)
		return -errno;
	sigset_t saved;
	pid_t pid = os_fork_blocked(&saved);
	if (pid < 0) {
		close(socks[0]);
		close(socks[1]);
		return (int)pid;
	}
	if (pid == 0) {
		close(socks[0]);
		sentinel_main(socks[1], &saved);
	}
	close(socks[1]);
	w->pid = pid;
	w->sock = socks[0];
	return 0;
}

/* Is sig pending in the sentinel? -errno when it cannot be told. */
static int pending(const struct os_group_watch *w, int sig)
{
	char path[64], status[16384];
	uint64_t shared = 0, own = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)w->pid);
	ssize_t n = linux_read_head(AT_FDCWD, path, status, sizeof(status));
	if (n < 0)
		return (int)n;
	int r = parse_signal_mask(status, (size_t)n, "ShdPnd", &shared);
	if (r == 0)
		r = parse_signal_mask(status, (size_t)n, "SigPnd", &own);
	if (r < 0)
		return r;
	return ((shared | own) >> (sig - 1)) & 1;
}

int os_group_watch_got(struct os_group_watch *w, int sig)
{
	if (w->pid <= 0)
		return -ENOTSUP;
	int got = pending(w, sig);
	if (got == 0) {
		/* Our own turn in the kernel's queuing may have come first: look once more, 2 ms on. */
		struct timespec pause = { 0, 2000000 };
		nanosleep(&pause, NULL);
		got = pending(w, sig);
	}
	if (got != 1)
		return got;
	/* Take it from the sentinel, so that the next group signal is seen as new. */
	char c = 'd';
	struct pollfd p = { w->sock, POLLIN, 0 };
	if (write(w->sock, &c, 1) == 1 && poll(&p, 1, 1000) == 1)
		(void)!read(w->sock, &c, 1);
	return 1;
}

void os_group_watch_stop(struct os_group_watch *w)
{
	if (w->sock >= 0)
		close(w->sock); /* its end of file: it exits */
	if (w->pid > 0)
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	w->pid = -1;
	w->sock = -1;
}
