/*
 * Running an external program (nvidia-smi) on Linux and macOS: by absolute path, no
 * shell, stdin from /dev/null, stdout and stderr read up to a bound, and
 * killed with its whole process group at a deadline. nvidia-smi does hang
 * (a wedged driver); that costs the user the timeout, never a hang.
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

int os_run_program(const char *path, char *const argv[], double timeout_s, size_t max_output,
		   struct os_program_result *ret)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 };
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	struct os_program_result r = { .status = -1 };
	pid_t pid;
	int e;

	if (path[0] != '/')
		return -EINVAL;
	if (cloexec_pipe(out) < 0 || cloexec_pipe(err) < 0) {
		e = -errno;
		close_pair(out);
		close_pair(err);
		return e;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, out[1], 1);
	posix_spawn_file_actions_adddup2(&actions, err[1], 2);
	posix_spawnattr_init(&attr);
	/* Its own process group, so a timeout kills whatever it started too. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	e = posix_spawn(&pid, path, &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
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
