/*
 * hmn run's report for a person, on stderr (or in -o FILE): one line, and
 * one more naming what of the tree was left running. It says what the
 * report holds and nothing else: the JSON one (render-json.c) holds the
 * same.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "render.h"
#include "sys.h"

/* The text report names this many processes left running, then how many more (eleven: all, never "1 more"). */
#define LEFT_RUNNING_SHOWN 10

#define RAM_IN_TURNS_NOTE "; RAM read in turns over several samples (the tree took longer to read than half the interval)"

void put_command(FILE *out, char *const *argv, size_t argc)
{
	char *line = command_text((const char *const *)argv, argc);
	fputs(line ? line : "?", out); /* "?": out of memory, as for a name that cannot be read */
	free(line);
}

/* "hmn: left running, not waited for: sleep (pid 4242), …": a line for a person, the first few. */
static void write_left_running(FILE *out, const struct run_report *rep)
{
	if (rep->n_left_running == 0)
		return;
	/* A line for a person: the first few, and how many more (the JSON report names each). */
	size_t shown = rep->n_left_running <= LEFT_RUNNING_SHOWN + 1 ? rep->n_left_running : LEFT_RUNNING_SHOWN;
	fputs("hmn: left running, not waited for:", out);
	for (size_t i = 0; i < shown; i++) {
		char name[256];
		sanitize_for_terminal(rep->left_running[i].name ? rep->left_running[i].name : "?", name, sizeof(name));
		fprintf(out, "%s %s (pid %" PRIu32 ")", i ? "," : "", name, rep->left_running[i].pid);
	}
	if (shown < rep->n_left_running)
		fprintf(out, " and %zu more", rep->n_left_running - shown);
	fputs(".\n", out);
}

/* "; picked GPU-…, GPU-…": the GPUs --pick started COMMAND on. */
static void write_picked(FILE *out, const struct run_report *rep)
{
	char id[PICK_KEY_MAX];
	for (size_t i = 0; rep->picked && i < rep->n_picked; i++) {
		sanitize_for_terminal(rep->picked[i], id, sizeof(id));
		fprintf(out, "%s%s", i ? ", " : "; picked ", id);
	}
}

/* How the GPU figures were come by, where a reader must know: device-wide and why, or each process's exact. */
static const char *measure_note(const struct run_report *rep)
{
	switch (rep->measure) {
	case MEASURE_DEVICE_WIDE_UNMATCHED:
		return "; device-wide: the GPU's pids cannot be matched to the command's processes";
	case MEASURE_DEVICE_WIDE_UNMEASURED:
		return "; device-wide: no source here measures processes";
	default:
		return rep->process_peaks == PROCESS_PEAKS_ACCOUNTING ? "; each process's own peak exact, from NVML accounting"
								      : "";
	}
}

/* hmn: python3 train.py: peak 18.9GiB of GPU memory (GPU 0: 18.9GiB), 31.2GiB of RAM, in 3 processes over 12.4s, 124 samples. */
int render_run_report_text(FILE *out, const struct run_report *rep)
{
	char signame[SIGNAL_NAME_MAX];
	char size[SIZE_TEXT_MAX], duration[DURATION_TEXT_MAX], id[GPU_CELL_MAX];
	bool device_wide = measure_is_device_wide(rep->measure);

	format_duration(rep->duration_us, duration);
	fputs("hmn: ", out);
	put_command(out, rep->argv, rep->argc);
	if (rep->signal > 0)
		fprintf(out, " (killed by %s)", signal_name(rep->signal, signame));
	if (rep->measure == MEASURE_NONE) {
		if (rep->peak_ram_bytes == HMN_UNKNOWN)
			fprintf(out, ": no GPU found, nothing measured; it ran %s.\n", duration);
		else
			fprintf(out, ": no GPU found, no GPU memory measured; peak %s of RAM over %s.\n",
				format_size_fine(rep->peak_ram_bytes, size), duration);
		write_left_running(out, rep); /* it was said only where there was a GPU */
		return 0;
	}
	fprintf(out, ": peak %s of GPU memory", format_size_fine(rep->peak_bytes, size));
	if (device_wide)
		fputs(" above what the GPUs held when it started", out);
	bool any = false;
	for (size_t i = 0; i < rep->n_devices; i++) {
		if (rep->devices[i].peak_bytes == 0 && rep->n_devices > 1)
			continue;
		const struct run_device_peak *d = &rep->devices[i];
		fprintf(out, "%sGPU %s: %s", any ? ", " : " (",
			gpu_cell(id, &d->place),
			format_size_fine(d->peak_bytes, size));
		any = true;
	}
	if (any)
		fputc(')', out);
	if (rep->peak_ram_bytes != HMN_UNKNOWN)
		fprintf(out, ", %s of RAM%s", format_size_fine(rep->peak_ram_bytes, size), device_wide ? "" : ",");
	if (!device_wide)
		fprintf(out, " in %zu process%s", rep->processes_held, rep->processes_held == 1 ? "" : "es");
	fprintf(out, " over %s, %" PRIu64 " sample%s%s%s", duration, rep->samples, rep->samples == 1 ? "" : "s",
		measure_note(rep), rep->ram_read_in_turns ? RAM_IN_TURNS_NOTE : "");
	if (rep->limit_exceeded) {
		char limit[SIZE_TEXT_MAX], at[DURATION_TEXT_MAX];
		fprintf(out, "; %s --limit %s: %s%s at %s", rep->limit_stopped ? "stopped by" : "over, not stopped by",
			format_size_fine(rep->limit_bytes, limit), device_wide ? "a rise of " : "",
			format_size_fine(rep->limit_exceeded_bytes, size),
			format_duration(rep->limit_exceeded_us, at));
		if (device_wide)
			fputs(" (" DEVICE_WIDE_LIMIT_NOTE ")", out);
	}
	write_picked(out, rep);
	fputs(".\n", out);
	write_left_running(out, rep);
	return 0;
}
