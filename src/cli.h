/* The command line, parsed: what the user asked for. */
#ifndef HMN_CLI_H
#define HMN_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum command { COMMAND_FREE, COMMAND_PS };
enum sort_key { SORT_VRAM, SORT_PID, SORT_NAME, SORT_DEVICE };

enum exit_code {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_NO_GPU = 3,
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
	bool help, version, json, verbose, no_header, bytes;
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
