/*
 * hmn: the command-line tool over libhmn. Only this directory prints.
 * main() parses the command line and hands it to the command's file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmn.h"
#include "output.h"
#include "sys.h"
#include "tool.h"

/*
 * What each command runs, and what it needs opened first (as git's
 * commands[]): a context, in which the sources are loaded, and how.
 */
struct command_entry {
	int (*run)(const struct cli *cli, hmn_context *ctx);
	/* Asks no GPU: run with no context, no driver loaded (NULL: never). */
	bool (*asks_no_gpu)(const struct cli *cli);
	bool telemetry;          /* prints GPU rows, which show telemetry in some formats */
	bool remember_processes; /* a process's name, owner, path, command read once, not once a sample */
	bool command_lines;      /* prints process rows, which show command lines in some formats */
	int context_failed;      /* the exit status when the context cannot be made (not a usage error) */
};

/* Planning for a GPU of --memory's size asks no GPU: no driver is loaded. */
static bool fit_planned(const struct cli *cli)
{
	return cli->memory.given;
}

static const struct command_entry commands[] = {
	[COMMAND_FREE] = { .run = cmd_free, .telemetry = true, .context_failed = EXIT_RUNTIME },
	[COMMAND_PS] = { .run = cmd_ps, .command_lines = true, .context_failed = EXIT_RUNTIME },
	[COMMAND_WATCH] = { .run = cmd_watch, .telemetry = true, .remember_processes = true,
			    .command_lines = true, .context_failed = EXIT_RUNTIME },
	/* 125: hmn failed before COMMAND ran. */
	[COMMAND_RUN] = { .run = cmd_run, .context_failed = EXIT_RUN_FAILED },
	[COMMAND_FIT] = { .run = cmd_fit, .asks_no_gpu = fit_planned, .context_failed = EXIT_RUNTIME },
};

/* The context the command needs, into *ret_ctx: EXIT_OK, or the exit status, its message said. */
static int open_context(const struct cli *cli, const struct command_entry *c, hmn_context **ret_ctx)
{
	const char *why = NULL;
	struct hmn_options options = {
		.backends = cli->backends,
		/*
		 * Each warning once: a command that queries again and again (watch,
		 * run), or GPUs and then processes (ps --format prometheus), says a
		 * lost GPU one time, not once a query.
		 */
		.log = tool_log_once,
		.log_level = cli->verbose ? HMN_LOG_INFO : HMN_LOG_WARNING,
		/* Only what prints GPU rows with telemetry asks for it: a plain table costs less. */
		.telemetry = c->telemetry && (cli->format != FORMAT_TABLE || cli->long_format),
		/* A process's name, owner, path and command line read once, not once a sample. */
		.remember_processes = c->remember_processes,
		/* Command lines where they are shown: JSON and CSV, a table with -l; never Prometheus (no label). */
		.commands = c->command_lines && (cli->format == FORMAT_JSON || cli->format == FORMAT_CSV ||
					    (cli->format == FORMAT_TABLE && cli->long_format)),
	};
	int r = hmn_context_new(&options, ret_ctx, &why);
	if (r == 0)
		return EXIT_OK;
	if (r == -EINVAL) {
		/* A --backend the library refused, or a malformed HMN_* variable, which the message names. */
		print_usage_error(cli, why ? why : "invalid backend list");
		return cli_usage_status(cli);
	}
	fprintf(stderr, "hmn: %s\n", strerror(-r));
	return c->context_failed;
}

/* Windows starts in sys-windows.c's wmain, which gives main the arguments in UTF-8. */
int main(int argc, char **argv)
{
	static char out_buffer[1 << 16];
	struct cli cli;
	char error[512]; /* --dtype's refusal names its 30 file types */
	hmn_context *ctx = NULL;
	int r, status;

	setvbuf(stdout, out_buffer, _IOFBF, sizeof(out_buffer));
	r = cli_parse(&cli, argc, argv, error, sizeof(error));
	if (r < 0) {
		if (r == -EINVAL)
			print_usage_error(&cli, error);
		else
			fprintf(stderr, "hmn: %s\n", strerror(-r));
		cli_free(&cli);
		return r == -EINVAL ? cli_usage_status(&cli) : EXIT_RUNTIME;
	}
	if (cli.help || cli.version) {
		if (cli.help)
			cli_print_help(&cli);
		else
			printf("hmn %s\n", hmn_version());
		cli_free(&cli);
		return finish_output(stdout, EXIT_OK);
	}

	const struct command_entry *c = &commands[cli.command];
	if (c->asks_no_gpu && c->asks_no_gpu(&cli)) {
		status = c->run(&cli, NULL);
		cli_free(&cli);
		return status;
	}
	/* Documents for programs, CSV's included: "\n" as the contract says, on Windows too. */
	if (cli.format != FORMAT_TABLE)
		sys_stdout_binary();
	status = open_context(&cli, c, &ctx);
	if (status == EXIT_OK) {
		status = c->run(&cli, ctx);
		hmn_context_free(ctx);
	}
	cli_free(&cli);
	return status;
}
