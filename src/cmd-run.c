/*
 * hmn run -- COMMAND: runs COMMAND with hmn's stdio untouched, samples the
 * GPU memory that it and everything it starts hold every --interval while
 * any of them runs, and reports the peak of the whole tree at one sample;
 * the tree's host memory likewise (ram-meter.h).
 *
 * Signals: SIGINT, SIGTERM and SIGHUP sent to hmn with kill() are passed on
 * to COMMAND; those the terminal sends reach COMMAND by themselves (it is in
 * the foreground group), so they are not sent twice. Either way sampling
 * goes on until the tree is gone, and the report is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "hmn-run.h"
#include "output.h"
#include "peaks.h"
#include "ram-meter.h"
#include "render.h"
#include "run-limit.h"
#include "run-pick.h"
#include "sample.h"
#include "spill.h"
#include "sys.h"
#include "tool.h"
#include "util/clock.h"

struct device_state {
	struct hmn_place place; /* a GPU, or one MIG instance (--device 0/2.0 or MIG-…) watched on its own */
	char *uuid, *name;
	uint64_t baseline;    /* used when COMMAND started, for the device-wide measure */
	uint64_t total;       /* its memory, for --limit N% */
	uint64_t tree_now;    /* the tree's total on it in the sample under way */
	uint64_t tree_peak;   /* the tree's largest total on it at one sample */
	uint64_t above_peak;  /* the most its used rose above the baseline */
};

/* The GPUs the tree is measured on: none, sampled, or no more (what was measured stands). */
enum gpu_sampling {
	SAMPLING_NO_GPU,  /* none found, or none that answers: COMMAND runs all the same */
	SAMPLING_GPUS,
	SAMPLING_STOPPED, /* out of memory: the GPUs are sampled no more */
};

struct run {
	const struct cli *cli;
	hmn_context *ctx;
	struct hmn_command *command;
	unsigned *indices;    /* --device, resolved */
	enum gpu_sampling sampling;
	struct device_state *devices;
	size_t n_devices;
	struct peaks processes;
	uint64_t samples;
	uint64_t peak, peak_shared, peak_device_wide;
	bool shared_measured;
	bool any_rows, any_measured; /* rows of the tree seen; any with a figure */
	bool unmatched;              /* the GPU's pids cannot be matched to the tree (a PID namespace) */
	bool holding;                /* the last sample found the tree holding GPU memory (see tree_holds) */
	uint64_t tree_now, tree_now_device_wide; /* the tree's GPU memory at this sample, each measure */
	size_t tree_rows_now;        /* the tree's rows at this sample, with a figure or not */
	unsigned failed_samples;     /* samples in a row that could not read the GPUs */
	struct run_left *left;       /* what of the tree was left running, unwaited */
	size_t n_left;
	struct spill_meter spill;    /* Windows: WDDM pages dedicated memory out to shared */
	struct ram_meter ram;        /* the tree's host memory */
	struct hmn_tree_meter *tree_ram;
	struct run_limit limit;      /* --limit */
	bool told_to_stop;           /* a signal reached hmn */
	struct output *report_file; /* -o FILE: opened before COMMAND starts; NULL: a stream */
	struct run_pick *pick;       /* --pick: the GPUs picked for COMMAND; NULL: none asked */
	uint64_t start_us;
};

/*
 * Samples in a row that cannot read the GPUs for which the last answer to
 * "does the tree hold GPU memory?" stands: a passing error does not end the
 * wait for a detached trainer, a GPU that stopped answering does.
 */
#define HOLDING_KEPT_FAILED_SAMPLES 3

/*
 * The watched device a row is on: a MIG instance watched on its own, else its
 * whole GPU; a GPU row (exact) only by itself, so an instance's memory is
 * never counted again in its GPU's.
 */
static struct device_state *device_of(struct run *run, const struct hmn_place *at, bool exact)
{
	for (size_t i = 0; i < run->n_devices; i++) {
		struct device_state *d = &run->devices[i];
		if (exact ? hmn_place_equal(at, &d->place) : hmn_place_within(at, &d->place))
			return d;
	}
	return NULL;
}

static struct device_state *gpu_device(struct run *run, const struct hmn_gpu *g)
{
	return device_of(run, &g->place, true);
}

/* A MIG row is a device of its own where it was selected and its whole GPU was not. */
static bool device_wanted(const struct cli *cli, const struct hmn_gpu_list *gpus, const struct hmn_gpu *g)
{
	if (!gpu_row_wanted(cli, g))
		return false;
	for (size_t i = 0; g->place.is_mig && i < gpus->count; i++)
		if (!gpus->gpus[i].place.is_mig && gpus->gpus[i].place.index == g->place.index)
			return !gpu_row_wanted(cli, &gpus->gpus[i]);
	return true;
}

/* The GPUs to watch and what each held before COMMAND started; false when there is none. */
static int take_baseline(struct run *run)
{
	/* --pick read them a moment ago, under its lock: that reading is the baseline. */
	struct hmn_gpu_list *gpus = run->pick ? run->pick->gpus : NULL;
	int r = gpus ? 0 : hmn_query_gpus(run->ctx, &gpus);
	if (run->pick)
		run->pick->gpus = NULL;

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
		if (!device_wanted(run->cli, gpus, g))
			continue;
		struct device_state *d = &run->devices[run->n_devices++];
		d->place = g->place;
		d->uuid = g->uuid ? strdup(g->uuid) : NULL;
		d->name = g->name ? strdup(g->name) : NULL;
		d->baseline = g->used_bytes;
		d->total = g->total_bytes;
	}
	hmn_gpu_list_free(gpus);
	if (!run->devices)
		return -ENOMEM;
	run->sampling = SAMPLING_GPUS;
	return 0;
}

/* The watched devices' dedicated memory in use and their budget (total), summed. */
static void dedicated_figures(struct run *run, const struct hmn_gpu_list *gpus, uint64_t *ret_used,
			      uint64_t *ret_budget)
{
	uint64_t used = 0, budget = 0;
	for (size_t i = 0; i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i];
		if (!gpu_device(run, g))
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

/*
 * How the tree's GPU memory is measured, as the samples so far tell:
 * device-wide where the GPU's pids cannot be told apart (hmn in a PID
 * namespace without the host's /proc), or where no source measures
 * processes (rows, none with a figure); else per process.
 */
static enum run_measure measure_of(const struct run *run)
{
	if (run->sampling == SAMPLING_NO_GPU)
		return MEASURE_NONE;
	if (run->unmatched)
		return MEASURE_DEVICE_WIDE_UNMATCHED;
	if (run->any_rows && !run->any_measured)
		return MEASURE_DEVICE_WIDE_UNMEASURED;
	return MEASURE_PER_PROCESS;
}

static bool device_wide(const struct run *run)
{
	return measure_is_device_wide(measure_of(run));
}

/* Where no source measures processes: how far each device's used rose above the baseline. */
static void rise_above_baseline(struct run *run, const struct hmn_gpu_list *gpus)
{
	uint64_t total = 0;

	for (size_t i = 0; i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i];
		struct device_state *d = gpu_device(run, g);
		if (!d || g->used_bytes == HMN_UNKNOWN || d->baseline == HMN_UNKNOWN)
			continue;
		uint64_t above = g->used_bytes > d->baseline ? g->used_bytes - d->baseline : 0;
		if (above > d->above_peak)
			d->above_peak = above;
		total += above;
	}
	run->tree_now_device_wide = total;
	if (total > run->peak_device_wide)
		run->peak_device_wide = total;
}

/*
 * What only the devices can say, asked once a sample and only where it is
 * needed: the rise above the baseline (no source measures processes) and
 * the dedicated memory against its budget (spill, on Windows). False when
 * they were asked and did not answer.
 */
static bool sample_devices(struct run *run, uint64_t tree_shared)
{
	bool rise = device_wide(run);
	struct hmn_gpu_list *gpus = NULL;
	uint64_t used = HMN_UNKNOWN, budget = HMN_UNKNOWN;

	if (!rise && !sys_measures_spill())
		return true;
	run->tree_now_device_wide = 0; /* until the devices say more: a failed query is no rise */
	(void)hmn_query_gpus(run->ctx, &gpus); /* on failure gpus stays NULL: nothing measured */
	if (gpus && rise)
		rise_above_baseline(run, gpus);
	if (sys_measures_spill()) {
		if (gpus)
			dedicated_figures(run, gpus, &used, &budget);
		spill_sample(&run->spill, clock_us() - run->start_us,
			     run->shared_measured ? tree_shared : HMN_UNKNOWN, used, budget);
	}
	bool answered = gpus != NULL;
	hmn_gpu_list_free(gpus);
	return answered;
}

/*
 * Names the peaks added since first_new: a sample asks only for figures,
 * and a process is named once, when it is first seen (at 10,000 processes
 * a name a process a sample was most of a sample's cost).
 */
static void name_new_peaks(struct run *run, size_t first_new)
{
	for (size_t i = first_new; i < run->processes.count; i++) {
		struct peak *p = &run->processes.items[i];
		char name[256];
		if (!p->name && hmn_query_process_name(run->ctx, p->pid, name, sizeof(name)) == 0)
			p->name = strdup(name); /* NULL: unknown, as a gone process's */
	}
}

/*
 * Does the tree hold GPU memory at this sample? What keep_waiting asks once
 * COMMAND has ended. Per process: its rows' sum. Device-wide with rows (no
 * figures): a row of the tree, a process on the GPU's list, holds some,
 * whatever its figure; the devices' rise is not asked, as anything else on
 * them moves it (another job's memory would pass for the tree's, for as
 * long as that job runs). Where no pid can be matched, the rise is all
 * there is; keep_waiting still wants a process of the tree alive.
 */
static bool tree_holds(const struct run *run)
{
	switch (measure_of(run)) {
	case MEASURE_DEVICE_WIDE_UNMATCHED:
		return run->tree_now_device_wide > 0;
	case MEASURE_DEVICE_WIDE_UNMEASURED:
		return run->tree_rows_now > 0;
	default:
		return run->tree_now > 0;
	}
}

/* A sample read the GPUs: what the tree holds is known again. */
static void sample_read(struct run *run)
{
	run->failed_samples = 0;
	run->holding = tree_holds(run);
}

/*
 * A sample could not read the GPUs: it says nothing of what the tree
 * holds. The last answer stands for a few such samples, and then goes:
 * what cannot be read is not waited for (a stale "holding" kept hmn
 * waiting for as long as anything of the tree ran, a daemon for ever).
 */
static void sample_failed(struct run *run)
{
	if (++run->failed_samples >= HOLDING_KEPT_FAILED_SAMPLES)
		run->holding = false;
}

/*
 * A sample of the GPUs' rows: the tree's, their sums, each peak. tree: what hmn_command_sample said of the
 * tree at this sample's start (-EXDEV: its processes cannot be told).
 */
static int take_sample(struct run *run, int tree)
{
	run->tree_now = 0; /* until the rows below say otherwise */
	run->tree_rows_now = 0;
	struct hmn_process_filter filter = {
		.devices = run->indices, .n_devices = run->cli->n_devices,
		.keep_pid = hmn_command_keep_pid, .keep_pid_data = run->command,
		.figures_only = true, /* a process is named once, when first seen (name_new_peaks) */
	};
	struct hmn_process_list *list = NULL;
	int r = tree;

	/* A listing that failed (out of memory, /proc unreadable a moment): the last one stands for this sample. */
	if (r < 0 && r != -EXDEV) {
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(run->ctx), NULL);
		r = 0;
	}

	/* Windows: the job object refused the command, and its list is not the tree. */
	const char *why = "the command's processes cannot be listed (the job object refused it)";
	if (r == 0 && !run->unmatched) {
		r = hmn_query_processes(run->ctx, &filter, &list);
		why = hmn_context_error(run->ctx);
	}
	if (r == -EXDEV && !run->unmatched) {
		fprintf(stderr, "hmn: %s: measuring device-wide\n", why);
		run->unmatched = true;
	}
	if (run->unmatched) {
		hmn_process_list_free(list);
		if (sample_devices(run, 0))
			sample_read(run);
		else
			sample_failed(run);
		return 0;
	}
	if (r < 0) {
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(run->ctx), NULL);
		sample_devices(run, 0);
		sample_failed(run);
		return r == -ENOMEM ? r : 0;
	}
	uint64_t total = 0, shared = 0;
	bool measured = false;
	size_t first_new = run->processes.count;
	uint64_t now_us = clock_wall_us();
	for (size_t i = 0; i < run->n_devices; i++)
		run->devices[i].tree_now = 0;
	for (size_t i = 0; i < list->count && r == 0; i++) {
		const struct hmn_process *p = &list->processes[i];
		if (!process_row_wanted(run->cli, p))
			continue;
		run->any_rows = true;
		run->tree_rows_now++;
		if (p->shared_used_bytes != HMN_UNKNOWN) {
			shared += p->shared_used_bytes;
			run->shared_measured = true;
		}
		if (p->used_bytes == HMN_UNKNOWN)
			continue;
		measured = true;
		total += p->used_bytes;
		struct device_state *d = device_of(run, &p->place, false);
		if (d)
			d->tree_now += p->used_bytes;
		r = peaks_add(&run->processes, p, now_us);
	}
	name_new_peaks(run, first_new);
	for (size_t i = 0; i < run->n_devices; i++) {
		if (run->devices[i].tree_now > run->devices[i].tree_peak)
			run->devices[i].tree_peak = run->devices[i].tree_now;
		/* --pick: the tree holds what it asked for on its GPU, whose free memory says so now. */
		if (run->devices[i].tree_now > 0 && run->pick)
			run_pick_holding(run->pick, &run->devices[i].place, run->devices[i].tree_now);
	}
	run->any_measured |= measured;
	run->tree_now = total;
	if (total > run->peak)
		run->peak = total;
	if (shared > run->peak_shared)
		run->peak_shared = shared;
	/* Rows, none measured (WDDM, a driver without per-process figures): the devices must say. */
	sample_devices(run, shared); /* rows were read: what they say of holding stands either way */
	sample_read(run);
	hmn_process_list_free(list);
	return r;
}

/*
 * The tree's host memory at this sample, read for half the interval
 * at most (a large tree is read in turns over a few samples: see
 * hmn_tree_meter_read); at_end: once more after the tree has gone, where
 * the readings are the OS's own peaks (Windows' job).
 */
static void sample_ram(struct run *run, bool at_end)
{
	struct hmn_tree_memory reading;
	if ((at_end && !run->ram.is_peak) || (!run->tree_ram && !(run->tree_ram = hmn_tree_meter_new())))
		return;
	uint64_t budget = run->cli->interval_us / RAM_SHARE_OF_INTERVAL;
	if (hmn_tree_meter_read(run->ctx, run->tree_ram, run->command, budget ? budget : 1, &reading) == 0)
		ram_meter_add(&run->ram, &reading);
}

/*
 * A tree that only one sample found (`hmn run -- true`) was read while it
 * started or ended, if at all: the largest resident set the OS
 * kept of it stands in where that is more, said as "rss".
 */
static void ram_from_exit(struct run *run)
{
	uint64_t bytes;
	if (hmn_command_peak_rss(run->command, &bytes) == 0)
		ram_meter_exit_floor(&run->ram, bytes);
}

/*
 * The watched devices' totals summed (--limit N%'s: the tree's sum over all
 * of them is what the budget is held against); HMN_UNKNOWN when one does
 * not say its total.
 */
static uint64_t summed_total(const struct run *run)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < run->n_devices; i++) {
		uint64_t total = run->devices[i].total;
		if (total == HMN_UNKNOWN || total > HMN_UNKNOWN - 1 - sum)
			return HMN_UNKNOWN;
		sum += total;
	}
	return run->n_devices ? sum : HMN_UNKNOWN;
}

/* The tree's GPU memory at this sample, as the report's measure counts it. */
static uint64_t tree_size_now(const struct run *run)
{
	return device_wide(run) ? run->tree_now_device_wide : run->tree_now;
}

/*
 * The report where it goes: stderr (stdout is COMMAND's), stdout (-o -), or
 * FILE through the temporary file made before COMMAND started. 0, or
 * -errno when it could not be written whole (said on stderr where it can).
 */
static int put_report(struct run *run, const struct run_report *rep)
{
	FILE *f = run->report_file ? run->report_file->file : output_is_stdout(run->cli->output) &&
			run->cli->output ? stdout : stderr;
	int r = 0;

	if (!run->report_file && !run->cli->output && run->cli->quiet)
		return 0; /* -q: only errors reach stderr */
	r = renderer_for(run->cli->format)->run(f, rep);
	if (run->report_file) {
		if (r < 0) {
			output_discard(run->report_file);
			return r;
		}
		return output_commit(run->report_file, EXIT_OK) == EXIT_OK ? 0 : -EIO;
	}
	if (r == 0 && (fflush(f) == EOF || ferror(f))) {
		r = -(errno ? errno : EIO);
		/* A closed stderr (EPIPE, EBADF) cannot be told; stdout's failure can. */
		if (f == stdout)
			fprintf(stderr, "hmn: cannot write the report: %s\n", strerror(-r));
	}
	return r;
}

static int write_report(struct run *run, int exit_code, int sig, uint64_t duration_us)
{
	const struct peak **sorted = peaks_sorted(&run->processes);
	struct run_device_peak *devices = calloc(run->n_devices ? run->n_devices : 1, sizeof(*devices));
	struct run_process_peak *processes =
		calloc(run->processes.count ? run->processes.count : 1, sizeof(*processes));
	enum run_measure measure = measure_of(run);
	bool device_wide = measure_is_device_wide(measure);
	int r = -ENOMEM;

	if (!sorted || !devices || !processes)
		goto out;
	for (size_t i = 0; i < run->n_devices; i++) {
		const struct device_state *d = &run->devices[i];
		devices[i] = (struct run_device_peak){
			d->place, d->uuid, d->name, device_wide ? d->above_peak : d->tree_peak,
		};
	}
	/* Where the driver keeps accounting, its exact maxima replace the sampled ones. */
	size_t exact = 0;
	for (size_t i = 0; i < run->processes.count; i++) {
		uint64_t bytes = sorted[i]->bytes, kept;
		if (!device_wide && hmn_query_process_peak(run->ctx, sorted[i]->pid, sorted[i]->place.index,
							      sorted[i]->last_seen_us, &kept) == 0) {
			bytes = kept > bytes ? kept : bytes;
			exact++;
		}
		processes[i] = (struct run_process_peak){
			sorted[i]->pid, sorted[i]->name, sorted[i]->place.index, bytes,
		};
	}
	enum process_peaks process_peaks = measure != MEASURE_PER_PROCESS ? PROCESS_PEAKS_NONE
					   : exact > 0 && exact == run->processes.count ? PROCESS_PEAKS_ACCOUNTING
					   : PROCESS_PEAKS_SAMPLED;
	struct run_report rep = {
		.argv = run->cli->argv, .argc = run->cli->argc,
		.exit_code = exit_code, .signal = sig,
		.duration_us = duration_us, .samples = run->samples, .interval_us = run->cli->interval_us,
		.measure = measure,
		.peak_bytes = measure == MEASURE_NONE ? HMN_UNKNOWN : device_wide ? run->peak_device_wide : run->peak,
		.peak_shared_bytes = run->shared_measured ? run->peak_shared : HMN_UNKNOWN,
		.peak_ram_bytes = run->ram.peak, .ram_measure = run->ram.measure,
		.ram_read_in_turns = run->ram.partial > 0,
		.limit_bytes = run->limit.budget.limit, .limit_exceeded = limit_exceeded(&run->limit),
		.limit_stopped = limit_stopped(&run->limit),
		.limit_exceeded_us = limit_exceeded(&run->limit) ? run->limit.exceeded_us : HMN_UNKNOWN,
		.limit_exceeded_bytes = limit_exceeded(&run->limit) ? run->limit.exceeded_bytes : HMN_UNKNOWN,
		.devices = devices, .n_devices = run->n_devices,
		.processes = processes, .n_processes = device_wide ? 0 : run->processes.count,
		.processes_held = peaks_pids_held(&run->processes), .process_peaks = process_peaks,
		.spill = sys_measures_spill() && measure != MEASURE_NONE ? &run->spill.result : NULL,
		.left_running = run->left, .n_left_running = run->n_left,
		.picked = run->pick ? (const char (*)[PICK_KEY_MAX])run->pick->ids : NULL,
		.n_picked = run->pick ? run->pick->n : 0,
	};
	r = put_report(run, &rep);
out:
	free(sorted);
	free(devices);
	free(processes);
	return r;
}

/*
 * Passes on a signal that reached hmn alone (kill PID); one sent to the
 * whole process group (the terminal's Ctrl-C, kill -TERM 0, systemd's
 * KillMode), COMMAND has had already, and gets once. Returns the signal
 * taken, 0 when none came.
 */
static int forward_signals(struct run *run)
{
	bool from_process;
	int sig = signal_take(&from_process);
	if (sig)
		(void)hmn_command_pass_on(run->command, sig, !from_process);
	return sig;
}

/* Signals that reached hmn: passed on, and remembered; the first while --limit stops the tree hurries the end. */
static void take_signals(struct run *run)
{
	int sig = forward_signals(run);
	if (!sig)
		return;
	run->told_to_stop = true;
	limit_told_to_stop(&run->limit, sig);
}

/* Has COMMAND itself ended (whatever it left behind)? */
static bool command_ended(const struct run *run)
{
	int code, sig;
	return hmn_command_status(run->command, &code, &sig) == 0;
}

/*
 * Wait on? Until COMMAND has ended, yes. Then what it left running is
 * waited for only while it holds GPU memory (a detached trainer), and not
 * once hmn was told to stop; a daemon holding none (ssh-agent, a build
 * server) is left running, unwaited, and named in the report. Never once
 * nothing of the tree is left, whatever the GPUs still show: memory
 * without a process of the tree is not the tree's to wait for.
 */
static bool keep_waiting(struct run *run)
{
	/*
	 * Asked every time, whatever the answer: it reaps, so that what of the
	 * tree ends while we wait (the orphans we adopted) never stays a
	 * zombie; once COMMAND has ended it answers from the sample's
	 * listing (the RAM reading's), less what it has just reaped.
	 */
	if (hmn_command_done(run->ctx, run->command))
		return false; /* nothing of it is left */
	/* --limit stopped the tree: what is left gets its SIGKILL, and is waited for so long. */
	if (limit_stopped(&run->limit))
		return !limit_wait_over(&run->limit);
	if (!command_ended(run))
		return true;
	return !run->told_to_stop && run->sampling == SAMPLING_GPUS && run->holding;
}

/*
 * The next sample's time after one taken at now, due then: a sample that
 * came early (a child's end or a deadline woke us) leaves the one due where
 * it was; after a slow one, the next is now, with no burst to catch up.
 */
static uint64_t next_sample_at(uint64_t due, uint64_t interval_us, uint64_t now)
{
	if (due > now)
		return due;
	due += interval_us;
	return due < now ? now : due;
}

/* What of the tree is left running, by pid and name. */
static void note_left_running(struct run *run)
{
	uint32_t *pids = NULL;
	size_t n = 0;

	if (hmn_command_pids(run->ctx, run->command, &pids, &n) == 0 && n > 0 &&
	    (run->left = calloc(n, sizeof(*run->left)))) {
		for (size_t i = 0; i < n; i++) {
			char name[256];
			run->left[i].pid = pids[i];
			if (hmn_query_process_name(run->ctx, pids[i], name, sizeof(name)) == 0)
				run->left[i].name = strdup(name); /* NULL: unknown */
		}
		run->n_left = n;
	}
	free(pids);
}

static void run_free(struct run *run)
{
	if (run->report_file)
		output_discard(run->report_file); /* not written: FILE keeps what it had */
	for (size_t i = 0; i < run->n_left; i++)
		free((char *)run->left[i].name);
	free(run->left);
	for (size_t i = 0; i < run->n_devices; i++) {
		free(run->devices[i].uuid);
		free(run->devices[i].name);
	}
	free(run->devices);
	free(run->indices);
	if (run->pick)
		run_pick_free(run->pick); /* the holds it has not let go of yet */
	peaks_clear(&run->processes);
	hmn_tree_meter_free(run->tree_ram);
	hmn_command_free(run->command);
}

/*
 * -o FILE: its temporary file is made before anything else, so that a FILE
 * that cannot be written fails at once (125), not after hours of COMMAND.
 */
static int open_report_file(struct run *run, struct output *out)
{
	if (output_is_stdout(run->cli->output))
		return 0;
	int r = output_open(out, run->cli->output); /* says why on stderr */
	if (r == 0)
		run->report_file = out;
	return r;
}

/* COMMAND did not start (r): why, said, and the exit status that says it (125, 126 or 127). */
static int start_failed(const char *word, int r, bool exec_failed)
{
	char name[256];
	sanitize_for_terminal(word, name, sizeof(name));
	if (!exec_failed) {
		fprintf(stderr, "hmn: cannot start %s: %s\n", name, strerror(-r));
		return EXIT_RUN_FAILED;
	}
	if (r == -E2BIG) {
		/* Windows: CreateProcess would cut it short; nothing ran. */
		fprintf(stderr, "hmn: %s: the command line is longer than Windows' 32,767 characters\n", name);
		return EXIT_RUN_FAILED;
	}
	if (r == -ENOENT && sys_found_all_the_same(word)) {
		/* Found, but could not run (the contract's 126): its #! interpreter, or loader, is not there. */
		fprintf(stderr, "hmn: %s: cannot run: the interpreter its #! line names (or its loader) is not there\n",
			name);
		return EXIT_CANNOT_RUN;
	}
	fprintf(stderr, "hmn: %s: %s\n", name, r == -ENOENT ? "command not found" : strerror(-r));
	return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

int cmd_run(const struct cli *cli, hmn_context *ctx)
{
	struct run run = { .cli = cli, .ctx = ctx };
	struct output report_file;
	ram_meter_init(&run.ram);
	int exit_code = -1, sig = -1;

	if (open_report_file(&run, &report_file) < 0)
		return EXIT_RUN_FAILED;
	/* --pick: COMMAND's GPUs, chosen first; all that follows measures them alone (their --device). */
	struct run_pick pick;
	if (cli->pick) {
		int status = run_pick_make(&pick, cli, ctx);
		run.pick = &pick;
		if (status != EXIT_OK) {
			run_free(&run);
			return status;
		}
		run.cli = &pick.cli;
	}
	int r = take_baseline(&run);
	if (r < 0) {
		run_free(&run);
		return EXIT_RUN_FAILED; /* a --device no GPU answers to included: run's usage errors are 125 */
	}
	r = limit_resolve(&run.limit, cli, ctx, run.n_devices, summed_total(&run));
	if (r < 0) {
		/* One line why, and COMMAND never started: a budget nobody enforces is no budget. */
		fprintf(stderr, "hmn: --limit cannot be enforced: %s; not running the command\n",
			r == -ERANGE ? "the GPUs do not say their total memory, of which N% is a share"
			: run.sampling == SAMPLING_NO_GPU ? hmn_context_error(ctx) : "no GPU listed to measure it on");
		run_free(&run);
		return EXIT_RUN_FAILED;
	}
	/* A notice, not an error: -q (a CI job's) hears the exit status alone, as the report is silent too. */
	if (run.sampling == SAMPLING_NO_GPU && !cli->quiet)
		fprintf(stderr, "hmn: %s: running the command all the same, measuring no GPU memory\n",
			hmn_context_error(ctx));
	signals_catch_for_command();
	uint64_t start = run.start_us = clock_us();
	bool exec_failed;
	r = hmn_command_start(ctx, cli->argv, &run.command, &exec_failed);
	if (r < 0) {
		int status = start_failed(cli->argv[0], r, exec_failed);
		run_free(&run);
		return status;
	}
	limit_started(&run.limit, run.command, start);
	/*
	 * Sample while anything of the tree runs: memory is freed by the time
	 * COMMAND has exited. Once told to stop (a signal) and COMMAND has
	 * ended, what it left running (a detached daemon, which no Ctrl-C
	 * reaches) is not waited for.
	 */
	for (uint64_t next = start;;) {
		run.samples++; /* GPU memory where there is a GPU, host memory anyway */
		/* Each sample starts here: the tree is listed (at most) once for all that follows. */
		int tree = hmn_command_sample(run.ctx, run.command);
		if (run.sampling == SAMPLING_GPUS && take_sample(&run, tree) == -ENOMEM) {
			/* What was measured so far stands, and is reported as such: the GPUs are not "not found". */
			fprintf(stderr, "hmn: out of memory: sampling stopped\n");
			run.sampling = SAMPLING_STOPPED;
		}
		/* --limit before RAM, which may take half the interval */
		limit_check(&run.limit, tree_size_now(&run), device_wide(&run));
		sample_ram(&run, false);
		take_signals(&run);
		if (!keep_waiting(&run))
			break;
		next = next_sample_at(next, cli->interval_us, clock_us());
		sleep_until(limit_wake_at(&run.limit, next));
		take_signals(&run);
	}
	uint64_t duration = clock_us() - start;
	sample_ram(&run, true);
	note_left_running(&run);
	spill_finish(&run.spill, duration);
	sys_say_exit_note(run.command, cli->argv[0]);
	hmn_command_status(run.command, &exit_code, &sig);
	ram_from_exit(&run);
	/*
	 * The report with the dispositions we found: a SIGCHLD no longer
	 * interrupts its write, and a closed stderr is EPIPE, not our death.
	 */
	signals_restore();
	signals_ignore_sigpipe();
	int status = sig > 0 ? 128 + sig : exit_code >= 0 ? exit_code : EXIT_RUN_FAILED;
	bool written = write_report(&run, exit_code, sig, duration) == 0;
	run_free(&run);
	/* A report not written whole never passes for a success (a CI step reads it next). */
	if (!written && status == 0)
		status = EXIT_RUNTIME;
	if (limit_stopped(&run.limit))
		return EXIT_LIMIT; /* whatever the tree did with its SIGTERM: --limit ended it */
	if (sig > 0)
		signals_end_by(sig); /* as COMMAND was, so that a calling script stops too */
	return status;
}
