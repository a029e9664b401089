/*
 * The part of NVIDIA's NVML ABI that hmn uses, declared from NVML's
 * documentation (nvml.h of drivers R450 to R590), never copied from it.
 * Every struct is pinned by static assertions on its size and offsets: a
 * change here that breaks the real ABI does not compile.
 *
 * Only what hmn calls or reads. Used by gpu/nvml/nvml.c, the stand-in
 * library in tests/stub/ and tests/bench/baseline.c. (No file here is
 * named nvml.h: NVIDIA's header is never copied in.)
 */
#ifndef HMN_NVML_ABI_H
#define HMN_NVML_ABI_H

#include <stddef.h>

typedef int nvmlReturn_t; /* an enum in nvml.h; int-sized on every ABI NVML ships for */

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
};

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* "Not available", e.g. a process's usedGpuMemory under WDDM. */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

/* nvmlDeviceGetMemoryInfo: used includes what the driver reserves. */
typedef struct {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2 (R510+): total = reserved + used + free. */
typedef struct {
	unsigned int version; /* must be nvmlMemory_v2 */
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;

/* nvml.h's struct version of Memory, 2: the struct's size in the low bits, the version at bit 24. */
#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

/*
 * nvmlDeviceGetPciInfo_v2/_v3. The v1 call fills a 52-byte struct whose first
 * 16 bytes are the bus id too, so one 68-byte buffer serves all three.
 */
typedef struct {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

/* The entries of the v1 process calls (nvmlDeviceGet*RunningProcesses). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/* The entries of the _v2 and _v3 process calls. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t is 24 bytes");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t is 40 bytes");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "nvmlMemory_v2_t.total at 8");
_Static_assert(offsetof(nvmlMemory_v2_t, reserved) == 16, "nvmlMemory_v2_t.reserved at 16");
_Static_assert(offsetof(nvmlMemory_v2_t, free) == 24, "nvmlMemory_v2_t.free at 24");
_Static_assert(offsetof(nvmlMemory_v2_t, used) == 32, "nvmlMemory_v2_t.used at 32");
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2 is 0x02000028");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "nvmlPciInfo_t.domain at 16");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId at 36");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t is 16 bytes");
_Static_assert(offsetof(nvmlProcessInfo_v1_t, usedGpuMemory) == 8, "v1 usedGpuMemory at 8");
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t is 24 bytes");
_Static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8, "usedGpuMemory at 8");
_Static_assert(offsetof(nvmlProcessInfo_t, gpuInstanceId) == 16, "gpuInstanceId at 16");
_Static_assert(offsetof(nvmlProcessInfo_t, computeInstanceId) == 20, "computeInstanceId at 20");
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is an int-sized enum");

/* nvmlDeviceGetUtilizationRates: percent of the last sample period busy. */
typedef struct {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;

#define NVML_TEMPERATURE_GPU 0

/* nvmlDeviceGetAccountingStats: a process's figures while accounting mode is on. */
typedef struct {
	unsigned int gpuUtilization;
	unsigned int memoryUtilization;
	unsigned long long maxMemoryUsage;
	unsigned long long time;
	unsigned long long startTime;
	unsigned int isRunning;
	unsigned int reserved[5];
} nvmlAccountingStats_t;

_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t is 8 bytes");
_Static_assert(sizeof(nvmlAccountingStats_t) == 56, "nvmlAccountingStats_t is 56 bytes");
_Static_assert(offsetof(nvmlAccountingStats_t, maxMemoryUsage) == 8, "maxMemoryUsage at 8");
_Static_assert(offsetof(nvmlAccountingStats_t, isRunning) == 32, "isRunning at 32");

/* The entry points, as function-pointer types. */
typedef nvmlReturn_t (*nvml_init_fn)(void);
typedef nvmlReturn_t (*nvml_shutdown_fn)(void);
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvml_driver_version_fn)(char *, unsigned int);
typedef nvmlReturn_t (*nvml_device_count_fn)(unsigned int *);
typedef nvmlReturn_t (*nvml_handle_by_index_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*nvml_device_string_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*nvml_pci_info_fn)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*nvml_memory_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvml_memory_v2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
/* The process calls take nvmlProcessInfo_v1_t or nvmlProcessInfo_t by version. */
typedef nvmlReturn_t (*nvml_processes_fn)(nvmlDevice_t, unsigned int *, void *);

#endif
