/*
 * hmn run --need SIZE --pick N -- COMMAND: the N GPUs picked under the
 * machine's lock and held for COMMAND (pick.h), the variables that point
 * its runtime at them, and the run's options with --device made the picks,
 * so that what follows measures those GPUs alone.
 */
#ifndef HMN_RUN_PICK_H
#define HMN_RUN_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "hmn.h"
#include "pick.h"

struct run_pick {
	struct cli cli;                  /* the run's options, --device the picked GPUs (cli.devices: ours) */
	size_t n;
	char (*keys)[PICK_KEY_MAX];      /* each pick's hold */
	char (*ids)[PICK_KEY_MAX];       /* each as its runtime's variable names it: the report's "picked" */
	struct hmn_place *places;
	uint64_t *need_bytes;            /* --need on each (N%: of its own total) */
	bool *released;                  /* its hold let go of: the tree holds --need there */
	struct hmn_gpu_list *gpus;       /* the GPUs as read under the lock, until the run takes them */
};

/*
 * Picks cli->pick GPUs with --need free under the lock, holds them for
 * --hold, and sets CUDA_VISIBLE_DEVICES (ROCR_VISIBLE_DEVICES) for COMMAND.
 * Returns EXIT_OK, or the exit status, said: 4 when too few have room (or
 * no GPU is found), 125 when hmn failed (a --device no GPU answers to).
 */
int run_pick_make(struct run_pick *p, const struct cli *cli, hmn_context *ctx);
/*
 * The tree holds bytes at place: once that is --need, its pick's hold is
 * let go of (the GPU's free memory says it now). A CUDA context alone, the
 * first few hundred MiB, is not: the GPU would look as free as before.
 */
void run_pick_holding(struct run_pick *p, const struct hmn_place *place, uint64_t bytes);
/* Lets go of every hold left and frees p (zeroed: safe twice). */
void run_pick_free(struct run_pick *p);

#endif
