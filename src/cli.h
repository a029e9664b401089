/* The command line, parsed: what the user asked for. */
#ifndef HMN_CLI_H
#define HMN_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"
#include "units.h"

enum command { COMMAND_FREE, COMMAND_PS, COMMAND_WATCH, COMMAND_RUN, COMMAND_FIT };
enum output_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV, FORMAT_PROMETHEUS };
enum sort_key { SORT_VRAM, SORT_PID, SORT_NAME, SORT_DEVICE };
enum attention { ATTENTION_FUSED, ATTENTION_EAGER };
/* watch --rows: what a row of its CSV log is; ROWS_NOT_GIVEN until --rows says (the default: a GPU). */
enum csv_rows { ROWS_NOT_GIVEN, ROWS_GPUS, ROWS_PROCESSES };

enum exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_GPU = 3,
	EXIT_NOT_ENOUGH = 4,   /* hmn free --need: no listed GPU has that much free; hmn fit: no room */
	/* hmn run, as env(1) and timeout(1) exit. */
	EXIT_LIMIT = 124,      /* --limit ended the tree (timeout(1)'s status when it ends its command) */
	EXIT_RUN_FAILED = 125, /* hmn failed before COMMAND ran, its usage errors included */
	EXIT_CANNOT_RUN = 126, /* COMMAND was found but could not run */
	EXIT_NOT_FOUND = 127,  /* COMMAND was not found */
};

/* One --device entry: an index ("0"), a MIG instance as the GPU column prints it ("0/2.0"), or a UUID. */
struct device_selector {
	const char *text;    /* as given, for messages; a UUID is matched by it */
	bool is_index;       /* place is set: a GPU, or a MIG instance of it */
	struct hmn_place place;
};

/* A SIZE option: given or not. */
struct size_option {
	bool given;
	struct size_arg size;
};

struct cli {
	enum command command;
	bool command_given;
	bool help, version, verbose, quiet, no_header, bytes, long_format;
	enum output_format format;
	const char *output;                  /* -o FILE; NULL: stdout */
	struct size_option need;             /* free --need; run --need, with --pick */
	uint64_t pick;                       /* free and run --pick N; 0: not given */
	uint64_t hold_us;                    /* run --hold: a pick kept from other launches; 0 until set, then 30 s */
	struct size_option limit;            /* run --limit: the tree's GPU memory budget */
	uint64_t kill_after_us;              /* run --kill-after: SIGTERM to SIGKILL; 0 until set, then 10 s */
	uint64_t interval_us;                /* watch, run: 0 until set, then the default */
	uint64_t count;                      /* watch --count; 0: no limit */
	uint64_t duration_us;                /* watch --duration; 0: no limit */
	enum csv_rows rows;                  /* watch --rows */
	char **argv;                         /* run: COMMAND and its arguments (into argv) */
	size_t argc;
	const char *backends;                /* NULL: not given */
	enum sort_key sort;
	uint32_t *pids;
	size_t n_pids;
	bool pids_given;                     /* --pid given, even as an empty LIST: then it matches no process */
	struct device_selector *devices;
	size_t n_devices;
	char *pid_text, *device_text;        /* the filters as given, for the summary */
	/* hmn fit MODEL */
	const char *model;                   /* MODEL, the one operand */
	uint64_t context, batch, gpus;       /* --context, --batch, --gpus; 0: not given */
	uint64_t ubatch;                     /* --ubatch: tokens a step (llama.cpp's -ub); 0: 512 */
	const char *dtype, *kv_dtype;        /* --dtype, --kv-dtype (names checked); NULL: not given */
	bool train;
	bool text_only;             /* fit: a vision model's tower left out */
	enum attention attention;
	struct size_option memory;           /* --memory: a GPU of SIZE instead of those present */
	double margin;                       /* --margin; 0: not given */
};

/*
 * Parses argv (which getopt may reorder). Returns 0, or -EINVAL with a
 * one-line message (no newline) in error, or -ENOMEM. cli->command and
 * cli->command_given are set as far as they were known, for the message.
 */
int cli_parse(struct cli *cli, int argc, char **argv, char *error, size_t error_size);
void cli_free(struct cli *cli);
/* hmn --help, or hmn COMMAND --help: made from the tables the parser uses. */
void cli_print_help(const struct cli *cli);
/* The exit status of a usage error: 2, or for hmn run 125 (as env, nice, timeout). */
int cli_usage_status(const struct cli *cli);
/* "hmn: MESSAGE" and "Try 'hmn COMMAND --help'." on stderr. */
void print_usage_error(const struct cli *cli, const char *message);

#endif
