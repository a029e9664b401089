/*
 * hmn: the command-line tool over libhmn. Only this directory prints.
 * main() parses the command line and hands it to the command's file.
 */
#include <errno.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmn.h"
#include "tool.h"

static int hmn_main(int argc, char **argv)
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

#ifdef _WIN32
	/* Documents for programs: "\n" as the contract says (CSV writes its own "\r\n"). */
	if (cli.format != FORMAT_TABLE)
		_setmode(_fileno(stdout), _O_BINARY);
#endif
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

#ifdef _WIN32
/*
 * Windows: the arguments as Windows holds them (UTF-16), turned into UTF-8
 * once, which is what the rest of hmn reads (and what hmn run turns back
 * into UTF-16 for COMMAND). A narrow main() would get them in the ANSI code
 * page, where any character outside it is already lost ("?").
 */
int wmain(int argc, wchar_t **wargv);
int wmain(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	for (int i = 0; argv && i < argc; i++) {
		int n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
		argv[i] = n > 0 ? malloc((size_t)n) : NULL;
		if (!argv[i] || WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, argv[i], n, NULL, NULL) <= 0) {
			fprintf(stderr, "hmn: the command line cannot be read as UTF-8\n");
			return EXIT_RUNTIME;
		}
	}
	if (!argv) {
		fprintf(stderr, "hmn: %s\n", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	return hmn_main(argc, argv);
}
#else
int main(int argc, char **argv)
{
	return hmn_main(argc, argv);
}
#endif
