/*
 * hmn watch: free and ps again every interval, from one context (NVML is
 * initialised once; identity and MIG layout are read once), until --count
 * samples, --duration, or SIGINT/SIGTERM; then the peaks on stderr.
 *
 * On a terminal the view is redrawn in place: the cursor goes home, each
 * line is cut to the window's width and cleared to its end, and what is
 * left below the frame is cleared; no full clear, so no flicker, and no
 * alternate screen, so the last frame stays when it ends. Elsewhere each
 * sample is appended: a "# TIME" line, the two tables and a blank line.
 * --json: one object a sample (JSON Lines), flushed as written.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#define isatty _isatty
#define fileno _fileno
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

#include "format.h"
#include "peaks.h"
#include "render.h"
#include "sample.h"
#include "tool.h"

struct gpu_peak {
	unsigned index;
	bool is_mig;
	unsigned gpu_instance_id, compute_instance_id;
	uint64_t bytes;
};

struct watch {
	const struct cli *cli;
	hmn_context *ctx;
	struct hmn_process_filter filter;
	bool terminal;
	bool drawn;           /* a frame is on the screen */
	FILE *frame;          /* terminal: where a frame is laid out before it is cut and drawn */
	struct gpu_peak *gpus;
	size_t n_gpus;
	struct peaks processes;
};

static void window_size(unsigned *ret_columns, unsigned *ret_rows)
{
	*ret_columns = 80;
	*ret_rows = 24;
#ifdef _WIN32
	CONSOLE_SCREEN_BUFFER_INFO info;
	if (GetConsoleScreenBufferInfo(GetStdHandle(STD_OUTPUT_HANDLE), &info)) {
		*ret_columns = (unsigned)(info.srWindow.Right - info.srWindow.Left + 1);
		*ret_rows = (unsigned)(info.srWindow.Bottom - info.srWindow.Top + 1);
	}
#else
	struct winsize w;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 && w.ws_row > 0) {
		*ret_columns = w.ws_col;
		*ret_rows = w.ws_row;
	}
#endif
}

/* Writes a line cut to columns code points (every byte of it is terminal-safe already). */
static void put_cut_line(const char *line, size_t len, unsigned columns)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t i = 0;
	for (unsigned width = 0; i < len && width < columns; width++) {
		size_t n = utf8_sequence_length(p + i, len - i, NULL);
		i += n ? n : 1;
	}
	fwrite(line, 1, i, stdout);
	fputs("\033[K\n", stdout);
}

/* One frame in place (its first end bytes): home, the lines cut to the window, the rest cleared. */
static void draw_frame(struct watch *w, long end)
{
	unsigned columns, rows, row = 0;
	char line[8192];

	window_size(&columns, &rows);
	fputs(w->drawn ? "\033[H" : "\033[H\033[2J", stdout);
	rewind(w->frame);
	/* One row short of the window: a last newline must not scroll the frame. */
	while (row + 1 < rows && ftell(w->frame) < end && fgets(line, sizeof(line), w->frame)) {
		size_t len = strcspn(line, "\n");
		put_cut_line(line, len, columns);
		row++;
	}
	fputs("\033[J", stdout);
	w->drawn = true;
}

static void track_gpus(struct watch *w, const struct hmn_gpu *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		struct gpu_peak *peak = NULL;
		for (size_t k = 0; k < w->n_gpus && !peak; k++)
			if (w->gpus[k].index == g->index && w->gpus[k].is_mig == g->is_mig &&
			    w->gpus[k].gpu_instance_id == g->gpu_instance_id &&
			    w->gpus[k].compute_instance_id == g->compute_instance_id)
				peak = &w->gpus[k];
		if (!peak) {
			struct gpu_peak *more = realloc(w->gpus, (w->n_gpus + 1) * sizeof(*more));
			if (!more)
				return;
			w->gpus = more;
			peak = &w->gpus[w->n_gpus++];
			*peak = (struct gpu_peak){
				g->index, g->is_mig, g->gpu_instance_id, g->compute_instance_id, HMN_UNKNOWN,
			};
		}
		/* Never measured stays unknown ("-"), never a peak of 0. */
		if (g->used_bytes != HMN_UNKNOWN && (peak->bytes == HMN_UNKNOWN || g->used_bytes > peak->bytes))
			peak->bytes = g->used_bytes;
	}
}

static int render_tables(struct watch *w, FILE *out, const char *time,
			 const struct hmn_gpu *const *gpus, size_t n_gpus,
			 const struct hmn_process *const *rows, size_t n_rows)
{
	struct render_options o = {
		.no_header = w->cli->no_header, .bytes = w->cli->bytes, .long_format = w->cli->long_format,
	};
	if (w->terminal)
		fprintf(out, "hmn watch: every %" PRIu64 " ms  %s\n\n", w->cli->interval_ms, time);
	else
		fprintf(out, "# %s\n", time);
	int r = render_gpus_table(out, gpus, n_gpus, &o);
	fputc('\n', out);
	if (r == 0)
		r = render_processes_table(out, rows, n_rows, &o);
	if (!w->terminal)
		fputc('\n', out);
	return r;
}

/* One sample: query, print, remember the peaks. A sample with no answer is printed empty. */
static int take_sample(struct watch *w, uint64_t elapsed_ms)
{
	struct hmn_gpu_list *gpus = NULL;
	struct hmn_process_list *list = NULL;
	const struct hmn_gpu **gpu_rows = NULL;
	const struct hmn_process **rows = NULL;
	struct hmn_gpu_list no_gpus = { 0 };
	struct hmn_process_list no_processes = { 0 };
	size_t n_gpus = 0, n_rows = 0;
	char time[32];
	int r;

	utc_now(time);
	if (hmn_query_gpus(w->ctx, &gpus) < 0)
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(w->ctx), NULL);
	if (hmn_query_processes(w->ctx, &w->filter, &list) < 0)
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(w->ctx), NULL);
	gpu_rows = select_gpu_rows(w->cli, gpus ? gpus : &no_gpus, &n_gpus);
	rows = select_process_rows(w->cli, list ? list : &no_processes, &n_rows);
	r = gpu_rows && rows ? 0 : -ENOMEM;

	if (r == 0 && w->cli->format == FORMAT_JSON) {
		r = render_sample_json(stdout, time, elapsed_ms, gpu_rows, n_gpus, rows, n_rows);
	} else if (r == 0 && w->terminal) {
		/* One file for the run, written over each sample: the frame is its first bytes. */
		if (!w->frame && !(w->frame = tmpfile()))
			r = -errno;
		if (r == 0) {
			rewind(w->frame);
			r = render_tables(w, w->frame, time, gpu_rows, n_gpus, rows, n_rows);
		}
		if (r == 0)
			draw_frame(w, ftell(w->frame));
	} else if (r == 0) {
		r = render_tables(w, stdout, time, gpu_rows, n_gpus, rows, n_rows);
	}
	fflush(stdout);
	if (r == 0) {
		track_gpus(w, gpu_rows, n_gpus);
		for (size_t i = 0; i < n_rows && r == 0; i++)
			r = peaks_add(&w->processes, rows[i]);
	}
	free(gpu_rows);
	free(rows);
	hmn_gpu_list_free(gpus);
	hmn_process_list_free(list);
	return r;
}

/* "hmn: 12 samples over 11.0 s. Peak used: GPU 0 19.4 GiB. Highest process peaks: 4242 python3 18.9 GiB (GPU 0)." */
static void print_watch_summary(const struct watch *w, uint64_t samples, uint64_t elapsed_ms)
{
	char size[SIZE_TEXT_MAX];

	fprintf(stderr, "hmn: %" PRIu64 " sample%s over %" PRIu64 ".%" PRIu64 " s.", samples,
		samples == 1 ? "" : "s", elapsed_ms / 1000, elapsed_ms % 1000 / 100);
	for (size_t i = 0; i < w->n_gpus; i++) {
		const struct gpu_peak *g = &w->gpus[i];
		fprintf(stderr, "%s GPU %u", i == 0 ? " Peak used:" : ",", g->index);
		if (g->is_mig)
			fprintf(stderr, "/%u.%u", g->gpu_instance_id, g->compute_instance_id);
		fprintf(stderr, " %s", format_size(g->bytes, false, size));
		if (i + 1 == w->n_gpus)
			fputc('.', stderr);
	}
	const struct peak **top = peaks_sorted(&w->processes);
	size_t shown = 0;
	for (size_t i = 0; top && i < w->processes.count && shown < 5; i++, shown++) {
		char name[64];
		sanitize_for_terminal(top[i]->name ? top[i]->name : "?", name, sizeof(name));
		fprintf(stderr, "%s %" PRIu32 " %s %s (GPU %u)", shown == 0 ? " Highest process peaks:" : ",",
			top[i]->pid, name, format_size(top[i]->bytes, false, size), top[i]->device_index);
	}
	fputs(shown ? ".\n" : "\n", stderr);
	free(top);
}

int cmd_watch(const struct cli *cli, hmn_context *ctx)
{
	struct watch w = { .cli = cli, .ctx = ctx };
	unsigned *indices = NULL;
	uint64_t samples = 0;

	/* The first query says whether there is a GPU at all, and resolves --device. */
	int status = query_device_filter(cli, ctx, &indices);
	if (status != EXIT_OK)
		return status;
	w.filter = (struct hmn_process_filter){
		.pids = cli->pids, .n_pids = cli->n_pids, .devices = indices, .n_devices = cli->n_devices,
	};
	w.terminal = cli->format == FORMAT_TABLE && isatty(fileno(stdout));
	signals_catch(false);

	uint64_t start = clock_ms(), elapsed = 0;
	for (;;) {
		if (take_sample(&w, elapsed) < 0) {
			fprintf(stderr, "hmn: out of memory\n");
			status = EXIT_RUNTIME;
			break;
		}
		samples++;
		if (ferror(stdout))
			break;
		if ((cli->count && samples >= cli->count) || signal_take(NULL))
			break;
		uint64_t next = start + samples * cli->interval_ms;
		if (cli->duration_ms && next - start >= cli->duration_ms) {
			sleep_until(start + cli->duration_ms);
			break;
		}
		sleep_until(next);
		if (signal_take(NULL))
			break;
		elapsed = clock_ms() - start;
	}
	elapsed = clock_ms() - start;
	status = finish_output(stdout, status);
	if (status == EXIT_OK)
		print_watch_summary(&w, samples, elapsed);
	if (w.frame)
		fclose(w.frame);
	free(indices);
	free(w.gpus);
	peaks_clear(&w.processes);
	return status;
}
