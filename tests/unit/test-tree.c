/*
 * hmn run's tree on Linux (lib/linux/tree.c) against fake /proc trees:
 * --limit's signal reaches each process of the tree by the pid the caller's
 * own PID namespace gives it (NSpid), never by the number another
 * namespace's /proc at HMN_PROCFS shows.
 *
 * The fake pids are above PID_MAX_LIMIT (4,194,304): no process has them,
 * so a signal sent to one by mistake (as before) reaches nobody.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char root[64];

static void put(const char *dir, uint32_t pid, const char *file, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%u", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/task", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/task/%u", dir, pid, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/%s", dir, pid, file);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * A process in the fake tree: its stat (parent, start time), its status
 * (NSpid: its pid in each namespace from the fake /proc's down), and its
 * children (none until children() says).
 */
static void process(const char *dir, uint32_t pid, uint32_t ppid, unsigned long long start, const char *nspid)
{
	char text[512];
	snprintf(text, sizeof(text), "%u (x) S %u %u %u 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 %llu 123456 5120\n",
		 pid, ppid, pid, pid, start);
	put(dir, pid, "stat", text);
	snprintf(text, sizeof(text), "Name:\tx\nState:\tS (sleeping)\nPid:\t%u\nPPid:\t%u\nNSpid:\t%s\n", pid, ppid,
		 nspid);
	put(dir, pid, "status", text);
	snprintf(text, sizeof(text), "task/%u/children", pid);
	put(dir, pid, text, "");
}

static void children(const char *dir, uint32_t pid, const char *list)
{
	char file[64];
	snprintf(file, sizeof(file), "task/%u/children", pid);
	put(dir, pid, file, list);
}

static void self_link(const char *dir, uint32_t pid)
{
	char path[512], target[16];
	snprintf(path, sizeof(path), "%s/self", dir);
	snprintf(target, sizeof(target), "%u", pid);
	unlink(path);
	(void)!symlink(target, path);
}

/* A child that waits to be signalled; returns its pid. */
static pid_t waiter(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* How pid ended, once it has: the signal that ended it, -1 another way, 0 still running (then killed). */
static int ended_by(pid_t pid)
{
	int status;
	for (int i = 0; i < 200; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFSIGNALED(status) ? WTERMSIG(status) : -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

/*
 * hmn run in a container with the host's /proc at HMN_PROCFS: the tree is
 * listed in the host's numbering, and the signal must go by ours.
 */
static void test_signal_in_a_namespace(void)
{
	char dir[128], nspid[64];
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	bool exec_failed;
	snprintf(dir, sizeof(dir), "%s/host", root);
	mkdir(dir, 0755);
	/* We are 9100000 on the "host", and getpid() in our own namespace, one level down. */
	snprintf(nspid, sizeof(nspid), "9100000\t%u", (unsigned)getpid());
	process(dir, 9100000, 1, 100, nspid);
	self_link(dir, 9100000);
	setenv("HMN_PROCFS", dir, 1);
	setenv("HMN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	char *const argv[] = { "sleep", "30", NULL };
	if (hmn_context_new(NULL, &ctx, NULL) < 0 || hmn_command_start(ctx, argv, &command, &exec_failed) < 0) {
		ok(false, "hmn_command_start over the fake host /proc");
		hmn_context_free(ctx);
		return;
	}
	/*
	 * Two processes of ours that the "host" numbers 9100001 and 9100002,
	 * adopted by us (our children there, started after COMMAND), and a
	 * third, 9100003, that lives in the host's namespace alone: it has no
	 * pid of ours.
	 */
	pid_t a = waiter(), b = waiter();
	snprintf(nspid, sizeof(nspid), "9100001\t%d", (int)a);
	process(dir, 9100001, 9100000, 200, nspid);
	snprintf(nspid, sizeof(nspid), "9100002\t%d", (int)b);
	process(dir, 9100002, 9100001, 201, nspid);
	children(dir, 9100000, "9100001 ");
	children(dir, 9100001, "9100002 ");
	uint32_t *pids = NULL;
	size_t n = 0;
	ok(hmn_command_pids(ctx, command, &pids, &n) == 0 && n == 2 && pids[0] == 9100001 && pids[1] == 9100002,
	   "the tree as the host's /proc numbers it");
	free(pids);
	int sent = hmn_command_signal_tree(ctx, command, SIGTERM);
	ok(sent == 2, "SIGTERM sent to both (%d)", sent);
	int how_a = ended_by(a), how_b = ended_by(b);
	ok(how_a == SIGTERM && how_b == SIGTERM,
	   "each by our pid for it, from its NSpid line, not the host's number (ended by %d, %d)", how_a, how_b);

	/* One with no pid of ours: never signalled by the host's number, and said. */
	a = waiter();
	snprintf(nspid, sizeof(nspid), "9100001\t%d", (int)a);
	process(dir, 9100001, 9100000, 300, nspid);
	process(dir, 9100003, 9100000, 301, "9100003");
	children(dir, 9100000, "9100001 9100003 ");
	children(dir, 9100001, "");
	sent = hmn_command_signal_tree(ctx, command, SIGTERM);
	ok(sent == -EXDEV, "a process of the tree with no pid of ours: -EXDEV (%d)", sent);
	ok(strstr(hmn_context_error(ctx), "1 process of the tree has no pid that hmn can tell") != NULL, "said: %s", hmn_context_error(ctx));
	how_a = ended_by(a);
	ok(how_a == SIGTERM, "the one that has one was signalled all the same (%d)", how_a);

	hmn_command_signal(command, SIGKILL);
	while (waitpid((pid_t)hmn_command_pid(command), NULL, 0) < 0 && errno == EINTR)
		;
	hmn_command_free(command);
	hmn_context_free(ctx);
	unsetenv("HMN_PROCFS");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/hmn-test-tree.XXXXXX");
	if (!mkdtemp(root)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	test_signal_in_a_namespace();
	char command[128];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	if (system(command) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
