/* Private to the Windows sources (gpu/dxgi-pdh): the PDH GPU memory counters. */
#ifndef HMN_GPU_DXGI_PDH_H
#define HMN_GPU_DXGI_PDH_H

#include "gpu/dxgi-pdh/dxgi-pdh-parse.h"
#include "gpu/source.h"

/* One counter instance's figures: an adapter's (pid 0), or one process's on one adapter. */
struct pdh_memory {
	struct pdh_instance instance;
	uint64_t dedicated, shared;
};

/*
 * Reads \GPU Adapter Memory(*) (per_process false) or \GPU Process Memory(*)
 * (true): Dedicated Usage and Shared Usage of every instance, malloc'd.
 * -ENOENT with why when the counter set is missing (Windows before 10
 * 1709, Wine), another negative code when PDH fails.
 */
int pdh_read_memory(bool per_process, struct pdh_memory **ret, size_t *ret_n, char *why,
		    size_t why_size);
/* The engine types each process has run on each adapter (\GPU Engine(*)\Running Time > 0). */
int pdh_read_engines(struct pdh_memory **ret, size_t *ret_n);
/* Folds rows of one (pid, LUID) into one: phys segments summed. Returns the new count. */
size_t pdh_fold(struct pdh_memory *rows, size_t n);

/*
 * \GPU Engine(*)\Utilization Percentage, a rate: a query kept for the
 * context's life, so that each read compares with the last (the first read
 * takes two collections 100 ms apart). NULL from open when the counter set
 * is missing (before Windows 10 1709, Wine).
 */
struct pdh_utilization;
struct pdh_utilization *pdh_utilization_open(void);
/* Every engine instance's load now, malloc'd into *ret. */
int pdh_utilization_read(struct pdh_utilization *u, struct pdh_engine_load **ret, size_t *ret_n);
void pdh_utilization_close(struct pdh_utilization *u);

/*
 * Adds a row per (process, adapter) from \GPU Process Memory(*), its type from
 * \GPU Engine(*). adapters[i] is the LUID of the source's device i, stride
 * bytes after adapters[i - 1]; names[i] its name (names may be NULL).
 */
int pdh_report_processes(hmn_context *ctx, struct process_sink *sink,
			 const struct pdh_instance *adapters, size_t stride, size_t n_adapters,
			 const char *const *names);

#endif
