/* hmn free: device-wide memory, one row per GPU; --need for CI gates. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "output.h"
#include "render.h"
#include "tool.h"

/* A GPU in MIG mode is used through its instances: its own row is no place for a job. */
static bool has_instances(const struct hmn_gpu *const *rows, size_t n, const struct hmn_gpu *g)
{
	for (size_t i = 0; i < n && !g->is_mig; i++)
		if (rows[i]->is_mig && rows[i]->index == g->index)
			return true;
	return false;
}

static const char *gpu_label(const struct hmn_gpu *g, char buf[48])
{
	if (g->is_mig)
		snprintf(buf, 48, "%u/%u.%u", g->index, g->gpu_instance_id, g->compute_instance_id);
	else
		snprintf(buf, 48, "%u", g->index);
	return buf;
}

/*
 * --need SIZE: 0 when a listed GPU has SIZE free, else 4 and the contract's
 * line: "hmn: no GPU has 40.0 GiB free (most: GPU 1, 31.2 GiB)".
 */
static int check_need(const struct cli *cli, const struct hmn_gpu *const *rows, size_t n)
{
	const struct hmn_gpu *most = NULL;
	char need[SIZE_TEXT_MAX], had[SIZE_TEXT_MAX], label[48];

	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		if (g->free_bytes == HMN_UNKNOWN || has_instances(rows, n, g))
			continue;
		if (g->free_bytes >= size_for_total(&cli->need, g->total_bytes))
			return EXIT_OK;
		if (!most || g->free_bytes > most->free_bytes)
			most = g;
	}
	if (cli->need.is_percent)
		snprintf(need, sizeof(need), "%g%% of its memory", cli->need.percent);
	else
		format_size(cli->need.bytes, false, need);
	if (most)
		fprintf(stderr, "hmn: no GPU has %s free (most: GPU %s, %s)\n", need,
			gpu_label(most, label), format_size(most->free_bytes, false, had));
	else
		fprintf(stderr, "hmn: no GPU has %s free (none says how much it has free)\n", need);
	return EXIT_NOT_ENOUGH;
}

int cmd_free(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_gpu_list *gpus = NULL;
	const struct hmn_gpu **rows = NULL;
	struct output out;
	size_t n = 0;
	int r, status = EXIT_RUNTIME;

	r = hmn_query_gpus(ctx, &gpus);
	if (r < 0)
		return exit_for_query_error(ctx, r);
	r = resolve_devices(cli, gpus, NULL); /* only to refuse a GPU that is not there */
	if (r < 0) {
		hmn_gpu_list_free(gpus);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	rows = select_gpu_rows(cli, gpus, &n);
	if (!rows || output_open(&out, cli->output) < 0)
		goto out;
	struct render_options o = {
		.no_header = cli->no_header, .bytes = cli->bytes, .long_format = cli->long_format,
	};
	r = renderer_for(cli->format)->gpus(out.file, rows, n, &o);
	if (r < 0) {
		fprintf(stderr, "hmn: %s\n", strerror(-r));
		output_discard(&out);
		goto out;
	}
	/* The document is written whatever --need says: a gate still shows what it saw. */
	status = output_commit(&out, EXIT_OK);
	if (status == EXIT_OK && cli->has_need)
		status = check_need(cli, rows, n);
out:
	free(rows);
	hmn_gpu_list_free(gpus);
	return status;
}
