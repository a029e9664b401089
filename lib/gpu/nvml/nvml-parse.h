/* The NVML source (gpu/nvml/nvml.c): what of it is pure, for the unit tests. */
#ifndef HMN_GPU_NVML_PARSE_H
#define HMN_GPU_NVML_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Is this a driver whose _v3 process calls write 32-byte entries (535.43.02 to 535.98)? */
bool nvml_v3_entries_are_32_bytes(const char *driver_version);

#endif
