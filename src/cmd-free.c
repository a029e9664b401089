/* hmn free: device-wide memory, one row per GPU; --need for CI gates. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "output.h"
#include "pick.h"
#include "render.h"
#include "tool.h"

/*
 * SIZE as the user gave it, exactly enough: a percent in its shortest form
 * that reads back the same (up to 17 significant digits, so 99.99999999% is
 * never "100%"), a size in the tables' form, with the exact byte count after
 * it when that form rounds ("1.0GiB (1073752040 bytes)").
 */
static void describe_need(const struct size_arg *size, char *buf, size_t buf_size)
{
	char text[SIZE_TEXT_MAX];

	if (size->is_percent) {
		/* As typed, in plain decimals: "50", "99.999", never "5e+01". */
		for (int decimals = 0; decimals <= 15; decimals++) {
			snprintf(buf, buf_size, "%.*f", decimals, size->percent);
			if (strtod(buf, NULL) == size->percent)
				break;
		}
		snprintf(buf + strlen(buf), buf_size - strlen(buf), "%% of its memory");
		return;
	}
	format_size(size->bytes, false, text);
	struct size_arg back;
	if (parse_size(text, &back) && back.bytes == size->bytes)
		snprintf(buf, buf_size, "%s", text);
	else
		snprintf(buf, buf_size, "%s (%" PRIu64 " bytes)", text, size->bytes);
}

/*
 * --need SIZE: 0 when a listed GPU has SIZE free, else 4 and the contract's
 * line: "hmn: no GPU has 40.0GiB free (most: GPU 1, 31.2GiB)" (-q: the status alone).
 */
static int check_need(const struct cli *cli, const struct hmn_gpu *const *rows, size_t n)
{
	const struct hmn_gpu *most = NULL;
	char need[96], had[SIZE_TEXT_MAX], label[GPU_CELL_MAX];

	for (size_t i = 0; i < n; i++) {
		const struct hmn_gpu *g = rows[i];
		if (g->free_bytes == HMN_UNKNOWN || used_through_instances(rows, n, g))
			continue;
		if (g->free_bytes >= size_for_total(&cli->need.size, g->total_bytes))
			return EXIT_OK;
		if (!most || closer_to_need(&cli->need.size, g, most))
			most = g;
	}
	describe_need(&cli->need.size, need, sizeof(need));
	if (cli->quiet)
		return EXIT_NOT_ENOUGH;
	if (most)
		fprintf(stderr, "hmn: no GPU has %s free (most: GPU %s, %s)\n", need,
			gpu_cell(label, &most->place),
			format_size(most->free_bytes, false, had));
	else
		fprintf(stderr, "hmn: no GPU has %s free (none says how much it has free)\n", need);
	return EXIT_NOT_ENOUGH;
}

/*
 * "hmn: --pick 2: only 1 GPU has 40.0GiB free (most of the rest: GPU 1, 31.2GiB)", or "the 2 GPUs
 * with 40.0GiB free are held for another launch" (-q: the status alone).
 */
void say_too_few_picked(const struct cli *cli, const struct pick_outcome *o)
{
	char need[96], had[SIZE_TEXT_MAX], label[GPU_CELL_MAX];

	if (cli->quiet)
		return;
	describe_need(&cli->need.size, need, sizeof(need));
	fprintf(stderr, "hmn: --pick %" PRIu64 ": ", cli->pick);
	if (o->fitting == 0 && o->held == 0)
		fprintf(stderr, "no GPU has %s free", need);
	else if (o->fitting == 0)
		fprintf(stderr, "the %zu GPU%s with %s free %s held for another launch", o->held,
			o->held == 1 ? "" : "s", need, o->held == 1 ? "is" : "are");
	else
		fprintf(stderr, "only %zu GPU%s %s free%s", o->fitting, o->fitting == 1 ? " has" : "s have", need,
			o->held ? " and not held for another launch" : "");
	if (o->most)
		fprintf(stderr, " (most of the rest: GPU %s, %s)", gpu_cell(label, &o->most->place),
			format_size(o->most->free_bytes, false, had));
	fputs("\n", stderr);
}

/*
 * --pick N: the N GPUs with SIZE free, most free first, as one line of ids
 * for CUDA_VISIBLE_DEVICES; those a live hmn run --pick holds are passed
 * over (read under the machine's lock). Exit 4 and nothing on stdout when
 * fewer than N have room.
 */
static int print_pick(const struct cli *cli, FILE *out, const struct hmn_gpu_list *all,
		      const struct hmn_gpu *const *rows, size_t n)
{
	const struct hmn_gpu **picked = calloc(cli->pick, sizeof(*picked));
	struct pick_file *f = malloc(sizeof(*f));
	struct pick_outcome o;
	char id[PICK_KEY_MAX];

	if (!picked || !f || pick_file_open(f, PICK_LOCK_WAIT_MS, cli->quiet) < 0) {
		free(picked);
		free(f);
		fputs("hmn: out of memory\n", stderr);
		return EXIT_RUNTIME;
	}
	pick_file_close(f);
	pick_gpus(rows, n, &cli->need.size, &f->holds, picked, cli->pick, &o);
	free(f);
	if (o.fitting < cli->pick) {
		free(picked);
		say_too_few_picked(cli, &o);
		return EXIT_NOT_ENOUGH;
	}
	for (size_t i = 0; i < cli->pick; i++)
		fprintf(out, "%s%s", i ? "," : "", pick_id(picked[i], all, id, sizeof(id)));
	fputc('\n', out);
	free(picked);
	return EXIT_OK;
}

int cmd_free(const struct cli *cli, hmn_context *ctx)
{
	struct hmn_gpu_list *gpus = NULL;
	const struct hmn_gpu **rows = NULL;
	struct output out;
	size_t n = 0;
	int r, status = EXIT_RUNTIME;

	/* A FILE that cannot be written fails before the GPUs are asked. */
	if (output_open(&out, cli->output) < 0)
		return EXIT_RUNTIME;
	r = hmn_query_gpus(ctx, &gpus);
	if (r < 0)
		return finish_failed_query(cli, ctx, &out, r);
	r = resolve_devices(cli, gpus, NULL); /* only to refuse a GPU that is not there */
	if (r < 0) {
		output_discard(&out);
		hmn_gpu_list_free(gpus);
		return r == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	rows = select_gpu_rows(cli, gpus, &n);
	if (!rows) {
		output_discard(&out);
		goto out;
	}
	if (cli->pick) {
		status = print_pick(cli, out.file, gpus, rows, n);
		if (status != EXIT_OK)
			output_discard(&out);
		else
			status = exit_for_unread_gpus(ctx, output_commit(&out, EXIT_OK), gpus->failed);
		goto out;
	}
	/* A quiet gate answers by its status alone; a FILE asked for is still written. */
	if (cli->quiet && cli->need.given && output_is_stdout(cli->output)) {
		output_discard(&out);
		/* -q takes away the output, never the reason for 1: a lost GPU might have had the room. */
		status = exit_for_unread_gpus(ctx, check_need(cli, rows, n), gpus->failed);
		goto out;
	}
	struct render_options o = {
		.no_header = cli->no_header, .bytes = cli->bytes, .long_format = cli->long_format,
	};
	r = renderer_for(cli->format)->gpus(out.file, rows, n, &o);
	if (r == 0 && cli->format == FORMAT_PROMETHEUS)
		r = render_prometheus_health(out.file, "free", every_gpu_answered(ctx, gpus->failed), rows, n);
	if (r < 0) {
		fprintf(stderr, "hmn: %s\n", strerror(-r));
		output_discard(&out);
		goto out;
	}
	/* The document is written whatever --need says: a gate still shows what it saw. */
	status = output_commit(&out, EXIT_OK);
	if (status == EXIT_OK && cli->need.given)
		status = check_need(cli, rows, n);
	status = exit_for_unread_gpus(ctx, status, gpus->failed);
out:
	free(rows);
	hmn_gpu_list_free(gpus);
	return status;
}
