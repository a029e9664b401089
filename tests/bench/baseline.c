/*
 * The floor hmn ps is measured against: a minimal C program that makes the
 * same NVML calls (one dlopen, init, per GPU name, UUID, memory and the
 * three process lists through _v3 with the INSUFFICIENT_SIZE protocol) and
 * reads one /proc file (status) per process, then prints one line per row.
 * No names resolved from exe, no users, no sorting, no JSON.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpu/nvml/nvml-abi.h"

#define LOOKUP(var, name) \
	do { if (!(var = dlsym(lib, name))) { fprintf(stderr, "no %s\n", name); return 1; } } while (0)

int main(void)
{
	const char *path = getenv("HMN_NVML_LIBRARY");
	const char *procfs = getenv("HMN_PROCFS") ? getenv("HMN_PROCFS") : "/proc";
	void *lib = dlopen(path ? path : "libnvidia-ml.so.1", RTLD_NOW);
	nvml_init_fn init;
	nvml_shutdown_fn shutdown;
	nvml_device_count_fn count_fn;
	nvml_handle_by_index_fn handle;
	nvml_device_string_fn name_fn, uuid_fn;
	nvml_memory_v2_fn memory;
	nvml_processes_fn lists[3];
	unsigned count;
	size_t capacity = 0;
	nvmlProcessInfo_t *infos = NULL;

	if (!lib)
		return 1;
	LOOKUP(init, "nvmlInit_v2");
	LOOKUP(shutdown, "nvmlShutdown");
	LOOKUP(count_fn, "nvmlDeviceGetCount_v2");
	LOOKUP(handle, "nvmlDeviceGetHandleByIndex_v2");
	LOOKUP(name_fn, "nvmlDeviceGetName");
	LOOKUP(uuid_fn, "nvmlDeviceGetUUID");
	LOOKUP(memory, "nvmlDeviceGetMemoryInfo_v2");
	LOOKUP(lists[0], "nvmlDeviceGetComputeRunningProcesses_v3");
	LOOKUP(lists[1], "nvmlDeviceGetGraphicsRunningProcesses_v3");
	LOOKUP(lists[2], "nvmlDeviceGetMPSComputeRunningProcesses_v3");
	if (init() != NVML_SUCCESS || count_fn(&count) != NVML_SUCCESS)
		return 1;
	for (unsigned i = 0; i < count; i++) {
		nvmlDevice_t dev;
		char name[96], uuid[96];
		nvmlMemory_v2_t m = { .version = nvmlMemory_v2 };
		if (handle(i, &dev) != NVML_SUCCESS)
			continue;
		name_fn(dev, name, sizeof(name));
		uuid_fn(dev, uuid, sizeof(uuid));
		memory(dev, &m);
		for (int k = 0; k < 3; k++) {
			unsigned n = 0;
			nvmlReturn_t r = lists[k](dev, &n, NULL);
			while (r == NVML_ERROR_INSUFFICIENT_SIZE) {
				if (n + 16 > capacity) {
					capacity = n + n / 4 + 16;
					infos = realloc(infos, capacity * sizeof(*infos));
				}
				n = (unsigned)capacity;
				r = lists[k](dev, &n, infos);
			}
			for (unsigned p = 0; r == NVML_SUCCESS && p < n; p++) {
				char file[512], buf[4096];
				snprintf(file, sizeof(file), "%s/%u/status", procfs, infos[p].pid);
				int fd = open(file, O_RDONLY | O_CLOEXEC);
				ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
				if (fd >= 0)
					close(fd);
				printf("%u %llu %u %zd\n", infos[p].pid, infos[p].usedGpuMemory, i, len);
			}
		}
	}
	shutdown();
	free(infos);
	return 0;
}
