/* The command line, parsed: what the user asked for. */
#ifndef HMN_CLI_H
#define HMN_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "units.h"

enum command { COMMAND_FREE, COMMAND_PS, COMMAND_WATCH, COMMAND_RUN };
enum output_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_CSV, FORMAT_PROMETHEUS };
enum sort_key { SORT_VRAM, SORT_PID, SORT_NAME, SORT_DEVICE };

enum exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_GPU = 3,
	EXIT_NOT_ENOUGH = 4,   /* hmn free --need: no listed GPU has that much free */
	/* hmn run, as env(1) and timeout(1) exit. */
	EXIT_RUN_FAILED = 125, /* hmn failed before COMMAND ran */
	EXIT_CANNOT_RUN = 126, /* COMMAND was found but could not run */
	EXIT_NOT_FOUND = 127,  /* COMMAND was not found */
};

/* One --device entry: an index, or a UUID. */
struct device_selector {
	const char *text;    /* as given, for messages */
	bool is_index;
	unsigned index;
};

struct cli {
	enum command command;
	bool command_given;
	bool help, version, verbose, no_header, bytes, long_format;
	enum output_format format;
	const char *output;                  /* -o FILE; NULL: stdout */
	bool has_need;
	struct size_arg need;                /* free --need */
	uint64_t interval_ms;                /* watch, run: 0 until set, then the default */
	uint64_t count;                      /* watch --count; 0: no limit */
	uint64_t duration_ms;                /* watch --duration; 0: no limit */
	char **argv;                         /* run: COMMAND and its arguments (into argv) */
	size_t argc;
	const char *backends;                /* NULL: not given */
	enum sort_key sort;
	uint32_t *pids;
	size_t n_pids;
	struct device_selector *devices;
	size_t n_devices;
	char *pid_text, *device_text;        /* the filters as given, for the summary */
};

/*
 * Parses argv. Returns 0, or -EINVAL with a one-line message (no newline) in
 * error, or -ENOMEM.
 */
int cli_parse(struct cli *cli, int argc, char **argv, char *error, size_t error_size);
void cli_free(struct cli *cli);
void cli_print_help(enum command command, bool command_given);

#endif
