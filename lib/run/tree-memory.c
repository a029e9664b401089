/*
 * The host memory of a command's whole tree: the OS's own figure for the
 * tree where it keeps one (Windows' job), else each process of the tree's
 * listing (hmn_command_pids) read within a time budget by the tree meter
 * (run/tree-meter.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "os/os.h"
#include "run/run.h"
#include "util/clock.h"

/* One call's reading: where, and its time (struct tree_meter_clock). */
struct reading {
	struct os_proc_root *root;
	struct tree_meter_clock clock;
};

static int read_process_memory(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	struct reading *r = data;
	r->clock.reads++;
	return os_process_memory(r->root, pid, ret_bytes, ret_is_rss);
}

static bool time_left(void *data)
{
	const struct reading *r = data;
	return tree_meter_time_left(&r->clock, clock_us());
}

/* Is a process read in this call still running (not ended, nor a zombie)? */
static bool still_running(void *data, uint32_t pid)
{
	struct reading *r = data;
	return os_process_running(r->root, pid);
}

int hmn_tree_meter_read(hmn_context *ctx, struct hmn_tree_meter *meter, struct hmn_command *command,
			uint64_t budget_us, struct hmn_tree_memory *ret)
{
	struct reading reading = { 0 };
	uint32_t *pids = NULL;
	size_t n = 0;
	uint64_t bytes;
	const char *measure;
	bool is_peak;

	/* One query of the job, however large it is: it keeps its own peak, nothing between samples missed. */
	int r = os_command_memory(command_os(command), &bytes, &measure, &is_peak);
	if (r != -ENOTSUP) {
		if (r == 0)
			*ret = (struct hmn_tree_memory){
				.bytes = bytes, .measure = measure, .is_peak = is_peak, .complete = true, .settled = true,
				.lower_bytes = bytes,
			};
		return r;
	}
	if (!meter->root && !(meter->root = os_proc_root_open(os_procfs_root())))
		return -ENOMEM;
	reading.root = meter->root;
	r = hmn_command_pids(ctx, command, &pids, &n);
	if (r < 0)
		return r;
	/*
	 * The meter keeps its readings by pid: hmn_command_pids gives them
	 * sorted and distinct. The budget is the reads' own, from here: charged
	 * with the listing (~190 ms at 10,000 processes, against 50 ms), each
	 * sample read one process, and 5,000 sleeps under `--interval 100ms`
	 * peaked at 20 MiB where they hold 534 MiB.
	 */
	reading.clock.reads_start = clock_us();
	reading.clock.deadline = budget_us ? reading.clock.reads_start + budget_us : 0;
	/*
	 * No second listing after the reads, to tell a fork while they ran: it
	 * cost as much as the first (at 2,000 processes, more than the budget),
	 * and told nothing the sum needs. A fork only adds sharers to the pages
	 * it shares, so whoever is read after it counts a smaller share of
	 * them, never a larger: the sum of one call is not made too high by a
	 * fork during it. The newcomer is listed by the next call, which then
	 * reads anew what was read before it (tree_meter_update).
	 */
	r = tree_meter_update(meter, pids, n, os_process_memory_measure, read_process_memory, time_left,
			      still_running, &reading, ret);
	free(pids);
	return r;
}
