/*
 * Running an external program (nvidia-smi) on Linux and macOS: by absolute path, no
 * shell, stdin from /dev/null, stdout and stderr read up to a bound, and
 * killed with its whole process group at a deadline. nvidia-smi does hang
 * (a wedged driver); that costs the user the timeout, never a hang. On
 * Linux it also dies with hmn (PR_SET_PDEATHSIG), should hmn be killed
 * before the deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/text.h"

extern char **environ;

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

/* Appends what fd has to buf, up to the bound; returns false at end of file. */
static bool drain(int fd, struct os_output *o, size_t max, bool *overflow)
{
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (o->len + (size_t)n > max) {
		*overflow = true;
		n = (ssize_t)(max - o->len);
	}
	if (o->len + (size_t)n + 1 > o->capacity) {
		size_t capacity = o->capacity ? o->capacity * 2 : 65536;
		while (capacity < o->len + (size_t)n + 1)
			capacity *= 2;
		char *p = realloc(o->text, capacity);
		if (!p) {
			*overflow = true;
			return false;
		}
		o->text = p;
		o->capacity = capacity;
	}
	memcpy(o->text + o->len, chunk, (size_t)n);
	o->len += (size_t)n;
	o->text[o->len] = '\0';
	return !*overflow;
}

void os_program_result_clear(struct os_program_result *r)
{
	free(r->out.text);
	free(r->err.text);
	memset(r, 0, sizeof(*r));
}

/* pipe2(O_CLOEXEC) where there is one (Linux); pipe and fcntl on macOS, which has none. */
static int cloexec_pipe(int fds[2])
{
#ifdef __linux__
	return pipe2(fds, O_CLOEXEC);
#else
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0)
		return -1;
	return 0;
#endif
}

#ifdef __linux__
/*
 * The child's side of spawn: never returns. Only async-signal-safe calls
 * (hmn may have a second thread). An error before the exec, or the exec's
 * own, is written to report as an errno.
 */
static void exec_child(const char *path, char *const argv[], pid_t parent, const sigset_t *mask, int out,
		       int err, int report)
{
	int e = 0, null;

	/* No handler of hmn's runs here (it would wake hmn's sleep through its pipe): each to its default. */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
			sa.sa_handler = SIG_DFL;
			sa.sa_flags = 0;
			sigaction(sig, &sa, NULL);
		}
	}
	/* Its own process group, so a timeout kills whatever it started too. */
	if (setpgid(0, 0) < 0 || (null = open("/dev/null", O_RDONLY)) < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(err, 2) < 0)
		e = errno;
	else if (null > 2)
		close(null);
	/*
	 * Killed with hmn: hmn SIGKILLed while nvidia-smi hung on a wedged
	 * driver left it running for ever. The parent checked after: hmn may
	 * have died before the prctl, and then nothing would send the signal.
	 */
	if (!e && (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent))
		e = errno ? errno : ESRCH;
	if (!e) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		execve(path, argv, environ);
		e = errno;
	}
	(void)!write(report, &e, sizeof(e));
	_exit(127);
}

/*
 * fork and exec where posix_spawn ran no code of ours in the child, which
 * PR_SET_PDEATHSIG needs. 0 and *ret_pid, or an errno as posix_spawn
 * returns it (an exec that failed included: the child says it through a
 * close-on-exec pipe, and is reaped).
 */
static int spawn(pid_t *ret_pid, const char *path, char *const argv[], int out, int err)
{
	pid_t parent = getpid(), pid;
	sigset_t all, mask;
	int report[2], e = 0;
	ssize_t n;

	if (cloexec_pipe(report) < 0)
		return errno;
	/* Every signal blocked across the fork: none reaches a handler of ours in the child. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &mask);
	pid = fork();
	if (pid == 0)
		exec_child(path, argv, parent, &mask, out, err, report[1]);
	if (pid < 0)
		e = errno;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(report[1]);
	while (pid > 0 && (n = read(report[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (pid > 0 && e != 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	if (e == 0)
		*ret_pid = pid;
	return e;
}
#else
static int spawn(pid_t *ret_pid, const char *path, char *const argv[], int out, int err)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;

	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, out, 1);
	posix_spawn_file_actions_adddup2(&actions, err, 2);
	posix_spawnattr_init(&attr);
	/* Its own process group, so a timeout kills whatever it started too. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	int e = posix_spawn(ret_pid, path, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	return e;
}
#endif

int os_run_program(const char *path, char *const argv[], double timeout_s, size_t max_output,
		   struct os_program_result *ret)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	struct os_program_result r = { .status = -1 };
	pid_t pid = -1;
	int e;

	if (path[0] != '/')
		return -EINVAL;
	if (cloexec_pipe(out) < 0 || cloexec_pipe(err) < 0) {
		e = -errno;
		close_pair(out);
		close_pair(err);
		return e;
	}
	e = spawn(&pid, path, argv, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	if (e != 0) {
		close(out[0]);
		close(err[0]);
		return -e;
	}

	uint64_t deadline = clock_us() + (uint64_t)(timeout_s * CLOCK_US_PER_S);
	bool open_out = true, open_err = true, overflow = false;
	while ((open_out || open_err) && !overflow) {
		struct pollfd fds[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
		uint64_t now = clock_us();
		if (now >= deadline) {
			r.timed_out = true;
			break;
		}
		/* Rounded up to poll's milliseconds: never a busy loop over the last fraction of one. */
		uint64_t left = (deadline - now + CLOCK_US_PER_MS - 1) / CLOCK_US_PER_MS;
		int n = poll(fds + (open_out ? 0 : 1), (nfds_t)(open_out + open_err), left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (open_out && fds[0].revents)
			open_out = drain(out[0], &r.out, max_output, &overflow);
		if (open_err && fds[1].revents)
			open_err = drain(err[0], &r.err, max_output, &overflow);
	}
	close(out[0]);
	close(err[0]);
	r.truncated = overflow;
	if (r.timed_out || overflow)
		kill(-pid, SIGKILL);

	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (status >= 0 && WIFEXITED(status))
		r.status = WEXITSTATUS(status);
	*ret = r;
	return 0;
}
