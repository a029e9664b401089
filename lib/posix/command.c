/*
 * hmn run's command on Linux and macOS: fork and execvp, with a pipe closed
 * on exec that carries exec's errno back (so "not found" and "cannot run"
 * are told apart before anything is sampled), and waitpid(-1) to reap the
 * command and every orphan the subreaper adopts.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../internal.h"

struct hmn_command {
	pid_t pid;
	bool exited;
	int exit_code, signal;
};

static int cloexec_pipe(int fds[2])
{
#ifdef __APPLE__
	if (pipe(fds) < 0)
		return -errno;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#else
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
#endif
}

int hmn_command_start(char *const argv[], struct hmn_command **ret_command, bool *ret_exec_failed)
{
	*ret_exec_failed = false;
	struct hmn_command *c = calloc(1, sizeof(*c));
	int fds[2], e = 0;

	if (!c)
		return -ENOMEM;
	/* Where the kernel has no subreapers (macOS), detached descendants are lost to init. */
	(void)os_become_subreaper();
	int r = cloexec_pipe(fds);
	if (r < 0) {
		free(c);
		return r;
	}
	c->pid = fork();
	if (c->pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		free(c);
		return r;
	}
	if (c->pid == 0) {
		/* The command gets the signal mask and dispositions a shell would give it. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		close(fds[0]);
		execvp(argv[0], argv);
		e = errno;
		while (write(fds[1], &e, sizeof(e)) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	close(fds[1]);
	ssize_t n;
	do
		n = read(fds[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		free(c);
		*ret_exec_failed = true;
		return e ? -e : -EIO;
	}
	*ret_command = c;
	return 0;
}

uint32_t hmn_command_pid(const struct hmn_command *command)
{
	return (uint32_t)command->pid;
}

static int compare_pids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count)
{
	uint32_t *pids = NULL;
	size_t count = 0, capacity = 0;

	/*
	 * Our children are the command and, on Linux, every orphan of its tree
	 * the subreaper adopted: the walk starts from us. The programs the
	 * sources run (nvidia-smi) are waited for inside a query, never between.
	 */
	int r = os_add_descendants(ctx->procfs, os_self_pid(), &pids, &count, &capacity);
	if (r < 0 && r != -ENOENT) {
		free(pids);
		return r;
	}
	qsort(pids, count, sizeof(*pids), compare_pids);
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (n == 0 || pids[i] != pids[n - 1])
			pids[n++] = pids[i];
	*ret_pids = pids;
	*ret_count = n;
	return 0;
}

bool hmn_command_done(struct hmn_command *command)
{
	for (;;) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);
		if (p > 0) {
			if (p == command->pid) {
				command->exited = true;
				command->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
				command->signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
			}
			continue;
		}
		if (p < 0 && errno == EINTR)
			continue;
		/* 0: children remain; ECHILD: none left, the command's included. */
		return p < 0 && errno == ECHILD && command->exited;
	}
}

int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal)
{
	if (!command->exited)
		return -EBUSY;
	*ret_exit_code = command->exit_code;
	*ret_signal = command->signal;
	return 0;
}

int hmn_command_signal(struct hmn_command *command, int sig)
{
	if (command->exited)
		return -ESRCH;
	return kill(command->pid, sig) == 0 ? 0 : -errno;
}

struct hmn_command *hmn_command_free(struct hmn_command *command)
{
	free(command);
	return NULL;
}
