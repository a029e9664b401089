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
	OPT_HELP, OPT_VERSION, OPT_JSON, OPT_VERBOSE, OPT_BACKEND,
	OPT_DEVICE, OPT_NO_HEADER, OPT_BYTES, OPT_PID, OPT_SORT,
};

#define FOR_FREE (1u << COMMAND_FREE)
#define FOR_PS (1u << COMMAND_PS)
#define FOR_ALL (FOR_FREE | FOR_PS)

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
	{ "verbose", 'v', false, FOR_ALL, OPT_VERBOSE },
	{ "backend", 0, true, FOR_ALL, OPT_BACKEND },
	{ "device", 0, true, FOR_ALL, OPT_DEVICE },
	{ "no-header", 0, false, FOR_ALL, OPT_NO_HEADER },
	{ "bytes", 0, false, FOR_ALL, OPT_BYTES },
	{ "pid", 0, true, FOR_PS, OPT_PID },
	{ "sort", 0, true, FOR_PS, OPT_SORT },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static const char *const command_names[] = { [COMMAND_FREE] = "free", [COMMAND_PS] = "ps" };

void cli_print_help(enum command command, bool command_given)
{
	if (command_given && command == COMMAND_FREE) {
		fputs("Usage: hmn free [--device LIST] [--no-header] [--bytes] [--json]\n"
		      "\n"
		      "Device-wide memory, one row per GPU: used, free, total and reserved.\n"
		      "\n"
		      "  --device LIST  only these GPUs (indices or UUIDs, comma-separated)\n"
		      "  --no-header    leave out the header line\n"
		      "  --bytes        exact byte counts in the table\n"
		      "  --json         one JSON array on stdout instead of the table\n", stdout);
		return;
	}
	if (command_given && command == COMMAND_PS) {
		fputs("Usage: hmn ps [--pid LIST] [--device LIST] [--sort KEY] [--no-header] [--bytes] [--json]\n"
		      "\n"
		      "Per-process GPU memory, one row per (process, GPU), and a summary line\n"
		      "on stderr.\n"
		      "\n"
		      "  --pid LIST     only these process IDs (comma-separated)\n"
		      "  --device LIST  only these GPUs (indices or UUIDs, comma-separated)\n"
		      "  --sort KEY     vram (default, largest first), pid, name or device\n"
		      "  --no-header    leave out the header line\n"
		      "  --bytes        exact byte counts in the table\n"
		      "  --json         one JSON array on stdout instead of the table\n", stdout);
		return;
	}
	fputs("Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]\n"
	      "\n"
	      "How much memory each GPU holds, and how much each process holds on it.\n"
	      "\n"
	      "Commands:\n"
	      "  free           device-wide memory, one row per GPU (the default)\n"
	      "  ps             per-process GPU memory, one row per (process, GPU)\n"
	      "\n"
	      "Global options:\n"
	      "  --json           machine output (a JSON array) on stdout\n"
	      "  --backend LIST   sources to use, in order: nvml, nvidia-smi, drm, dxgi, pdh, metal\n"
	      "  -v, --verbose    say on stderr which sources were tried and why\n"
	      "  -h, --help       this help; 'hmn COMMAND --help' for a command's options\n"
	      "  -V, --version    print the version\n"
	      "\n"
	      "Exit status: 0 answered, 1 runtime failure, 2 usage error, 3 no GPU found.\n"
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
	case OPT_JSON: cli->json = true; return 0;
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

	*cli = (struct cli){ .command = COMMAND_FREE, .sort = SORT_VRAM };

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		const struct option_spec *o = NULL;

		if (!options_done && strcmp(arg, "--") == 0) {
			options_done = true;
			continue;
		}
		if (options_done || arg[0] != '-' || arg[1] == '\0') {
			if (command_given) {
				snprintf(error, error_size, "unexpected argument '%.40s'", arg);
				return -EINVAL;
			}
			if (strcmp(arg, "free") == 0)
				cli->command = COMMAND_FREE;
			else if (strcmp(arg, "ps") == 0)
				cli->command = COMMAND_PS;
			else {
				snprintf(error, error_size, "unknown command '%.40s'", arg);
				return -EINVAL;
			}
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
