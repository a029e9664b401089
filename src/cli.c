/*
 * The command line, parsed with getopt_long from one table of options per
 * command; the same tables make each command's --help, so the help names
 * every option the parser takes. Global options stand before or after the
 * command: the words before its name are parsed with the global table, the
 * words after it with the command's and the global one.
 *
 * An option is an entry in a table below (a new kind of value: a case in
 * set_value); a command is a command_spec.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmn.h"

enum value_kind {
	VALUE_FLAG,      /* no value: sets a bool */
	VALUE_SET,       /* no value: sets an enum field to .value (--json) */
	VALUE_CHOICE,    /* one of .choices: sets an enum field to its index */
	VALUE_TEXT,      /* a string, not empty */
	VALUE_DURATION,  /* DURATION, in ms into a uint64_t */
	VALUE_COUNT,     /* a whole number, 1 or more, into a uint64_t */
	VALUE_SIZE,      /* SIZE, into a struct size_option */
	VALUE_PIDS,      /* a LIST of process IDs, added to cli->pids */
	VALUE_DEVICES,   /* a LIST of GPUs, added to cli->devices */
	VALUE_FACTOR,    /* a number from 1 to 10, into a double (--margin) */
	VALUE_DTYPE,     /* a tensor type libhmn knows by name, into a string */
};

struct option_spec {
	const char *name;            /* the long name */
	char short_name;             /* 0: none */
	enum value_kind kind;
	size_t field;                /* offsetof the value in struct cli */
	const char *value_name;      /* in the help: "LIST"; NULL: takes no value */
	const char *help;            /* one line of the help (the docs test keeps it in 80 columns) */
	int value;                   /* VALUE_SET */
	const char *const *choices;  /* VALUE_CHOICE: the names, NULL-terminated */
};

/* Enum fields are written as ints. */
_Static_assert(sizeof(enum output_format) == sizeof(int), "enum output_format is an int");
_Static_assert(sizeof(enum sort_key) == sizeof(int), "enum sort_key is an int");
_Static_assert(sizeof(enum attention) == sizeof(int), "enum attention is an int");
static const char *const formats[] = { "table", "json", "csv", "prometheus", NULL };
static const char *const sort_keys[] = { "vram", "pid", "name", "device", NULL };
static const char *const attentions[] = { "fused", "eager", NULL };

#define OPTION(name_, short_, kind_, field_, value_name_, help_, ...)                                  \
	{ .name = name_, .short_name = short_, .kind = kind_, .field = offsetof(struct cli, field_),    \
	  .value_name = value_name_, .help = help_, __VA_ARGS__ }

static const struct option_spec
	opt_help = OPTION("help", 'h', VALUE_FLAG, help, NULL, "this help"),
	opt_version = OPTION("version", 'V', VALUE_FLAG, version, NULL, "print the version"),
	opt_json = OPTION("json", 0, VALUE_SET, format, NULL, "JSON on stdout (--format json)", .value = FORMAT_JSON),
	opt_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (default), json, csv or prometheus",
			    .choices = formats),
	opt_output = OPTION("output", 'o', VALUE_TEXT, output, "FILE", "write to FILE atomically, not stdout"),
	opt_quiet = OPTION("quiet", 'q', VALUE_FLAG, quiet, NULL, "no summary, peaks or report on stderr"),
	free_quiet = OPTION("quiet", 'q', VALUE_FLAG, quiet, NULL, "with --need, no table: the exit status alone"),
	fit_quiet = OPTION("quiet", 'q', VALUE_FLAG, quiet, NULL, "no table: the exit status alone"),
	opt_backend = OPTION("backend", 0, VALUE_TEXT, backends, "LIST", "nvml, nvidia-smi, drm, dxgi, pdh, metal"),
	opt_verbose = OPTION("verbose", 'v', VALUE_FLAG, verbose, NULL, "what each source found, or why not"),
	opt_device = OPTION("device", 0, VALUE_DEVICES, devices, "LIST", "only these GPUs: 0, 0/2.0, GPU-..., MIG-..."),
	opt_pid = OPTION("pid", 0, VALUE_PIDS, pids, "LIST", "only these process IDs"),
	opt_sort = OPTION("sort", 0, VALUE_CHOICE, sort, "KEY", "vram (default), pid, name or device",
			  .choices = sort_keys),
	opt_no_header = OPTION("no-header", 0, VALUE_FLAG, no_header, NULL, "leave out the header line"),
	opt_bytes = OPTION("bytes", 0, VALUE_FLAG, bytes, NULL, "exact byte counts in the table"),
	opt_long = OPTION("long", 'l', VALUE_FLAG, long_format, NULL, "add utilisation, temperature and power"),
	opt_need = OPTION("need", 0, VALUE_SIZE, need, "SIZE", "exit 4 unless a GPU has SIZE free (40GiB, 25%)"),
	opt_count = OPTION("count", 0, VALUE_COUNT, count, "N", "stop after N samples"),
	opt_duration = OPTION("duration", 0, VALUE_DURATION, duration_ms, "DURATION", "stop after DURATION"),
	watch_interval = OPTION("interval", 0, VALUE_DURATION, interval_ms, "DURATION",
				"time between samples (default 1s)"),
	watch_json = OPTION("json", 0, VALUE_SET, format, NULL, "one JSON object a sample, a line each",
			    .value = FORMAT_JSON),
	watch_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table, json, or prometheus with -o",
			      .choices = formats),
	watch_output = OPTION("output", 'o', VALUE_TEXT, output, "FILE", "each sample replaces FILE atomically"),
	run_interval = OPTION("interval", 0, VALUE_DURATION, interval_ms, "DURATION",
			      "time between samples (default 100ms)"),
	run_json = OPTION("json", 0, VALUE_SET, format, NULL, "the report in JSON, on stderr (or in FILE)",
			  .value = FORMAT_JSON),
	run_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (text, the default) or json",
			    .choices = formats),
	run_output = OPTION("output", 'o', VALUE_TEXT, output, "FILE", "the report to FILE atomically, not stderr"),
	run_limit = OPTION("limit", 0, VALUE_SIZE, limit, "SIZE",
			   "stop the tree past SIZE of GPU memory (8GiB, 50%)"),
	run_kill_after = OPTION("kill-after", 0, VALUE_DURATION, kill_after_ms, "DURATION",
				"SIGKILL what --limit's SIGTERM left (default 10s)"),
	fit_context = OPTION("context", 0, VALUE_COUNT, context, "N", "tokens a sequence (default: as trained)"),
	fit_batch = OPTION("batch", 0, VALUE_COUNT, batch, "N", "sequences at once (default 1)"),
	fit_ubatch = OPTION("ubatch", 0, VALUE_COUNT, ubatch, "N", "tokens a step, llama.cpp's -ub (default 512)"),
	fit_dtype = OPTION("dtype", 0, VALUE_DTYPE, dtype, "T", "price the weights in T: bf16, fp8, int4, q4_k..."),
	fit_kv_dtype = OPTION("kv-dtype", 0, VALUE_DTYPE, kv_dtype, "T", "the KV cache's type (GGUF: f16; else as the model)"),
	fit_train = OPTION("train", 0, VALUE_FLAG, train, NULL, "training: gradients, AdamW, kept activations"),
	fit_attention = OPTION("attention", 0, VALUE_CHOICE, attention, "MODE",
			       "fused (default: no s^2 scores) or eager", .choices = attentions),
	fit_gpus = OPTION("gpus", 0, VALUE_COUNT, gpus, "N", "split over N GPUs (tensor parallel)"),
	fit_memory = OPTION("memory", 0, VALUE_SIZE, memory, "SIZE", "plan for a GPU of SIZE, not those present"),
	fit_margin = OPTION("margin", 0, VALUE_FACTOR, margin, "F", "factor for fragmentation (default 1.1)"),
	fit_json = OPTION("json", 0, VALUE_SET, format, NULL, "JSON on stdout (--format json)", .value = FORMAT_JSON),
	fit_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (default) or json", .choices = formats);

/* Every command takes these, before or after its name. */
static const struct option_spec *const global_options[] = {
	&opt_json, &opt_format, &opt_output, &opt_quiet, &opt_backend, &opt_verbose, &opt_help, &opt_version, NULL,
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

static const struct command_spec commands[] = {
	{ COMMAND_FREE, "free", NULL, "device-wide memory, one row per GPU (the default)",
	  "Device-wide memory, one row per GPU: used, free, total and reserved.",
	  (const struct option_spec *const[]){ &opt_device, &opt_need, &free_quiet, &opt_long, &opt_no_header, &opt_bytes,
					       NULL },
	  false, EXIT_USAGE },
	{ COMMAND_PS, "ps", NULL, "per-process GPU memory, one row per (process, GPU)",
	  "Per-process GPU memory, one row per (process, GPU); a summary line on stderr.",
	  (const struct option_spec *const[]){ &opt_pid, &opt_device, &opt_sort, &opt_no_header, &opt_bytes, NULL },
	  false, EXIT_USAGE },
	{ COMMAND_WATCH, "watch", NULL, "free and ps again every interval, until told to stop",
	  "GPUs and processes again every interval, until N samples, DURATION or Ctrl-C;\n"
	  "then the peaks on stderr. On a terminal the view is redrawn in place.",
	  (const struct option_spec *const[]){ &watch_interval, &opt_count, &opt_duration, &opt_pid, &opt_device,
					       &opt_sort, &opt_long, &opt_no_header, &opt_bytes, &watch_json,
					       &watch_format, &watch_output, NULL },
	  false, EXIT_USAGE },
	{ COMMAND_RUN, "run", "[--] COMMAND [ARG...]",
	  "runs COMMAND; its peak GPU memory on stderr (--json too) or -o FILE",
	  "Runs COMMAND and reports the peak GPU memory (and host memory) that it and every\n"
	  "process it starts held at once, on stderr or in FILE. Options end at COMMAND.\n"
	  "Where no source measures processes (device-wide), --limit is on the rise of the\n"
	  "GPUs' used memory: memory anything else takes on them meanwhile counts too.\n"
	  "hmn exits with COMMAND's status; 124 when --limit ended it, 125 when hmn failed\n"
	  "(its usage errors too), 126 or 127 when COMMAND could not run or was not found.",
	  (const struct option_spec *const[]){ &run_interval, &opt_device, &run_limit, &run_kill_after, &run_json,
					       &run_format, &run_output, NULL },
	  true, EXIT_RUN_FAILED },
	{ COMMAND_FIT, "fit", "MODEL", "how much GPU memory MODEL needs; which GPUs have room",
	  "Estimates the GPU memory MODEL needs from its headers alone (a GGUF file, a\n"
	  ".safetensors file, a folder with config.json, or a config.json) and which GPUs\n"
	  "have room for it now. Exit 0 when it fits on a listed GPU, 4 when on none,\n"
	  "1 when MODEL cannot be read, 3 when no GPU is found and no --memory is given.",
	  (const struct option_spec *const[]){ &fit_context, &fit_batch, &fit_ubatch, &fit_dtype, &fit_kv_dtype, &fit_train,
					       &fit_attention, &fit_gpus, &opt_device, &fit_memory, &fit_margin,
					       &opt_no_header, &opt_bytes, &fit_json, &fit_format, &fit_quiet, NULL },
	  false, EXIT_USAGE },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command_spec *command_named(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

#define OPTIONS_MAX 32 /* a command's own and the global ones (one past it would be dropped: the completions test says so) */
#define LONG_BASE 0x100 /* getopt_long returns LONG_BASE + i for specs[i] named by its long name */

/* One pass of getopt_long: its tables, made from a command's options and the global ones. */
struct parser {
	struct cli *cli;
	const struct command_spec *command;  /* NULL: the global options before a command's name */
	bool implicit;                       /* no command named: the line is hmn free's */
	bool locate_only;                    /* only find where the options end: set nothing */
	const struct option_spec *specs[OPTIONS_MAX];
	size_t n_specs, n_own;
	struct option longopts[OPTIONS_MAX + 1];
	char shortopts[3 + 2 * OPTIONS_MAX];
	char *error;
	size_t error_size;
};

static void add_specs(struct parser *p, const struct option_spec *const *options)
{
	for (; *options; options++) {
		bool shadowed = false;
		for (size_t i = 0; i < p->n_specs; i++)
			shadowed |= strcmp(p->specs[i]->name, (*options)->name) == 0;
		if (!shadowed && p->n_specs < OPTIONS_MAX)
			p->specs[p->n_specs++] = *options;
	}
}

static void parser_init(struct parser *p, struct cli *cli, const struct command_spec *command, bool implicit,
			char *error, size_t error_size)
{
	*p = (struct parser){ cli, command, implicit, .error = error, .error_size = error_size };
	if (command)
		add_specs(p, command->options);
	p->n_own = p->n_specs;
	add_specs(p, global_options);

	/*
	 * '+': options end at the first operand where that is a command's name
	 * or a command line to run; ':' tells a missing value from an unknown option.
	 */
	char *s = p->shortopts;
	if (!command || command->takes_command)
		*s++ = '+';
	*s++ = ':';
	for (size_t i = 0; i < p->n_specs; i++) {
		const struct option_spec *o = p->specs[i];
		p->longopts[i] = (struct option){ o->name, o->value_name ? required_argument : no_argument, NULL,
						  LONG_BASE + (int)i };
		if (o->short_name) {
			*s++ = o->short_name;
			if (o->value_name)
				*s++ = ':';
		}
	}
	*s = '\0';
	p->longopts[p->n_specs] = (struct option){ 0 };
}

/*
 * Starts getopt afresh: glibc re-initialises at optind 0 (reading the new
 * optstring's '+'); BSD and macOS want optreset. mingw-w64's getopt is
 * OpenBSD's, which takes optind 0 for a reset (the Wine tests parse twice).
 */
static void getopt_restart(void)
{
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
	optreset = 1;
	optind = 1;
#else
	optind = 0;
#endif
}

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->error, p->error_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An option as typed, for messages: "--dev" of "--dev=0" (at most 40 bytes), or "-l". */
static void name_typed(char typed[48], const char *word, int letter)
{
	size_t len = word ? strcspn(word, "=") : 2;
	if (len > 40)
		len = 40;
	memcpy(typed, word ? word : (const char[]){ '-', (char)letter }, len);
	typed[len] = '\0';
}

/* An option getopt_long refused, named as it was typed. */
static int option_error(struct parser *p, char **argv)
{
	char typed[48], names[128] = "";
	size_t matches = 0;
	bool elsewhere = false;

	if (p->locate_only)
		return -EINVAL;
	/* optopt: a long option's val (a value missing, or given to a flag), 0 (unknown long), or the letter. */
	if (optopt >= LONG_BASE && optopt < LONG_BASE + (int)p->n_specs) {
		name_typed(typed, argv[optind - 1], 0);
		return fail(p, p->specs[optopt - LONG_BASE]->value_name ? "option '%s' needs a value"
									: "option '%s' takes no value", typed);
	}
	if (optopt == 0) {
		name_typed(typed, argv[optind - 1], 0);
		if (typed[2] == '\0') /* "--=x": no name at all, not a prefix of every option */
			return fail(p, "unknown option '%.40s'", argv[optind - 1]);
		for (size_t i = 0; i < p->n_specs; i++)
			if (strncmp(p->specs[i]->name, typed + 2, strlen(typed + 2)) == 0 && matches++ < 3)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s--%s",
					 matches > 1 ? ", " : "", p->specs[i]->name);
		if (matches > 1)
			return fail(p, "option '%s' is ambiguous (%s%s)", typed, names, matches > 3 ? ", ..." : "");
	} else {
		name_typed(typed, NULL, optopt);
		if (optopt != ':' && optopt != '+' && strchr(p->shortopts, optopt))
			return fail(p, "option '%s' needs a value", typed);
	}
	for (size_t c = 0; c < N_COMMANDS; c++)
		for (const struct option_spec *const *o = commands[c].options; *o; o++)
			elsewhere |= optopt ? (*o)->short_name == optopt : strcmp((*o)->name, typed + 2) == 0;
	if (!elsewhere)
		return fail(p, "unknown option '%s'", typed);
	if (p->implicit) /* hmn --pid 1 ps */
		return fail(p, "option '%s' must follow its command's name", typed);
	return fail(p, "option '%s' is not valid for 'hmn %s'", typed, p->command->name);
}

static int add_pid(struct parser *p, const char *s, size_t len, const char *typed)
{
	struct cli *cli = p->cli;
	uint32_t pid, *more;

	if (!parse_u32(s, len, &pid))
		return fail(p, "invalid PID '%.*s' in %s", (int)(len > 40 ? 40 : len), s, typed);
	if (!(more = realloc(cli->pids, (cli->n_pids + 1) * sizeof(*more))))
		return -ENOMEM;
	cli->pids = more;
	cli->pids[cli->n_pids++] = pid;
	return 0;
}

static int add_device(struct parser *p, const char *s, size_t len, const char *typed)
{
	struct cli *cli = p->cli;
	struct device_selector d = { 0 }, *more;
	int kind = parse_gpu_index(s, len, &d.index, &d.gpu_instance_id, &d.compute_instance_id);

	/* Not an index nor an instance: a UUID, unless it starts as a number. */
	if (kind == 0 && s[0] >= '0' && s[0] <= '9')
		return fail(p, "invalid GPU '%.*s' in %s (an index, GPU/GI.CI, or a UUID)", (int)(len > 40 ? 40 : len),
			    s, typed);
	d.is_index = kind > 0;
	d.is_mig = kind == 2;
	char *text = malloc(len + 1); /* strndup is POSIX: not on Windows */
	if (!text || !(more = realloc(cli->devices, (cli->n_devices + 1) * sizeof(*more)))) {
		free(text);
		return -ENOMEM;
	}
	memcpy(text, s, len);
	text[len] = '\0';
	d.text = text;
	cli->devices = more;
	cli->devices[cli->n_devices++] = d;
	return 0;
}

/* Each comma-separated item of a LIST, added (the option may repeat); an empty item is an error. */
static int add_items(struct parser *p, const char *list, const char *typed, char **text,
		     int (*add)(struct parser *, const char *, size_t, const char *))
{
	for (const char *s = list;; s += strcspn(s, ",") + 1) {
		size_t len = strcspn(s, ",");
		int r = len == 0 ? fail(p, "empty item in %s '%.40s'", typed, list) : add(p, s, len, typed);
		if (r < 0)
			return r;
		if (s[len] == '\0')
			break;
	}
	/* The LIST as given, after those of earlier repeats: the summary line's "matching". */
	size_t old = *text ? strlen(*text) : 0;
	char *more = realloc(*text, old + strlen(list) + 2);
	if (!more)
		return -ENOMEM;
	snprintf(more + old, strlen(list) + 2, "%s%s", old ? "," : "", list);
	*text = more;
	return 0;
}

/* Stores an option's value (NULL for a flag) into the cli. */
static int set_value(struct parser *p, const struct option_spec *o, const char *typed, const char *value)
{
	char *field = (char *)p->cli + o->field;
	uint32_t n;

	switch (o->kind) {
	case VALUE_FLAG:
		*(bool *)field = true;
		return 0;
	case VALUE_SET:
		memcpy(field, &o->value, sizeof(int));
		return 0;
	case VALUE_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (strcmp(value, o->choices[i]) == 0) {
				memcpy(field, &i, sizeof(int));
				return 0;
			}
		return fail(p, "invalid %s '%.40s' (expected %s)", typed, value, o->help); /* the help names the choices */
	case VALUE_TEXT:
		if (!*value)
			return fail(p, "empty value for %s", typed);
		*(const char **)field = value;
		return 0;
	case VALUE_DURATION:
		if (!parse_duration(value, (uint64_t *)field))
			return fail(p, "invalid DURATION '%.40s' for %s (e.g. 250ms, 1.5s, 2m; 1ms or more)", value,
				    typed);
		return 0;
	case VALUE_COUNT:
		if (!parse_u32(value, strlen(value), &n) || n == 0)
			return fail(p, "invalid %s '%.40s' (a whole number, 1 or more)", typed, value);
		*(uint64_t *)field = n;
		return 0;
	case VALUE_SIZE:
		if (!parse_size(value, &((struct size_option *)field)->size))
			return fail(p, "invalid SIZE '%.40s' for %s (e.g. 40GiB, 512M, 1.5T, 25%%)", value, typed);
		((struct size_option *)field)->given = true;
		return 0;
	case VALUE_PIDS:
		return add_items(p, value, typed, &p->cli->pid_text, add_pid);
	case VALUE_DEVICES:
		return add_items(p, value, typed, &p->cli->device_text, add_device);
	case VALUE_FACTOR: {
		char *end;
		double f = strtod(value, &end);
		if (end == value || *end || !(f >= 1.0 && f <= 10.0))
			return fail(p, "invalid %s '%.40s' (a factor from 1 to 10, e.g. 1.2)", typed, value);
		*(double *)field = f;
		return 0;
	}
	case VALUE_DTYPE: {
		enum hmn_dtype dtype;
		if (hmn_dtype_from_name(value, &dtype) < 0)
			return fail(p, "invalid %s '%.40s' (a type such as f16, bf16, fp8, int8, int4, q4_k, q8_0)",
				    typed, value);
		*(const char **)field = value;
		return 0;
	}
	}
	return 0;
}

/*
 * A global option abbreviated ("--b") means the same before and after any
 * command's name: it must not also begin an option of any command ("--b":
 * --bytes as well as --backend), wherever it stands.
 */
static int global_abbreviation(struct parser *p, const struct option_spec *o, const char *typed)
{
	const char *prefix = typed + 2;
	size_t len = strlen(prefix);

	if (p->locate_only || strcmp(prefix, o->name) == 0)
		return 0;
	for (size_t c = 0; c < N_COMMANDS; c++)
		for (const struct option_spec *const *other = commands[c].options; *other; other++)
			if (strncmp((*other)->name, prefix, len) == 0 && strcmp((*other)->name, o->name) != 0)
				return fail(p, "option '%s' is ambiguous (--%s, --%s)", typed, o->name, (*other)->name);
	return 0;
}

/*
 * Parses argv[1..argc) getopt_long's way: bundles, values attached or
 * apart, --opt=value, unambiguous prefixes, "--". *ret_next: the index of
 * the first operand (moved after the options, unless they end at it).
 * Stops at --help and --version.
 */
static int parse_options(struct parser *p, int argc, char **argv, int *ret_next)
{
	getopt_restart();
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, p->shortopts, p->longopts, NULL)) != -1;) {
		const struct option_spec *o = NULL;
		char typed[48];
		int r;

		if (c >= LONG_BASE && c < LONG_BASE + (int)p->n_specs) {
			o = p->specs[c - LONG_BASE];
			/* Named in this word ("--opt" or "--opt=VALUE"), or in the one before its value. */
			name_typed(typed, argv[optind - (o->value_name && optarg == argv[optind - 1] ? 2 : 1)], 0);
		} else {
			name_typed(typed, NULL, c);
			for (size_t i = 0; i < p->n_specs && !o && c != '?' && c != ':'; i++)
				if (p->specs[i]->short_name == c)
					o = p->specs[i];
		}
		if (!o)
			r = option_error(p, argv);
		else if (c >= LONG_BASE && (size_t)(c - LONG_BASE) >= p->n_own &&
			 (r = global_abbreviation(p, o, typed)) < 0)
			; /* a global option's prefix that another command's option has too */
		else
			r = p->locate_only ? 0 : set_value(p, o, typed, o->value_name ? optarg : NULL);
		if (r < 0)
			return r;
		if (!p->locate_only && (p->cli->help || p->cli->version))
			break;
	}
	*ret_next = optind;
	return 0;
}

/*
 * What each command can print (the contract's rules), in one place: NULL
 * when the format suits the command, else why not.
 */
static const char *format_refused(const struct cli *cli)
{
	if (cli->command == COMMAND_WATCH && cli->format == FORMAT_CSV)
		return "hmn watch prints table, json, or prometheus with -o; not csv (a sample is two tables)";
	if (cli->command == COMMAND_WATCH && cli->format == FORMAT_PROMETHEUS && !cli->output)
		return "hmn watch --format prometheus needs -o FILE (each sample replaces it)";
	if (cli->command == COMMAND_RUN && cli->format != FORMAT_TABLE && cli->format != FORMAT_JSON)
		return "hmn run reports as text or --json only";
	if (cli->command == COMMAND_FIT && cli->format != FORMAT_TABLE && cli->format != FORMAT_JSON)
		return "hmn fit prints a table or --json only";
	return NULL;
}

int cli_parse(struct cli *cli, int argc, char **argv, char *error, size_t error_size)
{
	const struct command_spec *command = NULL;
	struct parser p;
	int next = 1, r;

	*cli = (struct cli){ .command = COMMAND_FREE, .sort = SORT_VRAM, .format = FORMAT_TABLE };
	/*
	 * The command's name stands after the global options. An option that is
	 * not global, before any name (hmn -l, hmn --need 40GiB), makes the whole
	 * line hmn free's.
	 */
	parser_init(&p, cli, NULL, false, error, error_size);
	p.locate_only = true;
	if (parse_options(&p, argc, argv, &next) == 0 && next < argc) {
		if (!(command = command_named(argv[next])))
			return fail(&p, "unknown command '%.40s'", argv[next]);
		cli->command = command->command;
		cli->command_given = true;
		/* The global options before it, set now that their command is known (for the messages). */
		parser_init(&p, cli, NULL, false, error, error_size);
		if ((r = parse_options(&p, next, argv, &next)) < 0 || cli->help || cli->version)
			return r;
		argv += next;
		argc -= next;
	}
	parser_init(&p, cli, command ? command : &commands[0], !command, error, error_size);
	if ((r = parse_options(&p, argc, argv, &next)) < 0 || cli->help || cli->version)
		return r;
	if (p.command->takes_command) {
		cli->argv = argv + next;
		cli->argc = (size_t)(argc - next);
		if (cli->argc == 0)
			return fail(&p, "hmn %s needs COMMAND: hmn %s [OPTIONS] %s", p.command->name, p.command->name,
				    p.command->operands);
	} else if (p.command->operands && !p.command->takes_command) {
		/* One operand: hmn fit MODEL. */
		if (next == argc)
			return fail(&p, "hmn %s needs %s: hmn %s [OPTIONS] %s", p.command->name, p.command->operands,
				    p.command->name, p.command->operands);
		if (next + 1 < argc)
			return fail(&p, "unexpected argument '%.40s' (one %s at a time)", argv[next + 1],
				    p.command->operands);
		cli->model = argv[next];
	} else if (next < argc) {
		return fail(&p, command_named(argv[next]) && !command ? "'%.40s' must come before its options"
								       : "unexpected argument '%.40s'", argv[next]);
	}
	if (cli->memory.given && cli->memory.size.is_percent)
		return fail(&p, "--memory takes a size (e.g. 24GiB), not a share of a GPU");
	const char *refused = format_refused(cli);
	if (refused)
		return fail(&p, "%s", refused);
	if (cli->interval_ms == 0)
		cli->interval_ms = cli->command == COMMAND_RUN ? 100 : 1000;
	if (cli->kill_after_ms == 0)
		cli->kill_after_ms = 10000;
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

static const struct command_spec *command_of(const struct cli *cli)
{
	for (size_t i = 0; i < N_COMMANDS && cli->command_given; i++)
		if (commands[i].command == cli->command)
			return &commands[i];
	return NULL;
}

int cli_usage_status(const struct cli *cli)
{
	return command_of(cli) ? command_of(cli)->usage_status : EXIT_USAGE;
}

void print_usage_error(const struct cli *cli, const char *message)
{
	const struct command_spec *c = command_of(cli);
	fprintf(stderr, "hmn: %s\nTry 'hmn %s%s--help'.\n", message, c ? c->name : "", c ? " " : "");
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
	struct parser p;
	char label[64];
	int width = 0;

	parser_init(&p, NULL, c, false, NULL, 0);
	for (size_t i = 0; i < p.n_specs; i++) {
		int n = option_label(p.specs[i], label);
		width = n > width ? n : width;
	}
	if (c) {
		printf("Usage: hmn %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", c->name, c->operands ? " " : "",
		       c->operands ? c->operands : "", c->description);
	} else {
		fputs("Usage: hmn [GLOBAL OPTIONS] [COMMAND] [OPTIONS]\n\n"
		      "How much memory each GPU holds, and how much each process holds on it.\n\nCommands:\n", stdout);
		for (size_t i = 0; i < N_COMMANDS; i++)
			printf("  %-7s%s\n", commands[i].name, commands[i].summary);
		printf("\nGlobal options (before or after the command):\n");
	}
	for (size_t i = 0; i < p.n_specs; i++) {
		if (c && i == p.n_own)
			printf("\nGlobal options:\n");
		option_label(p.specs[i], label);
		printf("%-*s  %s\n", width, label, p.specs[i]->help);
	}
	if (!c)
		fputs("\nExit status: 0 answered, 1 runtime failure, 2 usage error, 3 no GPU found,\n"
		      "4 free --need not met, or no room for hmn fit's model;\n"
		      "hmn run exits with its command's status.\n"
		      "'hmn COMMAND --help' for a command's options; see hmn(1).\n", stdout);
}
