/*
 * hmn run's tree on Linux (lib/os/linux/tree.c) against fake /proc trees:
 * the listing follows the processes, not the pids (a pid the kernel gives
 * again to an unrelated process is not the tree's, nor the other way
 * round), and --limit's signal reaches each process of the tree by the pid
 * the caller's own PID namespace gives it (NSpid), never by the number
 * another namespace's /proc at HMN_PROCFS shows.
 *
 * The fake pids are above PID_MAX_LIMIT (4,194,304): no process has them,
 * so a signal sent to one by mistake (as before) reaches nobody.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake-proc.h"
#include "hmn-run.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "os/posix/posix.h"
#include "util/pid-set.h"
#include "tap.h"

static char root[64];

static void put(const char *dir, uint32_t pid, const char *file, const char *text)
{
	fake_proc_put(dir, pid, file, text);
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

/*
 * pid ended, and the kernel gave it to a new process: a new directory (a
 * new inode, as procfs makes one for each process), made while the old one
 * is still there so that the file system cannot hand back its inode.
 */
static void reborn(const char *dir, uint32_t pid, uint32_t ppid, unsigned long long start, const char *nspid)
{
	char old[512], now[512], command[1100];
	snprintf(old, sizeof(old), "%s/%u.old", dir, pid);
	snprintf(now, sizeof(now), "%s/%u", dir, pid);
	(void)!rename(now, old);
	process(dir, pid, ppid, start, nspid);
	snprintf(command, sizeof(command), "rm -rf '%s'", old);
	(void)!system(command);
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

/* The tree's listing now, as a set; *ret_n; NULL when it cannot be listed. */
static uint32_t *listing(struct os_tree *t, size_t *ret_n)
{
	uint32_t *pids = NULL;
	if (os_tree_living(t, &pids, NULL, ret_n) < 0)
		return NULL;
	*ret_n = pid_set_make(pids, *ret_n);
	return pids;
}

/* Is pid in the tree's listing now? */
static bool listed(struct os_tree *t, uint32_t pid)
{
	size_t n = 0;
	uint32_t *pids = listing(t, &n);
	bool in = pids && pid_set_has(pids, n, pid);
	free(pids);
	return in;
}

/* Membership, as $HMN_PROCFS numbers as we do: the listing follows each process, not its pid. */
static void test_reused_pids(void)
{
	char dir[128], nspid[32];
	uint32_t self = (uint32_t)getpid();
	snprintf(dir, sizeof(dir), "%s/same", root);
	mkdir(dir, 0755);
	snprintf(nspid, sizeof(nspid), "%u", self);
	process(dir, self, 1, 100, nspid);
	self_link(dir, self);

	struct os_tree *t = NULL;
	ok(os_tree_new(dir, &t) == 0, "a tree over a fake /proc");
	process(dir, 9000001, self, 1000, "9000001"); /* COMMAND */
	process(dir, 9000002, 9000001, 1001, "9000002"); /* its child */
	process(dir, 9000003, self, 900, "9000003");     /* a child of ours from before COMMAND */
	process(dir, 9000004, 9000003, 1002, "9000004"); /* and a child of that */
	children(dir, self, "9000003 9000001 ");
	children(dir, 9000001, "9000002 ");
	children(dir, 9000003, "9000004 ");
	os_tree_set_command(t, 9000001);
	size_t n = 0;
	uint32_t *pids = listing(t, &n);
	ok(pids && n == 2 && pids[0] == 9000001 && pids[1] == 9000002,
	   "COMMAND and its child; not a child of ours older than COMMAND, nor its child (%zu)", n);
	free(pids);

	/* The child ends; the kernel gives its pid to an unrelated process, somebody else's child. */
	reborn(dir, 9000002, 9000003, 2000, "9000002");
	/* 9000004 ends; COMMAND forks a child that gets that pid. */
	reborn(dir, 9000004, 9000001, 2001, "9000004");
	children(dir, 9000001, "9000004 ");
	children(dir, 9000003, "9000002 ");
	ok(!listed(t, 9000002), "a tree's pid taken since by an unrelated process: not the tree's (its GPU memory not counted)");
	ok(listed(t, 9000004), "an unrelated pid taken since by the tree's new child: the tree's");

	/* A zombie of the tree holds nothing and is not listed; one gone from /proc is not either. */
	process(dir, 9000005, 9000001, 2002, "9000005");
	put(dir, 9000005, "stat", "9000005 (x) Z 9000001 9000005 9000005 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 2002 0 0\n");
	children(dir, 9000001, "9000004 9000005 ");
	ok(!listed(t, 9000005) && listed(t, 9000004), "a zombie of the tree: not listed, the rest still");
	/* Its first thread ended (pthread_exit in main), two others run on: stat says Z, and 3 threads. */
	process(dir, 9000006, 9000001, 2003, "9000006");
	put(dir, 9000006, "stat", "9000006 (x) Z 9000001 9000006 9000006 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 3 0 2003 0 0\n");
	children(dir, 9000001, "9000004 9000005 9000006 ");
	ok(listed(t, 9000006), "a process whose first thread has ended while others run on: listed, counted, signalled");
	char path[512];
	snprintf(path, sizeof(path), "rm -rf '%s/9000004'", dir);
	(void)!system(path);
	ok(!listed(t, 9000004) && listed(t, 9000001), "gone from /proc: not listed; COMMAND still");
	os_tree_free(t);
}

static void skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_count, why);
}

/* The children file of pid's first thread taken away, as a kernel without CONFIG_PROC_CHILDREN has none. */
static void no_children_file(const char *dir, uint32_t pid)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%u/task/%u/children", dir, pid, pid);
	unlink(path);
}

/*
 * Without children files the tree is found from every process's parent:
 * /proc scanned once a listing, however many children of ours there are;
 * and a loop of parents (a pid given again while /proc was read) ends.
 */
static void test_parents(void)
{
	char dir[128], nspid[32];
	uint32_t self = (uint32_t)getpid();
	snprintf(dir, sizeof(dir), "%s/parents", root);
	mkdir(dir, 0755);
	snprintf(nspid, sizeof(nspid), "%u", self);
	process(dir, self, 1, 100, nspid);
	self_link(dir, self);
	struct os_tree *t = NULL;
	ok(os_tree_new(dir, &t) == 0, "parents: a tree over a fake /proc");
	process(dir, 9400001, self, 1000, "9400001"); /* COMMAND */
	process(dir, 9400002, self, 1001, "9400002"); /* a child of ours it left (adopted) */
	process(dir, 9400003, 9400001, 1002, "9400003");
	process(dir, 9400004, 9400003, 1003, "9400004");
	process(dir, 9400005, 9400002, 1004, "9400005");
	children(dir, self, "9400001 9400002 ");
	for (uint32_t pid = 9400001; pid <= 9400005; pid++)
		no_children_file(dir, pid);
	os_tree_set_command(t, 9400001);
	size_t n = 0, scans = os_tree_parent_scans(t);
	uint32_t *pids = listing(t, &n);
	ok(pids && n == 5 && pids[0] == 9400001 && pids[4] == 9400005, "parents: every level under both children (%zu)", n);
	free(pids);
	ok(os_tree_parent_scans(t) == scans + 1, "parents: /proc scanned once for the listing, not once a child of ours (%zu)",
	   os_tree_parent_scans(t) - scans);
	pids = listing(t, &n);
	free(pids);
	ok(os_tree_parent_scans(t) == scans + 2, "parents: and once again for the next");
	/* COMMAND's stat read after its pid went to a child of 9400004: a loop of parents. */
	put(dir, 9400001, "stat", "9400001 (x) S 9400004 9400001 9400001 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 1000 0 0\n");
	pids = NULL;
	int r = os_tree_living(t, &pids, NULL, &n); /* as it comes: no set made of it */
	ok(r == 0 && n == 5 && pid_set_make(pids, n) == 5, "parents: a loop of parents ends; each process once (%d, %zu)",
	   r, n);
	free(pids);
	os_tree_free(t);
}

/* Duplicates fd until no descriptor is left, then gives back keep of them; the copies in fds. */
static size_t exhaust_descriptors(int fd, int *fds, size_t size, size_t keep)
{
	size_t n = 0;
	while (n < size && (fds[n] = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0)
		n++;
	while (keep-- > 0 && n > 0)
		close(fds[--n]);
	return n;
}

/* Out of descriptors, a listing fails: it does not answer an empty or a partial tree. */
static void test_out_of_descriptors(void)
{
	char dir[128], nspid[32];
	uint32_t self = (uint32_t)getpid();
	snprintf(dir, sizeof(dir), "%s/descriptors", root);
	mkdir(dir, 0755);
	snprintf(nspid, sizeof(nspid), "%u", self);
	process(dir, self, 1, 100, nspid);
	self_link(dir, self);
	struct os_tree *t = NULL;
	ok(os_tree_new(dir, &t) == 0, "descriptors: a tree over a fake /proc");
	process(dir, 9500001, self, 1000, "9500001");
	process(dir, 9500002, 9500001, 1001, "9500002");
	children(dir, self, "9500001 ");
	children(dir, 9500001, "9500002 ");
	os_tree_set_command(t, 9500001);

	struct rlimit was;
	static int fds[256];
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || getrlimit(RLIMIT_NOFILE, &was) < 0) {
		skip("descriptors: no /dev/null, or no RLIMIT_NOFILE");
		if (fd >= 0)
			close(fd);
		os_tree_free(t);
		return;
	}
	/* Low enough that the descriptors run out within fds[]; the soft limit only, as any process may. */
	struct rlimit low = { .rlim_cur = was.rlim_max < 64 ? was.rlim_max : 64, .rlim_max = was.rlim_max };
	if (setrlimit(RLIMIT_NOFILE, &low) < 0) {
		ok(false, "descriptors: RLIMIT_NOFILE lowered (%s)", strerror(errno));
		close(fd);
		os_tree_free(t);
		return;
	}
	for (size_t keep = 0; keep <= 1; keep++) {
		size_t n_fds = exhaust_descriptors(fd, fds, sizeof(fds) / sizeof(*fds), keep);
		uint32_t *pids = NULL;
		size_t n = 0;
		int r = os_tree_living(t, &pids, NULL, &n);
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		ok(r == -EMFILE, "descriptors: %s left, the listing fails (%d, %zu listed)",
		   keep ? "one (the task directory's, then none for its children file)" : "none", r, n);
		free(pids);
	}
	setrlimit(RLIMIT_NOFILE, &was);
	close(fd);
	size_t n = 0;
	uint32_t *pids = listing(t, &n);
	ok(pids && n == 2, "descriptors: given back, both listed (%zu)", n);
	free(pids);
	os_tree_free(t);
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
 * hmn run over a fake "host" /proc at HMN_PROCFS (dir, under root), where
 * we are self and getpid() in our own namespace, one level down: a context
 * and `sleep 30` as COMMAND (which the fake /proc does not list). false,
 * said, when either cannot be made.
 */
static bool run_over_fake_host(const char *name, uint32_t self, char *dir, size_t size, hmn_context **ret_ctx,
			       struct hmn_command **ret_command)
{
	char nspid[64];
	bool exec_failed;
	snprintf(dir, size, "%s/%s", root, name);
	mkdir(dir, 0755);
	snprintf(nspid, sizeof(nspid), "%u\t%u", self, (unsigned)getpid());
	process(dir, self, 1, 100, nspid);
	self_link(dir, self);
	setenv("HMN_PROCFS", dir, 1);
	setenv("HMN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	char *const argv[] = { "sleep", "30", NULL };
	*ret_ctx = NULL;
	if (hmn_context_new(NULL, ret_ctx, NULL) < 0 || hmn_command_start(*ret_ctx, argv, ret_command, &exec_failed) < 0) {
		ok(false, "hmn_command_start over a fake /proc (%s)", name);
		*ret_ctx = hmn_context_free(*ret_ctx);
		return false;
	}
	return true;
}

/* Ends COMMAND and frees what run_over_fake_host made. */
static void end_run(hmn_context *ctx, struct hmn_command *command)
{
	hmn_command_signal(command, SIGKILL);
	while (waitpid((pid_t)hmn_command_pid(command), NULL, 0) < 0 && errno == EINTR)
		;
	hmn_command_free(command);
	hmn_context_free(ctx);
	unsetenv("HMN_PROCFS");
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
	/* We are 9100000 on the "host". */
	if (!run_over_fake_host("host", 9100000, dir, sizeof(dir), &ctx, &command))
		return;
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
	/* 9100002 re-parented to us while the walk went on: met twice, listed once, in order. */
	children(dir, 9100000, "9100002 9100001 ");
	hmn_command_sample(ctx, command);
	pids = NULL;
	int listed = hmn_command_pids(ctx, command, &pids, &n);
	ok(listed == 0 && n == 2 && pids[0] == 9100001 && pids[1] == 9100002,
	   "a process met twice in one walk is listed once, the list sorted (%zu)", n);
	free(pids);
	children(dir, 9100000, "9100001 ");
	hmn_command_sample(ctx, command);
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

	end_run(ctx, command);
}

/*
 * A GPU row's pid and the tree (hmn_command_owns): in the sample's listing;
 * or a process an earlier listing found that has ended since (a zombie, or
 * gone from /proc) while the driver lists it still, its memory the tree's
 * until it is freed; never a process that took the pid since, nor one no
 * listing found.
 */
static void test_owns(void)
{
	char dir[128];
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	if (!run_over_fake_host("owns", 9300000, dir, sizeof(dir), &ctx, &command))
		return;
	process(dir, 9300001, 9300000, 200, "9300001");
	process(dir, 9300002, 9300001, 201, "9300002");
	process(dir, 9300009, 1, 50, "9300009"); /* somebody else's */
	children(dir, 9300000, "9300001 ");
	children(dir, 9300001, "9300002 ");
	hmn_command_sample(ctx, command);
	ok(hmn_command_owns(command, 9300001, false) == 1 && hmn_command_owns(command, 9300002, false) == 1,
	   "owns: the listed processes");
	ok(hmn_command_owns(command, 9300009, false) == 0, "owns: not a process no listing found");
	/* 9300002 ends, a zombie its parent has not reaped; the driver still lists its pid. */
	put(dir, 9300002, "stat", "9300002 (x) Z 9300001 9300002 9300002 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 201 0 0\n");
	hmn_command_sample(ctx, command);
	uint32_t *pids = NULL;
	size_t n = 0;
	ok(hmn_command_pids(ctx, command, &pids, &n) == 0 && n == 1, "owns: a zombie is not listed (%zu)", n);
	free(pids);
	ok(hmn_command_owns(command, 9300002, false) == 1, "owns: its GPU row is still the tree's");
	/* Reaped, gone from /proc: the same. */
	char path[512];
	snprintf(path, sizeof(path), "rm -rf '%s/9300002'", dir);
	(void)!system(path);
	children(dir, 9300001, "");
	hmn_command_sample(ctx, command);
	ok(hmn_command_owns(command, 9300002, false) == 1, "owns: gone from /proc, still the tree's while no one has its pid");
	/* The kernel gives the pid to an unrelated process: not the tree's. */
	process(dir, 9300002, 1, 900, "9300002");
	hmn_command_sample(ctx, command);
	ok(hmn_command_owns(command, 9300002, false) == 0, "owns: a pid given again to another process is not the tree's");
	/* The tree's new child takes it: the tree's again, by the listing. */
	reborn(dir, 9300002, 9300001, 950, "9300002");
	children(dir, 9300001, "9300002 ");
	hmn_command_sample(ctx, command);
	ok(hmn_command_owns(command, 9300002, false) == 1, "owns: the tree's new process with that pid is the tree's");
	/* A kernel without children files (no CONFIG_PROC_CHILDREN): the tree from every process's parent. */
	for (uint32_t pid = 9300000; pid <= 9300002; pid++) {
		snprintf(path, sizeof(path), "%s/%u/task/%u/children", dir, pid, pid);
		unlink(path);
	}
	hmn_command_sample(ctx, command);
	pids = NULL;
	int listed = hmn_command_pids(ctx, command, &pids, &n);
	ok(listed == 0 && n == 2 && pids[0] == 9300001 && pids[1] == 9300002,
	   "no children files: the tree listed from the parents' side (%d, %zu: %u)", listed, n, n ? pids[0] : 0);
	free(pids);
	/* It ends again: still the tree's for as long as the driver lists it, sample after sample... */
	snprintf(path, sizeof(path), "rm -rf '%s/9300002'", dir);
	(void)!system(path);
	int asked = 0;
	for (int i = 0; i < 10; i++) {
		hmn_command_sample(ctx, command);
		asked += hmn_command_owns(command, 9300002, false) == 1;
	}
	ok(asked == 10, "owns: an ended process the driver lists still, asked each sample: the tree's each time (%d)", asked);
	/* ...and, the driver done with it, forgotten: the tree's members are not every pid the run met. */
	for (int i = 0; i < 10; i++)
		hmn_command_sample(ctx, command);
	ok(hmn_command_owns(command, 9300002, false) == 0, "owns: forgotten some samples after the driver stopped listing it");
	ok(hmn_command_owns(command, 9300001, false) == 1, "owns: the living as ever");
	end_run(ctx, command);
}

/*
 * hmn run's RAM reading over the sample's listing: a process read while it
 * ran that has ended by the end of the reads (a worker killed mid-reading)
 * is left out of the sum, its share having been taken while it still split
 * pages with the others (lib/run/tree-memory.c's wiring of the meter's
 * running check; the meter's own arithmetic is test-memory's).
 */
static void test_ended_while_read(void)
{
	char dir[128];
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	if (!run_over_fake_host("ended", 9200000, dir, sizeof(dir), &ctx, &command))
		return;
	/* Two processes of the tree (adopted by us), each 1 GiB resident, its Pss its share. */
	static const char rollup[] = "00400000-7ffc6a7f5000 ---p 00000000 00:00 0 [rollup]\nRss: 1048576 kB\nPss: %u kB\n";
	char text[256];
	process(dir, 9200001, 9200000, 200, "9200001");
	process(dir, 9200002, 9200000, 201, "9200002");
	snprintf(text, sizeof(text), rollup, 262144u);
	put(dir, 9200001, "smaps_rollup", text);
	snprintf(text, sizeof(text), rollup, 786432u);
	put(dir, 9200002, "smaps_rollup", text);
	children(dir, 9200000, "9200001 9200002 ");
	struct hmn_tree_meter *meter = hmn_tree_meter_new();
	struct hmn_tree_memory m;
	hmn_command_sample(ctx, command);
	int r = meter ? hmn_tree_meter_read(ctx, meter, command, 0, &m) : -ENOMEM;
	ok(r == 0 && m.bytes == 1048576ULL * 1024, "both read: 1 GiB in all (%llu)", (unsigned long long)m.bytes);
	/* The next sample lists both; then 9200002 ends (a zombie, its pages freed) while the reads go on. */
	hmn_command_sample(ctx, command);
	uint32_t *pids = NULL;
	size_t n = 0;
	ok(hmn_command_pids(ctx, command, &pids, &n) == 0 && n == 2, "the sample listed both");
	free(pids);
	put(dir, 9200002, "stat", "9200002 (x) Z 9200000 9200002 9200002 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 201 0 0\n");
	r = meter ? hmn_tree_meter_read(ctx, meter, command, 0, &m) : -ENOMEM;
	ok(r == 0 && m.bytes == 262144ULL * 1024, "one ended by the end of the reads: left out, not its share counted "
	   "again (%llu)", (unsigned long long)m.bytes);
	hmn_tree_meter_free(meter);
	end_run(ctx, command);
}

/* ---- the wait, against the real /proc ----------------------------------------------- */

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* Waits until pid is a zombie (ended, not reaped): false after 5 s. */
static bool becomes_zombie(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		char path[64], stat[256] = "";
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (f) {
			size_t n = fread(stat, 1, sizeof(stat) - 1, f);
			stat[n] = '\0';
			fclose(f);
		}
		const char *paren = strrchr(stat, ')');
		if (paren && paren[1] == ' ' && paren[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

static void test_done(void)
{
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	bool exec_failed;
	setenv("HMN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	if (hmn_context_new(NULL, &ctx, NULL) < 0) {
		ok(false, "a context");
		return;
	}
	/*
	 * The sample's list, taken while COMMAND ran: COMMAND reaped after it
	 * is no more in it (it was named "left running" by its dead pid).
	 */
	char *const brief[] = { "sleep", "0.1", NULL };
	if (hmn_command_start(ctx, brief, &command, &exec_failed) == 0) {
		uint32_t *pids = NULL;
		size_t n = 0;
		hmn_command_sample(ctx, command);
		ok(hmn_command_pids(ctx, command, &pids, &n) == 0 && n == 1 && pids[0] == hmn_command_pid(command),
		   "the sample lists COMMAND while it runs");
		free(pids);
		ok(becomes_zombie((pid_t)hmn_command_pid(command)), "COMMAND ends");
		ok(hmn_command_done(ctx, command), "done at the first ask once it ended, from the sample's list");
		pids = NULL;
		int r = hmn_command_pids(ctx, command, &pids, &n);
		ok(r == 0 && n == 0, "and not listed since (%zu)", n);
		free(pids);
		command = hmn_command_free(command);
	} else {
		ok(false, "sleep 0.1 starts");
	}
	/*
	 * A caller that only waits (no sample): done once the detached sleep
	 * has ended too, not never. qemu-user does not pass on prctl's
	 * subreaper: there the sleep goes to init, out of the tree.
	 */
	char *const detached[] = { "sh", "-c", "sleep 0.3 & exit 0", NULL };
	if (getenv("MESON_EXE_WRAPPER") && *getenv("MESON_EXE_WRAPPER")) {
		skip("hmn_command_done polled alone: no subreaper under an emulator");
	} else if (hmn_command_start(ctx, detached, &command, &exec_failed) == 0) {
		uint64_t start = now_ms(), waited = 0;
		bool done = false;
		while (!(done = hmn_command_done(ctx, command)) && (waited = now_ms() - start) < 5000)
			usleep(20000);
		ok(done && waited >= 250, "hmn_command_done polled alone: true after the detached sleep (%llu ms)",
		   (unsigned long long)waited);
		hmn_command_free(command);
	} else {
		ok(false, "sh starts");
	}
	hmn_context_free(ctx);
}

/* ---- a pid given again for real, in a PID namespace of our own ------------------------ */

enum { REUSE_OK, REUSE_SKIP = 100, REUSE_SETUP, REUSE_MEMBER_UNSEEN, REUSE_STILL_COUNTED, REUSE_COMMAND_LOST };

static int write_file(const char *path, unsigned long value)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%lu", value);
	return fclose(f) == 0 ? 0 : -errno;
}

/* The next process made in our namespace gets pid (a checkpoint-restore's way: root only). */
static int next_pid_is(pid_t pid)
{
	return write_file("/proc/sys/kernel/ns_last_pid", (unsigned long)pid - 1);
}

static char command_of(int fd)
{
	char c = 0;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	return c;
}

/*
 * Another process, not the tree's (made before it), that makes processes
 * on demand: 'u', one that lives on; 'd', short ones until the pid cursor
 * is just below 500. Answers each with its pid.
 */
static void helper(int in, int out)
{
	for (char c; (c = command_of(in));) {
		pid_t pid = -1;
		if (c == 'u' && (pid = fork()) == 0)
			for (;;)
				pause();
		for (int i = 0; c == 'd' && i < 2000 && pid != 499; i++) {
			if ((pid = fork()) == 0)
				_exit(0);
			waitpid(pid, NULL, 0);
		}
		(void)!write(out, &pid, sizeof(pid));
	}
	_exit(0);
}

/*
 * COMMAND: it makes a child at pid 500 (the tree's), and on 'k' kills and
 * reaps it, as a parent does, which frees the pid.
 */
static void command_main(int in, int out)
{
	pid_t child = next_pid_is(500) == 0 ? fork() : -1;
	if (child == 0)
		for (;;)
			pause();
	(void)!write(out, &child, sizeof(child));
	if (command_of(in) == 'k' && child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	(void)!write(out, &child, sizeof(child));
	for (;;)
		pause();
}

static pid_t start(void (*main_of)(int, int), int *ret_to, int *ret_from)
{
	int to[2], from[2];
	if (pipe(to) < 0 || pipe(from) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		main_of(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	*ret_to = to[1];
	*ret_from = from[0];
	return pid;
}

static pid_t ask(int to, int from, char c)
{
	pid_t pid = -1;
	(void)!write(to, &c, 1);
	while (read(from, &pid, sizeof(pid)) < 0 && errno == EINTR)
		;
	return pid;
}

/*
 * As pid 1 of a PID namespace with its own /proc, where pids can be
 * arranged: the tree's process at 500 ends, the cursor comes round the
 * namespace's pids as it does on its own, and 500 goes to an unrelated
 * process. Exits with REUSE_OK or what went wrong.
 */
static int reuse_in_namespace(void)
{
	int h_to, h_from, c_to, c_from;
	char pid_max_text[32] = "";
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (!f || !fgets(pid_max_text, sizeof(pid_max_text), f))
		return REUSE_SKIP;
	fclose(f);
	long pid_max = atol(pid_max_text);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) < 0 || pid_max < 1000)
		return REUSE_SKIP;
	pid_t other = start(helper, &h_to, &h_from);
	struct os_tree *t = NULL;
	if (other < 0 || os_tree_new("/proc", &t) < 0 || next_pid_is(100) < 0)
		return REUSE_SETUP;
	uint32_t *pids = NULL;
	size_t n = 0;
	pid_t command = start(command_main, &c_to, &c_from);
	pid_t member = -1;
	while (read(c_from, &member, sizeof(member)) < 0 && errno == EINTR)
		;
	if (command != 100 || member != 500)
		return REUSE_SETUP;
	os_tree_set_command(t, command);
	/* The cursor near the top, before the first sample: from then on it goes its own way. */
	if (next_pid_is((pid_t)pid_max - 4) < 0)
		return REUSE_SETUP;
	if (os_tree_living(t, &pids, NULL, &n) < 0 || !pid_set_has(pids, pid_set_make(pids, n), 500))
		return REUSE_MEMBER_UNSEEN;
	free(pids);
	ask(c_to, c_from, 'k');
	/* Round past pid_max, on through the namespace's free pids to 499: the next is 500 again. */
	if (ask(h_to, h_from, 'd') != 499 || ask(h_to, h_from, 'u') != 500)
		return REUSE_SETUP;
	if (os_tree_living(t, &pids, NULL, &n) < 0)
		return REUSE_SETUP;
	n = pid_set_make(pids, n);
	int r = pid_set_has(pids, n, 500) ? REUSE_STILL_COUNTED : !pid_set_has(pids, n, 100) ? REUSE_COMMAND_LOST
											   : REUSE_OK;
	free(pids);
	os_tree_free(t);
	return r;
}

static void test_real_reuse(void)
{
	if (geteuid() != 0) {
		skip("a pid given again for real: needs root for a PID namespace");
		return;
	}
	/*
	 * Under qemu-user (the aarch64 suite) the emulator forks and reads
	 * /proc on the program's behalf: the namespace's pids are not arranged
	 * as the kernel gives them. The native suites run it.
	 */
	if (getenv("MESON_EXE_WRAPPER") && *getenv("MESON_EXE_WRAPPER")) {
		skip("a pid given again for real: not under an emulator");
		return;
	}
	/* The namespace is made in a child of ours: our own later children stay in ours. */
	pid_t outer = fork();
	if (outer == 0) {
		if (unshare(CLONE_NEWPID) < 0)
			_exit(REUSE_SKIP);
		pid_t init = fork();
		if (init == 0)
			_exit(reuse_in_namespace());
		int status;
		while (waitpid(init, &status, 0) < 0 && errno == EINTR)
			;
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : REUSE_SETUP);
	}
	int status = 0;
	while (waitpid(outer, &status, 0) < 0 && errno == EINTR)
		;
	int r = WIFEXITED(status) ? WEXITSTATUS(status) : REUSE_SETUP;
	if (r == REUSE_SKIP) {
		skip("a pid given again for real: no PID namespace or /proc of our own here");
		return;
	}
	ok(r == REUSE_OK, "a real process of the tree ends, the kernel's cursor comes round, an unrelated "
			  "process gets its pid: not the tree's (%d)", r);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/hmn-test-tree.XXXXXX");
	if (!mkdtemp(root)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	test_reused_pids();
	test_parents();
	test_out_of_descriptors();
	test_signal_in_a_namespace();
	test_ended_while_read();
	test_owns();
	test_done();
	test_real_reuse();
	char command[128];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	if (system(command) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
