/*
 * What hmn run measures of a command's whole tree on Linux and macOS
 * through the tree's pids (hmn_command_pids): its host memory, read within
 * a time budget by the tree meter (lib/tree-meter.c). The signal to every
 * process of it (--limit) is the OS layer's (os_tree_signal), which knows
 * which process each pid was.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "../internal.h"

struct reading {
	struct os_proc_root *root;
	uint64_t start_ns, deadline_ns; /* deadline 0: no bound */
	uint64_t reads;
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int read_process_memory(void *data, uint32_t pid, uint64_t *ret_bytes, bool *ret_is_rss)
{
	struct reading *r = data;
	r->reads++;
	return os_process_memory(r->root, pid, ret_bytes, ret_is_rss);
}

/* Is there time for one more process, as long as those read so far took on average? */
static bool time_left(void *data)
{
	struct reading *r = data;
	if (r->deadline_ns == 0)
		return true;
	uint64_t now = now_ns();
	uint64_t average = r->reads ? (now - r->start_ns) / r->reads : 0;
	return now + average < r->deadline_ns;
}

static int compare_pids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/*
 * A worker forked while the tree was read splits pages with its parent: the
 * parent's share read before the fork and the worker's read after count
 * them twice (a parent's 512 MiB and four workers read across their forks
 * summed to 840 MiB). Listing the tree again tells; the next call then
 * reads every process anew.
 */
static bool grew_while_read(hmn_context *ctx, const struct hmn_tree_meter *meter, struct hmn_command *command)
{
	uint32_t *pids = NULL;
	size_t n = 0;
	if (hmn_command_pids(ctx, command, &pids, &n) < 0)
		return true; /* unknown: not settled */
	bool grew = tree_meter_has_newcomer(meter, pids, n);
	free(pids);
	return grew;
}

int hmn_tree_meter_read(hmn_context *ctx, struct hmn_tree_meter *meter, struct hmn_command *command,
			uint64_t budget_ms, struct hmn_tree_memory *ret)
{
	uint64_t start = now_ns();
	struct reading reading = { .start_ns = start, .deadline_ns = budget_ms ? start + budget_ms * 1000000u : 0 };
	uint32_t *pids = NULL;
	size_t n = 0;

	if (!ctx->proc_root && !(ctx->proc_root = os_proc_root_open(ctx->procfs)))
		return -ENOMEM;
	reading.root = ctx->proc_root;
	int r = hmn_command_pids(ctx, command, &pids, &n);
	if (r < 0)
		return r;
	/* The meter keeps its readings by pid: sorted and distinct, whatever order the tree lists. */
	if (n > 1)
		qsort(pids, n, sizeof(*pids), compare_pids);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (distinct == 0 || pids[i] != pids[distinct - 1])
			pids[distinct++] = pids[i];
	r = tree_meter_update(meter, pids, distinct, os_process_memory_measure, read_process_memory, time_left,
			      &reading, ret);
	free(pids);
	if (r == 0 && ret->settled)
		ret->settled = !grew_while_read(ctx, meter, command);
	return r;
}
