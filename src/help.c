/* hmn --help, hmn COMMAND --help and the usage errors' lines, made from cli-spec.c's tables. */
#include <stdio.h>

#include "cli-spec.h"
#include "util/text.h"

int cli_usage_status(const struct cli *cli)
{
	return command_of(cli) ? command_of(cli)->usage_status : EXIT_USAGE;
}

void print_usage_error(const struct cli *cli, const char *message)
{
	const struct command_spec *c = command_of(cli);
	char shown[512];

	/* A message quotes what was typed: a newline or an escape in it never reaches the terminal. */
	fprintf(stderr, "hmn: %s\nTry 'hmn %s%s--help'.\n", printable_name(message, shown, sizeof(shown)),
		c ? c->name : "", c ? " " : "");
}

/* "  -o, --output FILE" or "      --json" */
static int option_label(const struct option_spec *o, char buf[64])
{
	return snprintf(buf, 64, "  %c%c%c --%s%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
			o->short_name ? ',' : ' ', o->name, o->value_name ? " " : "", o->value_name ? o->value_name : "");
}

void cli_print_help(const struct cli *cli)
{
	const struct command_spec *c = command_of(cli);
	struct option_set set;
	char label[64];
	int width = 0;

	option_set_init(&set, c);
	for (size_t i = 0; i < set.n; i++) {
		int n = option_label(set.specs[i], label);
		width = n > width ? n : width;
	}
	if (c) {
		printf("Usage: hmn %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", c->name, c->operands ? " " : "",
		       c->operands ? c->operands : "", c->description);
	} else {
		fputs("Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]\n\n"
		      "How much memory each GPU holds, and how much each process holds on it.\n\nCommands:\n", stdout);
		for (size_t i = 0; i < cli_n_commands; i++)
			printf("  %-7s%s\n", cli_commands[i].name, cli_commands[i].summary);
		printf("  %-7s%s\n", "help", "this help, or a command's: hmn help COMMAND");
		printf("\nGlobal options (before or after the command):\n");
	}
	for (size_t i = 0; i < set.n; i++) {
		if (c && i == set.n_own)
			printf("\nGlobal options:\n");
		option_label(set.specs[i], label);
		printf("%-*s  %s\n", width, label, set.specs[i]->help);
	}
	if (!c)
		fputs("\nExit status: 0 answered, 1 runtime failure, 2 usage error, 3 no GPU found,\n"
		      "4 free --need not met, or no room for hmn fit's model;\n"
		      "hmn run exits with its command's status.\n"
		      "'hmn COMMAND --help' for a command's options; see hmn(1).\n", stdout);
}
