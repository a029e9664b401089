/*
 * hmn: the command-line tool over libhmn. Only this directory prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "format.h"
#include "hmn.h"
#include "render.h"

static void print_usage_error(const char *message)
{
	fprintf(stderr, "hmn: %s\nTry 'hmn --help'.\n", message);
}

static void log_to_stderr(enum hmn_log_level level, const char *message, void *userdata)
{
	fprintf(stderr, "hmn: %s\n", message);
}

/*
 * Flushes stdout and turns a write failure into the exit status: a closed
 * pipe ends the way SIGPIPE would have ended us (quietly), anything else
 * (a full disk, /dev/full) is a runtime failure with a message.
 */
static int finish_output(int status)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (errno == EPIPE) {
#ifdef SIGPIPE
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
#endif
		return EXIT_RUNTIME; /* Windows has no SIGPIPE: a quiet failure, as there */
	}
	fprintf(stderr, "hmn: cannot write output: %s\n", strerror(errno));
	return EXIT_RUNTIME;
}

static int exit_for_query_error(hmn_context *ctx, int r)
{
	if (r == -ENODEV) {
		fprintf(stderr, "hmn: %s\n", hmn_context_error(ctx));
		return EXIT_NO_GPU;
	}
	fprintf(stderr, "hmn: %s\n", hmn_context_error(ctx)[0] ? hmn_context_error(ctx) : strerror(-r));
	return EXIT_RUNTIME;
}

/* Does this --device selector name this GPU? */
static bool selector_matches(const struct device_selector *d, const struct hmn_gpu *g)
{
	if (d->is_index)
		return d->index == g->index; /* a GPU, and its MIG instances */
	return g->uuid && strcasecmp(d->text, g->uuid) == 0;
}

/*
 * Resolves --device to GPU indices (for ps, whose query takes them). A
 * selector no GPU answers to is a usage error, except an index of a GPU
 * that was found but failed to answer (its failure was already reported).
 */
static int resolve_devices(const struct cli *cli, const struct hmn_gpu_list *gpus,
			   unsigned **ret_indices)
{
	unsigned *indices = calloc(cli->n_devices ? cli->n_devices : 1, sizeof(*indices));
	char message[256];

	if (!indices)
		return -ENOMEM;
	for (size_t i = 0; i < cli->n_devices; i++) {
		const struct device_selector *d = &cli->devices[i];
		bool found = false;
		for (size_t k = 0; k < gpus->count && !found; k++)
			if (selector_matches(d, &gpus->gpus[k])) {
				indices[i] = gpus->gpus[k].index;
				found = true;
			}
		if (!found && d->is_index && d->index < gpus->found) {
			indices[i] = d->index;
			found = true;
		}
		if (!found) {
			snprintf(message, sizeof(message), "--device %.60s: no such GPU (%zu found%s)",
				 d->text, gpus->found,
				 gpus->found == 0 ? "" : gpus->found == 1 ? ": index 0" : ", indices from 0");
			print_usage_error(message);
			free(indices);
			return -EINVAL;
		}
	}
	if (ret_indices)
		*ret_indices = indices;
	else
		free(indices);
	return 0;
}

/*
 * Is this row named by --device? An index names a GPU and its MIG
 * instances; a UUID names one row: a GPU, or one MIG instance.
 */
static bool gpu_row_wanted(const struct cli *cli, const struct hmn_gpu *g)
{
	for (size_t i = 0; i < cli->n_devices; i++)
		if (selector_matches(&cli->devices[i], g))
			return true;
	return cli->n_devices == 0;
}

static bool process_row_wanted(const struct cli *cli, const struct hmn_process *p)
{
	for (size_t i = 0; i < cli->n_devices; i++) {
		const struct device_selector *d = &cli->devices[i];
		if (d->is_index ? d->index == p->device_index
				: (p->device_uuid && strcasecmp(d->text, p->device_uuid) == 0) ||
					  (p->mig_uuid && strcasecmp(d->text, p->mig_uuid) == 0))
			return true;
	}
	return cli->n_devices == 0;
}

static int run_free(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_gpu_list *gpus = NULL;
	const struct hmn_gpu **rows = NULL;
	size_t n = 0;
	int r, status;

	r = hmn_query_gpus(ctx, &gpus);
	if (r < 0)
		return exit_for_query_error(ctx, r);
	r = resolve_devices(cli, gpus, NULL); /* only to refuse a GPU that is not there */
	if (r < 0) {
		hmn_gpu_list_free(gpus);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	rows = calloc(gpus->count ? gpus->count : 1, sizeof(*rows));
	if (!rows) {
		status = EXIT_RUNTIME;
		goto out;
	}
	for (size_t i = 0; i < gpus->count; i++)
		if (gpu_row_wanted(cli, &gpus->gpus[i]))
			rows[n++] = &gpus->gpus[i];

	struct render_options o = { .no_header = cli->no_header, .bytes = cli->bytes };
	r = cli->json ? render_gpus_json(stdout, rows, n) : render_gpus_table(stdout, rows, n, &o);
	status = r < 0 ? EXIT_RUNTIME : finish_output(EXIT_OK);
	if (r < 0)
		fprintf(stderr, "hmn: %s\n", strerror(-r));
out:
	free(rows);
	hmn_gpu_list_free(gpus);
	return status;
}

/* ---- ps ------------------------------------------------------------------------ */

static enum sort_key sort_by;

static int compare_u64_desc(uint64_t a, uint64_t b)
{
	/* Unknown sizes sort after every known one. */
	if (a == b)
		return 0;
	if (a == HMN_UNKNOWN)
		return 1;
	if (b == HMN_UNKNOWN)
		return -1;
	return a > b ? -1 : 1;
}

static int compare_rows(const void *x, const void *y)
{
	const struct hmn_process *a = *(const struct hmn_process *const *)x;
	const struct hmn_process *b = *(const struct hmn_process *const *)y;
	int c = 0;

	switch (sort_by) {
	case SORT_VRAM:
		c = compare_u64_desc(a->used_bytes, b->used_bytes);
		break;
	case SORT_NAME:
		/* Processes with no name last. */
		if (!a->name || !b->name)
			c = (!a->name) - (!b->name);
		else
			c = strcmp(a->name, b->name);
		break;
	case SORT_DEVICE:
		c = (a->device_index > b->device_index) - (a->device_index < b->device_index);
		break;
	case SORT_PID:
		break;
	}
	if (c == 0)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	if (c == 0)
		c = (a->device_index > b->device_index) - (a->device_index < b->device_index);
	return c;
}

static int compare_pid_ptr(const void *x, const void *y)
{
	uint32_t a = (*(const struct hmn_process *const *)x)->pid;
	uint32_t b = (*(const struct hmn_process *const *)y)->pid;
	return (a > b) - (a < b);
}

/*
 * hmn: 3 GPU processes found (12.0 GiB total; 1 protected — re-run elevated for names).
 * Processes are counted once however many GPUs they hold memory on. Processes
 * whose GPU use could not be read at all (unreadable) count as protected:
 * they are not listed, but the line must not let them vanish.
 */
static void print_summary(const struct cli *cli, const struct hmn_process *const *rows, size_t n,
			  size_t unreadable)
{
	const struct hmn_process **by_pid = malloc((n ? n : 1) * sizeof(*by_pid));
	size_t processes = 0, protected_count = unreadable;
	uint64_t total = 0;
	char size[SIZE_TEXT_MAX];

	for (size_t i = 0; i < n; i++)
		if (rows[i]->used_bytes != HMN_UNKNOWN)
			total += rows[i]->used_bytes;
	if (by_pid) {
		memcpy(by_pid, rows, n * sizeof(*by_pid));
		qsort(by_pid, n, sizeof(*by_pid), compare_pid_ptr);
		for (size_t i = 0; i < n; i++)
			if (i == 0 || by_pid[i]->pid != by_pid[i - 1]->pid) {
				processes++;
				protected_count += by_pid[i]->is_protected;
			}
		free(by_pid);
	} else {
		processes = n;
	}

	fprintf(stderr, "hmn: %zu GPU process%s found", processes, processes == 1 ? "" : "es");
	if (cli->pid_text || cli->device_text) {
		fputs(" matching", stderr);
		if (cli->pid_text)
			fprintf(stderr, " pid=%s", cli->pid_text);
		if (cli->device_text)
			fprintf(stderr, " device=%s", cli->device_text);
	}
	if (processes > 0) {
		fprintf(stderr, " (%s total", format_size(total, false, size));
		if (protected_count > 0)
			fprintf(stderr, "; %zu protected \u2014 re-run elevated for names", protected_count);
		fputc(')', stderr);
	} else if (protected_count > 0) {
		fprintf(stderr, " (%zu protected \u2014 re-run elevated for names)", protected_count);
	}
	fputs(".\n", stderr);
}

static int run_ps(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_gpu_list *gpus = NULL;
	struct hmn_process_list *list = NULL;
	unsigned *indices = NULL;
	const struct hmn_process **rows = NULL;
	int r, status = EXIT_RUNTIME;

	if (cli->n_devices > 0) {
		/* Only --device needs the GPU list: to check and resolve it. */
		r = hmn_query_gpus(ctx, &gpus);
		if (r < 0)
			return exit_for_query_error(ctx, r);
		r = resolve_devices(cli, gpus, &indices);
		hmn_gpu_list_free(gpus);
		if (r < 0)
			return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	struct hmn_process_filter filter = {
		.pids = cli->pids, .n_pids = cli->n_pids,
		.devices = indices, .n_devices = cli->n_devices,
	};
	r = hmn_query_processes(ctx, &filter, &list);
	if (r < 0) {
		free(indices);
		return exit_for_query_error(ctx, r);
	}
	rows = malloc((list->count ? list->count : 1) * sizeof(*rows));
	if (!rows)
		goto out;
	/* The library kept the selected GPUs; a MIG UUID narrows to one instance. */
	size_t n = 0;
	for (size_t i = 0; i < list->count; i++)
		if (process_row_wanted(cli, &list->processes[i]))
			rows[n++] = &list->processes[i];
	sort_by = cli->sort;
	qsort(rows, n, sizeof(*rows), compare_rows);

	struct render_options o = { .no_header = cli->no_header, .bytes = cli->bytes };
	r = cli->json ? render_processes_json(stdout, rows, n)
		      : render_processes_table(stdout, rows, n, &o);
	if (r < 0) {
		fprintf(stderr, "hmn: %s\n", strerror(-r));
		goto out;
	}
	status = finish_output(EXIT_OK);
	if (status == EXIT_OK)
		print_summary(cli, rows, n, list->unreadable);
out:
	free(rows);
	free(indices);
	hmn_process_list_free(list);
	return status;
}

int main(int argc, char **argv)
{
	static char out_buffer[1 << 16];
	struct cli cli;
	char error[256];
	hmn_context *ctx = NULL;
	const char *why = NULL;
	int r, status;

	setvbuf(stdout, out_buffer, _IOFBF, sizeof(out_buffer));
	r = cli_parse(&cli, argc, argv, error, sizeof(error));
	if (r < 0) {
		if (r == -EINVAL)
			print_usage_error(error);
		else
			fprintf(stderr, "hmn: %s\n", strerror(-r));
		cli_free(&cli);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (cli.help || cli.version) {
		if (cli.help)
			cli_print_help(cli.command, cli.command_given);
		else
			printf("hmn %s\n", hmn_version());
		cli_free(&cli);
		return finish_output(EXIT_OK);
	}

#ifdef _WIN32
	/* JSON is for programs: "\n" as the contract says, not the console's "\r\n". */
	if (cli.json)
		_setmode(_fileno(stdout), _O_BINARY);
#endif
	struct hmn_options options = {
		.backends = cli.backends,
		.log = log_to_stderr,
		.log_level = cli.verbose ? HMN_LOG_INFO : HMN_LOG_WARNING,
	};
	r = hmn_context_new(&options, &ctx, &why);
	if (r < 0) {
		if (r == -EINVAL) {
			snprintf(error, sizeof(error), "%s%s", why ? why : "invalid backend list",
				 cli.backends ? "" : " in HMN_BACKENDS");
			print_usage_error(error);
		} else {
			fprintf(stderr, "hmn: %s\n", strerror(-r));
		}
		cli_free(&cli);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	status = cli.command == COMMAND_PS ? run_ps(&cli, ctx) : run_free(&cli, ctx);
	hmn_context_free(ctx);
	cli_free(&cli);
	return status;
}
