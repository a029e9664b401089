/*
 * tree-memory READY RUNS -- COMMAND [ARG...]
 *
 * Starts COMMAND as hmn run does (hmn_command_start), waits for the file
 * READY to appear (COMMAND's tree is built and holds its memory), then
 * times, RUNS times each: listing the tree (hmn_command_pids after
 * hmn_command_sample, once a sample as hmn run does), reading its host
 * memory whole (each process's smaps_rollup, the sample's listing being
 * made: hmn_tree_meter_read with no time bound), and for comparison each
 * process's status file alone (VmRSS, what summing resident sets would
 * cost). Then what each sample of hmn run does at its default 100 ms
 * interval, from its first: readings bounded to 50 ms on one meter, RUNS of
 * them, their median and longest (the listing, then reads within the bound), and
 * how many read only part of the tree (the rest counting earlier
 * readings). Prints the figures read, then ends the tree (SIGTERM to every
 * process) and reaps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hmn-run.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each process's VmRSS from its status file, summed: the cheap figure that counts shared pages once per process. */
static unsigned long long rss_sum(const uint32_t *pids, size_t n)
{
	unsigned long long total = 0;
	char path[64], buf[16384];
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%u/status", pids[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		char *line = strstr(buf, "\nVmRSS:");
		if (line)
			total += strtoull(line + 7, NULL, 10) * 1024;
	}
	return total;
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: tree-memory READY RUNS -- COMMAND [ARG...]\n");
		return 2;
	}
	const char *ready = argv[1];
	int runs = atoi(argv[2]);
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	bool exec_failed;

	if (runs < 1 || hmn_context_new(NULL, &ctx, NULL) < 0 ||
	    hmn_command_start(ctx, argv + 4, &command, &exec_failed) < 0) {
		fprintf(stderr, "tree-memory: cannot start %s\n", argv[4]);
		return 1;
	}
	for (int i = 0; access(ready, F_OK) != 0; i++) {
		if (i > 6000 || hmn_command_done(ctx, command)) {
			fprintf(stderr, "tree-memory: %s never appeared\n", ready);
			return 1;
		}
		usleep(10000);
	}
	double *list_ms = calloc((size_t)runs, sizeof(double)), *ram_ms = calloc((size_t)runs, sizeof(double));
	double *rss_ms = calloc((size_t)runs, sizeof(double)), *bounded_ms = calloc((size_t)runs, sizeof(double));
	struct hmn_tree_meter *whole = hmn_tree_meter_new(), *bounded = hmn_tree_meter_new();
	struct hmn_tree_memory m = { 0 }, b = { 0 };
	unsigned long long rss = 0;
	size_t n = 0;
	for (int i = 0; i < runs; i++) {
		uint32_t *pids = NULL;
		hmn_command_sample(ctx, command); /* a new sample: its listing is made anew */
		double t0 = now_ms();
		if (hmn_command_pids(ctx, command, &pids, &n) < 0)
			return 1;
		double t1 = now_ms();
		/* A meter of its own each time: every process read, as in a first sample. */
		hmn_tree_meter_free(whole);
		whole = hmn_tree_meter_new();
		if (!whole || hmn_tree_meter_read(ctx, whole, command, 0, &m) < 0)
			return 1;
		double t2 = now_ms();
		rss = rss_sum(pids, n);
		double t3 = now_ms();
		free(pids);
		list_ms[i] = t1 - t0;
		ram_ms[i] = t2 - t1;
		rss_ms[i] = t3 - t2;
	}
	/* hmn run at --interval 100ms: half of it for RAM, every sample, its first too. */
	int incomplete = 0;
	for (int i = 0; i < runs; i++) {
		hmn_command_sample(ctx, command);
		double t0 = now_ms();
		if (hmn_tree_meter_read(ctx, bounded, command, 100 / 2 * 1000, &b) < 0)
			return 1;
		bounded_ms[i] = now_ms() - t0;
		incomplete += !b.complete;
	}
	double ram = median(ram_ms, runs), list = median(list_ms, runs), per_sample = median(bounded_ms, runs);
	double longest = bounded_ms[runs - 1]; /* sorted by median() */
	printf("    %zu processes; %d runs each, medians:\n", n, runs);
	printf("    listing the tree (once a sample)         %7.3f ms\n", list);
	printf("    the tree's RAM read whole (no bound)   %7.3f ms   %.2f GiB (%s)\n", ram,
	       (double)m.bytes / (1 << 30), m.measure);
	printf("    each status file's VmRSS, for comparison %7.3f ms   %.2f GiB (summed resident sets)\n",
	       median(rss_ms, runs), (double)rss / (1 << 30));
	printf("    hmn run at 100 ms (listing + 50 ms of reads) %8.3f ms a sample (longest %.3f)   %.2f GiB; %d of %d samples read part of the tree%s\n",
	       per_sample, longest, (double)b.bytes / (1 << 30), incomplete, runs,
	       incomplete ? "" : " (each read it whole)");
	/* End the tree: every process, then reap. */
	uint32_t *pids = NULL;
	if (hmn_command_pids(ctx, command, &pids, &n) == 0)
		for (size_t i = 0; i < n; i++)
			kill((pid_t)pids[i], SIGTERM);
	free(pids);
	while (!hmn_command_done(ctx, command))
		usleep(10000);
	hmn_command_free(command);
	hmn_context_free(ctx);
	free(list_ms);
	free(ram_ms);
	free(rss_ms);
	free(bounded_ms);
	hmn_tree_meter_free(whole);
	hmn_tree_meter_free(bounded);
	return 0;
}
