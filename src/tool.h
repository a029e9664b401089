/* What the commands of the hmn tool share: one file per command, one renderer per format. */
#ifndef HMN_TOOL_H
#define HMN_TOOL_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hmn.h"

/* The log callback: each message as "hmn: ..." on stderr. */
void tool_log(enum hmn_log_level level, const char *message, void *userdata);
/*
 * The same for a command that queries again and again (watch, run): a
 * warning already said (a GPU lost) is not said again at every sample.
 */
void tool_log_once(enum hmn_log_level level, const char *message, void *userdata);

/* The exit status and message for a failed query: 3 for no GPU, else 1. */
int exit_for_query_error(hmn_context *ctx, int r);
/* A command that answered still fails (1) when a GPU the system shows could not be read (the log said which). */
int exit_for_unread_gpus(const hmn_context *ctx, int status, size_t failed_now);
/* "free", "ps", "watch"...: the command the line runs (hmn_up's command label). */
const char *command_name(const struct cli *cli);
/* Did every GPU found answer (Prometheus' hmn_up)? failed_now: those this query lost. */
bool every_gpu_answered(const hmn_context *ctx, size_t failed_now);

struct pick_outcome;
/* Says (on stderr, unless -q) why --pick found fewer than N GPUs: hmn free's and hmn run's line (cmd-free.c). */
void say_too_few_picked(const struct cli *cli, const struct pick_outcome *o);

struct output;
/*
 * A query that failed (no GPU, every GPU lost, a hung source): said, and
 * for --format prometheus the destination still gets a document saying
 * hmn_up 0 with no GPU series, so a textfile collector never serves the
 * last good values; other formats write nothing. Returns the exit status.
 */
int finish_failed_query(const struct cli *cli, hmn_context *ctx, struct output *out, int r);
/* The same once the failure was said: status is what the command exits with. */
int finish_failed_document(const struct cli *cli, struct output *out, int status);

/*
 * Resolves --device to GPU indices. A selector no GPU answers to is a usage
 * error (said here: -EINVAL), except an index of a GPU that was found but
 * failed to answer.
 */
int resolve_devices(const struct cli *cli, const struct hmn_gpu_list *gpus, unsigned **ret_indices);
/*
 * Queries the GPUs (so that no GPU is told apart at once) and resolves
 * --device into *ret_indices for a process filter. Returns EXIT_OK, or the
 * exit status, its message said.
 */
int query_device_filter(const struct cli *cli, hmn_context *ctx, unsigned **ret_indices);
/*
 * Is this row named by --device (or is there no --device)? An index names
 * a GPU and its MIG instances; "0/2.0" and a UUID name one GPU or instance.
 */
bool gpu_row_wanted(const struct cli *cli, const struct hmn_gpu *g);
bool process_row_wanted(const struct cli *cli, const struct hmn_process *p);

/*
 * The rows of a list that --device keeps, in a malloc'd array; NULL on
 * ENOMEM. A GPU kept by its UUID keeps its MIG instances, as by its index.
 */
const struct hmn_gpu **select_gpu_rows(const struct cli *cli, const struct hmn_gpu_list *gpus,
				       size_t *ret_n);
/* The same for processes, sorted by --sort. */
const struct hmn_process **select_process_rows(const struct cli *cli,
					       const struct hmn_process_list *list, size_t *ret_n);

/* The ps summary line on stderr (the contract's wording). */
void print_process_summary(const struct cli *cli, const struct hmn_process *const *rows, size_t n,
			   size_t unreadable);

int cmd_free(const struct cli *cli, hmn_context *ctx);
int cmd_ps(const struct cli *cli, hmn_context *ctx);
int cmd_watch(const struct cli *cli, hmn_context *ctx);
int cmd_run(const struct cli *cli, hmn_context *ctx);
/* ctx is NULL with --memory: no GPU is asked. */
int cmd_fit(const struct cli *cli, hmn_context *ctx);

#endif
