/*
 * What the commands share: the log callback, output and exit status, the
 * --device selection, sorting and the ps summary line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli-spec.h"
#include "format.h"
#include "output.h"
#include "render.h"
#include "sys.h"
#include "tool.h"

void tool_log(enum hmn_log_level level, const char *message, void *userdata)
{
	fprintf(stderr, "hmn: %s\n", message);
}

/* Warnings said so far by tool_log_once: a few distinct ones at most (one per lost GPU). */
static char **said;
static size_t n_said;

void tool_log_once(enum hmn_log_level level, const char *message, void *userdata)
{
	if (level == HMN_LOG_WARNING) {
		for (size_t i = 0; i < n_said; i++)
			if (strcmp(said[i], message) == 0)
				return;
		char **more = n_said < 256 ? realloc(said, (n_said + 1) * sizeof(*said)) : NULL;
		char *copy = more ? strdup(message) : NULL;
		if (more)
			said = more;
		if (copy)
			said[n_said++] = copy;
	}
	tool_log(level, message, userdata);
}

int exit_for_unread_gpus(const hmn_context *ctx, int status, size_t failed_now)
{
	/*
	 * A GPU that is there but could not be read (lost, not read by any
	 * source) is never a success, nor a "no room" (4): it might have had it.
	 */
	bool answered = status == EXIT_OK || status == EXIT_NOT_ENOUGH;
	return answered && (hmn_context_unread_gpus(ctx) > 0 || failed_now > 0) ? EXIT_RUNTIME : status;
}

bool every_gpu_answered(const hmn_context *ctx, size_t failed_now)
{
	return hmn_context_unread_gpus(ctx) == 0 && failed_now == 0;
}

int finish_failed_query(const struct cli *cli, hmn_context *ctx, struct output *out, int r)
{
	return finish_failed_document(cli, out, exit_for_query_error(ctx, r));
}

const char *command_name(const struct cli *cli)
{
	return command_spec_of(cli->command)->name;
}

int finish_failed_document(const struct cli *cli, struct output *out, int status)
{
	if (status == cli_usage_status(cli) || cli->format != FORMAT_PROMETHEUS ||
	    render_prometheus_health(out->file, command_name(cli), false, NULL, 0) < 0) {
		output_discard(out);
		return status;
	}
	return output_commit(out, status);
}

int exit_for_query_error(hmn_context *ctx, int r)
{
	if (r == -ENODEV) {
		fprintf(stderr, "hmn: %s\n", hmn_context_error(ctx));
		return EXIT_NO_GPU;
	}
	fprintf(stderr, "hmn: %s\n", hmn_context_error(ctx)[0] ? hmn_context_error(ctx) : strerror(-r));
	return EXIT_RUNTIME;
}

/*
 * Does this --device selector name this GPU row? An index names a GPU and
 * its MIG instances; "0/2.0" and a UUID name one row: a GPU, or one MIG
 * instance.
 */
static bool selector_matches(const struct device_selector *d, const struct hmn_gpu *g)
{
	if (d->is_index)
		return hmn_place_within(&g->place, &d->place);
	return g->uuid && strcasecmp(d->text, g->uuid) == 0;
}

/*
 * Resolves --device to GPU indices (for ps, whose query takes them). A
 * selector no GPU answers to is a usage error, except an index of a GPU
 * that was found but failed to answer (its failure was already reported).
 */
int resolve_devices(const struct cli *cli, const struct hmn_gpu_list *gpus,
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
				indices[i] = gpus->gpus[k].place.index;
				found = true;
			}
		if (!found && d->is_index && !d->place.is_mig && d->place.index < gpus->found) {
			indices[i] = d->place.index;
			found = true;
		}
		if (!found) {
			snprintf(message, sizeof(message), "--device %.60s: no such GPU (%zu found%s)",
				 d->text, gpus->found,
				 gpus->found == 0 ? "" : gpus->found == 1 ? ": index 0" : ", indices from 0");
			print_usage_error(cli, message);
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

int query_device_filter(const struct cli *cli, hmn_context *ctx, unsigned **ret_indices)
{
	struct hmn_gpu_list *gpus = NULL;
	int r = hmn_query_gpus(ctx, &gpus);

	if (r < 0)
		return exit_for_query_error(ctx, r);
	r = resolve_devices(cli, gpus, ret_indices);
	hmn_gpu_list_free(gpus);
	return r == 0 ? EXIT_OK : r == -EINVAL ? cli_usage_status(cli) : EXIT_RUNTIME;
}

bool gpu_row_wanted(const struct cli *cli, const struct hmn_gpu *g)
{
	for (size_t i = 0; i < cli->n_devices; i++)
		if (selector_matches(&cli->devices[i], g))
			return true;
	return cli->n_devices == 0;
}

bool process_row_wanted(const struct cli *cli, const struct hmn_process *p)
{
	for (size_t i = 0; i < cli->n_devices; i++) {
		const struct device_selector *d = &cli->devices[i];
		if (d->is_index ? hmn_place_within(&p->place, &d->place)
				: (p->device_uuid && strcasecmp(d->text, p->device_uuid) == 0) ||
					  (p->mig_uuid && strcasecmp(d->text, p->mig_uuid) == 0))
			return true;
	}
	return cli->n_devices == 0;
}

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
		c = (a->place.index > b->place.index) - (a->place.index < b->place.index);
		break;
	case SORT_PID:
		break;
	}
	if (c == 0)
		c = (a->pid > b->pid) - (a->pid < b->pid);
	if (c == 0)
		c = (a->place.index > b->place.index) - (a->place.index < b->place.index);
	return c;
}

static int compare_pid_ptr(const void *x, const void *y)
{
	uint32_t a = (*(const struct hmn_process *const *)x)->pid;
	uint32_t b = (*(const struct hmn_process *const *)y)->pid;
	return (a > b) - (a < b);
}

/* The GPU a MIG instance is part of: the row of its index that is not an instance. */
static const struct hmn_gpu *parent_of(const struct hmn_gpu_list *gpus, const struct hmn_gpu *instance)
{
	for (size_t i = 0; i < gpus->count; i++)
		if (!gpus->gpus[i].place.is_mig && gpus->gpus[i].place.index == instance->place.index)
			return &gpus->gpus[i];
	return NULL;
}

const struct hmn_gpu **select_gpu_rows(const struct cli *cli, const struct hmn_gpu_list *gpus,
				       size_t *ret_n)
{
	const struct hmn_gpu **rows = calloc(gpus->count ? gpus->count : 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < gpus->count; i++) {
		const struct hmn_gpu *g = &gpus->gpus[i], *parent = g->place.is_mig ? parent_of(gpus, g) : NULL;
		if (gpu_row_wanted(cli, g) || (parent && gpu_row_wanted(cli, parent)))
			rows[n++] = g;
	}
	*ret_n = n;
	return rows;
}

const struct hmn_process **select_process_rows(const struct cli *cli,
					       const struct hmn_process_list *list, size_t *ret_n)
{
	const struct hmn_process **rows = malloc((list->count ? list->count : 1) * sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return NULL;
	/* The library kept the selected GPUs; a MIG UUID narrows to one instance. */
	for (size_t i = 0; i < list->count; i++)
		if (process_row_wanted(cli, &list->processes[i]))
			rows[n++] = &list->processes[i];
	sort_by = cli->sort;
	qsort(rows, n, sizeof(*rows), compare_rows);
	*ret_n = n;
	return rows;
}

/*
 * hmn: 3 GPU processes found (12.0GiB total; 1 protected — re-run elevated for names).
 * Processes are counted once however many GPUs they hold memory on. Processes
 * whose GPU use could not be read at all (unreadable) count as protected:
 * they are not listed, but the line must not let them vanish.
 */
void print_process_summary(const struct cli *cli, const struct hmn_process *const *rows, size_t n,
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
