/*
 * hmn watch: free and ps again every interval, from one context (NVML is
 * initialised once; identity and MIG layout are read once), until --count
 * samples, --duration, SIGINT/SIGTERM, or q on the terminal view; then the
 * peaks on stderr.
 *
 * On a terminal the view is redrawn in place: the cursor goes home, each
 * line is cut to the window's width and cleared to its end, and what is
 * left below the frame is cleared; no full clear, so no flicker, and no
 * alternate screen, so the last frame stays when it ends. Elsewhere each
 * sample is appended: a "# TIME" line, the two tables and a blank line.
 * --json: one object a sample (JSON Lines), flushed as written. --format
 * csv: a log, as nvidia-smi's --format=csv -l: one header, then a row a GPU
 * (--rows processes: a process) a sample, its time first, flushed as written.
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
#include "sys.h"
#include "table.h"
#include "tool.h"
#include "util/clock.h"

struct gpu_peak {
	struct hmn_place place;
	uint64_t bytes;
};

struct watch {
	const struct cli *cli;
	hmn_context *ctx;
	struct hmn_process_filter filter;
	bool terminal;
	const char *file;     /* -o FILE: each sample replaces it; NULL: stdout */
	bool file_failed;     /* a sample could not be written to FILE */
	bool log_started;     /* --format csv: the header is out (stdout), or FILE holds this run's log */
	size_t failed_gpus;   /* the most GPUs that failed to answer in one sample */
	bool query_failed;    /* a sample got no answer at all (every GPU lost, the driver gone) */
	bool drawn;           /* a frame is on the screen */
	FILE *frame;          /* terminal: where a frame is laid out before it is cut and drawn */
	struct gpu_peak *gpus;
	size_t n_gpus;
	struct peaks processes;
};

/*
 * Writes a line cut to columns terminal columns (every byte of it is
 * terminal-safe already): a line too long ends in "…" at the window's edge.
 * Widths are display widths, so a wide character never straddles the cut
 * and the cut never splits a UTF-8 sequence. With NAME the last column, a
 * cut falls on NAME first.
 */
static void put_cut_line(const char *line, size_t len, unsigned columns)
{
	print_cut(stdout, line, len, columns);
	fputs("\033[K\n", stdout);
}

/*
 * The frame's next line, its first size - 1 bytes at most: the rest of a
 * longer one (ps -l's COMMAND can take 16 KB) is skipped, as the window
 * cuts it anyway, not taken for the next line. false at the frame's end.
 */
static bool next_frame_line(struct watch *w, long end, char *line, size_t size)
{
	if (ftell(w->frame) >= end || !fgets(line, (int)size, w->frame))
		return false;
	if (!strchr(line, '\n'))
		for (int c = 0; c != '\n' && c != EOF;)
			c = getc(w->frame);
	return true;
}

/*
 * One frame in place (its first end bytes): home, the lines cut to the
 * window, the rest cleared. A frame taller than the window says how many
 * of its lines it leaves out, "… N more", on its last line.
 */
static void draw_frame(struct watch *w, long end)
{
	unsigned columns, rows, lines = 0;
	char line[8192], more[48];

	sys_terminal_size(stdout, &columns, &rows);
	rewind(w->frame);
	while (next_frame_line(w, end, line, sizeof(line)))
		lines++;
	/* One row short of the window: a last newline must not scroll the frame. */
	unsigned room = rows > 1 ? rows - 1 : 1, shown = lines <= room ? lines : room - 1;
	fputs(w->drawn ? "\033[H" : "\033[H\033[2J", stdout);
	rewind(w->frame);
	for (unsigned row = 0; row < shown && next_frame_line(w, end, line, sizeof(line)); row++)
		put_cut_line(line, strcspn(line, "\n"), columns);
	if (shown < lines) {
		snprintf(more, sizeof(more), "\u2026 %u more", lines - shown);
		put_cut_line(more, strlen(more), columns);
	}
	fputs("\033[J", stdout);
	w->drawn = true;
}

/*
 * Now in local time, for people: "2026-11-22 19:48:14" in the view, or
 * ISO 8601 with the offset ("2026-11-22T19:48:14.123+01:00") for a log.
 * JSON keeps UTC.
 */
static void local_now(char buf[48], bool iso)
{
	struct local_time t;
	sys_local_now(&t);
	if (!iso)
		snprintf(buf, 48, "%04u-%02u-%02u %02u:%02u:%02u", t.year % 10000, t.month % 100, t.day % 100,
			 t.hour % 100, t.minute % 100, t.second % 100);
	else
		snprintf(buf, 48, "%04u-%02u-%02uT%02u:%02u:%02u.%03u%c%02ld:%02ld", t.year % 10000, t.month % 100,
			 t.day % 100, t.hour % 100, t.minute % 100, t.second % 100, t.ms % 1000,
			 t.offset < 0 ? '-' : '+', labs(t.offset) / 60 % 100, labs(t.offset) % 60);
}

static void track_gpus(struct watch *w, const struct hmn_gpu *const *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		struct gpu_peak *peak = NULL;
		for (size_t k = 0; k < w->n_gpus && !peak; k++)
			if (hmn_place_equal(&w->gpus[k].place, &g->place))
				peak = &w->gpus[k];
		if (!peak) {
			struct gpu_peak *more = realloc(w->gpus, (w->n_gpus + 1) * sizeof(*more));
			if (!more)
				return;
			w->gpus = more;
			peak = &w->gpus[w->n_gpus++];
			*peak = (struct gpu_peak){
				g->place, HMN_UNKNOWN,
			};
		}
		/* Never measured stays unknown ("-"), never a peak of 0. */
		if (g->used_bytes != HMN_UNKNOWN && (peak->bytes == HMN_UNKNOWN || g->used_bytes > peak->bytes))
			peak->bytes = g->used_bytes;
	}
}

static int render_tables(struct watch *w, FILE *out, const struct hmn_gpu *const *gpus, size_t n_gpus,
			 const struct hmn_process *const *rows, size_t n_rows)
{
	struct render_options o = {
		.no_header = w->cli->no_header, .bytes = w->cli->bytes, .long_format = w->cli->long_format,
	};
	char time[48], interval[DURATION_TEXT_MAX];

	local_now(time, !w->terminal);
	if (w->terminal)
		fprintf(out, "hmn watch: every %s  %s\n\n", format_duration(w->cli->interval_us, interval), time);
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

/* A sample's rows of the CSV log, each with its time first; the header before them where asked. */
static int render_log_rows(const struct watch *w, FILE *out, const char *time, bool header,
			   const struct hmn_gpu *const *gpus, size_t n_gpus,
			   const struct hmn_process *const *rows, size_t n_rows)
{
	struct render_options o = { .no_header = !header || w->cli->no_header, .time = time };

	if (w->cli->rows == ROWS_PROCESSES)
		return render_processes_csv(out, rows, n_rows, &o);
	return render_gpus_csv(out, gpus, n_gpus, &o);
}

/*
 * Copies the log FILE holds (as the last sample left it) to out, a whole
 * last line: the bytes copied, 0 where FILE is gone or empty (moved away
 * or emptied by a log rotation: the log starts again, header first), or
 * -errno, said on stderr. Through a small buffer: memory stays the same
 * however long the log grows. FILE moved away while a sample is under way,
 * after its copy was read, comes back whole once: a rotation by rename
 * loses no row, at worst it keeps some twice.
 */
static int64_t copy_log(const char *path, const sys_char *target, FILE *out)
{
	char buf[16384];
	int64_t copied = 0;
	size_t n;
	char last = '\n';
	FILE *in = sys_open_read(target);

	if (!in && errno == ENOENT)
		return 0;
	if (!in) {
		int e = errno;
		fprintf(stderr, "hmn: cannot read %s: %s\n", path, strerror(e));
		return -e;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && fwrite(buf, 1, n, out) == n) {
		copied += (int64_t)n;
		last = buf[n - 1];
	}
	int e = ferror(in) ? (errno ? errno : EIO) : 0;
	fclose(in);
	if (e) {
		fprintf(stderr, "hmn: cannot read %s: %s\n", path, strerror(e));
		return -e;
	}
	/* Cut short by someone else (a truncate): the next row starts on a line of its own. */
	if (last != '\n')
		fputc('\n', out);
	return copied;
}

/*
 * -o FILE with --format csv: FILE is the log so far, header and every row,
 * replaced whole at each sample, so a reader (pandas, a spreadsheet) never
 * sees half a row. The rows so far are FILE's own, copied into the new
 * file, rather than kept in memory: memory stays bounded however long
 * watch runs, the log is held once, on the disk the user chose, and a
 * sample that could not be written leaves FILE the log as it stands, which
 * the next sample carries on. The price is a rewrite of the whole log at
 * each sample: for a log of days, stdout appended to a file costs only the
 * new rows. FILE written in place (a FIFO, /dev/stdout) gets the new rows
 * alone, as stdout would. The first sample starts the log anew: what FILE
 * held before watch started is not this run's.
 */
static int write_log_file(struct watch *w, struct output *out, const char *time,
			  const struct hmn_gpu *const *gpus, size_t n_gpus,
			  const struct hmn_process *const *rows, size_t n_rows)
{
	bool header = !w->log_started;

	if (w->log_started && !output_in_place(out)) {
		int64_t copied = copy_log(w->file, out->target, out->file);
		if (copied < 0)
			return (int)copied;
		header = copied == 0;
	}
	return render_log_rows(w, out->file, time, header, gpus, n_gpus, rows, n_rows);
}

/*
 * -o FILE: the sample's document replaces FILE atomically (a node_exporter
 * textfile, a status file; csv: the log so far). A sample that cannot be
 * written is said (by output_commit) and watch goes on: the next one may
 * be; the exit status says it at the end.
 */
static int write_sample_file(struct watch *w, const char *time, uint64_t elapsed_us, bool up,
			     const struct hmn_gpu *const *gpus, size_t n_gpus,
			     const struct hmn_process *const *rows, size_t n_rows)
{
	struct render_options o = {
		.no_header = w->cli->no_header, .bytes = w->cli->bytes, .long_format = w->cli->long_format,
	};
	struct output out;
	int r = 0;

	if (output_open(&out, w->file) < 0) {
		w->file_failed = true;
		return 0;
	}
	if (w->cli->format == FORMAT_JSON)
		r = render_sample_json(out.file, time, elapsed_us, gpus, n_gpus, rows, n_rows);
	else if (w->cli->format == FORMAT_CSV)
		r = write_log_file(w, &out, time, gpus, n_gpus, rows, n_rows);
	else if (w->cli->format == FORMAT_PROMETHEUS) {
		r = render_gpus_prometheus(out.file, gpus, n_gpus, &o);
		if (r == 0)
			r = render_processes_prometheus(out.file, rows, n_rows, &o);
		if (r == 0)
			r = render_prometheus_health(out.file, "watch", up, gpus, n_gpus);
	} else
		r = render_tables(w, out.file, gpus, n_gpus, rows, n_rows);
	if (r == -ENOMEM) {
		output_discard(&out);
		return r;
	}
	if (r < 0) {
		/* FILE's log could not be read back (said): FILE stays as it is; the next sample tries again. */
		output_discard(&out);
		w->file_failed = true;
		return 0;
	}
	if (output_commit(&out, EXIT_OK) != EXIT_OK)
		w->file_failed = true;
	else
		w->log_started = true;
	return 0;
}

/* One sample: query, print, remember the peaks. A sample with no answer is printed empty. */
static int take_sample(struct watch *w, uint64_t elapsed_us)
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

	sys_utc_now(time);
	bool answered = true;
	if (hmn_query_gpus(w->ctx, &gpus) < 0) {
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(w->ctx), NULL);
		answered = false;
	}
	if (hmn_query_processes(w->ctx, &w->filter, &list) < 0) {
		tool_log_once(HMN_LOG_WARNING, hmn_context_error(w->ctx), NULL);
		answered = false;
	}
	size_t failed = gpus ? gpus->failed : 0;
	if (list && list->failed_gpus > failed)
		failed = list->failed_gpus;
	w->query_failed |= !answered;
	answered = answered && every_gpu_answered(w->ctx, failed);
	if (failed > w->failed_gpus)
		w->failed_gpus = failed;
	gpu_rows = select_gpu_rows(w->cli, gpus ? gpus : &no_gpus, &n_gpus);
	rows = select_process_rows(w->cli, list ? list : &no_processes, &n_rows);
	r = gpu_rows && rows ? 0 : -ENOMEM;

	if (r == 0 && w->file) {
		r = write_sample_file(w, time, elapsed_us, answered, gpu_rows, n_gpus, rows, n_rows);
	} else if (r == 0 && w->cli->format == FORMAT_JSON) {
		r = render_sample_json(stdout, time, elapsed_us, gpu_rows, n_gpus, rows, n_rows);
	} else if (r == 0 && w->cli->format == FORMAT_CSV) {
		r = render_log_rows(w, stdout, time, !w->log_started, gpu_rows, n_gpus, rows, n_rows);
		w->log_started = true;
	} else if (r == 0 && w->terminal) {
		/* One file for the run, written over each sample: the frame is its first bytes. */
		if (!w->frame && !(w->frame = tmpfile()))
			r = -errno;
		if (r == 0) {
			rewind(w->frame);
			r = render_tables(w, w->frame, gpu_rows, n_gpus, rows, n_rows);
		}
		if (r == 0)
			draw_frame(w, ftell(w->frame));
	} else if (r == 0) {
		r = render_tables(w, stdout, gpu_rows, n_gpus, rows, n_rows);
	}
	fflush(stdout);
	if (r == 0) {
		track_gpus(w, gpu_rows, n_gpus);
		for (size_t i = 0; i < n_rows && r == 0; i++)
			r = peaks_add(&w->processes, rows[i], 0);
	}
	free(gpu_rows);
	free(rows);
	hmn_gpu_list_free(gpus);
	hmn_process_list_free(list);
	return r;
}

/*
 * The end, on stderr, starting on a line of its own (after a terminal's
 * "^C"), one GPU or process a line:
 *   hmn: 12 samples over 11.0s. Peaks:
 *   GPU     PEAK
 *     0  19.4GiB
 *    PID  GPU    PEAK  NAME
 *   4242    0  18.9GiB  python3
 */
static int print_watch_summary(const struct watch *w, uint64_t samples, uint64_t elapsed_us)
{
	static const struct table_column gpu_columns[] = { { "GPU", ALIGN_RIGHT }, { "PEAK", ALIGN_RIGHT } };
	static const struct table_column process_columns[] = {
		{ "PID", ALIGN_RIGHT }, { "GPU", ALIGN_RIGHT }, { "PEAK", ALIGN_RIGHT }, { "NAME", ALIGN_LEFT },
	};
	struct table *gpus = table_new(gpu_columns, 2), *processes = table_new(process_columns, 4);
	const struct peak **top = peaks_sorted(&w->processes);
	char size[SIZE_TEXT_MAX], duration[DURATION_TEXT_MAX], id[GPU_CELL_MAX], pid[16];
	int r = gpus && processes && top ? 0 : -ENOMEM;

	for (size_t i = 0; i < w->n_gpus && r == 0; i++) {
		const struct gpu_peak *g = &w->gpus[i];
		if ((r = table_add_cell(gpus, gpu_cell(id, &g->place))) == 0)
			r = table_add_cell(gpus, format_size(g->bytes, false, size));
	}
	for (size_t i = 0; i < w->processes.count && i < 5 && r == 0; i++) {
		snprintf(pid, sizeof(pid), "%" PRIu32, top[i]->pid);
		gpu_cell(id, &top[i]->place);
		const char *cells[] = { pid, id, format_size(top[i]->bytes, false, size), top[i]->name ? top[i]->name : "?" };
		for (size_t k = 0; k < 4 && r == 0; k++)
			r = table_add_cell(processes, cells[k]);
	}
	if (r == 0) {
		fprintf(stderr, "%shmn: %" PRIu64 " sample%s over %s.%s\n", sys_is_terminal(stderr) ? "\n" : "",
			samples, samples == 1 ? "" : "s", format_duration(elapsed_us, duration),
			w->n_gpus ? " Peaks:" : "");
		if (w->n_gpus)
			table_print(gpus, stderr, false);
		if (w->processes.count)
			table_print(processes, stderr, false);
	}
	table_free(gpus);
	table_free(processes);
	free(top);
	return r;
}

/*
 * The deadline of the sample taken now. Late by more than half an interval
 * (the machine suspended, hmn stopped, a sample slower than the interval),
 * the schedule starts again from now: the deadlines missed are not caught
 * up with, and the next sample is a whole interval after this one. Keeping
 * the old schedule would take the next one at its deadline, which may be
 * only moments away (after a stall of 1.2 intervals, 0.8 of one; after a
 * longer one, at once): a burst. So no two samples start less than half an
 * interval apart, while the usual few milliseconds late keep the schedule.
 */
static uint64_t sample_deadline(uint64_t deadline_us, uint64_t now_us, uint64_t interval_us)
{
	return now_us > deadline_us + interval_us / 2 ? now_us : deadline_us;
}

/*
 * Sleeps until the deadline; true when SIGINT or SIGTERM came first.
 * sleep_until returns early on any wake-up, not only a signal of ours (an
 * EINTR where a system ends a sleep for a stop and continue; a wake-up byte
 * left from a signal already taken): then it sleeps again, rather than
 * take a sample early.
 */
static bool sleep_or_signal(uint64_t deadline_us)
{
	for (;;) {
		sleep_until(deadline_us);
		if (signal_take(NULL))
			return true;
		if (clock_us() >= deadline_us)
			return false;
	}
}

int cmd_watch(const struct cli *cli, hmn_context *ctx)
{
	/* The summary names the top few: the highest few hundred are all it keeps. */
	struct watch w = { .cli = cli, .ctx = ctx, .processes = { .limit = 256 } };
	unsigned *indices = NULL;
	uint64_t samples = 0;

	/* A FILE that cannot be written fails before the first sample, not never. */
	struct output probe;
	bool to_file = !output_is_stdout(cli->output);
	if (to_file && output_open(&probe, cli->output) < 0)
		return EXIT_RUNTIME;
	/* The first query says whether there is a GPU at all, and resolves --device. */
	int status = query_device_filter(cli, ctx, &indices);
	if (status != EXIT_OK) /* no GPU, or none answered: Prometheus' FILE still says so */
		return to_file ? finish_failed_document(cli, &probe, status) : status;
	w.filter = (struct hmn_process_filter){
		.pids = cli->pids, .n_pids = cli->n_pids, .pids_given = cli->pids_given,
		.devices = indices, .n_devices = cli->n_devices,
	};
	if (to_file) {
		output_discard(&probe);
		w.file = cli->output;
	}
	w.terminal = !w.file && cli->format == FORMAT_TABLE && sys_is_terminal(stdout);
	signals_catch(false);
	/* q or Q ends the view as Ctrl-C does (htop, nvtop): read where stdin is a terminal, never elsewhere. */
	if (w.terminal)
		sys_keys_start();

	uint64_t start = clock_us(), now = start, next = start, elapsed;
	for (;;) {
		next = sample_deadline(next, now, cli->interval_us);
		if (take_sample(&w, now - start) < 0) {
			fprintf(stderr, "hmn: out of memory\n");
			status = EXIT_RUNTIME;
			break;
		}
		samples++;
		if (ferror(stdout))
			break;
		if ((cli->count && samples >= cli->count) || signal_take(NULL))
			break;
		next += cli->interval_us;
		if (cli->duration_us && next - start >= cli->duration_us) {
			sleep_until(start + cli->duration_us);
			break;
		}
		if (sleep_or_signal(next))
			break;
		now = clock_us();
	}
	elapsed = clock_us() - start;
	sys_keys_stop();
	status = finish_output(stdout, status);
	if (status == EXIT_OK && (w.file_failed || w.query_failed))
		status = EXIT_RUNTIME;
	if (status == EXIT_OK && !cli->quiet && print_watch_summary(&w, samples, elapsed) < 0)
		status = EXIT_RUNTIME;
	status = exit_for_unread_gpus(ctx, status, w.failed_gpus);
	if (w.frame)
		fclose(w.frame);
	free(indices);
	free(w.gpus);
	peaks_clear(&w.processes);
	return status;
}
