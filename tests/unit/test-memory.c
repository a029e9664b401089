/*
 * The host memory of hmn run's tree: each process's reading
 * (lib/os/linux/process.c) against a fake /proc — Pss where smaps_rollup
 * says it, VmRSS where it cannot be read, -ESRCH for a zombie (its memory
 * freed) and for one that has gone — and the tree meter's turns
 * (lib/run/tree-meter.c) when the time given runs out before every process
 * is read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-proc.h"
#include "hmn-run.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "run/run.h"
#include "tap.h"

#define KIB 1024ULL

static char root[64];

static void put(uint32_t pid, const char *file, const char *text)
{
	fake_proc_put(root, pid, file, text);
}

static const char rollup[] =
	"55d7a2e8c000-7ffc6a7f5000 ---p 00000000 00:00 0                          [rollup]\n"
	"Rss:             1053348 kB\nPss:              %s kB\nPss_Anon:         210012 kB\n";

static void process(uint32_t pid, const char *pss_kib, const char *vmrss_kib)
{
	char text[512];
	if (pss_kib) {
		snprintf(text, sizeof(text), rollup, pss_kib);
		put(pid, "smaps_rollup", text);
	}
	snprintf(text, sizeof(text), "Name:\tpython3\nPid:\t%u\nUid:\t0\t0\t0\t0\n%s%s%s", pid,
		 vmrss_kib ? "VmRSS:\t" : "", vmrss_kib ? vmrss_kib : "", vmrss_kib ? " kB\n" : "");
	put(pid, "status", text);
}

static void test_readings(struct os_proc_root *proc)
{
	uint64_t bytes = 1;
	bool is_rss = true;

	ok(os_process_memory(proc, 100, &bytes, &is_rss) == 0 && bytes == 262144 * KIB && !is_rss,
	   "Pss from smaps_rollup");
	ok(os_process_memory(proc, 102, &bytes, &is_rss) == 0 && bytes == 4096 * KIB && is_rss,
	   "no smaps_rollup (a kernel before 4.14): VmRSS, and it says so");
	bytes = 7;
	ok(os_process_memory(proc, 103, &bytes, &is_rss) == -ESRCH && bytes == 7,
	   "a zombie (an empty smaps_rollup): its memory freed, gone");
	ok(os_process_memory(proc, 104, &bytes, &is_rss) == 0 && bytes == 8 * KIB && is_rss,
	   "a bad Pss figure: VmRSS stands in");
	bytes = 7;
	ok(os_process_memory(proc, 106, &bytes, &is_rss) == -ESRCH && bytes == 7,
	   "no smaps_rollup and a status without VmRSS (a zombie on an old kernel): gone");
	bytes = 7;
	ok(os_process_memory(proc, 105, &bytes, &is_rss) == -ESRCH && bytes == 7, "gone: -ESRCH, output untouched");
	ok(os_process_memory(proc, 109, &bytes, &is_rss) == 0 && bytes == 204800 * KIB && !is_rss,
	   "a process whose first thread has ended (its own files a zombie's): its running thread's Pss (%llu)",
	   (unsigned long long)bytes);
	long page = sysconf(_SC_PAGESIZE);
	ok(os_process_ram(proc, 109, &bytes) == 0 && bytes == 51200ULL * (uint64_t)page,
	   "and its resident set: its running thread's statm, not the zeros of its own (%llu)", (unsigned long long)bytes);
	ok(os_process_ram(proc, 103, &bytes) == 0 && bytes == 0, "a zombie, all of it: nothing resident");
}

/* The meter's reader and clock, for the turns: each process read is counted; time runs out after `allowed` reads. */
struct fake {
	struct os_proc_root *proc;
	unsigned reads, allowed;
	uint32_t order[16];
};

static int fake_read(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	struct fake *f = data;
	if (f->reads < 16)
		f->order[f->reads] = pid;
	f->reads++;
	return os_process_memory(f->proc, pid, ret_bytes, ret_is_rss);
}

static bool fake_time_left(void *data)
{
	struct fake *f = data;
	return f->reads < f->allowed;
}

/* Every process runs but 101, which ended once read (a worker killed mid-reading). */
static bool fake_running(void *data, uint32_t pid)
{
	(void)data;
	return pid != 101;
}

static void test_ended_while_read(struct os_proc_root *proc)
{
	struct hmn_tree_meter *m = hmn_tree_meter_new();
	struct hmn_tree_memory r;
	const uint32_t tree[] = { 100, 101, 107, 108 };
	struct fake f = { .proc = proc, .allowed = 100 };

	ok(tree_meter_update(m, tree, 4, "pss", fake_read, fake_time_left, fake_running, &f, &r) == 0 &&
	   r.bytes == (262144 + 1024 + 2048) * KIB,
	   "a process that ended after its reading is left out (its share would count its pages twice)");
	ok(m->n == 3, "and forgotten");
	hmn_tree_meter_free(m);
}

static const char *order(const struct fake *f, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < f->reads && i < 16; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u", i ? "," : "", f->order[i]);
	return buf;
}

static void test_turns(struct os_proc_root *proc)
{
	struct hmn_tree_meter *m = hmn_tree_meter_new();
	struct hmn_tree_memory r;
	char buf[128];
	const uint32_t tree[] = { 100, 101, 107, 108 };
	struct fake f = { .proc = proc, .allowed = 100 };

	ok(m != NULL, "a meter");
	ok(tree_meter_update(m, tree, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0, "time enough: read whole");
	is_u64(r.bytes, (2 * 262144 + 1024 + 2048) * KIB, "the sum of the four Pss figures");
	ok(r.complete && r.settled && strcmp(r.measure, "pss") == 0, "complete, settled, measured as Pss");
	is_u64(r.lower_bytes, r.bytes, "settled: its lower bound is the sum");

	/* Now two reads a call: the four in turns, the others counting their last reading. */
	process(100, "300000", "1048576"); /* grew */
	f = (struct fake){ .proc = proc, .allowed = 2 };
	ok(tree_meter_update(m, tree, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0 && !r.complete,
	   "two reads only: not complete");
	ok(strcmp(order(&f, buf, sizeof(buf)), "100,101") == 0, "read in turn from the first: %s", buf);
	is_u64(r.bytes, (300000 + 262144 + 1024 + 2048) * KIB, "100's new figure, 107 and 108's last ones");
	f = (struct fake){ .proc = proc, .allowed = 2 };
	ok(tree_meter_update(m, tree, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0, "the next call");
	ok(strcmp(order(&f, buf, sizeof(buf)), "107,108") == 0, "goes on where the last stopped: %s", buf);
	ok(r.settled, "no process came since: settled, though read in turns");

	/* A new process is read before the turn goes on; one that has gone drops out. */
	const uint32_t grown[] = { 100, 101, 102, 108 }; /* 102 new (VmRSS only), 107 gone */
	f = (struct fake){ .proc = proc, .allowed = 2 };
	ok(tree_meter_update(m, grown, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0, "a new process, one gone");
	ok(strcmp(order(&f, buf, sizeof(buf)), "102,100") == 0, "the new one first, then the turn (wrapped): %s", buf);
	is_u64(r.bytes, (300000 + 262144 + 4096 + 2048) * KIB, "107 no longer counts; 102 does");
	ok(strcmp(r.measure, "rss") == 0, "102's figure is VmRSS: the sum says rss");
	ok(!r.settled, "101 and 108 were read before 102 came: not settled (a fork may have split their pages)");
	is_u64(r.lower_bytes, (300000 + 262144 + 2048) * KIB,
	       "its lower bound: without 102's figure (what 101's and 108's older readings may count again)");
	f = (struct fake){ .proc = proc, .allowed = 100 };
	ok(tree_meter_update(m, grown, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0 && r.settled && r.complete,
	   "all read again since: settled");
	ok(strcmp(order(&f, buf, sizeof(buf)), "101,108,102,100") == 0,
	   "those read before the tree grew first, in turn, then the rest: %s", buf);

	/* However short the time, one process a call is read: a turn always moves on. */
	f = (struct fake){ .proc = proc, .allowed = 0 };
	ok(tree_meter_update(m, grown, 4, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0 && f.reads == 1,
	   "no time at all: one read still");
	const uint32_t gone[] = { 105 };
	f = (struct fake){ .proc = proc, .allowed = 100 };
	ok(tree_meter_update(m, gone, 1, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0 && r.bytes == HMN_UNKNOWN &&
	   r.lower_bytes == HMN_UNKNOWN && r.complete, "the tree has gone: nothing measured, not 0 bytes");
	ok(tree_meter_update(m, NULL, 0, "pss", fake_read, fake_time_left, NULL, &f, &r) == 0 && r.bytes == HMN_UNKNOWN,
	   "no process: nothing measured");
	hmn_tree_meter_free(m);
	ok(hmn_tree_meter_free(NULL) == NULL, "free accepts NULL");
}

#define MS 1000ULL /* the meter's clock counts microseconds */

/*
 * One call of hmn_tree_meter_read on a simulated clock: the listing takes
 * listing_ms, each read read_ms, and the reads go on while the meter's
 * clock says so (one at least). Returns when the call ended, after its
 * start (0); *ret_reads.
 */
static uint64_t simulate(uint64_t budget_ms, uint64_t listing_ms, uint64_t read_ms, uint64_t *ret_reads)
{
	struct tree_meter_clock c = { .deadline = budget_ms * MS };
	uint64_t now = listing_ms * MS;
	c.reads_start = now;
	do {
		now += read_ms * MS;
		c.reads++;
	} while (c.reads < 100000 && tree_meter_time_left(&c, now));
	*ret_reads = c.reads;
	return now;
}

/* A sample reads RAM for half the interval at most, the tree's listing included. */
static void test_budget(void)
{
	uint64_t reads, took = simulate(50, 10, 1, &reads);
	ok(took <= 50 * MS && reads == 39, "a 10 ms listing, 1 ms reads, 50 ms: the listing and 39 reads (%llu ms)",
	   (unsigned long long)(took / MS));
	/* Spread over the reads, the listing's 24 ms made the first read look 25 ms long: one read, and stop. */
	took = simulate(50, 24, 1, &reads);
	ok(reads == 25 && took == 49 * MS, "a 24 ms listing: the reads' own average, 25 reads (%llu reads, %llu ms)",
	   (unsigned long long)reads, (unsigned long long)(took / MS));
	took = simulate(50, 60, 1, &reads);
	ok(reads == 1, "a listing past the budget: one read still, so that the turn moves on");
	struct tree_meter_clock none = { 0 };
	ok(tree_meter_time_left(&none, UINT64_MAX / 2), "no budget: no bound");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/hmn-test-memory.XXXXXX");
	if (!mkdtemp(root)) {
		printf("1..0 # SKIP no temporary directory\n");
		return 0;
	}
	process(100, "262144", "1048576"); /* a parent: 256 MiB its share of 1 GiB resident */
	process(101, "262144", "1048576"); /* a forked worker, the same */
	process(102, NULL, "4096");        /* no smaps_rollup (a kernel before 4.14): VmRSS */
	put(103, "smaps_rollup", "");      /* a zombie: nothing mapped, no VmRSS */
	process(103, NULL, NULL);
	put(104, "smaps_rollup", "Pss: lots\n"); /* a bad figure: VmRSS stands in */
	process(104, NULL, "8");
	/* 105 has gone: no directory at all. */
	process(106, NULL, NULL);
	process(107, "1024", "2048");
	process(108, "2048", "4096");
	/* 109's first thread has ended (pthread_exit in main), 110 runs on: the process's files read as a zombie's. */
	process(109, NULL, NULL);
	put(109, "statm", "0 0 0 0 0 0 0\n");
	char thread[128];
	snprintf(thread, sizeof(thread), "%s/109/task/110", root);
	mkdir(thread, 0755);
	put(109, "task/109/stat", "109 (x) Z 1 109 109 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 2 0 2002 0 0\n");
	put(109, "task/110/smaps_rollup", "Rss: 210000 kB\nPss: 204800 kB\n");
	put(109, "task/110/statm", "300000 51200 1000 10 0 60000 0\n");
	put(103, "statm", "0 0 0 0 0 0 0\n");
	put(103, "task/103/stat", "103 (x) Z 1 103 103 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 2002 0 0\n");

	struct os_proc_root *proc = os_proc_root_open(root);
	test_readings(proc);
	test_ended_while_read(proc);
	test_turns(proc);
	test_budget();
	os_proc_root_close(proc);

	char command[128];
	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	if (system(command) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
