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
#include "os.h"
#include "tool.h"

/* Windows starts in os-windows.c's wmain, which gives main the arguments in UTF-8. */
int main(int argc, char **argv)
{
	static char out_buffer[1 << 16];
	struct cli cli;
	char error[256];
	hmn_context *ctx = NULL;
	const char *why = NULL;
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

	/* Planning for a GPU of --memory's size asks no GPU: no driver is loaded. */
	if (cli.command == COMMAND_FIT && cli.memory.given) {
		status = cmd_fit(&cli, NULL);
		cli_free(&cli);
		return status;
	}

	/* Documents for programs: "\n" as the contract says (CSV writes its own "\r\n"). */
	if (cli.format != FORMAT_TABLE)
		sys_stdout_binary();
	bool sampling = cli.command == COMMAND_WATCH || cli.command == COMMAND_RUN;
	struct hmn_options options = {
		.backends = cli.backends,
		/* A command that queries again and again says each warning once. */
		.log = sampling ? tool_log_once : tool_log,
		.log_level = cli.verbose ? HMN_LOG_INFO : HMN_LOG_WARNING,
		/* Only what prints GPU rows with telemetry asks for it: a plain table costs less. */
		.telemetry = (cli.command == COMMAND_FREE || cli.command == COMMAND_WATCH) &&
			     (cli.format != FORMAT_TABLE || cli.long_format),
		/* A process's name, owner and path read once, not once a sample. */
		.remember_processes = cli.command == COMMAND_WATCH,
	};
	r = hmn_context_new(&options, &ctx, &why);
	if (r < 0) {
		if (r == -EINVAL) {
			snprintf(error, sizeof(error), "%s%s", why ? why : "invalid backend list",
				 cli.backends ? "" : " in HMN_BACKENDS");
			print_usage_error(&cli, error);
		} else {
			fprintf(stderr, "hmn: %s\n", strerror(-r));
		}
		status = r == -EINVAL ? cli_usage_status(&cli)
			 : cli.command == COMMAND_RUN ? EXIT_RUN_FAILED : EXIT_RUNTIME;
		cli_free(&cli);
		return status;
	}
	switch (cli.command) {
	case COMMAND_FREE: status = cmd_free(&cli, ctx); break;
	case COMMAND_PS: status = cmd_ps(&cli, ctx); break;
	case COMMAND_WATCH: status = cmd_watch(&cli, ctx); break;
	case COMMAND_RUN: status = cmd_run(&cli, ctx); break;
	case COMMAND_FIT: status = cmd_fit(&cli, ctx); break;
	default: status = EXIT_RUNTIME; break;
	}
	hmn_context_free(ctx);
	cli_free(&cli);
	return status;
}
