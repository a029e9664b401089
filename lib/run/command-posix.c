/*
 * hmn run's command on Linux and macOS: fork and execvp, with a pipe closed
 * on exec that carries exec's errno back (so "not found" and "cannot run"
 * are told apart before anything is sampled), waitpid(-1) to reap the
 * command and every orphan the subreaper adopts, and the tree (os_tree)
 * and the group's signals (os_group_watch) told by the OS layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "os/os.h"
#include "run/run.h"
#include "util/pid-set.h"

struct hmn_command {
	pid_t pid;
	bool exited;
	int exit_code, signal;
	uint64_t peak_rss_bytes; /* the largest resident set of what we reaped of the tree (0: none yet) */
	struct os_tree *tree;
	struct os_group_watch group;
	/*
	 * The tree's living pids, listed once a sample (a walk of every
	 * process's children files: some 35 us a process) for the callers
	 * of that sample (the RAM reading, --limit, then the wait), until
	 * the next hmn_command_sample or hmn_command_done; a process reaped
	 * meanwhile is taken out of it.
	 */
	uint32_t *living;
	size_t n_living;
	bool living_listed;
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

/* Forks and execs argv: 0 with *c's pid, or -errno (*ret_exec_failed: exec's own). */
static int spawn(struct hmn_command *c, char *const argv[], bool *ret_exec_failed)
{
	int fds[2], e = 0;
	int r = cloexec_pipe(fds);
	if (r < 0)
		return r;
	/*
	 * Forked with every signal blocked, and each we catch back to its
	 * default in the child before it unblocks them (os_fork_blocked): a
	 * Ctrl-C between the fork and the exec ends the command as it would
	 * have once it ran, instead of running our handler in the child and
	 * being lost there.
	 */
	sigset_t saved;
	pid_t pid = os_fork_blocked(&saved);
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return (int)pid;
	}
	c->pid = pid;
	if (c->pid == 0) {
		/*
		 * The command gets an empty signal mask; what we catch is the
		 * default, what we ignore (nohup's SIGHUP) stays ignored, as it
		 * was when we started.
		 */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
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
		*ret_exec_failed = true;
		return e ? -e : -EIO;
	}
	return 0;
}

int hmn_command_start(hmn_context *ctx, char *const argv[], struct hmn_command **ret_command,
		      bool *ret_exec_failed)
{
	*ret_exec_failed = false;
	struct hmn_command *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* Where the kernel has no subreapers (macOS), detached descendants are lost to init. */
	(void)os_become_subreaper();
	/*
	 * The sentinel first, then the tree's note of the children we have
	 * (the sentinel among them): neither is ever the command's.
	 */
	if (os_group_watch_start(&c->group) < 0)
		c->group.pid = -1; /* group signals then told as well as the OS can */
	int r = os_tree_new(os_procfs_root(), &c->tree);
	if (r == 0)
		r = spawn(c, argv, ret_exec_failed);
	if (r < 0) {
		hmn_command_free(c);
		return r;
	}
	os_tree_set_command(c->tree, c->pid);
	*ret_command = c;
	return 0;
}

uint32_t hmn_command_pid(const struct hmn_command *command)
{
	return (uint32_t)command->pid;
}

int hmn_command_sample(hmn_context *ctx, struct hmn_command *command)
{
	(void)ctx;
	os_tree_sample(command->tree);
	command->living_listed = false;
	return 0;
}

int hmn_command_owns(void *command, uint32_t pid, bool host_numbered)
{
	return os_tree_owns(((struct hmn_command *)command)->tree, pid, host_numbered);
}

int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count)
{
	(void)ctx;
	if (!command->living_listed) {
		uint32_t *living = NULL;
		size_t n = 0;
		int r = os_tree_living(command->tree, &living, &n);
		if (r < 0)
			return r;
		/*
		 * Sorted, each once: an orphan re-parented to us while the walk
		 * went on is met twice (under its old parent, then as ours).
		 */
		if (n > 1)
			qsort(living, n, sizeof(*living), compare_pids);
		size_t kept = 0;
		for (size_t i = 0; i < n; i++)
			if (kept == 0 || living[i] != living[kept - 1])
				living[kept++] = living[i];
		free(command->living);
		command->living = living;
		command->n_living = kept;
		command->living_listed = true;
	}
	uint32_t *copy = malloc((command->n_living ? command->n_living : 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	if (command->n_living)
		memcpy(copy, command->living, command->n_living * sizeof(*copy));
	*ret_pids = copy;
	*ret_count = command->n_living;
	return 0;
}

/* A process reaped since the tree was listed this sample is no more the tree's. */
static void forget_living(struct hmn_command *command, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	/* Sorted (see hmn_command_pids): found by halves, taken out in order (10,000 orphans reaped at once). */
	uint32_t *at = command->n_living ? bsearch(&key, command->living, command->n_living, sizeof(key),
						     compare_pids) : NULL;
	if (at) {
		size_t i = (size_t)(at - command->living);
		memmove(at, at + 1, (--command->n_living - i) * sizeof(*at));
	}
}

/* Reaps every child that has ended (the command's status is kept; the sentinel's end noted). */
static void reap(struct hmn_command *command)
{
	for (;;) {
		int status;
		struct rusage usage;
		pid_t p = wait4(-1, &status, WNOHANG, &usage);
		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			return;
		forget_living(command, p);
		if (p != command->group.pid) {
			/*
			 * The command or an orphan we adopted: its largest resident
			 * set, or that of a descendant it reaped itself (Linux says
			 * kilobytes, macOS bytes).
			 */
#ifdef __APPLE__
			uint64_t rss = (uint64_t)usage.ru_maxrss;
#else
			uint64_t rss = (uint64_t)usage.ru_maxrss * 1024u;
#endif
			if (rss > command->peak_rss_bytes)
				command->peak_rss_bytes = rss;
		}
		if (p == command->pid) {
			os_tree_command_reaped(command->tree);
			command->exited = true;
			command->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			command->signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
		} else if (p == command->group.pid) {
			command->group.pid = -1;
		}
	}
}

bool hmn_command_done(hmn_context *ctx, struct hmn_command *command)
{
	uint32_t *pids = NULL;
	size_t n = 0;

	reap(command);
	if (!command->exited)
		return false;
	/* What cannot be listed is not waited for: the command itself has ended. */
	int r = hmn_command_pids(ctx, command, &pids, &n);
	/*
	 * The sample's list is used up: a caller that asks again, sampling or
	 * not, is answered from a new one (a descendant that its own parent
	 * reaped leaves no trace here).
	 */
	command->living_listed = false;
	if (r < 0)
		return true;
	free(pids);
	return n == 0;
}

int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal)
{
	if (!command->exited)
		return -EBUSY;
	*ret_exit_code = command->exit_code;
	*ret_signal = command->signal;
	return 0;
}

int hmn_command_peak_rss(const struct hmn_command *command, uint64_t *ret_bytes)
{
	if (!command->exited)
		return -EBUSY;
	if (command->peak_rss_bytes == 0)
		return -ENODATA;
	*ret_bytes = command->peak_rss_bytes;
	return 0;
}

int hmn_command_signal(struct hmn_command *command, int sig)
{
	if (command->exited)
		return -ESRCH;
	return kill(command->pid, sig) == 0 ? 0 : -errno;
}

int hmn_command_signal_tree(hmn_context *ctx, struct hmn_command *command, int sig)
{
	size_t refused = 0;
	int r = os_tree_signal(command->tree, sig, &refused);

	if (r < 0)
		return hmn_fail(ctx, r, "cannot list the command's processes: %s", strerror(-r));
	/*
	 * A process of the tree that has no pid in our PID namespace (or none
	 * that can be told: a /proc at HMN_PROCFS that does not number us) is
	 * never sent the signal by the number another namespace gives it,
	 * which here may be any process's: said, and the tree not stopped.
	 */
	if (refused > 0)
		return hmn_fail(ctx, -EXDEV, "%zu process%s of the tree %s no pid that hmn can tell in its own PID "
				"namespace (the /proc at HMN_PROCFS numbers %s in another): not signalled", refused,
				refused == 1 ? "" : "es", refused == 1 ? "has" : "have", refused == 1 ? "it" : "them");
	return r;
}

int hmn_command_pass_on(struct hmn_command *command, int sig, bool from_kernel)
{
	if (command->exited)
		return 0;
	int got = os_group_watch_got(&command->group, sig);
	/* Where the group cannot be watched, what the terminal sent went to the group. */
	bool to_group = got == 1 || (got < 0 && from_kernel);
	/* A command that left our group (setsid) did not get a group's signal. */
	if (to_group && getpgid(command->pid) == getpgrp())
		return 0;
	int r = hmn_command_signal(command, sig);
	return r < 0 ? r : 1;
}

struct hmn_command *hmn_command_free(struct hmn_command *command)
{
	if (command) {
		os_group_watch_stop(&command->group);
		os_tree_free(command->tree);
		free(command->living);
		free(command);
	}
	return NULL;
}
