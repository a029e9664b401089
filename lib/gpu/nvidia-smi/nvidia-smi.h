/* nvidia-smi's CSV, parsed (gpu/nvidia-smi/nvidia-smi-parse.c): pure, for the source, the unit tests and the fuzzer. */
#ifndef HMN_GPU_NVIDIA_SMI_H
#define HMN_GPU_NVIDIA_SMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

enum smi_field {
	SMI_OTHER,            /* a column we do not read */
	/* --query-gpu */
	SMI_INDEX, SMI_UUID, SMI_NAME, SMI_PCI_BUS_ID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED,
	SMI_MEMORY_FREE, SMI_MEMORY_RESERVED, SMI_DRIVER_VERSION,
	SMI_UTILIZATION_GPU, SMI_UTILIZATION_MEMORY, SMI_TEMPERATURE, SMI_POWER_DRAW, SMI_POWER_LIMIT,
	SMI_COMPUTE_CAP,
	/* --query-compute-apps */
	SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME,
};
struct smi_gpu_row {
	uint32_t index;
	char uuid[96], name[96], pci_bus_id[32], driver_version[80]; /* "": unknown */
	uint64_t total, used, free, reserved;                        /* HMN_UNKNOWN: unknown */
	bool memory_not_available; /* total, used and free all [N/A]: unified memory */
	uint32_t utilization, memory_utilization, temperature; /* HMN_VALUE_UNKNOWN: unknown */
	uint32_t power_mw, power_limit_mw;                     /* W with decimals, in mW */
	char compute_cap[16];                                  /* "9.0"; "": unknown */
};
struct smi_process_row {
	uint32_t pid;
	uint64_t used;        /* HMN_UNKNOWN: [N/A] */
	char gpu_uuid[96];
	char name[512];       /* as nvidia-smi prints it: often a full path */
};
/* Is this cell one of nvidia-smi's "[N/A]"-like non-values (or empty)? */
bool smi_cell_unknown(const char *p, size_t n);
/* A cell of whole units, "37" or "37 %" (unit ignored); HMN_VALUE_UNKNOWN for anything else. */
uint32_t smi_parse_integer(const char *p, size_t n);
/* Watts with decimals ("71.23", "71.23 W") in milliwatts; HMN_VALUE_UNKNOWN for anything else. */
uint32_t smi_parse_watts(const char *p, size_t n);
/* A MiB cell ("81559" or "81559 MiB") in bytes; HMN_UNKNOWN for anything else. */
uint64_t smi_parse_mib(const char *p, size_t n);
/*
 * Parses --query-gpu output whose columns are fields[]. Lines of another
 * shape, and rows without index or memory, are skipped and counted. The
 * rows are malloc'd.
 */
int smi_parse_gpus(const char *text, size_t len, const enum smi_field *fields, size_t n_fields,
		   struct smi_gpu_row **ret_rows, size_t *ret_count, size_t *ret_skipped);
/*
 * Parses --query-compute-apps output whose columns are fields[]; the
 * process-name column may hold commas (it is split from both ends). Rows
 * without a pid are skipped and counted.
 */
int smi_parse_processes(const char *text, size_t len, const enum smi_field *fields,
			size_t n_fields, struct smi_process_row **ret_rows, size_t *ret_count,
			size_t *ret_skipped);

#endif
