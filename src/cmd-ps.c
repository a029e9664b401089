/* hmn ps: per-process GPU memory, one row per (process, GPU), and the summary line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "render.h"
#include "tool.h"

int cmd_ps(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_process_list *list = NULL;
	unsigned *indices = NULL;
	const struct hmn_process **rows = NULL;
	struct output out;
	size_t n = 0;
	int r, status = EXIT_RUNTIME;

	/* A FILE that cannot be written fails before the GPUs are asked. */
	if (output_open(&out, cli->output) < 0)
		return EXIT_RUNTIME;
	/* Only --device needs the GPU list: to check and resolve it. */
	if (cli->n_devices > 0 && (status = query_device_filter(cli, ctx, &indices)) != EXIT_OK) {
		output_discard(&out);
		return status;
	}
	status = EXIT_RUNTIME;
	struct hmn_process_filter filter = {
		.pids = cli->pids, .n_pids = cli->n_pids,
		.devices = indices, .n_devices = cli->n_devices,
	};
	r = hmn_query_processes(ctx, &filter, &list);
	if (r < 0) {
		output_discard(&out);
		free(indices);
		return exit_for_query_error(ctx, r);
	}
	rows = select_process_rows(cli, list, &n);
	if (!rows) {
		output_discard(&out);
		goto out;
	}
	struct render_options o = { .no_header = cli->no_header, .bytes = cli->bytes, .long_format = cli->long_format };
	r = renderer_for(cli->format)->processes(out.file, rows, n, &o);
	if (r < 0) {
		fprintf(stderr, "hmn: %s\n", strerror(-r));
		output_discard(&out);
		goto out;
	}
	status = output_commit(&out, EXIT_OK);
	if (status == EXIT_OK && !cli->quiet)
		print_process_summary(cli, rows, n, list->unreadable);
	status = exit_for_unread_gpus(ctx, status, list->failed_gpus);
out:
	free(rows);
	free(indices);
	hmn_process_list_free(list);
	return status;
}
