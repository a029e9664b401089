/* The command line's tables: see cli-spec.h. */
#include <stddef.h>
#include <string.h>

#include "cli-spec.h"

/* Enum fields are written as ints. */
_Static_assert(sizeof(enum output_format) == sizeof(int), "enum output_format is an int");
_Static_assert(sizeof(enum sort_key) == sizeof(int), "enum sort_key is an int");
_Static_assert(sizeof(enum attention) == sizeof(int), "enum attention is an int");
_Static_assert(sizeof(enum csv_rows) == sizeof(int), "enum csv_rows is an int");
const char *const cli_format_names[] = { "table", "json", "csv", "prometheus", NULL };
static const char *const sort_keys[] = { "vram", "pid", "name", "device", NULL };
static const char *const attentions[] = { "fused", "eager", NULL };
static const char *const row_kinds[] = { "gpus", "processes", NULL }; /* from ROWS_GPUS */

#define OPTION(name_, short_, kind_, field_, value_name_, help_, ...)                                  \
	{ .name = name_, .short_name = short_, .kind = kind_, .field = offsetof(struct cli, field_),    \
	  .value_name = value_name_, .help = help_, __VA_ARGS__ }

static const struct option_spec
	opt_help = OPTION("help", 'h', VALUE_FLAG, help, NULL, "this help"),
	opt_version = OPTION("version", 'V', VALUE_FLAG, version, NULL, "print the version"),
	opt_json = OPTION("json", 0, VALUE_SET, format, NULL, "JSON on stdout (--format json)", .value = FORMAT_JSON),
	opt_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (default), json, csv or prometheus",
			    .choices = cli_format_names),
	opt_output = OPTION("output", 'o', VALUE_FILE, output, "FILE", "write to FILE atomically, not stdout"),
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
	ps_long = OPTION("long", 'l', VALUE_FLAG, long_format, NULL, "add COMMAND, the command line, last"),
	watch_long = OPTION("long", 'l', VALUE_FLAG, long_format, NULL, "add UTIL, TEMP, POWER and COMMAND"),
	opt_need = OPTION("need", 0, VALUE_SIZE, need, "SIZE", "exit 4 unless a GPU has SIZE free (40GiB, 25%)"),
	free_pick = OPTION("pick", 0, VALUE_COUNT, pick, "N", "print the N GPUs with --need free, most first"),
	run_need = OPTION("need", 0, VALUE_SIZE, need, "SIZE", "with --pick: free memory a picked GPU needs"),
	run_pick = OPTION("pick", 0, VALUE_COUNT, pick, "N", "start COMMAND on N GPUs with --need free"),
	run_hold = OPTION("hold", 0, VALUE_DURATION, hold_us, "DURATION",
			  "keep picked GPUs from other launches (default 30s)"),
	opt_count = OPTION("count", 0, VALUE_COUNT, count, "N", "stop after N samples"),
	opt_duration = OPTION("duration", 0, VALUE_DURATION, duration_us, "DURATION", "stop after DURATION"),
	watch_interval = OPTION("interval", 0, VALUE_DURATION, interval_us, "DURATION",
				"time between samples (default 1s)"),
	watch_json = OPTION("json", 0, VALUE_SET, format, NULL, "one JSON object a sample, a line each",
			    .value = FORMAT_JSON),
	watch_format = OPTION("format", 0, VALUE_CHOICE, format, "F",
			      "table, json, csv (a log), or prometheus with -o", .choices = cli_format_names),
	watch_rows = OPTION("rows", 0, VALUE_CHOICE, rows, "KIND", "gpus (default) or processes, one csv row each",
			    .choices = row_kinds, .value = ROWS_GPUS),
	watch_output = OPTION("output", 'o', VALUE_FILE, output, "FILE", "each sample replaces FILE atomically"),
	run_interval = OPTION("interval", 0, VALUE_DURATION, interval_us, "DURATION",
			      "time between samples (default 100ms)"),
	run_json = OPTION("json", 0, VALUE_SET, format, NULL, "the report in JSON, on stderr (or in FILE)",
			  .value = FORMAT_JSON),
	run_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (text, the default) or json",
			    .choices = cli_format_names),
	run_output = OPTION("output", 'o', VALUE_FILE, output, "FILE", "the report to FILE atomically, not stderr"),
	run_limit = OPTION("limit", 0, VALUE_SIZE, limit, "SIZE",
			   "stop the tree past SIZE (8GiB; 50% of all GPUs)"),
	run_kill_after = OPTION("kill-after", 0, VALUE_DURATION, kill_after_us, "DURATION",
				"SIGKILL what --limit's SIGTERM left (default 10s)"),
	fit_context = OPTION("context", 0, VALUE_TOKENS, context, "N", "tokens a sequence (default: as trained)"),
	fit_batch = OPTION("batch", 0, VALUE_COUNT, batch, "N", "sequences at once (default 1)"),
	fit_ubatch = OPTION("ubatch", 0, VALUE_COUNT, ubatch, "N", "tokens a step, llama.cpp's -ub (default 512)"),
	fit_dtype = OPTION("dtype", 0, VALUE_WEIGHTS_DTYPE, dtype, "T", "price the weights in T: bf16, fp8, int4, Q4_K_M..."),
	fit_kv_dtype = OPTION("kv-dtype", 0, VALUE_DTYPE, kv_dtype, "T", "the KV cache's type (GGUF: f16; else as the model)"),
	fit_train = OPTION("train", 0, VALUE_FLAG, train, NULL, "training: gradients, AdamW, kept activations"),
	fit_text_only = OPTION("text-only", 0, VALUE_FLAG, text_only, NULL,
			       "a vision model without its image tower (no vision part)"),
	fit_attention = OPTION("attention", 0, VALUE_CHOICE, attention, "MODE",
			       "fused (default: no s^2 scores) or eager", .choices = attentions),
	fit_gpus = OPTION("gpus", 0, VALUE_COUNT, gpus, "N", "split over N GPUs (tensor parallel)"),
	fit_memory = OPTION("memory", 0, VALUE_BYTES, memory, "SIZE", "plan for a GPU of SIZE, not those present"),
	fit_margin = OPTION("margin", 0, VALUE_FACTOR, margin, "F", "factor for fragmentation (default 1.1)"),
	fit_format = OPTION("format", 0, VALUE_CHOICE, format, "F", "table (default) or json", .choices = cli_format_names);

/* Every command takes these, before or after its name. */
static const struct option_spec *const global_options[] = {
	&opt_json, &opt_format, &opt_output, &opt_quiet, &opt_backend, &opt_verbose, &opt_help, &opt_version, NULL,
};


const struct command_spec cli_commands[] = {
	{ COMMAND_FREE, "free", NULL, "device-wide memory, one row per GPU (the default)",
	  "Device-wide memory, one row per GPU: used, free, total and reserved.",
	  (const struct option_spec *const[]){ &opt_device, &opt_need, &free_pick, &free_quiet, &opt_long, &opt_no_header,
					       &opt_bytes, NULL },
	  false, EXIT_USAGE },
	{ COMMAND_PS, "ps", NULL, "per-process GPU memory, one row per (process, GPU)",
	  "Per-process GPU memory, one row per (process, GPU); a summary line on stderr.",
	  (const struct option_spec *const[]){ &opt_pid, &opt_device, &opt_sort, &ps_long, &opt_no_header, &opt_bytes,
					       NULL },
	  false, EXIT_USAGE },
	{ COMMAND_WATCH, "watch", NULL, "free and ps again every interval, until told to stop",
	  "GPUs and processes again every interval, until N samples, DURATION or Ctrl-C;\n"
	  "then the peaks on stderr. On a terminal the view is redrawn in place; q ends it.",
	  (const struct option_spec *const[]){ &watch_interval, &opt_count, &opt_duration, &opt_pid, &opt_device,
					       &opt_sort, &watch_long, &opt_no_header, &opt_bytes, &watch_json,
					       &watch_format, &watch_rows, &watch_output, NULL },
	  false, EXIT_USAGE },
	{ COMMAND_RUN, "run", "[--] COMMAND [ARG...]",
	  "runs COMMAND; its peak GPU memory on stderr (--json too) or -o FILE",
	  "Runs COMMAND and reports the peak GPU memory (and host memory) that it and every\n"
	  "process it starts held at once, on stderr or in FILE. Options end at COMMAND.\n"
	  "Where no source measures processes (device-wide), --limit is on the rise of the\n"
	  "GPUs' used memory: memory anything else takes on them meanwhile counts too.\n"
	  "hmn exits with COMMAND's status; 124 when --limit ended it, 125 when hmn failed\n"
	  "(its usage errors too), 126 or 127 when COMMAND could not run or was not found.",
	  (const struct option_spec *const[]){ &run_interval, &opt_device, &run_need, &run_pick, &run_hold, &run_limit,
					       &run_kill_after, &run_json, &run_format, &run_output, NULL },
	  true, EXIT_RUN_FAILED },
	{ COMMAND_FIT, "fit", "MODEL", "how much GPU memory MODEL needs; which GPUs have room",
	  "Estimates the GPU memory MODEL needs from its headers alone (a GGUF file, a\n"
	  ".safetensors file, a folder with config.json and safetensors, a folder of one\n"
	  "GGUF model, or a config.json) and which GPUs have room for it now. Exit 0 when\n"
	  "it fits on a listed GPU, 4 when on none, 1 when MODEL cannot be read, 3 when\n"
	  "no GPU is found and no --memory is given (--memory SIZE plans without one).",
	  (const struct option_spec *const[]){ &fit_context, &fit_batch, &fit_ubatch, &fit_dtype, &fit_kv_dtype, &fit_train,
					       &fit_text_only, &fit_attention, &fit_gpus, &opt_device, &fit_memory, &fit_margin,
					       &opt_no_header, &opt_bytes, &opt_json, &fit_format, &fit_quiet, NULL },
	  false, EXIT_USAGE },
};
const size_t cli_n_commands = sizeof(cli_commands) / sizeof(cli_commands[0]);

const struct command_spec *command_named(const char *name)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (strcmp(cli_commands[i].name, name) == 0)
			return &cli_commands[i];
	return NULL;
}

const struct command_spec *command_spec_of(enum command command)
{
	for (size_t i = 0; i < cli_n_commands; i++)
		if (cli_commands[i].command == command)
			return &cli_commands[i];
	return NULL;
}

const struct command_spec *command_of(const struct cli *cli)
{
	return cli->command_given ? command_spec_of(cli->command) : NULL;
}

static void add_specs(struct option_set *set, const struct option_spec *const *options)
{
	for (; *options; options++) {
		bool shadowed = false;
		for (size_t i = 0; i < set->n; i++)
			shadowed |= strcmp(set->specs[i]->name, (*options)->name) == 0;
		if (!shadowed && set->n < OPTIONS_MAX)
			set->specs[set->n++] = *options;
	}
}

void option_set_init(struct option_set *set, const struct command_spec *command)
{
	*set = (struct option_set){ .n = 0 };
	if (command)
		add_specs(set, command->options);
	set->n_own = set->n;
	add_specs(set, global_options);
}
