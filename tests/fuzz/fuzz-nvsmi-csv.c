/*
 * libFuzzer harness: nvidia-smi's CSV, as GPU rows and as process rows, with
 * the column layouts hmn asks for. Checks what the parser promises: strings
 * terminated inside their buffers, no "[N/A]"-like cell taken as a value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvidia-smi/nvidia-smi.h"
#include "hmn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * "[N/A]"-like: one line in brackets, which nvidia-smi prints for "unknown"
 * (never kept as a name). A name cut to its buffer (size - 1 bytes) can end
 * in ']' where its cell did not: it was no such cell.
 */
static int bracketed(const char *s, size_t size)
{
	size_t n = strlen(s);
	return n >= 2 && n < size - 1 && s[0] == '[' && s[n - 1] == ']' && !strchr(s, '\n');
}

static const enum smi_field gpu[] = {
	SMI_INDEX, SMI_UUID, SMI_NAME, SMI_PCI_BUS_ID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED,
	SMI_MEMORY_FREE, SMI_MEMORY_RESERVED, SMI_DRIVER_VERSION, SMI_UTILIZATION_GPU,
	SMI_UTILIZATION_MEMORY, SMI_TEMPERATURE, SMI_POWER_DRAW, SMI_POWER_LIMIT, SMI_COMPUTE_CAP,
};
static const enum smi_field processes[] = { SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME };
static const enum smi_field recorded[] = {
	SMI_OTHER, SMI_OTHER, SMI_OTHER, SMI_OTHER, SMI_GPU_UUID, SMI_PID, SMI_PROCESS_NAME, SMI_USED_MEMORY,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data; /* not terminated: the parser must use size */
	struct smi_gpu_row *g = NULL;
	struct smi_process_row *p = NULL;
	size_t n, skipped;

	if (smi_parse_gpus(text, size, gpu, sizeof(gpu) / sizeof(gpu[0]), &g, &n, &skipped) == 0) {
		for (size_t i = 0; i < n; i++) {
			/* A kept row has its total, unless it is a unified-memory GPU's ([N/A]). */
			if (strlen(g[i].name) >= sizeof(g[i].name) || strlen(g[i].uuid) >= sizeof(g[i].uuid) ||
			    (g[i].total == HMN_UNKNOWN) != g[i].memory_not_available ||
			    bracketed(g[i].name, sizeof(g[i].name)))
				abort();
			if ((g[i].utilization != HMN_VALUE_UNKNOWN && g[i].utilization > 100) ||
			    (g[i].memory_utilization != HMN_VALUE_UNKNOWN && g[i].memory_utilization > 100) ||
			    strlen(g[i].compute_cap) >= sizeof(g[i].compute_cap) ||
			    bracketed(g[i].compute_cap, sizeof(g[i].compute_cap)))
				abort();
		}
		free(g);
	}
	for (int layout = 0; layout < 2; layout++) {
		const enum smi_field *f = layout ? recorded : processes;
		size_t nf = layout ? sizeof(recorded) / sizeof(recorded[0]) : sizeof(processes) / sizeof(processes[0]);
		if (smi_parse_processes(text, size, f, nf, &p, &n, &skipped) == 0) {
			for (size_t i = 0; i < n; i++)
				if (strlen(p[i].name) >= sizeof(p[i].name) || bracketed(p[i].name, sizeof(p[i].name)) ||
				    (p[i].used != HMN_UNKNOWN && p[i].used % (1024 * 1024) != 0))
					abort();
			free(p);
		}
	}
	return 0;
}
