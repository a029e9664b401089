/* The renderers of the one data model, one file per format, chosen in render.c. */
#ifndef HMN_RENDER_H
#define HMN_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "hmn.h"

struct render_options {
	bool no_header;
	bool bytes;
	bool long_format;     /* free -l: utilisation, temperature, power */
};

/*
 * One format: each function returns 0 or -ENOMEM; write errors are left on
 * the FILE for the caller.
 */
typedef int (*render_gpus_fn)(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
			      const struct render_options *o);
typedef int (*render_processes_fn)(FILE *out, const struct hmn_process *const *rows, size_t n,
				   const struct render_options *o);
struct renderer {
	render_gpus_fn gpus;
	render_processes_fn processes;
};
/* The renderer of a --format. */
const struct renderer *renderer_for(enum output_format format);

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
/* What hmn run saw of its command. */
struct run_device_peak {
	unsigned index;
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
	uint64_t episodes, total_ms, longest_ms, peak_shared_bytes;
};
struct run_report {
	char *const *argv;
	size_t argc;
	int exit_code;            /* -1: null (a signal ended it, or it never ran) */
	int signal;               /* -1: null */
	uint64_t duration_ms, samples, interval_ms;
	const char *measure;      /* "per-process", "device-wide"; NULL: no GPU */
	uint64_t peak_bytes, peak_shared_bytes; /* HMN_UNKNOWN: null */
	const struct run_device_peak *devices;
	size_t n_devices;
	const struct run_process_peak *processes;
	size_t n_processes;
	const char *process_peaks; /* "sampled", or "accounting" (NVML's exact maxima) */
	const struct run_spill *spill; /* NULL: null (measured on Windows only) */
};
/* The report as one JSON object and a newline (the contract's keys). */
int render_run_report_json(FILE *out, const struct run_report *report);

/*
 * One sample of hmn watch, as one line of JSON Lines:
 * {"time":"...","elapsed_ms":N,"gpus":[...],"processes":[...]}
 */
int render_sample_json(FILE *out, const char *time, uint64_t elapsed_ms,
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
/* The table's SOURCE: "nvml", or "nvml (unified)" where the GPU has no memory of its own. */
const char *source_cell(char *buf, size_t size, const struct hmn_gpu *g);

#endif
