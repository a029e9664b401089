/*
 * hmn run -- COMMAND: runs COMMAND with hmn's stdio untouched, samples the
 * GPU memory that it and everything it starts hold every --interval while
 * any of them runs, and reports the peak of the whole tree at one sample.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP sent to hmn with kill() are passed on
 * to COMMAND; those the terminal sends reach COMMAND by themselves (it is in
 * the foreground group), so they are not sent twice. Either way sampling
 * goes on until the tree is gone, and the report is written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "output.h"
#include "peaks.h"
#include "render.h"
#include "sample.h"
#include "spill.h"
#include "tool.h"

struct device_state {
	unsigned index;
	char *uuid, *name;
	uint64_t baseline;    /* used when COMMAND started, for the device-wide measure */
	uint64_t tree_now;    /* the tree's total on it in the sample under way */
	uint64_t tree_peak;   /* the tree's largest total on it at one sample */
	uint64_t above_peak;  /* the most its used rose above the baseline */
};

struct run {
	const struct cli *cli;
	hmn_context *ctx;
	struct hmn_command *command;
	unsigned *indices;    /* --device, resolved */
	bool has_gpu;
	struct device_state *devices;
	size_t n_devices;
	struct peaks processes;
	uint64_t samples;
	uint64_t peak, peak_shared, peak_device_wide;
	bool shared_measured;
	bool any_rows, any_measured; /* rows of the tree seen; any with a figure */
	struct spill_meter spill;    /* Windows: WDDM pages dedicated memory out to shared */
	uint64_t start_ms;
};

/* Spill is measured where WDDM spills (Windows): elsewhere the report's spill is null. */
#ifdef _WIN32
#define MEASURES_SPILL true
#else
#define MEASURES_SPILL false
#endif

static struct device_state *device_of(struct run *run, unsigned index)
{
	for (size_t i = 0; i < run->n_devices; i++)
		if (run->devices[i].index == index)
			return &run->devices[i];
	return NULL;
}

/* The GPUs to watch and what each held before COMMAND started; false when there is none. */
static int take_baseline(struct run *run)
{
	struct hmn_gpu_list *gpus = NULL;
	int r = hmn_query_gpus(run->ctx, &gpus);

	/* No GPU, or none that answers: COMMAND runs all the same, and the report says so. */
	if (r == -ENODEV || r == -EIO)
		return 0;
	if (r < 0)
		return r;
	r = resolve_devices(run->cli, gpus, &run->indices);
	if (r < 0) {
		hmn_gpu_list_free(gpus);
		return r;
	}
	run->devices = calloc(gpus->count ? gpus->count : 1, sizeof(*run->devices));
	for (size_t i = 0; run->devices && i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i];
		if (g->is_mig || !gpu_row_wanted(run->cli, g))
			continue;
		struct device_state *d = &run->devices[run->n_devices++];
		d->index = g->index;
		d->uuid = g->uuid ? strdup(g->uuid) : NULL;
		d->name = g->name ? strdup(g->name) : NULL;
		d->baseline = g->used_bytes;
	}
	hmn_gpu_list_free(gpus);
	if (!run->devices)
		return -ENOMEM;
	run->has_gpu = true;
	return 0;
}

/* The watched devices' dedicated memory in use and their budget (total), summed. */
static void dedicated_figures(struct run *run, const struct hmn_gpu_list *gpus, uint64_t *ret_used,
			      uint64_t *ret_budget)
{
	uint64_t used = 0, budget = 0;
	for (size_t i = 0; i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i];
		if (g->is_mig || !device_of(run, g->index))
			continue;
		if (g->used_bytes == HMN_UNKNOWN || g->total_bytes == HMN_UNKNOWN) {
			*ret_used = *ret_budget = HMN_UNKNOWN;
			return;
		}
		used += g->used_bytes;
		budget += g->total_bytes;
	}
	*ret_used = used;
	*ret_budget = budget;
}

/* Where no source measures processes: how far each device's used rose above the baseline. */
static void rise_above_baseline(struct run *run, const struct hmn_gpu_list *gpus)
{
	uint64_t total = 0;

	for (size_t i = 0; i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i];
		struct device_state *d = g->is_mig ? NULL : device_of(run, g->index);
		if (!d || g->used_bytes == HMN_UNKNOWN || d->baseline == HMN_UNKNOWN)
			continue;
		uint64_t above = g->used_bytes > d->baseline ? g->used_bytes - d->baseline : 0;
		if (above > d->above_peak)
			d->above_peak = above;
		total += above;
	}
	if (total > run->peak_device_wide)
		run->peak_device_wide = total;
}

/*
 * What only the devices can say, asked once a sample and only where it is
 * needed: the rise above the baseline (no source measures processes) and
 * the dedicated memory against its budget (spill, on Windows).
 */
static void sample_devices(struct run *run, uint64_t tree_shared)
{
	bool device_wide = run->any_rows && !run->any_measured;
	struct hmn_gpu_list *gpus = NULL;
	uint64_t used = HMN_UNKNOWN, budget = HMN_UNKNOWN;

	if (!device_wide && !MEASURES_SPILL)
		return;
	(void)hmn_query_gpus(run->ctx, &gpus); /* on failure gpus stays NULL: nothing measured */
	if (gpus && device_wide)
		rise_above_baseline(run, gpus);
	if (MEASURES_SPILL) {
		if (gpus)
			dedicated_figures(run, gpus, &used, &budget);
		spill_sample(&run->spill, clock_ms() - run->start_ms,
			     run->shared_measured ? tree_shared : HMN_UNKNOWN, used, budget);
	}
	hmn_gpu_list_free(gpus);
}

/* One sample of the tree: its rows, their sums, each peak. */
static int take_sample(struct run *run)
{
	uint32_t *pids = NULL;
	size_t n_pids = 0;
	int r = hmn_command_pids(run->ctx, run->command, &pids, &n_pids);

	run->samples++;
	if (r < 0 || n_pids == 0) {
		free(pids);
		sample_devices(run, 0);
		return r == -ENOMEM ? r : 0;
	}
	struct hmn_process_filter filter = {
		.pids = pids, .n_pids = n_pids, .devices = run->indices, .n_devices = run->cli->n_devices,
	};
	struct hmn_process_list *list = NULL;
	r = hmn_query_processes(run->ctx, &filter, &list);
	free(pids);
	if (r < 0) {
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(run->ctx), NULL);
		return r == -ENOMEM ? r : 0;
	}
	uint64_t total = 0, shared = 0;
	bool measured = false;
	for (size_t i = 0; i < run->n_devices; i++)
		run->devices[i].tree_now = 0;
	for (size_t i = 0; i < list->count && r == 0; i++) {
		const struct hmn_process *p = &list->processes[i];
		if (!process_row_wanted(run->cli, p))
			continue;
		run->any_rows = true;
		if (p->shared_used_bytes != HMN_UNKNOWN) {
			shared += p->shared_used_bytes;
			run->shared_measured = true;
		}
		if (p->used_bytes == HMN_UNKNOWN)
			continue;
		measured = true;
		total += p->used_bytes;
		struct device_state *d = device_of(run, p->device_index);
		if (d)
			d->tree_now += p->used_bytes;
		r = peaks_add(&run->processes, p);
	}
	for (size_t i = 0; i < run->n_devices; i++)
		if (run->devices[i].tree_now > run->devices[i].tree_peak)
			run->devices[i].tree_peak = run->devices[i].tree_now;
	run->any_measured |= measured;
	if (total > run->peak)
		run->peak = total;
	if (shared > run->peak_shared)
		run->peak_shared = shared;
	/* Rows, none measured (WDDM, a driver without per-process figures): the devices must say. */
	sample_devices(run, shared);
	hmn_process_list_free(list);
	return r;
}

static const char *measure_of(const struct run *run)
{
	if (!run->has_gpu)
		return NULL;
	return run->any_rows && !run->any_measured ? "device-wide" : "per-process";
}

/* The command as one line: its words, made safe for a terminal. */
static void put_command(FILE *out, const struct cli *cli)
{
	char word[256];
	for (size_t i = 0; i < cli->argc; i++) {
		sanitize_for_terminal(cli->argv[i], word, sizeof(word));
		fprintf(out, "%s%s", i ? " " : "", word);
	}
}

static size_t distinct_pids(const struct peaks *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->count; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = p->items[k].pid == p->items[i].pid;
		n += !seen && p->items[i].bytes > 0;
	}
	return n;
}

/* hmn: python3 train.py: peak 18.9 GiB of GPU memory (GPU 0: 18.9 GiB) in 3 processes over 12.4 s, 124 samples. */
static void write_text_report(FILE *out, const struct run *run, const struct run_report *rep)
{
	char size[SIZE_TEXT_MAX];
	bool device_wide = rep->measure && strcmp(rep->measure, "device-wide") == 0;

	fputs("hmn: ", out);
	put_command(out, run->cli);
	if (!run->has_gpu) {
		fprintf(out, ": no GPU found, nothing measured; it ran %" PRIu64 ".%" PRIu64 " s.\n",
			rep->duration_ms / 1000, rep->duration_ms % 1000 / 100);
		return;
	}
	fprintf(out, ": peak %s of GPU memory", format_size(rep->peak_bytes, false, size));
	if (device_wide)
		fputs(" above what the GPUs held when it started", out);
	bool any = false;
	for (size_t i = 0; i < rep->n_devices; i++) {
		if (rep->devices[i].peak_bytes == 0 && rep->n_devices > 1)
			continue;
		fprintf(out, "%sGPU %u: %s", any ? ", " : " (", rep->devices[i].index,
			format_size(rep->devices[i].peak_bytes, false, size));
		any = true;
	}
	if (any)
		fputc(')', out);
	if (!device_wide) {
		size_t n = distinct_pids(&run->processes);
		fprintf(out, " in %zu process%s", n, n == 1 ? "" : "es");
	}
	bool accounting = rep->process_peaks && strcmp(rep->process_peaks, "accounting") == 0;
	fprintf(out, " over %" PRIu64 ".%" PRIu64 " s, %" PRIu64 " sample%s%s.\n", rep->duration_ms / 1000,
		rep->duration_ms % 1000 / 100, rep->samples, rep->samples == 1 ? "" : "s",
		device_wide ? "; device-wide: no source here measures processes"
		: accounting ? "; each process's own peak exact, from NVML accounting" : "");
}

static int write_report(const struct run *run, int exit_code, int sig, uint64_t duration_ms)
{
	const struct peak **sorted = peaks_sorted(&run->processes);
	struct run_device_peak *devices = calloc(run->n_devices ? run->n_devices : 1, sizeof(*devices));
	struct run_process_peak *processes =
		calloc(run->processes.count ? run->processes.count : 1, sizeof(*processes));
	const char *measure = measure_of(run);
	bool device_wide = measure && strcmp(measure, "device-wide") == 0;
	int r = -ENOMEM;

	if (!sorted || !devices || !processes)
		goto out;
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct device_state *d = &run->devices[i];
		devices[i] = (struct run_device_peak){
			d->index, d->uuid, d->name, device_wide ? d->above_peak : d->tree_peak,
		};
	}
	/* Where the driver keeps accounting, its exact maxima replace the sampled ones. */
	size_t exact = 0;
	for (size_t i = 0; i < run->processes.count; i++) {
		uint64_t bytes = sorted[i]->bytes, kept;
		if (!device_wide && hmn_query_process_peak(run->ctx, sorted[i]->pid, sorted[i]->device_index, &kept) == 0) {
			bytes = kept > bytes ? kept : bytes;
			exact++;
		}
		processes[i] = (struct run_process_peak){
			sorted[i]->pid, sorted[i]->name, sorted[i]->device_index, bytes,
		};
	}
	bool accounting = exact > 0 && exact == run->processes.count;
	struct run_report rep = {
		.argv = run->cli->argv, .argc = run->cli->argc,
		.exit_code = exit_code, .signal = sig,
		.duration_ms = duration_ms, .samples = run->samples, .interval_ms = run->cli->interval_ms,
		.measure = measure,
		.peak_bytes = !run->has_gpu ? HMN_UNKNOWN : device_wide ? run->peak_device_wide : run->peak,
		.peak_shared_bytes = run->shared_measured ? run->peak_shared : HMN_UNKNOWN,
		.devices = devices, .n_devices = run->n_devices,
		.processes = processes, .n_processes = device_wide ? 0 : run->processes.count,
		.process_peaks = !run->has_gpu || device_wide ? NULL : accounting ? "accounting" : "sampled",
		.spill = MEASURES_SPILL && run->has_gpu ? &run->spill.result : NULL,
	};
	struct output out;
	/* The report goes to stderr: stdout is COMMAND's. */
	if (!run->cli->output) {
		out = (struct output){ .file = stderr };
		r = run->cli->format == FORMAT_JSON ? render_run_report_json(stderr, &rep) : 0;
		if (run->cli->format != FORMAT_JSON)
			write_text_report(stderr, run, &rep);
		fflush(stderr);
	} else if (output_open(&out, run->cli->output) == 0) {
		if (run->cli->format == FORMAT_JSON)
			r = render_run_report_json(out.file, &rep);
		else
			write_text_report(out.file, run, &rep), r = 0;
		if (r < 0)
			output_discard(&out);
		else
			r = output_commit(&out, EXIT_OK) == EXIT_OK ? 0 : -EIO;
	} else {
		r = -EIO;
	}
out:
	free(sorted);
	free(devices);
	free(processes);
	return r;
}

/*
 * Passes on what was sent to hmn by a process; what the terminal sent,
 * COMMAND has had. Returns the signal taken, 0 when none came.
 */
static int forward_signals(struct run *run)
{
	bool from_process;
	int sig = signal_take(&from_process);
	if (sig && from_process)
		hmn_command_signal(run->command, sig);
	return sig;
}

/* Has COMMAND itself ended (whatever it left behind)? */
static bool command_ended(const struct run *run)
{
	int code, sig;
	return hmn_command_status(run->command, &code, &sig) == 0;
}

static void run_free(struct run *run)
{
	for (size_t i = 0; i < run->n_devices; i++) {
		free(run->devices[i].uuid);
		free(run->devices[i].name);
	}
	free(run->devices);
	free(run->indices);
	peaks_clear(&run->processes);
	hmn_command_free(run->command);
}

int cmd_run(const struct cli *cli, hmn_context *ctx)
{
	struct run run = { .cli = cli, .ctx = ctx };
	int exit_code = -1, sig = -1;

	int r = take_baseline(&run);
	if (r < 0) {
		run_free(&run);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	if (!run.has_gpu)
		fprintf(stderr, "hmn: %s: running the command all the same, measuring nothing\n",
			hmn_context_error(ctx));
	signals_catch(true);
	uint64_t start = run.start_ms = clock_ms();
	bool exec_failed;
	r = hmn_command_start(cli->argv, &run.command, &exec_failed);
	if (r < 0) {
		char name[256];
		sanitize_for_terminal(cli->argv[0], name, sizeof(name));
		if (!exec_failed) {
			fprintf(stderr, "hmn: cannot start %s: %s\n", name, strerror(-r));
			run_free(&run);
			return EXIT_RUN_FAILED;
		}
		fprintf(stderr, "hmn: %s: %s\n", name, r == -ENOENT ? "command not found" : strerror(-r));
		run_free(&run);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
	}
	/*
	 * Sample while anything of the tree runs: memory is freed by the time
	 * COMMAND has exited. Once told to stop (a signal) and COMMAND has
	 * ended, what it left running (a detached daemon, which no Ctrl-C
	 * reaches) is not waited for.
	 */
	bool told_to_stop = false;
	for (uint64_t next = start;;) {
		if (run.has_gpu && take_sample(&run) == -ENOMEM) {
			fprintf(stderr, "hmn: out of memory: sampling stopped\n");
			run.has_gpu = false;
		}
		told_to_stop |= forward_signals(&run) != 0;
		if (hmn_command_done(run.command) || (told_to_stop && command_ended(&run)))
			break;
		next += cli->interval_ms;
		uint64_t now = clock_ms();
		if (next < now)
			next = now; /* a slow sample: the next one now, no burst to catch up */
		sleep_until(next);
		told_to_stop |= forward_signals(&run) != 0;
	}
	uint64_t duration = clock_ms() - start;
	spill_finish(&run.spill, duration);
	hmn_command_status(run.command, &exit_code, &sig);
	if (write_report(&run, exit_code, sig, duration) < 0 && cli->output == NULL)
		fprintf(stderr, "hmn: the report could not be written\n");
	run_free(&run);
	return sig > 0 ? 128 + sig : exit_code >= 0 ? exit_code : EXIT_RUN_FAILED;
}
