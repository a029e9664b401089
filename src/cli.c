/*
 * The command line, parsed with getopt_long from cli-spec.c's tables (one
 * of options per command; help.c makes --help from the same). Global
 * options stand before or after the command: the words before its name are
 * parsed with the global table, the words after it with the command's and
 * the global one.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli-spec.h"
#include "hmn-model.h"
#include "hmn.h"
#include "pick.h"
#include "sys.h"
#include "util/clock.h"
#include "util/text.h"

#define LONG_BASE 0x100 /* getopt_long returns LONG_BASE + i for specs[i] named by its long name */

/* One pass of getopt_long: its tables, made from a command's options and the global ones. */
struct parser {
	struct cli *cli;
	const struct command_spec *command;  /* NULL: the global options before a command's name */
	bool implicit;                       /* no command named: the line is hmn free's */
	bool locate_only;                    /* only find where the options end: set nothing */
	struct option_set set;
	struct option longopts[OPTIONS_MAX + 1];
	char shortopts[3 + 2 * OPTIONS_MAX];
	char *error;
	size_t error_size;
};

static void parser_init(struct parser *p, struct cli *cli, const struct command_spec *command, bool implicit,
			char *error, size_t error_size)
{
	*p = (struct parser){ cli, command, implicit, .error = error, .error_size = error_size };
	option_set_init(&p->set, command);

	/*
	 * '+': options end at the first operand where that is a command's name
	 * or a command line to run; ':' tells a missing value from an unknown option.
	 */
	char *s = p->shortopts;
	if (!command || command->takes_command)
		*s++ = '+';
	*s++ = ':';
	for (size_t i = 0; i < p->set.n; i++) {
		const struct option_spec *o = p->set.specs[i];
		p->longopts[i] = (struct option){ o->name, o->value_name ? required_argument : no_argument, NULL,
						  LONG_BASE + (int)i };
		if (o->short_name) {
			*s++ = o->short_name;
			if (o->value_name)
				*s++ = ':';
		}
	}
	*s = '\0';
	p->longopts[p->set.n] = (struct option){ 0 };
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
	if (optopt >= LONG_BASE && optopt < LONG_BASE + (int)p->set.n) {
		name_typed(typed, argv[optind - 1], 0);
		return fail(p, p->set.specs[optopt - LONG_BASE]->value_name ? "option '%s' needs a value"
									: "option '%s' takes no value", typed);
	}
	if (optopt == 0) {
		name_typed(typed, argv[optind - 1], 0);
		if (typed[2] == '\0') /* "--=x": no name at all, not a prefix of every option */
			return fail(p, "unknown option '%.40s'", argv[optind - 1]);
		for (size_t i = 0; i < p->set.n; i++)
			if (strncmp(p->set.specs[i]->name, typed + 2, strlen(typed + 2)) == 0 && matches++ < 3)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s--%s",
					 matches > 1 ? ", " : "", p->set.specs[i]->name);
		if (matches > 1)
			return fail(p, "option '%s' is ambiguous (%s%s)", typed, names, matches > 3 ? ", ..." : "");
	} else {
		name_typed(typed, NULL, optopt);
		if (optopt != ':' && optopt != '+' && strchr(p->shortopts, optopt))
			return fail(p, "option '%s' needs a value", typed);
	}
	for (size_t c = 0; c < cli_n_commands; c++)
		for (const struct option_spec *const *o = cli_commands[c].options; *o; o++)
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
	int kind = parse_gpu_index(s, len, &d.place.index, &d.place.gpu_instance_id, &d.place.compute_instance_id);

	/* Not an index nor an instance: a UUID, unless it starts as a number. */
	if (kind == 0 && s[0] >= '0' && s[0] <= '9')
		return fail(p, "invalid GPU '%.*s' in %s (an index, GPU/GI.CI, or a UUID)", (int)(len > 40 ? 40 : len),
			    s, typed);
	d.is_index = kind > 0;
	d.place.is_mig = kind == 2;
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

/*
 * Each item of a LIST, added (the option may repeat). A --device LIST is
 * comma-separated, an empty item an error. A --pid LIST is what shells
 * make: commas, blanks and newlines all separate (--pid "$(pgrep x)"), and
 * an empty one matches no process, so a kill pipeline fed nothing kills nothing.
 */
static int add_items(struct parser *p, const char *list, const char *typed, const char *separators,
		     int (*add)(struct parser *, const char *, size_t, const char *))
{
	bool lenient = strchr(separators, ' ') != NULL;

	for (const char *s = list;; s += strcspn(s, separators) + 1) {
		size_t len = strcspn(s, separators);
		int r = len > 0 ? add(p, s, len, typed)
		      : lenient ? 0
				: fail(p, "empty item in %s '%.40s'", typed, list);
		if (r < 0)
			return r;
		if (s[len] == '\0')
			break;
	}
	return 0;
}

/* The LIST as given, after those of earlier repeats: the summary line's "matching". */
static int remember_list(char **text, const char *list)
{
	size_t old = *text ? strlen(*text) : 0;
	char *more = realloc(*text, old + strlen(list) + 2);
	if (!more)
		return -ENOMEM;
	snprintf(more + old, strlen(list) + 2, "%s%s", old ? "," : "", list);
	*text = more;
	return 0;
}

/* The --pid LISTs as parsed, comma-separated ("none" for an empty one): never a newline the user's shell put in. */
static int remember_pids(struct cli *cli)
{
	size_t size = cli->n_pids * 11 + sizeof("none");
	char *text = malloc(size);
	size_t at = 0;

	if (!text)
		return -ENOMEM;
	strcpy(text, "none");
	for (size_t i = 0; i < cli->n_pids; i++)
		at += (size_t)snprintf(text + at, size - at, "%s%" PRIu32, i ? "," : "", cli->pids[i]);
	free(cli->pid_text);
	cli->pid_text = text;
	return 0;
}

/*
 * What -o means to other tools, never a file hmn should write: ps's columns
 * (-o pid=,comm), kubectl's formats (-o json, -o wide), hmn's own formats and
 * columns. Written to a file named so, the output would vanish while the
 * pipeline after it (xargs kill) quietly got nothing.
 */
static const char *const other_format_words[] = { "yaml", "yml", "wide", "name", "jsonpath", "text", "tsv", NULL };
static const char *const column_words[] = { "gpu",   "used", "free", "total", "reserved", "source",  "pid",
					    "user",  "type", "vram", "shared", "ram",   "util",     "temp",  "power",
					    "command", "comm", "args", "cmd",  "rss",   "uuid",     NULL };

static bool is_word_of(const char *value, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (strcasecmp(value, words[i]) == 0)
			return true;
	return false;
}

static int check_output_name(struct parser *p, const char *typed, const char *value)
{
	if (!*value)
		return fail(p, "empty value for %s", typed);
	if (sys_names_a_path(value))
		return 0; /* ./json: a file named json, as asked */
	for (size_t i = 0; cli_format_names[i]; i++) /* hmn's own: --format is what was meant */
		if (strcasecmp(value, cli_format_names[i]) == 0)
			return fail(p, "%s %.40s would write a file named '%.40s': did you mean --format %s? (a file of "
				    "that name: %s ./%.40s)", typed, value, value, cli_format_names[i], typed, value);
	if (is_word_of(value, other_format_words))
		return fail(p, "%s %.40s would write a file named '%.40s': hmn's formats are --format table, json, csv "
			    "or prometheus (a file of that name: %s ./%.40s)", typed, value, value, typed, value);
	if (strpbrk(value, "=,") || is_word_of(value, column_words))
		return fail(p, "%s %.40s would write a file named '%.40s': hmn's -o names a file, not columns (a "
			    "file of that name: %s ./%.40s)", typed, value, value, typed, value);
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
		/* In any case (--format JSON), as the contract takes every enumerated value. */
		for (int i = 0; o->choices[i]; i++)
			if (strcasecmp(value, o->choices[i]) == 0) {
				int chosen = i + o->value;
				memcpy(field, &chosen, sizeof(int));
				return 0;
			}
		return fail(p, "invalid %s '%.40s' (expected %s)", typed, value, o->help); /* the help names the choices */
	case VALUE_FILE:
		if (check_output_name(p, typed, value) < 0)
			return -EINVAL;
		*(const char **)field = value;
		return 0;
	case VALUE_TEXT:
		if (!*value)
			return fail(p, "empty value for %s", typed);
		*(const char **)field = value;
		return 0;
	case VALUE_DURATION:
		if (!parse_duration(value, (uint64_t *)field))
			return fail(p, "invalid DURATION '%.40s' for %s (e.g. 250ms, 1.5s, 2m; 1ms to 366d)", value,
				    typed);
		return 0;
	case VALUE_TOKENS: {
		/* 32k: the 32768 a model card says as "32K context"; 1024 as llama.cpp's and vLLM's own. */
		size_t len = strlen(value);
		bool kilo = len > 1 && (value[len - 1] == 'k' || value[len - 1] == 'K');
		if (!parse_u32(value, kilo ? len - 1 : len, &n) || n == 0 || (kilo && n > UINT32_MAX / 1024))
			return fail(p, "invalid %s '%.40s' (a whole number, 1 to 4294967295, or of k: 32k is 32768)",
				    typed, value);
		*(uint64_t *)field = kilo ? (uint64_t)n * 1024 : n;
		return 0;
	}
	case VALUE_COUNT:
		if (!parse_u32(value, strlen(value), &n) || n == 0)
			return fail(p, "invalid %s '%.40s' (a whole number, 1 to 4294967295)", typed, value);
		*(uint64_t *)field = n;
		return 0;
	case VALUE_SIZE:
		if (!parse_size(value, &((struct size_option *)field)->size))
			return fail(p, "invalid SIZE '%.40s' for %s (e.g. 40GiB, 512M, 1.5T, 25%%)", value, typed);
		((struct size_option *)field)->given = true;
		return 0;
	case VALUE_BYTES:
		if (!parse_size(value, &((struct size_option *)field)->size))
			return fail(p, "invalid SIZE '%.40s' for %s (e.g. 24GiB, 512M, 1.5T)", value, typed);
		if (((struct size_option *)field)->size.is_percent)
			return fail(p, "%s takes a size (e.g. 24GiB), not a share of a GPU", typed);
		/*
		 * A SIZE without a unit is bytes (the contract's rule): --memory 24
		 * planned for a GPU of 24 bytes and said "FREE 0MiB ... no". No GPU
		 * has under a MiB, so that is a slip, said with what was meant.
		 */
		uint64_t bytes = ((struct size_option *)field)->size.bytes;
		if (bytes < 1024 * 1024) {
			bool bare = bytes && value[strspn(value, "0123456789.")] == '\0';
			return fail(p, "%s %.40s is %" PRIu64 " byte%s: %s%.40s%s", typed, value, bytes,
				    bytes == 1 ? "" : "s",
				    bare ? "did you mean " : "a GPU has more than 1MiB (e.g. ", bare ? value : "24GiB",
				    bare ? "GiB?" : ")");
		}
		((struct size_option *)field)->given = true;
		return 0;
	case VALUE_PIDS: {
		int r = add_items(p, value, typed, ", \t\r\n", add_pid);
		p->cli->pids_given = true;
		return r < 0 ? r : remember_pids(p->cli);
	}
	case VALUE_DEVICES: {
		int r = add_items(p, value, typed, ",", add_device);
		return r < 0 ? r : remember_list(&p->cli->device_text, value);
	}
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
			return fail(p, "invalid %s '%.40s' (a GGUF's cache: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl,"
				    " q5_0, q5_1; safetensors': f32, f16, bf16, fp8)", typed, value);
		*(const char **)field = value;
		return 0;
	}
	case VALUE_WEIGHTS_DTYPE: {
		enum hmn_dtype dtype;
		/*
		 * fp4 (E2M1) named alone is every element in 4 bits without the
		 * block scales MXFP4 and NVFP4 keep, embeddings too: a load no
		 * engine makes (it priced Llama 3.1 8B at 4.0 GB), documented
		 * nowhere. MXFP4 and NVFP4 checkpoints are priced as stored.
		 */
		if (hmn_weights_dtype_from_name(value, &dtype) == 0 && dtype == HMN_DTYPE_F4)
			return fail(p, "invalid %s '%.40s': 4-bit floats without block scales are no load an engine "
				    "makes (an MXFP4 or NVFP4 checkpoint is priced as stored; llama.cpp's: --dtype "
				    "MXFP4_MOE)", typed, value);
		if (hmn_weights_dtype_from_name(value, &dtype) < 0)
			return fail(p, "invalid %s '%.40s' (f32, bf16, f16, fp8, int8, int4, a GGUF type such as q4_k,"
				    " or a llama.cpp file type: Q2_K, Q2_K_S, Q3_K_S, Q3_K_M, Q3_K_L, Q4_0, Q4_1, Q4_K_S,"
				    " Q4_K_M, Q5_0, Q5_1, Q5_K_S, Q5_K_M, Q6_K, Q8_0, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,"
				    " IQ2_M, IQ3_XXS, IQ3_XS, IQ3_S, IQ3_M, IQ4_XS, IQ4_NL, TQ1_0, TQ2_0, MXFP4_MOE;"
				    " any case)", typed, value);
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
	for (size_t c = 0; c < cli_n_commands; c++)
		for (const struct option_spec *const *other = cli_commands[c].options; *other; other++)
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
	sys_getopt_restart(); /* a second parse starts afresh */
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, p->shortopts, p->longopts, NULL)) != -1;) {
		const struct option_spec *o = NULL;
		char typed[48];
		int r;

		if (c >= LONG_BASE && c < LONG_BASE + (int)p->set.n) {
			o = p->set.specs[c - LONG_BASE];
			/* Named in this word ("--opt" or "--opt=VALUE"), or in the one before its value. */
			name_typed(typed, argv[optind - (o->value_name && optarg == argv[optind - 1] ? 2 : 1)], 0);
		} else {
			name_typed(typed, NULL, c);
			for (size_t i = 0; i < p->set.n && !o && c != '?' && c != ':'; i++)
				if (p->set.specs[i]->short_name == c)
					o = p->set.specs[i];
		}
		if (!o)
			r = option_error(p, argv);
		else if (c >= LONG_BASE && (size_t)(c - LONG_BASE) >= p->set.n_own &&
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
	if (cli->rows != ROWS_NOT_GIVEN && cli->format != FORMAT_CSV)
		return "--rows chooses what a row of hmn watch's csv log is: it needs --format csv";
	if (cli->command == COMMAND_WATCH && cli->format == FORMAT_PROMETHEUS && !cli->output)
		return "hmn watch --format prometheus needs -o FILE (each sample replaces it)";
	if (cli->command == COMMAND_RUN && cli->format != FORMAT_TABLE && cli->format != FORMAT_JSON)
		return "hmn run reports as text or --json only";
	if (cli->command == COMMAND_FIT && cli->format != FORMAT_TABLE && cli->format != FORMAT_JSON)
		return "hmn fit prints a table or --json only";
	return NULL;
}

/*
 * hmn help [COMMAND]: hmn --help, or hmn COMMAND --help (as git and cargo
 * take it). words: what follows "help".
 */
static int help_command(struct parser *p, int n, char **words)
{
	const struct command_spec *command = n > 0 && strcmp(words[0], "help") != 0 ? command_named(words[0]) : NULL;

	if (n > 0 && !command && strcmp(words[0], "help") != 0)
		return fail(p, "unknown command '%.40s'", words[0]);
	if (n > 1)
		return fail(p, "unexpected argument '%.40s' (hmn help [COMMAND])", words[1]);
	if (command) {
		p->cli->command = command->command;
		p->cli->command_given = true;
	}
	p->cli->help = true;
	return 0;
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
		if (strcmp(argv[next], "help") == 0)
			return help_command(&p, argc - next - 1, argv + next + 1);
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
	parser_init(&p, cli, command ? command : &cli_commands[0], !command, error, error_size);
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
	/* Options that another one makes moot are refused, never silently dropped. */
	if (cli->memory.given && cli->n_devices)
		return fail(&p, "--device chooses among the GPUs present; --memory plans for one of its own instead");
	if (cli->kill_after_us && !cli->limit.given)
		return fail(&p, "--kill-after is how long after --limit's SIGTERM SIGKILL comes: it needs --limit");
	if (cli->pick > PICK_HOLDS_MAX)
		return fail(&p, "--pick %" PRIu64 ": at most %d GPUs", cli->pick, PICK_HOLDS_MAX);
	if (cli->pick && !cli->need.given)
		return fail(&p, "--pick N needs --need SIZE: the free memory each picked GPU must have");
	if (cli->command == COMMAND_RUN && cli->need.given && !cli->pick)
		return fail(&p, "--need on hmn run goes with --pick N: the GPUs COMMAND is started on");
	if (cli->hold_us && !cli->pick)
		return fail(&p, "--hold is how long a picked GPU is kept from other launches: it needs --pick N");
	if (cli->hold_us > PICK_HOLD_MAX_US)
		return fail(&p, "--hold: at most 1h (a launch that takes longer to start holds no GPU that long)");
	/* The lock every launch shares: a relative path would be a different file in each directory. */
	const char *lock = cli->pick ? hmn_trusted_getenv("HMN_PICK_LOCK") : NULL;
	char shown[48];
	if (lock && *lock && !hmn_path_is_absolute(lock))
		return fail(&p, "HMN_PICK_LOCK: '%s' is not an absolute path (launches elsewhere would not share it)",
			    printable_name(lock, shown, sizeof(shown)));
	if (cli->command == COMMAND_FREE && cli->pick && cli->format != FORMAT_TABLE)
		return fail(&p, "--pick prints one line of GPU ids (for CUDA_VISIBLE_DEVICES): it takes no --format");
	const char *refused = format_refused(cli);
	if (refused)
		return fail(&p, "%s", refused);
	if (cli->interval_us == 0)
		cli->interval_us = (cli->command == COMMAND_RUN ? 100 : 1000) * CLOCK_US_PER_MS;
	if (cli->kill_after_us == 0)
		cli->kill_after_us = 10 * CLOCK_US_PER_S;
	if (cli->hold_us == 0)
		cli->hold_us = PICK_HOLD_DEFAULT_US;
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

