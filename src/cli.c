/*
 * Argument parsing. Global options may stand before or after the command;
 * a command's own options are checked against the command once it is known,
 * so `hmn free --pid 1` gets a message that says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum option_id {
	OPT_HELP, OPT_VERSION, OPT_JSON, OPT_FORMAT, OPT_OUTPUT, OPT_VERBOSE, OPT_BACKEND,
	OPT_DEVICE, OPT_NO_HEADER, OPT_BYTES, OPT_PID, OPT_SORT, OPT_LONG, OPT_NEED,
	OPT_INTERVAL, OPT_COUNT, OPT_DURATION,
};

#define FOR_FREE (1u << COMMAND_FREE)
#define FOR_PS (1u << COMMAND_PS)
#define FOR_WATCH (1u << COMMAND_WATCH)
#define FOR_RUN (1u << COMMAND_RUN)
#define FOR_ALL (FOR_FREE | FOR_PS | FOR_WATCH | FOR_RUN)

struct option_spec {
	const char *long_name;
	char short_name;
	bool takes_value;
	unsigned commands;
	enum option_id id;
};

static const struct option_spec options[] = {
	{ "help", 'h', false, FOR_ALL, OPT_HELP },
	{ "version", 'V', false, FOR_ALL, OPT_VERSION },
	{ "json", 0, false, FOR_ALL, OPT_JSON },
	{ "format", 0, true, FOR_ALL, OPT_FORMAT },
	{ "output", 'o', true, FOR_ALL, OPT_OUTPUT },
	{ "verbose", 'v', false, FOR_ALL, OPT_VERBOSE },
	{ "backend", 0, true, FOR_ALL, OPT_BACKEND },
	{ "device", 0, true, FOR_ALL, OPT_DEVICE },
	{ "no-header", 0, false, FOR_FREE | FOR_PS | FOR_WATCH, OPT_NO_HEADER },
	{ "bytes", 0, false, FOR_FREE | FOR_PS | FOR_WATCH, OPT_BYTES },
	{ "pid", 0, true, FOR_PS | FOR_WATCH, OPT_PID },
	{ "sort", 0, true, FOR_PS | FOR_WATCH, OPT_SORT },
	{ "long", 'l', false, FOR_FREE | FOR_WATCH, OPT_LONG },
	{ "need", 0, true, FOR_FREE, OPT_NEED },
	{ "interval", 0, true, FOR_WATCH | FOR_RUN, OPT_INTERVAL },
	{ "count", 0, true, FOR_WATCH, OPT_COUNT },
	{ "duration", 0, true, FOR_WATCH, OPT_DURATION },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static const char *const command_names[] = {
	[COMMAND_FREE] = "free", [COMMAND_PS] = "ps", [COMMAND_WATCH] = "watch", [COMMAND_RUN] = "run",
};
static const char *const format_names[] = {
	[FORMAT_TABLE] = "table", [FORMAT_JSON] = "json", [FORMAT_CSV] = "csv",
	[FORMAT_PROMETHEUS] = "prometheus",
};

static const char format_help[] =
	"  --json         JSON on stdout instead of the table (--format json)\n"
	"  --format F     table (default), json, csv or prometheus\n"
	"  -o, --output FILE  write to FILE atomically (a temporary file, then rename)\n";

void cli_print_help(enum command command, bool command_given)
{
	if (command_given && command == COMMAND_FREE) {
		fputs("Usage: hmn free [--device LIST] [--need SIZE] [-l] [--no-header] [--bytes] [--format F] [-o FILE]\n"
		      "\n"
		      "Device-wide memory, one row per GPU: used, free, total and reserved.\n"
		      "\n"
		      "  --device LIST  only these GPUs (indices or UUIDs, comma-separated)\n"
		      "  --need SIZE    exit 4 unless a listed GPU has SIZE free (40GiB, 512M, 25%)\n"
		      "  -l, --long     add utilisation, temperature and power\n"
		      "  --no-header    leave out the header line\n"
		      "  --bytes        exact byte counts in the table\n", stdout);
		fputs(format_help, stdout);
		return;
	}
	if (command_given && command == COMMAND_PS) {
		fputs("Usage: hmn ps [--pid LIST] [--device LIST] [--sort KEY] [--no-header] [--bytes] [--format F] [-o FILE]\n"
		      "\n"
		      "Per-process GPU memory, one row per (process, GPU), and a summary line\n"
		      "on stderr.\n"
		      "\n"
		      "  --pid LIST     only these process IDs (comma-separated)\n"
		      "  --device LIST  only these GPUs (indices or UUIDs, comma-separated)\n"
		      "  --sort KEY     vram (default, largest first), pid, name or device\n"
		      "  --no-header    leave out the header line\n"
		      "  --bytes        exact byte counts in the table\n", stdout);
		fputs(format_help, stdout);
		return;
	}
	if (command_given && command == COMMAND_WATCH) {
		fputs("Usage: hmn watch [--interval DURATION] [--count N] [--duration DURATION]\n"
		      "                 [--pid LIST] [--device LIST] [-l] [--json]\n"
		      "\n"
		      "GPUs and processes again every interval, until N samples, DURATION, or\n"
		      "Ctrl-C; then a summary of the peaks on stderr. On a terminal the view is\n"
		      "redrawn in place; --json prints one JSON object a sample (JSON Lines).\n"
		      "\n"
		      "  --interval DURATION  time between samples (default 1s; 250ms, 2m, ...)\n"
		      "  --count N            stop after N samples\n"
		      "  --duration DURATION  stop after DURATION\n"
		      "  --pid LIST           only these processes\n"
		      "  --device LIST        only these GPUs\n"
		      "  -l, --long           add utilisation, temperature and power\n"
		      "  --json               one JSON object a sample (--format json)\n", stdout);
		return;
	}
	if (command_given && command == COMMAND_RUN) {
		fputs("Usage: hmn run [--interval DURATION] [--device LIST] [--json] [-o FILE] -- COMMAND [ARG...]\n"
		      "\n"
		      "Runs COMMAND and reports the peak GPU memory that it and every process it\n"
		      "starts (children, grandchildren, those that detach) held at once. The\n"
		      "report goes to stderr, or to FILE; hmn exits with COMMAND's status.\n"
		      "\n"
		      "  --interval DURATION  time between samples (default 100ms)\n"
		      "  --device LIST        only these GPUs\n"
		      "  --json               the report as one JSON object\n"
		      "  -o, --output FILE    write the report to FILE (atomically)\n", stdout);
		return;
	}
	fputs("Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]\n"
	      "\n"
	      "How much memory each GPU holds, and how much each process holds on it.\n"
	      "\n"
	      "Commands:\n"
	      "  free           device-wide memory, one row per GPU (the default)\n"
	      "  ps             per-process GPU memory, one row per (process, GPU)\n"
	      "  watch          free and ps again every interval, until told to stop\n"
	      "  run -- CMD     runs CMD and reports the peak GPU memory it and all it starts held\n"
	      "\n"
	      "Global options:\n"
	      "  --json           machine output (JSON) on stdout; --format json\n"
	      "  --format F       table (default), json, csv or prometheus\n"
	      "  -o, --output F   write to file F, atomically (a temporary file, then rename)\n"
	      "  --backend LIST   sources to use, in order: nvml, nvidia-smi, drm, dxgi, pdh, metal\n"
	      "  -v, --verbose    say on stderr which sources were tried and why\n"
	      "  -h, --help       this help; 'hmn COMMAND --help' for a command's options\n"
	      "  -V, --version    print the version\n"
	      "\n"
	      "Exit status: 0 answered, 1 runtime failure, 2 usage error, 3 no GPU found,\n"
	      "4 free --need not met; hmn run exits with its command's status.\n"
	      "See hmn(1).\n", stdout);
}

static const struct option_spec *find_long(const char *name, size_t len)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (strlen(options[i].long_name) == len && memcmp(options[i].long_name, name, len) == 0)
			return &options[i];
	return NULL;
}

static const struct option_spec *find_short(char c)
{
	for (size_t i = 0; i < N_OPTIONS; i++)
		if (options[i].short_name == c)
			return &options[i];
	return NULL;
}

/* Appends ",item" (or "item") to a malloc'd string; -ENOMEM on failure. */
static int append_text(char **text, const char *item)
{
	size_t old = *text ? strlen(*text) : 0;
	char *p = realloc(*text, old + strlen(item) + 2);
	if (!p)
		return -ENOMEM;
	if (old)
		p[old++] = ',';
	strcpy(p + old, item);
	*text = p;
	return 0;
}

static bool parse_u32(const char *s, size_t len, uint32_t *ret)
{
	uint64_t v = 0;
	if (len == 0 || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* Calls add for each comma-separated item; an empty item is an error. */
static int for_each_item(struct cli *cli, const char *option, const char *list,
			 int (*add)(struct cli *, const char *, size_t, char *, size_t),
			 char *error, size_t error_size)
{
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			snprintf(error, error_size, "empty item in --%s '%s'", option, list);
			return -EINVAL;
		}
		int r = add(cli, p, len, error, error_size);
		if (r < 0)
			return r;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int add_pid(struct cli *cli, const char *s, size_t len, char *error, size_t error_size)
{
	uint32_t pid;
	if (!parse_u32(s, len, &pid)) {
		snprintf(error, error_size, "invalid PID '%.*s' in --pid", (int)(len > 40 ? 40 : len), s);
		return -EINVAL;
	}
	uint32_t *p = realloc(cli->pids, (cli->n_pids + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	cli->pids = p;
	cli->pids[cli->n_pids++] = pid;
	return 0;
}

static int add_device(struct cli *cli, const char *s, size_t len, char *error, size_t error_size)
{
	struct device_selector d = { 0 };
	uint32_t index;
	char *text = malloc(len + 1); /* strndup is POSIX: not on Windows */

	if (!text)
		return -ENOMEM;
	memcpy(text, s, len);
	text[len] = '\0';
	d.text = text;
	if (parse_u32(s, len, &index)) {
		d.is_index = true;
		d.index = index;
	} else if (len > 0 && s[0] >= '0' && s[0] <= '9') {
		snprintf(error, error_size, "invalid GPU '%.*s' in --device (an index or a UUID)",
			 (int)(len > 40 ? 40 : len), s);
		free(text);
		return -EINVAL;
	}
	struct device_selector *p = realloc(cli->devices, (cli->n_devices + 1) * sizeof(*p));
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	cli->devices = p;
	cli->devices[cli->n_devices++] = d;
	return 0;
}

static int set_sort(struct cli *cli, const char *value, char *error, size_t error_size)
{
	static const char *const keys[] = {
		[SORT_VRAM] = "vram", [SORT_PID] = "pid", [SORT_NAME] = "name", [SORT_DEVICE] = "device",
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(value, keys[i]) == 0) {
			cli->sort = (enum sort_key)i;
			return 0;
		}
	snprintf(error, error_size, "invalid --sort '%.40s' (expected vram, pid, name or device)", value);
	return -EINVAL;
}

static int apply(struct cli *cli, const struct option_spec *o, const char *value,
		 char *error, size_t error_size)
{
	int r;

	switch (o->id) {
	case OPT_HELP: cli->help = true; return 0;
	case OPT_VERSION: cli->version = true; return 0;
	case OPT_JSON: cli->format = FORMAT_JSON; return 0;
	case OPT_LONG: cli->long_format = true; return 0;
	case OPT_OUTPUT:
		if (!*value) {
			snprintf(error, error_size, "--output needs a file name");
			return -EINVAL;
		}
		cli->output = value;
		return 0;
	case OPT_FORMAT:
		for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
			if (strcmp(value, format_names[i]) == 0) {
				cli->format = (enum output_format)i;
				return 0;
			}
		snprintf(error, error_size,
			 "invalid --format '%.40s' (expected table, json, csv or prometheus)", value);
		return -EINVAL;
	case OPT_NEED:
		if (!parse_size(value, &cli->need)) {
			snprintf(error, error_size,
				 "invalid SIZE '%.40s' for --need (e.g. 40GiB, 512M, 1.5T, 25%%)", value);
			return -EINVAL;
		}
		cli->has_need = true;
		return 0;
	case OPT_INTERVAL:
	case OPT_DURATION: {
		uint64_t ms;
		if (!parse_duration(value, &ms)) {
			snprintf(error, error_size,
				 "invalid DURATION '%.40s' for --%s (e.g. 250ms, 1.5s, 2m)", value, o->long_name);
			return -EINVAL;
		}
		*(o->id == OPT_INTERVAL ? &cli->interval_ms : &cli->duration_ms) = ms;
		return 0;
	}
	case OPT_COUNT: {
		uint32_t n;
		if (!parse_u32(value, strlen(value), &n) || n == 0) {
			snprintf(error, error_size, "invalid --count '%.40s' (a number of samples, 1 or more)", value);
			return -EINVAL;
		}
		cli->count = n;
		return 0;
	}
	case OPT_VERBOSE: cli->verbose = true; return 0;
	case OPT_NO_HEADER: cli->no_header = true; return 0;
	case OPT_BYTES: cli->bytes = true; return 0;
	case OPT_BACKEND:
		if (!*value) {
			snprintf(error, error_size, "--backend needs a list of sources");
			return -EINVAL;
		}
		cli->backends = value;
		return 0;
	case OPT_SORT:
		return set_sort(cli, value, error, error_size);
	case OPT_PID:
		r = for_each_item(cli, "pid", value, add_pid, error, error_size);
		return r < 0 ? r : append_text(&cli->pid_text, value);
	case OPT_DEVICE:
		r = for_each_item(cli, "device", value, add_device, error, error_size);
		return r < 0 ? r : append_text(&cli->device_text, value);
	}
	return 0;
}

int cli_parse(struct cli *cli, int argc, char **argv, char *error, size_t error_size)
{
	const struct option_spec *seen[N_OPTIONS * 4];
	size_t n_seen = 0;
	bool command_given = false, options_done = false;
	int r;

	*cli = (struct cli){ .command = COMMAND_FREE, .sort = SORT_VRAM, .format = FORMAT_TABLE };

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		const struct option_spec *o = NULL;

		if (!options_done && strcmp(arg, "--") == 0) {
			options_done = true;
			/* hmn run: what follows is COMMAND, whatever it looks like. */
			if (command_given && cli->command == COMMAND_RUN) {
				cli->argv = argv + i + 1;
				cli->argc = (size_t)(argc - i - 1);
				break;
			}
			continue;
		}
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (command_given && cli->command == COMMAND_RUN) {
				/* hmn run COMMAND ARGS: COMMAND's own options are its own. */
				cli->argv = argv + i;
				cli->argc = (size_t)(argc - i);
				break;
			}
			if (command_given) {
				snprintf(error, error_size, "unexpected argument '%.40s'", arg);
				return -EINVAL;
			}
			size_t c = 0;
			while (c < sizeof(command_names) / sizeof(command_names[0]) && strcmp(arg, command_names[c]) != 0)
				c++;
			if (c == sizeof(command_names) / sizeof(command_names[0])) {
				snprintf(error, error_size, "unknown command '%.40s'", arg);
				return -EINVAL;
			}
			cli->command = (enum command)c;
			command_given = true;
			continue;
		}
		if (arg[1] == '-') {
			const char *eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			o = find_long(arg + 2, len);
			if (!o) {
				snprintf(error, error_size, "unknown option '--%.*s'", (int)(len > 40 ? 40 : len), arg + 2);
				return -EINVAL;
			}
			if (eq && !o->takes_value) {
				snprintf(error, error_size, "option '--%s' takes no value", o->long_name);
				return -EINVAL;
			}
			value = eq ? eq + 1 : NULL;
		} else {
			o = arg[2] == '\0' ? find_short(arg[1]) : NULL;
			if (!o) {
				snprintf(error, error_size, "unknown option '%.40s'", arg);
				return -EINVAL;
			}
		}
		if (o->takes_value && !value) {
			if (i + 1 >= argc) {
				snprintf(error, error_size, "option '--%s' needs a value", o->long_name);
				return -EINVAL;
			}
			value = argv[++i];
		}
		r = apply(cli, o, value, error, error_size);
		if (r < 0)
			return r;
		if (n_seen < sizeof(seen) / sizeof(seen[0]))
			seen[n_seen++] = o;
	}
	/* Now that the command is known, check each option belongs to it. */
	for (size_t i = 0; i < n_seen; i++)
		if (!(seen[i]->commands & (1u << cli->command))) {
			snprintf(error, error_size, "option '--%s' is not valid for 'hmn %s'",
				 seen[i]->long_name, command_names[cli->command]);
			return -EINVAL;
		}
	cli->command_given = command_given;
	if (cli->help || cli->version)
		return 0;
	if (cli->command == COMMAND_RUN && cli->argc == 0) {
		snprintf(error, error_size, "hmn run needs a command to run: hmn run -- COMMAND [ARG...]");
		return -EINVAL;
	}
	if (cli->command == COMMAND_WATCH &&
	    (cli->format == FORMAT_CSV || cli->format == FORMAT_PROMETHEUS)) {
		snprintf(error, error_size, "hmn watch prints --format table or json only");
		return -EINVAL;
	}
	if (cli->command == COMMAND_RUN && cli->format != FORMAT_TABLE && cli->format != FORMAT_JSON) {
		snprintf(error, error_size, "hmn run reports as text or --json only");
		return -EINVAL;
	}
	if (cli->interval_ms == 0)
		cli->interval_ms = cli->command == COMMAND_RUN ? 100 : 1000;
	return 0;
}

void cli_free(struct cli *cli)
{
	for (size_t i = 0; i < cli->n_devices; i++)
		free((char *)cli->devices[i].text);
	free(cli->devices);
	free(cli->pids);
	free(cli->pid_text);
	free(cli->device_text);
}
