/* hmn run --pick (run-pick.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run-pick.h"
#include "sys.h"
#include "tool.h"
#include "util/clock.h"

/* Each runtime's variable, set to the picks of its vendor joined by commas (none: left as it is). */
static int set_variables(const struct hmn_gpu *const *picked, size_t n, const struct hmn_gpu_list *all)
{
	static const char *const variables[] = { "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES" };
	char value[PICK_HOLDS_MAX * PICK_KEY_MAX / 4], id[PICK_KEY_MAX];

	for (size_t v = 0; v < sizeof(variables) / sizeof(variables[0]); v++) {
		size_t len = 0;
		value[0] = '\0';
		for (size_t i = 0; i < n; i++)
			if (strcmp(pick_variable(picked[i]), variables[v]) == 0 && len < sizeof(value))
				len += (size_t)snprintf(value + len, sizeof(value) - len, "%s%s", len ? "," : "",
							pick_id(picked[i], all, id, sizeof(id)));
		if (len >= sizeof(value))
			return -E2BIG;
		if (len > 0 && sys_setenv(variables[v], value) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The run's options with --device the picks: by UUID, or by index where a GPU has none. */
static int select_picked(struct run_pick *p, const struct cli *cli, const struct hmn_gpu *const *picked)
{
	p->cli = *cli;
	p->cli.devices = calloc(p->n, sizeof(*p->cli.devices));
	p->cli.n_devices = 0;
	if (!p->cli.devices)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		const struct hmn_gpu *g = picked[i];
		char index[16];
		struct device_selector *d = &p->cli.devices[p->cli.n_devices];
		snprintf(index, sizeof(index), "%u", g->place.index);
		*d = (struct device_selector){ .is_index = !g->uuid, .place = g->place };
		if (!(d->text = strdup(g->uuid ? g->uuid : index)))
			return -ENOMEM;
		p->cli.n_devices++;
	}
	return 0;
}

/* Keeps only the holds on GPUs of this machine: the rest is another machine's, or noise. */
static void keep_holds_on(struct pick_holds *holds, const struct hmn_gpu_list *gpus)
{
	char key[PICK_KEY_MAX];
	size_t kept = 0;
	for (size_t i = 0; i < holds->n; i++) {
		bool ours = false;
		for (size_t k = 0; k < gpus->count && !ours; k++)
			ours = pick_key(&gpus->gpus[k], key) && strcmp(key, holds->items[i].key) == 0;
		if (ours)
			holds->items[kept++] = holds->items[i];
	}
	holds->n = kept;
}

/*
 * The holds, written under the lock that is still held: no other launch
 * picks these now. A file full of holds (another user's doing) never stops
 * COMMAND: the picks are then said and not held.
 */
static int hold(struct run_pick *p, struct pick_file *f, const struct hmn_gpu_list *gpus, const struct cli *cli)
{
	uint64_t until = clock_wall_us() / 1000 + cli->hold_us / 1000;
	keep_holds_on(&f->holds, gpus);
	for (size_t i = 0; i < p->n; i++)
		if (!pick_holds_add(&f->holds, p->keys[i], hmn_self_pid(), until)) {
			if (!cli->quiet)
				fprintf(stderr, "hmn: %s holds %d picks already: these are not held\n", f->where,
					PICK_HOLDS_MAX);
			return 0;
		}
	return pick_file_save(f);
}

/* No GPU found: none has room (4), COMMAND never starts; a source that failed or hung is hmn failing (125). */
static int query_failed(hmn_context *ctx, int r)
{
	exit_for_query_error(ctx, r);
	return r == -ENODEV ? EXIT_NOT_ENOUGH : EXIT_RUN_FAILED;
}

static int pick_under_lock(struct run_pick *p, const struct cli *cli, hmn_context *ctx, struct pick_file *f)
{
	struct hmn_gpu_list *gpus = NULL;
	const struct hmn_gpu **rows = NULL, **picked = NULL;
	struct pick_outcome o;
	size_t n_rows = 0;
	int status = EXIT_RUN_FAILED;

	/* Read under the lock: a GPU another launch let go of a moment ago shows its tree's memory now. */
	int r = hmn_query_gpus(ctx, &gpus);
	if (r < 0)
		return query_failed(ctx, r);
	if ((r = resolve_devices(cli, gpus, NULL)) < 0) /* a --device no GPU answers to: said */
		goto out;
	rows = select_gpu_rows(cli, gpus, &n_rows);
	picked = calloc(cli->pick, sizeof(*picked));
	p->keys = calloc(cli->pick, sizeof(*p->keys));
	p->ids = calloc(cli->pick, sizeof(*p->ids));
	p->places = calloc(cli->pick, sizeof(*p->places));
	p->need_bytes = calloc(cli->pick, sizeof(*p->need_bytes));
	p->released = calloc(cli->pick, sizeof(*p->released));
	if (!rows || !picked || !p->keys || !p->ids || !p->places || !p->need_bytes || !p->released) {
		fputs("hmn: out of memory\n", stderr);
		goto out;
	}
	pick_gpus(rows, n_rows, &cli->need.size, &f->holds, picked, cli->pick, &o);
	if (o.fitting < cli->pick) {
		say_too_few_picked(cli, &o);
		status = EXIT_NOT_ENOUGH;
		goto out;
	}
	p->n = cli->pick;
	for (size_t i = 0; i < p->n; i++) {
		pick_key(picked[i], p->keys[i]);
		pick_id(picked[i], gpus, p->ids[i], sizeof(p->ids[i]));
		p->places[i] = picked[i]->place;
		p->need_bytes[i] = size_for_total(&cli->need.size, picked[i]->total_bytes);
	}
	if ((r = select_picked(p, cli, picked)) < 0 || (r = set_variables(picked, p->n, gpus)) < 0 ||
	    (r = hold(p, f, gpus, cli)) < 0) {
		fprintf(stderr, "hmn: cannot pick: %s\n", strerror(-r));
		goto out;
	}
	status = EXIT_OK;
	p->gpus = gpus; /* the run's baseline: no query again before COMMAND starts */
	gpus = NULL;
out:
	free(picked);
	free(rows);
	hmn_gpu_list_free(gpus);
	return status;
}

int run_pick_make(struct run_pick *p, const struct cli *cli, hmn_context *ctx)
{
	struct hmn_gpu_list *first = NULL;
	struct pick_file *f;

	*p = (struct run_pick){ 0 };
	/*
	 * The sources opened (NVML initialised, nvidia-smi's first answer) before
	 * the lock, not while other launches wait for it: under it, only a query
	 * again, which an opened NVML answers in microseconds.
	 */
	int r = hmn_query_gpus(ctx, &first);
	hmn_gpu_list_free(first);
	if (r < 0)
		return query_failed(ctx, r);
	f = malloc(sizeof(*f));
	if (!f || pick_file_open(f, PICK_LOCK_WAIT_MS, cli->quiet) < 0) {
		free(f);
		fputs("hmn: out of memory\n", stderr);
		return EXIT_RUN_FAILED;
	}
	int status = pick_under_lock(p, cli, ctx, f);
	pick_file_close(f);
	free(f);
	return status;
}

void run_pick_holding(struct run_pick *p, const struct hmn_place *place, uint64_t bytes)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->released[i] && hmn_place_equal(&p->places[i], place) && bytes >= p->need_bytes[i]) {
			const char *key = p->keys[i];
			p->released[i] = pick_release(&key, 1, 0); /* else the next sample tries again */
		}
}

void run_pick_free(struct run_pick *p)
{
	bool held = false;
	for (size_t i = 0; i < p->n; i++)
		held |= !p->released[i];
	if (held)
		pick_release(NULL, 0, 1000);
	for (size_t i = 0; i < p->cli.n_devices; i++)
		free((char *)p->cli.devices[i].text);
	free(p->cli.devices);
	hmn_gpu_list_free(p->gpus);
	free(p->keys);
	free(p->ids);
	free(p->places);
	free(p->need_bytes);
	free(p->released);
	*p = (struct run_pick){ 0 };
}
