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
	struct hmn_gpu_list *gpus = NULL;
	const struct hmn_gpu **gpu_rows = NULL;
	size_t n_gpus = 0;
	unsigned *indices = NULL;
	const struct hmn_process **rows = NULL;
	struct output out;
	size_t n = 0;
	int r, status = EXIT_RUNTIME;

	/* A FILE that cannot be written fails before the GPUs are asked. */
	if (output_open(&out, cli->output) < 0)
		return EXIT_RUNTIME;
	/* Only --device needs the GPU list: to check and resolve it. */
	if (cli->n_devices > 0 && (status = query_device_filter(cli, ctx, &indices)) != EXIT_OK)
		return finish_failed_document(cli, &out, status);
	status = EXIT_RUNTIME;
	/* Prometheus says which drivers answered (hmn_driver_info): the GPUs' own rows say it. */
	if (cli->format == FORMAT_PROMETHEUS) {
		r = hmn_query_gpus(ctx, &gpus);
		if (r < 0) {
			free(indices);
			return finish_failed_query(cli, ctx, &out, r);
		}
		if (!(gpu_rows = select_gpu_rows(cli, gpus, &n_gpus))) {
			output_discard(&out);
			goto out;
		}
	}
	struct hmn_process_filter filter = {
		.pids = cli->pids, .n_pids = cli->n_pids, .pids_given = cli->pids_given,
		.devices = indices, .n_devices = cli->n_devices,
	};
	r = hmn_query_processes(ctx, &filter, &list);
	if (r < 0) {
		status = finish_failed_query(cli, ctx, &out, r);
		goto out;
	}
	rows = select_process_rows(cli, list, &n);
	if (!rows) {
		output_discard(&out);
		goto out;
	}
	struct render_options o = { .no_header = cli->no_header, .bytes = cli->bytes, .long_format = cli->long_format };
	r = renderer_for(cli->format)->processes(out.file, rows, n, &o);
	if (r == 0 && gpus)
		r = render_prometheus_health(out.file, "ps", every_gpu_answered(ctx, list->failed_gpus + gpus->failed),
					     gpu_rows, n_gpus);
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
	free(gpu_rows);
	free(indices);
	hmn_process_list_free(list);
	hmn_gpu_list_free(gpus);
	return status;
}
