/*
 * The PDH GPU counters' instance names and an adapter's utilisation, parsed
 * without Windows (gpu/dxgi-pdh/pdh-parse.c): for the source, the unit tests
 * and the fuzzer.
 */
#ifndef HMN_GPU_DXGI_PDH_PARSE_H
#define HMN_GPU_DXGI_PDH_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

/*
 * A PDH GPU counter instance: "pid_1234_luid_0x00000000_0x0000D1A3_phys_0"
 * (GPU Process Memory) or "luid_0x00000000_0x0000D1A3_phys_0" (GPU Adapter
 * Memory). The LUID is the adapter's, as DXGI reports it.
 */
struct pdh_instance {
	uint32_t pid;
	bool has_pid;
	uint32_t luid_high, luid_low;
	uint32_t phys;
	char engine_type[24];     /* "3D", "Compute_0", ... from "_eng_N_engtype_X"; "" none */
	uint32_t engine;          /* N of "_eng_N" */
	bool has_engine;
};
bool pdh_parse_instance(const char *name, struct pdh_instance *ret);
/* One \GPU Engine(*)\Utilization Percentage value: a process's share of one engine. */
struct pdh_engine_load {
	struct pdh_instance instance;
	double percent;
};
/*
 * An adapter's utilisation as Task Manager shows it: each engine's load
 * summed over its processes, the busiest engine's sum, at most 100.
 * HMN_VALUE_UNKNOWN when no engine of that LUID is listed.
 */
uint32_t pdh_adapter_utilization(const struct pdh_engine_load *loads, size_t n, uint32_t luid_high,
				 uint32_t luid_low);

#endif
