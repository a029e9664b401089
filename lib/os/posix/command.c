/*
 * hmn run's command on Linux and macOS: fork and execvp, with a pipe closed
 * on exec that carries exec's errno back (so "not found" and "cannot run"
 * are told apart before anything is sampled), wait4(-1) to reap the
 * command and every orphan the subreaper adopts, and the tree (os_tree)
 * and the group's signals (os_group_watch) as each OS tells them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/os.h"
#include "os/posix/posix.h"

struct os_command {
	pid_t pid;
	bool exited;
	struct os_command_exit exit;
	struct os_tree *tree;
	struct os_group_watch group;
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

/* Forks and execs argv: 0 with c's pid, or -errno (*ret_exec_failed: exec's own). */
static int spawn(struct os_command *c, char *const argv[], bool *ret_exec_failed)
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

int os_command_start(char *const argv[], struct os_command **ret_command, bool *ret_exec_failed)
{
	*ret_exec_failed = false;
	struct os_command *c = calloc(1, sizeof(*c));
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
		os_command_free(c);
		return r;
	}
	os_tree_set_command(c->tree, c->pid);
	*ret_command = c;
	return 0;
}

uint32_t os_command_pid(const struct os_command *c)
{
	return (uint32_t)c->pid;
}

int os_command_tree(struct os_command *c, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count)
{
	return os_tree_living(c->tree, ret_pids, ret_starts, ret_count);
}

int os_command_start_time(struct os_command *c, uint32_t pid, uint64_t *ret_start)
{
	return os_tree_start_time(c->tree, pid, ret_start);
}

bool os_command_numbers_as_drivers(const struct os_command *c)
{
	return os_tree_numbers_as_drivers(c->tree);
}

/* The largest resident set rusage says (Linux in kilobytes, macOS in bytes). */
static uint64_t max_rss_bytes(const struct rusage *usage)
{
#ifdef __APPLE__
	return (uint64_t)usage->ru_maxrss;
#else
	return (uint64_t)usage->ru_maxrss * 1024u;
#endif
}

bool os_command_reap(struct os_command *c, void (*reaped)(void *data, uint32_t pid), void *data)
{
	for (;;) {
		int status;
		struct rusage usage;
		pid_t p = wait4(-1, &status, WNOHANG, &usage);
		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			return c->exited;
		reaped(data, (uint32_t)p);
		if (p == c->group.pid) {
			c->group.pid = -1; /* the sentinel's end, noted */
			continue;
		}
		/*
		 * The command or an orphan we adopted: its largest resident set,
		 * or that of a descendant it reaped itself.
		 */
		uint64_t rss = max_rss_bytes(&usage);
		if (rss > c->exit.peak_rss)
			c->exit.peak_rss = rss;
		if (p == c->pid) {
			os_tree_command_reaped(c->tree);
			c->exited = true;
			c->exit.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			c->exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
			c->exit.code = (uint32_t)(c->exit.exit_code < 0 ? 0 : c->exit.exit_code);
		}
	}
}

bool os_command_reap_names_ends(void)
{
	return true; /* what ends is reaped here, COMMAND's descendants adopted by us included */
}

int os_command_exit(const struct os_command *c, struct os_command_exit *ret_exit)
{
	if (!c->exited)
		return -EBUSY;
	*ret_exit = c->exit;
	return 0;
}

int os_command_signal(struct os_command *c, int sig)
{
	if (c->exited)
		return -ESRCH;
	return kill(c->pid, sig) == 0 ? 0 : -errno;
}

bool os_command_got_signal(struct os_command *c, int sig, bool from_kernel)
{
	int got = os_group_watch_got(&c->group, sig);
	/* Where the group cannot be watched, what the terminal sent went to the group. */
	bool to_group = got == 1 || (got < 0 && from_kernel);
	/* A command that left our group (setsid) did not get a group's signal. */
	return to_group && getpgid(c->pid) == getpgrp();
}

int os_command_signal_tree(struct os_command *c, int sig, size_t *ret_refused)
{
	return os_tree_signal(c->tree, sig, ret_refused);
}

int os_command_memory(struct os_command *c, uint64_t *ret_bytes, const char **ret_measure, bool *ret_is_peak)
{
	(void)c, (void)ret_bytes, (void)ret_measure, (void)ret_is_peak;
	return -ENOTSUP; /* each process is read: os_process_memory */
}

struct os_command *os_command_free(struct os_command *c)
{
	if (c) {
		os_group_watch_stop(&c->group);
		os_tree_free(c->tree);
		free(c);
	}
	return NULL;
}
