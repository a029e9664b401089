/*
 * run-tree N SAMPLES: what one sample of hmn run costs when the command's
 * tree is N processes, all on the GPUs (N/8 on each of 8). The command is
 * this program again (--spawn): it forks N children that wait, writes them
 * into the stand-in's scenario, and says it is ready; then the sample that
 * hmn run takes at its default 100 ms interval is timed SAMPLES times: the
 * tree's GPU rows (hmn_command_sample, which lists the tree once for the
 * whole sample, and a process query for the command) and its RAM
 * (hmn_tree_meter_read over the same listing, 50 ms of reads at most, one
 * meter for the whole run), as src/cmd-run.c does each sample. Prints the
 * first sample (every process read for the first time) and the medians of
 * the rest: the rows alone (the listing included), and the whole sample,
 * with the longest (the RAM's budget is a bound, not an average). Needs HMN_NVML_LIBRARY (the stand-in), HMN_STUB_SCENARIO with
 * the GPUs, HMN_STUB_WATCH=1.
 *
 * Built with -DHMN_OLD_API against a libhmn from before the tree was kept
 * (hmn_command_pids and a pid filter a sample), for the figure to compare.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hmn-run.h"

#define GPUS 8

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* The command: N children that wait, listed in the scenario, then "ready". */
static int spawn(unsigned n, const char *ready)
{
	const char *scenario = getenv("HMN_STUB_SCENARIO");
	pid_t *pids = calloc(n, sizeof(*pids));
	char tmp[4096];

	signal(SIGTERM, on_term);
	for (unsigned i = 0; pids && i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		if (pids[i] < 0) {
			perror("run-tree: fork");
			n = i;
			break;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.new", scenario);
	FILE *in = fopen(scenario, "r"), *out = fopen(tmp, "w");
	if (!in || !out)
		return 1;
	for (int c; (c = getc(in)) != EOF;)
		putc(c, out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "proc gpu=%u pid=%d used=1073741824 list=compute\n", i % GPUS, (int)pids[i]);
	fclose(in);
	if (fclose(out) != 0 || rename(tmp, scenario) != 0)
		return 1;
	fclose(fopen(ready, "w"));
	while (!stop)
		pause();
	for (unsigned i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (unsigned i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* hmn run's interval, and the share of it a sample reads RAM for (src/ram-meter.h). */
#define INTERVAL_MS 100
#define RAM_BUDGET_MS (INTERVAL_MS / 2)

/* The GPU part of a sample as hmn run takes it: the tree's rows. Returns how many, or -errno. */
static long sample_rows(hmn_context *ctx, struct hmn_command *command)
{
	struct hmn_process_list *list = NULL;
#ifdef HMN_OLD_API
	uint32_t *pids = NULL;
	size_t n = 0;
	int r = hmn_command_pids(ctx, command, &pids, &n);
	struct hmn_process_filter filter = { .pids = pids, .n_pids = n };
	if (r == 0)
		r = n ? hmn_query_processes(ctx, &filter, &list) : -ENOENT;
	free(pids);
#else
	struct hmn_process_filter filter = { .keep_pid = hmn_command_keep_pid, .keep_pid_data = command, .figures_only = true };
	int r = hmn_command_sample(ctx, command);
	if (r == 0)
		r = hmn_query_processes(ctx, &filter, &list);
#endif
	long rows = r < 0 ? r : (long)list->count;
	hmn_process_list_free(list);
	return rows;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--spawn") == 0)
		return spawn((unsigned)atoi(argv[2]), argv[3]);
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned samples = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
	char self[4096], count[16], ready[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	hmn_context *ctx = NULL;
	struct hmn_command *command = NULL;
	bool exec_failed;

	if (len < 0 || samples < 2 || hmn_context_new(NULL, &ctx, NULL) < 0)
		return 1;
	self[len] = '\0';
	snprintf(count, sizeof(count), "%u", n);
	snprintf(ready, sizeof(ready), "%s.ready", getenv("HMN_STUB_SCENARIO"));
	unlink(ready);
	char *const spawn_argv[] = { self, "--spawn", count, ready, NULL };
#ifdef HMN_OLD_API
	int r = hmn_command_start(spawn_argv, &command, &exec_failed);
#else
	int r = hmn_command_start(ctx, spawn_argv, &command, &exec_failed);
#endif
	if (r < 0) {
		fprintf(stderr, "run-tree: %s\n", strerror(-r));
		return 1;
	}
	for (struct stat st; stat(ready, &st) < 0;)
		usleep(10000);
	double *ms = calloc(samples, sizeof(*ms)), *rows_ms = calloc(samples, sizeof(*rows_ms));
	long rows = 0;
	unsigned incomplete = 0;
#ifndef HMN_OLD_API
	struct hmn_tree_meter *ram = hmn_tree_meter_new();
#endif
	for (unsigned i = 0; ms && rows_ms && i < samples; i++) {
		double t = now_ms();
		rows = sample_rows(ctx, command);
		rows_ms[i] = now_ms() - t;
#ifndef HMN_OLD_API
		struct hmn_tree_memory reading;
		if (ram && hmn_tree_meter_read(ctx, ram, command, RAM_BUDGET_MS * 1000, &reading) == 0)
			incomplete += !reading.complete;
#endif
		ms[i] = now_ms() - t;
	}
#ifndef HMN_OLD_API
	hmn_tree_meter_free(ram);
#endif
	hmn_command_signal(command, SIGTERM);
	while (waitpid((pid_t)hmn_command_pid(command), NULL, 0) < 0 && errno == EINTR)
		;
	if (!ms || !rows_ms)
		return 1;
	qsort(ms + 1, samples - 1, sizeof(*ms), compare_doubles);
	qsort(rows_ms + 1, samples - 1, sizeof(*rows_ms), compare_doubles);
	printf("%u processes in the tree, %ld rows: first sample %.1f ms, then (medians of %u) %.2f ms a sample's GPU rows, "
	       "%.2f ms the whole sample with its RAM (%u ms at most; longest %.2f ms; %u read part of the tree)\n",
	       n, rows, ms[0], samples - 1, rows_ms[1 + (samples - 1) / 2], ms[1 + (samples - 1) / 2], RAM_BUDGET_MS,
	       ms[samples - 1], incomplete);
	hmn_command_free(command);
	hmn_context_free(ctx);
	free(ms);
	free(rows_ms);
	return rows == (long)n ? 0 : 1;
}
