/*
 * The command line's tables: one of options per command, from which both
 * the parser (cli.c) and each command's --help (help.c) are made, so the
 * help names every option the parser takes. An option is an entry in
 * cli-spec.c (a new kind of value: a case in cli.c's set_value); a command
 * is a command_spec.
 */
#ifndef HMN_CLI_SPEC_H
#define HMN_CLI_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

enum value_kind {
	VALUE_FLAG,      /* no value: sets a bool */
	VALUE_SET,       /* no value: sets an enum field to .value (--json) */
	VALUE_CHOICE,    /* one of .choices: sets an enum field to its index plus .value */
	VALUE_TEXT,      /* a string, not empty */
	VALUE_FILE,      /* -o FILE: a string, not empty, not another tool's -o value (pid=, json) */
	VALUE_DURATION,  /* DURATION, in ms into a uint64_t */
	VALUE_COUNT,     /* a whole number, 1 or more, into a uint64_t */
	VALUE_TOKENS,    /* VALUE_COUNT, or one ending in k or K: times 1024 (--context 32k) */
	VALUE_SIZE,      /* SIZE, into a struct size_option */
	VALUE_BYTES,     /* SIZE but N%, into a struct size_option (--memory: no GPU to take a share of) */
	VALUE_PIDS,      /* a LIST of process IDs, added to cli->pids */
	VALUE_DEVICES,   /* a LIST of GPUs, added to cli->devices */
	VALUE_FACTOR,    /* a number from 1 to 10, into a double (--margin) */
	VALUE_DTYPE,     /* a tensor type libhmn knows by name, into a string */
	VALUE_WEIGHTS_DTYPE, /* VALUE_DTYPE or a llama.cpp file type (Q4_K_M), into a string (--dtype) */
};

struct option_spec {
	const char *name;            /* the long name */
	char short_name;             /* 0: none */
	enum value_kind kind;
	size_t field;                /* offsetof the value in struct cli */
	const char *value_name;      /* in the help: "LIST"; NULL: takes no value */
	const char *help;            /* one line of the help (the docs test keeps it in 80 columns) */
	int value;                   /* VALUE_SET; VALUE_CHOICE: the first choice's (0 can say "not given") */
	const char *const *choices;  /* VALUE_CHOICE: the names, NULL-terminated */
};

struct command_spec {
	enum command command;
	const char *name, *operands;   /* operands: in the usage line after [OPTIONS]; NULL: none */
	const char *summary;           /* its line in hmn --help */
	const char *description;       /* hmn COMMAND --help */
	/* Its own options; one with a global option's long name stands for it in this command. */
	const struct option_spec *const *options;
	bool takes_command;            /* its operands are a command line: options end at its first word */
	int usage_status;
};

extern const struct command_spec cli_commands[];
/* --format's names, in enum output_format's order, NULL-terminated. */
extern const char *const cli_format_names[];
extern const size_t cli_n_commands;

/* The command of that name, or NULL. */
const struct command_spec *command_named(const char *name);
/* The command's own entry (hmn free's for a line that named none). */
const struct command_spec *command_spec_of(enum command command);
/* The command the line named, or NULL when it named none. */
const struct command_spec *command_of(const struct cli *cli);

#define OPTIONS_MAX 32 /* a command's own and the global ones (one past it would be dropped: the completions test says so) */

/* A command's options, then the global ones its own do not shadow (same long name): --help's order. */
struct option_set {
	const struct option_spec *specs[OPTIONS_MAX];
	size_t n, n_own;
};
/* command NULL: the global options alone. */
void option_set_init(struct option_set *set, const struct command_spec *command);

#endif
