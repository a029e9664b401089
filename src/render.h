/* The renderers of the one data model, one file per format, chosen in render.c. */
#ifndef HMN_RENDER_H
#define HMN_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hmn-model.h"
#include "hmn.h"
#include "pick.h"

struct render_options {
	bool no_header;
	bool bytes;
	bool long_format;     /* -l: free's utilisation, temperature, power; ps's command line */
	const char *time;     /* CSV: a first column "time", this on every row (watch's log); NULL: none */
};

/*
 * One format: each function returns 0 or -ENOMEM; write errors are left on
 * the FILE for the caller.
 */
typedef int (*render_gpus_fn)(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
			      const struct render_options *o);
typedef int (*render_processes_fn)(FILE *out, const struct hmn_process *const *rows, size_t n,
				   const struct render_options *o);
/* What hmn fit found: the model, the estimate for one GPU, and each GPU's room for it. */
struct fit_gpu {
	bool planned;             /* --memory: a GPU of that size, not one present */
	struct hmn_place place;
	const char *name, *uuid;  /* NULL: unknown */
	uint64_t free_bytes;
	bool fits;
	uint64_t max_context;     /* HMN_UNKNOWN: null (not even the shortest context fits) */
	uint32_t max_batch;       /* sequences of the context that fit at once (0: not one); UINT32_MAX: null */
	uint32_t gpu_layers;      /* GGUF that does not fit whole: how many layers do; UINT32_MAX: null */
};
struct fit_report {
	const struct hmn_model *model;
	uint64_t context;         /* as the estimate was made for it (padded as the runtime pads it) */
	uint32_t batch, gpus_split;
	const char *kv_dtype;
	const char *weights_dtype; /* --dtype, or the model's own */
	const char *quantization;  /* the format the weights are priced in ("mxfp4"); NULL: none, or --dtype */
	bool train;
	const struct hmn_fit_parts *parts;
	uint64_t total_bytes;     /* every GPU of the split together */
	const struct fit_gpu *gpus;
	size_t n_gpus;
};
typedef int (*render_fit_fn)(FILE *out, const struct fit_report *report, const struct render_options *o);
/* What hmn run saw of its command (below). */
struct run_report;
typedef int (*render_run_fn)(FILE *out, const struct run_report *report);

struct renderer {
	render_gpus_fn gpus;
	render_processes_fn processes;
	render_fit_fn fit;        /* NULL: the format has no fit document */
	render_run_fn run;        /* hmn run's report; NULL: the format has none */
};
/* The renderer of a --format. */
const struct renderer *renderer_for(enum output_format format);
/*
 * s as CSV cells and Prometheus label values show it (as the table does):
 * every byte of a control character or of invalid UTF-8 as '?', so a
 * process name can never move a cursor or forge a line. Malloc'd; NULL on
 * ENOMEM.
 */
char *text_shown(const char *s);

int render_gpus_table(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		      const struct render_options *o);
int render_processes_table(FILE *out, const struct hmn_process *const *rows, size_t n,
			   const struct render_options *o);
int render_gpus_json(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		     const struct render_options *o);
int render_processes_json(FILE *out, const struct hmn_process *const *rows, size_t n,
			  const struct render_options *o);
int render_gpus_csv(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		    const struct render_options *o);
int render_processes_csv(FILE *out, const struct hmn_process *const *rows, size_t n,
			 const struct render_options *o);
int render_gpus_prometheus(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
			   const struct render_options *o);
int render_processes_prometheus(FILE *out, const struct hmn_process *const *rows, size_t n,
				const struct render_options *o);
/*
 * hmn_up and hmn_driver_info, in every Prometheus document (gpus: those found, for their drivers),
 * labelled with the command that wrote them: node_exporter serves hmn free's and hmn ps's
 * textfiles side by side, and refuses a series that two files both hold.
 */
int render_prometheus_health(FILE *out, const char *command, bool up, const struct hmn_gpu *const *gpus, size_t n);
int render_fit_table(FILE *out, const struct fit_report *report, const struct render_options *o);
int render_fit_json(FILE *out, const struct fit_report *report, const struct render_options *o);

/* What hmn run saw of its command. */
struct run_device_peak {
	struct hmn_place place;   /* a GPU, or one MIG instance of it */
	const char *uuid, *name;  /* NULL: unknown */
	uint64_t peak_bytes;
};
struct run_process_peak {
	uint32_t pid;
	const char *name;         /* NULL: unknown */
	unsigned device_index;
	uint64_t peak_bytes;
};
struct run_spill {
	uint64_t episodes, total_us, longest_us, peak_shared_bytes; /* times in microseconds */
};
/*
 * How hmn run measured the tree's GPU memory: one fact, found in one place
 * (cmd-run.c's measure_of), made the contract's word ("per-process",
 * "device-wide") only where a report writes it.
 */
enum run_measure {
	MEASURE_NONE,                   /* no GPU: nothing measured (null) */
	MEASURE_PER_PROCESS,            /* the tree's own processes, summed */
	MEASURE_DEVICE_WIDE_UNMEASURED, /* the devices' rise: no source here measures processes */
	MEASURE_DEVICE_WIDE_UNMATCHED,  /* the devices' rise: the GPU's pids cannot be matched to the tree's */
};
static inline bool measure_is_device_wide(enum run_measure m)
{
	return m == MEASURE_DEVICE_WIDE_UNMEASURED || m == MEASURE_DEVICE_WIDE_UNMATCHED;
}
/* Where the processes' own peaks come from; written as the contract's process_peaks. */
enum process_peaks {
	PROCESS_PEAKS_NONE,       /* null: no GPU, or device-wide (no process's own figure) */
	PROCESS_PEAKS_SAMPLED,    /* the largest figure a sample saw */
	PROCESS_PEAKS_ACCOUNTING, /* NVML's exact maxima, for every process */
};
/* A process of the tree that was left running (a daemon holding no GPU memory). */
struct run_left {
	uint32_t pid;
	const char *name;         /* NULL: unknown */
};
struct run_report {
	char *const *argv;
	size_t argc;
	int exit_code;            /* -1: null (a signal ended it, or it never ran) */
	int signal;               /* -1: null */
	uint64_t duration_us, samples, interval_us;
	enum run_measure measure;
	uint64_t peak_bytes, peak_shared_bytes; /* HMN_UNKNOWN: null */
	uint64_t peak_ram_bytes;  /* the tree's host memory at its largest; HMN_UNKNOWN: null */
	const char *ram_measure;  /* "pss", "rss", "footprint", "commit"; NULL: null */
	bool ram_read_in_turns;   /* some readings of a large tree ran out of time (older figures for some processes) */
	uint64_t limit_bytes;     /* --limit; HMN_UNKNOWN: null (none given) */
	bool limit_exceeded;
	bool limit_stopped;       /* ...and its signals reached every process of the tree (exit 124) */
	uint64_t limit_exceeded_us, limit_exceeded_bytes; /* when, and the tree's size then; HMN_UNKNOWN: null */
	const struct run_device_peak *devices;
	size_t n_devices;
	const struct run_process_peak *processes;
	size_t n_processes;
	size_t processes_held;    /* processes that held GPU memory at a sample (a pid on two GPUs is one) */
	enum process_peaks process_peaks;
	const struct run_spill *spill; /* NULL: null (measured on Windows only) */
	const struct run_left *left_running;
	size_t n_left_running;
	const char (*picked)[PICK_KEY_MAX]; /* --pick: the GPUs COMMAND was started on, as its variable names them; NULL: null */
	size_t n_picked;
};
/* The report as one JSON object and a newline (the contract's keys). */
int render_run_report_json(FILE *out, const struct run_report *report);
/* The report as a line for a person (and one naming what was left running). */
int render_run_report_text(FILE *out, const struct run_report *report);

/* The command as one line a shell would take back: its words quoted where they must be, terminal-safe. */
void put_command(FILE *out, char *const *argv, size_t argc);
/* What --limit means where the measure is device-wide: said when it fires, and in the report. */
#define DEVICE_WIDE_LIMIT_NOTE "device-wide: memory anything else took on the GPUs counts too"

/*
 * One sample of hmn watch, as one line of JSON Lines:
 * {"time":"...","elapsed_ms":N,"gpus":[...],"processes":[...]}
 */
int render_sample_json(FILE *out, const char *time, uint64_t elapsed_us,
		       const struct hmn_gpu *const *gpus, size_t n_gpus,
		       const struct hmn_process *const *rows, size_t n_rows);

/*
 * Writes s as a JSON string (null for NULL): valid UTF-8, every control
 * character escaped. Returns 0 or -ENOMEM.
 */
int json_write_string(FILE *out, const char *s);

/* "compute", "graphics" or "compute+graphics"; "C", "G" or "C+G" when short. */
const char *process_type_name(unsigned type, bool short_form);
/* The table's TYPE: "C", "G", "C+G", or "M+C" for a client of NVIDIA's MPS server. */
const char *process_type_cell(const struct hmn_process *p);
/* The table's SOURCE: "nvml", or "nvml/unified" where the GPU has no memory of its own. */
const char *source_cell(char *buf, size_t size, const struct hmn_gpu *g);
/* The table's GPU: "0", or "0/2.0" for GPU 0's MIG instance with GPU instance 2, compute instance 0. */
#define GPU_CELL_MAX 48
const char *gpu_cell(char buf[GPU_CELL_MAX], const struct hmn_place *at);


#endif
