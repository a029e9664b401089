/* The two renderers of the one data model: tables and JSON. */
#ifndef HMN_RENDER_H
#define HMN_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "hmn.h"

struct render_options {
	bool no_header;
	bool bytes;
};

/* Each returns 0 or -ENOMEM; write errors are left on the FILE for the caller. */
int render_gpus_table(FILE *out, const struct hmn_gpu *const *gpus, size_t n,
		      const struct render_options *o);
int render_processes_table(FILE *out, const struct hmn_process *const *rows, size_t n,
			   const struct render_options *o);
int render_gpus_json(FILE *out, const struct hmn_gpu *const *gpus, size_t n);
int render_processes_json(FILE *out, const struct hmn_process *const *rows, size_t n);

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
