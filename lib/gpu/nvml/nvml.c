/*
 * The NVML source: NVIDIA's management library, loaded at run time (never
 * linked), initialised once per context and shut down once.
 *
 * Each entry point is looked up newest first, so a driver that lacks one
 * (pre-R510: no nvmlDeviceGetMemoryInfo_v2, no _v3 process calls) still
 * answers through the older one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/nvml/nvml-abi.h"
#include "gpu/nvml/nvml-parse.h"
#include "gpu/pci.h"
#include "gpu/source.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/text.h"

enum process_list_kind { LIST_COMPUTE, LIST_GRAPHICS, LIST_MPS, LIST_KINDS };

struct process_api {
	nvml_processes_fn fn;
	const char *symbol;   /* for -v */
	size_t stride;        /* entry size of this version */
};

#define MAX_MIG_DEVICES 16 /* an A100/H100 has 7; leave room */

struct device_identity {
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
};

struct mig_device {
	nvmlDevice_t handle;
	unsigned gpu_instance_id, compute_instance_id;
	struct device_identity id;
};

/* How a GPU answers for its memory, learned at its first query. */
enum memory_api {
	MEMORY_V2,            /* nvmlDeviceGetMemoryInfo_v2: reserved known */
	MEMORY_V1,            /* v2 refused: reserved unknown */
	MEMORY_UNIFIED,       /* both NOT_SUPPORTED: no memory of its own (GB10, Jetson) */
};

/*
 * What one GPU says of itself that only a reset changes, read once per
 * context: the sample loop then costs the memory query alone (the MIG mode
 * query alone costs 80 us on an H100, ten times the memory query).
 */
struct nvml_gpu {
	bool probed;
	nvmlDevice_t handle;
	struct device_identity id;
	char bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	char compute_capability[16]; /* "9.0"; "": unknown */
	unsigned n_migs;
	struct mig_device migs[MAX_MIG_DEVICES];
	uint64_t mig_read_us; /* when the MIG layout was read (clock_us) */
	enum memory_api memory_api;
	uint64_t total;       /* for the plausibility of process figures; HMN_UNKNOWN: not read yet */
};

struct nvml {
	void *library;
	nvml_shutdown_fn shutdown;
	nvml_error_string_fn error_string;
	nvml_handle_by_index_fn handle_by_index;
	nvml_device_string_fn get_name, get_uuid;
	nvml_pci_info_fn pci_info;
	bool pci_legacy;      /* the v1 call: only the first 16 bytes are defined */
	nvml_memory_fn memory_v1;
	nvml_memory_v2_fn memory_v2;
	struct process_api lists[LIST_KINDS];
	/* MIG (R450 and later); absent on older drivers. */
	nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*max_mig_count)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*gpu_instance_id)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*compute_instance_id)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*process_name)(unsigned int, char *, unsigned int);
	/* Telemetry, when the context asks for it. */
	nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *);
	nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*compute_capability)(nvmlDevice_t, int *, int *);
	/* Accounting mode, where an administrator turned it on. */
	nvmlReturn_t (*accounting_mode)(nvmlDevice_t, int *);
	nvmlReturn_t (*accounting_stats)(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);

	unsigned count;
	struct nvml_gpu *gpus;    /* count of them */
	char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	hmn_context *ctx;

	/* Reused by every process call of every query: no allocation per call. */
	unsigned char *buffer;
	size_t buffer_size;
};

static const char *nvml_error(const struct nvml *n, nvmlReturn_t r)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;
	return s ? s : "unknown NVML error";
}

/* The first of the names that the library exports. */
static void *first_symbol(void *library, const char *const names[], const char **ret_name)
{
	for (size_t i = 0; names[i]; i++) {
		void *p = os_library_symbol(library, names[i]);
		if (p) {
			if (ret_name)
				*ret_name = names[i];
			return p;
		}
	}
	return NULL;
}

#define SYMBOLS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void find_process_api(struct nvml *n, enum process_list_kind kind, const char *base,
			     bool skip_v3)
{
	char v3[96], v2[96];
	snprintf(v3, sizeof(v3), "%s_v3", base);
	snprintf(v2, sizeof(v2), "%s_v2", base);
	const char *const names[] = { v3, v2, base, NULL };
	const char *const names_without_v3[] = { v2, base, NULL };
	const char *found = NULL;
	void *fn = first_symbol(n->library, skip_v3 ? names_without_v3 : names, &found);

	n->lists[kind] = (struct process_api){ 0 };
	if (!fn)
		return;
	n->lists[kind].fn = (nvml_processes_fn)fn;
	/* v3 and v2 are stack buffers: keep a static label for -v. */
	n->lists[kind].symbol = found == base ? "v1" : found == v3 ? "v3" : "v2";
	n->lists[kind].stride = found == base ? sizeof(nvmlProcessInfo_v1_t) : sizeof(nvmlProcessInfo_t);
}

static void nvml_close(void *state)
{
	struct nvml *n = state;
	if (!n)
		return;
	if (n->shutdown)
		n->shutdown();
	os_library_close(n->library);
	free(n->buffer);
	free(n->gpus);
	free(n);
}

static int nvml_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	const char *path = os_trusted_getenv("HMN_NVML_LIBRARY");
	const char *init_name = NULL, *memory_name = NULL;
	struct nvml *n = calloc(1, sizeof(*n));
	nvmlReturn_t r;

	if (!n)
		return -ENOMEM;
	n->ctx = ctx;
	if (!path || !*path) {
		path = OS_NVML_LIBRARY;
	} else if (!os_path_is_absolute(path)) {
		/* A bare name would be looked for as the loader does: not what the variable promises. */
		snprintf(why, why_size, "HMN_NVML_LIBRARY=%s: not an absolute path, refused", path);
		free(n);
		return -ENOENT;
	}
	n->library = os_library_open(path, why, why_size);
	if (!n->library) {
		free(n);
		return -ENOENT;
	}

	nvml_init_fn init = first_symbol(n->library, SYMBOLS("nvmlInit_v2", "nvmlInit"), &init_name);
	nvml_device_count_fn device_count =
		first_symbol(n->library, SYMBOLS("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"), NULL);
	n->handle_by_index = first_symbol(n->library,
		SYMBOLS("nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"), NULL);
	n->error_string = os_library_symbol(n->library, "nvmlErrorString");
	n->shutdown = os_library_symbol(n->library, "nvmlShutdown");
	if (!init || !device_count || !n->handle_by_index || !n->shutdown) {
		snprintf(why, why_size, "%s lacks nvmlInit, nvmlDeviceGetCount or nvmlShutdown", path);
		n->shutdown = NULL; /* never initialised: nothing to shut down */
		nvml_close(n);
		return -ENOTSUP;
	}
	n->get_name = os_library_symbol(n->library, "nvmlDeviceGetName");
	n->get_uuid = os_library_symbol(n->library, "nvmlDeviceGetUUID");
	const char *pci_name = NULL;
	n->pci_info = first_symbol(n->library, SYMBOLS("nvmlDeviceGetPciInfo_v3",
		"nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"), &pci_name);
	n->pci_legacy = pci_name && strcmp(pci_name, "nvmlDeviceGetPciInfo") == 0;
	n->memory_v2 = os_library_symbol(n->library, "nvmlDeviceGetMemoryInfo_v2");
	n->memory_v1 = os_library_symbol(n->library, "nvmlDeviceGetMemoryInfo");
	n->mig_mode = os_library_symbol(n->library, "nvmlDeviceGetMigMode");
	n->max_mig_count = os_library_symbol(n->library, "nvmlDeviceGetMaxMigDeviceCount");
	n->mig_handle = os_library_symbol(n->library, "nvmlDeviceGetMigDeviceHandleByIndex");
	n->gpu_instance_id = os_library_symbol(n->library, "nvmlDeviceGetGpuInstanceId");
	n->compute_instance_id = os_library_symbol(n->library, "nvmlDeviceGetComputeInstanceId");
	n->process_name = os_library_symbol(n->library, "nvmlSystemGetProcessName");
	n->utilization = os_library_symbol(n->library, "nvmlDeviceGetUtilizationRates");
	n->temperature = os_library_symbol(n->library, "nvmlDeviceGetTemperature");
	n->power = os_library_symbol(n->library, "nvmlDeviceGetPowerUsage");
	n->power_limit = os_library_symbol(n->library, "nvmlDeviceGetEnforcedPowerLimit");
	n->compute_capability = os_library_symbol(n->library, "nvmlDeviceGetCudaComputeCapability");
	n->accounting_mode = os_library_symbol(n->library, "nvmlDeviceGetAccountingMode");
	n->accounting_stats = os_library_symbol(n->library, "nvmlDeviceGetAccountingStats");
	memory_name = n->memory_v2 ? "nvmlDeviceGetMemoryInfo_v2" : "nvmlDeviceGetMemoryInfo";
	r = init();
	if (r != NVML_SUCCESS) {
		snprintf(why, why_size, "%s failed: %s", init_name, nvml_error(n, r));
		n->shutdown = NULL;
		nvml_close(n);
		return -EIO;
	}
	r = device_count(&n->count);
	if (r != NVML_SUCCESS) {
		snprintf(why, why_size, "nvmlDeviceGetCount failed: %s", nvml_error(n, r));
		nvml_close(n);
		return -EIO;
	}
	n->gpus = calloc(n->count ? n->count : 1, sizeof(*n->gpus));
	if (!n->gpus) {
		nvml_close(n);
		return -ENOMEM;
	}
	nvml_driver_version_fn driver_version =
		os_library_symbol(n->library, "nvmlSystemGetDriverVersion");
	if (!driver_version ||
	    driver_version(n->driver_version, sizeof(n->driver_version)) != NVML_SUCCESS)
		n->driver_version[0] = '\0';

	bool skip_v3 = nvml_v3_entries_are_32_bytes(n->driver_version);
	if (skip_v3)
		hmn_log(ctx, HMN_LOG_INFO,
			"nvml: driver %s writes 32-byte entries from the _v3 process calls: using _v2",
			n->driver_version);
	find_process_api(n, LIST_COMPUTE, "nvmlDeviceGetComputeRunningProcesses", skip_v3);
	find_process_api(n, LIST_GRAPHICS, "nvmlDeviceGetGraphicsRunningProcesses", skip_v3);
	find_process_api(n, LIST_MPS, "nvmlDeviceGetMPSComputeRunningProcesses", skip_v3);

	hmn_log_found(ctx, "nvml", n->count, "%s (driver %s)", path,
		      n->driver_version[0] ? n->driver_version : "unknown");
	hmn_log(ctx, HMN_LOG_INFO, "nvml: using %s, %s, process lists compute %s, graphics %s, MPS %s",
		init_name, memory_name,
		n->lists[LIST_COMPUTE].symbol ? n->lists[LIST_COMPUTE].symbol : "none",
		n->lists[LIST_GRAPHICS].symbol ? n->lists[LIST_GRAPHICS].symbol : "none",
		n->lists[LIST_MPS].symbol ? n->lists[LIST_MPS].symbol : "none");
	*ret_state = n;
	return 0;
}

static unsigned nvml_device_count(void *state)
{
	return ((struct nvml *)state)->count;
}

static void device_string(nvml_device_string_fn fn, nvmlDevice_t dev, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!fn || fn(dev, buf, (unsigned)size) != NVML_SUCCESS)
		buf[0] = '\0';
	buf[size - 1] = '\0';
}

static void get_identity(struct nvml *n, nvmlDevice_t dev, struct device_identity *id)
{
	device_string(n->get_name, dev, id->name, sizeof(id->name));
	device_string(n->get_uuid, dev, id->uuid, sizeof(id->uuid));
}

/* The v2 call's answers that mean "ask v1": a wrong version (FUNCTION_NOT_FOUND), some vGPUs. */
static bool v2_refused(nvmlReturn_t r)
{
	return r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_NOT_SUPPORTED ||
	       r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

/* Reads a handle's memory figures with v2 when api says so, else v1. */
static nvmlReturn_t read_memory(struct nvml *n, nvmlDevice_t dev, enum memory_api api,
				struct hmn_gpu *gpu)
{
	nvmlReturn_t r;

	if (api == MEMORY_V2 && n->memory_v2) {
		nvmlMemory_v2_t m = { .version = nvmlMemory_v2 };
		r = n->memory_v2(dev, &m);
		if (r == NVML_SUCCESS) {
			gpu->total_bytes = m.total;
			gpu->reserved_bytes = m.reserved;
			gpu->free_bytes = m.free;
			gpu->used_bytes = m.used;
		}
		return r;
	}
	if (!n->memory_v1)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	nvmlMemory_t m;
	r = n->memory_v1(dev, &m);
	if (r == NVML_SUCCESS) {
		gpu->total_bytes = m.total;
		gpu->free_bytes = m.free;
		gpu->used_bytes = m.used;
		gpu->reserved_bytes = HMN_UNKNOWN;
	}
	return r;
}

/* A MIG instance: v2, and v1 where the instance lacks v2 (only a GPU decides for the context). */
static nvmlReturn_t instance_memory(struct nvml *n, nvmlDevice_t dev, struct hmn_gpu *gpu)
{
	nvmlReturn_t r = read_memory(n, dev, MEMORY_V2, gpu);
	return r != NVML_SUCCESS && v2_refused(r) ? read_memory(n, dev, MEMORY_V1, gpu) : r;
}

/*
 * A GPU without memory of its own: the system's memory is what it has.
 * NOT_SUPPORTED (the GPU's own answer) when the system's cannot be read.
 */
static nvmlReturn_t unified_memory(struct nvml *n, struct hmn_gpu *gpu)
{
	uint64_t total, available;

	if (os_system_memory(context_procfs(n->ctx), &total, &available) < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	gpu->total_bytes = total;
	gpu->free_bytes = available;
	gpu->used_bytes = total - available;
	gpu->reserved_bytes = HMN_UNKNOWN;
	gpu->unified_memory = true;
	return NVML_SUCCESS;
}

/*
 * A GPU's memory figures, by the API it was found to answer: v2 first; v1
 * when v2 is refused; the system's memory when both answer NOT_SUPPORTED
 * (DGX Spark's GB10, Jetson, Grace: the GPU has no memory of its own).
 */
static nvmlReturn_t gpu_memory(struct nvml *n, unsigned index, struct nvml_gpu *g,
			       struct hmn_gpu *gpu)
{
	nvmlReturn_t r;

	if (g->memory_api == MEMORY_V2 && !n->memory_v2)
		g->memory_api = MEMORY_V1; /* a driver before R510: no v2 to ask */
	if (g->memory_api == MEMORY_V2) {
		r = read_memory(n, g->handle, MEMORY_V2, gpu);
		if (r == NVML_SUCCESS || !v2_refused(r))
			goto out;
		hmn_log(n->ctx, HMN_LOG_INFO,
			"nvml: GPU %u: nvmlDeviceGetMemoryInfo_v2 failed (%s), using v1: reserved unknown",
			index, nvml_error(n, r));
		g->memory_api = MEMORY_V1;
	}
	if (g->memory_api == MEMORY_V1) {
		r = read_memory(n, g->handle, MEMORY_V1, gpu);
		if (r != NVML_ERROR_NOT_SUPPORTED)
			goto out;
		hmn_log(n->ctx, HMN_LOG_INFO,
			"nvml: GPU %u: memory queries not supported: unified memory, the system's figures",
			index);
		g->memory_api = MEMORY_UNIFIED;
	}
	r = unified_memory(n, gpu);
out:
	if (r == NVML_SUCCESS)
		g->total = gpu->total_bytes;
	return r;
}

static void get_pci_bus_id(struct nvml *n, nvmlDevice_t dev, char *out, size_t size)
{
	nvmlPciInfo_t pci;

	out[0] = '\0';
	memset(&pci, 0, sizeof(pci));
	if (!n->pci_info || n->pci_info(dev, &pci) != NVML_SUCCESS)
		return;
	/*
	 * v2 and v3 fill busId; v1 fills a shorter struct that starts with a
	 * 16-byte bus id, and what lies where busId would be is not ours to read.
	 */
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	pci.busIdLegacy[sizeof(pci.busIdLegacy) - 1] = '\0';
	normalize_pci_bus_id(n->pci_legacy ? pci.busIdLegacy : pci.busId, out, size);
}

/* The MIG devices of a GPU in MIG mode; none otherwise, or on drivers without MIG. */
static unsigned get_mig_devices(struct nvml *n, nvmlDevice_t dev, struct mig_device *out)
{
	unsigned current = 0, pending = 0, slots = 0, found = 0;

	if (!n->mig_mode || !n->max_mig_count || !n->mig_handle ||
	    n->mig_mode(dev, &current, &pending) != NVML_SUCCESS || current != 1 ||
	    n->max_mig_count(dev, &slots) != NVML_SUCCESS)
		return 0;
	for (unsigned k = 0; k < slots && found < MAX_MIG_DEVICES; k++) {
		struct mig_device *m = &out[found];
		/* NOT_FOUND: an empty slot. */
		if (n->mig_handle(dev, k, &m->handle) != NVML_SUCCESS)
			continue;
		if (!n->gpu_instance_id || n->gpu_instance_id(m->handle, &m->gpu_instance_id) != NVML_SUCCESS)
			m->gpu_instance_id = k;
		if (!n->compute_instance_id ||
		    n->compute_instance_id(m->handle, &m->compute_instance_id) != NVML_SUCCESS)
			m->compute_instance_id = 0;
		get_identity(n, m->handle, &m->id);
		found++;
	}
	return found;
}

/*
 * MIG instances are created and destroyed while the GPU runs (no reset):
 * the layout is read again when it is this old (a destroyed instance shows
 * sooner: its handle fails as a reset makes it fail). The mode query alone
 * costs 80 us on an H100: once every 10 s it is nothing, once a sample it
 * would be ten memory queries.
 */
#define MIG_LAYOUT_MAX_AGE_US (10 * CLOCK_US_PER_S)

static void read_mig_layout(struct nvml *n, struct nvml_gpu *g)
{
	g->n_migs = get_mig_devices(n, g->handle, g->migs);
	g->mig_read_us = clock_us();
}

/*
 * Reads once what only a reset changes: the handle, identity, PCI id; and
 * the MIG layout, again every MIG_LAYOUT_MAX_AGE_US. Until forget_gpu(),
 * later queries reuse them.
 */
static nvmlReturn_t probe_gpu(struct nvml *n, unsigned index, struct nvml_gpu **ret)
{
	struct nvml_gpu *g = &n->gpus[index];

	if (!g->probed) {
		nvmlReturn_t r = n->handle_by_index(index, &g->handle);
		if (r != NVML_SUCCESS)
			return r;
		get_identity(n, g->handle, &g->id);
		get_pci_bus_id(n, g->handle, g->bus_id, sizeof(g->bus_id));
		int major, minor;
		g->compute_capability[0] = '\0';
		if (n->compute_capability && n->compute_capability(g->handle, &major, &minor) == NVML_SUCCESS)
			snprintf(g->compute_capability, sizeof(g->compute_capability), "%d.%d", major, minor);
		read_mig_layout(n, g);
		g->total = HMN_UNKNOWN;
		g->probed = true;
	} else if (clock_us() - g->mig_read_us >= MIG_LAYOUT_MAX_AGE_US) {
		read_mig_layout(n, g);
	}
	*ret = g;
	return NVML_SUCCESS;
}

/* How a call on a handle fails after a GPU reset or a MIG reconfiguration. */
static bool is_reset_error(nvmlReturn_t r)
{
	return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_INVALID_ARGUMENT ||
	       r == NVML_ERROR_NOT_FOUND;
}

/* The next probe_gpu() reads the GPU again; its memory API stays learned. */
static void forget_gpu(struct nvml_gpu *g)
{
	g->probed = false;
}

static void nvml_refresh(void *state)
{
	struct nvml *n = state;
	for (unsigned i = 0; i < n->count; i++)
		forget_gpu(&n->gpus[i]);
}

/*
 * Probes GPU index (from the cache) and reads its memory. A failure that a
 * reset would cause is tried once more on a fresh probe: the cached handles
 * may be stale.
 */
static nvmlReturn_t probe_with_memory(struct nvml *n, unsigned index, struct nvml_gpu **ret_gpu,
				      struct hmn_gpu *gpu)
{
	nvmlReturn_t r = NVML_SUCCESS;

	for (int attempt = 0; attempt < 2; attempt++) {
		bool was_probed = n->gpus[index].probed;
		r = probe_gpu(n, index, ret_gpu);
		if (r == NVML_SUCCESS)
			r = gpu_memory(n, index, *ret_gpu, gpu);
		if (r == NVML_SUCCESS || !was_probed || !is_reset_error(r))
			return r;
		forget_gpu(&n->gpus[index]);
	}
	return r;
}

/*
 * One row for each MIG instance, after its GPU's. An instance whose figures
 * cannot be read (no permission) is said once, and the GPU's own row, the
 * aggregate, stands for it. One that fails as a reconfiguration makes it
 * fail sends the next query to probe the GPU again.
 */
static int add_mig_rows(struct nvml *n, struct gpu_sink *sink, unsigned index, struct nvml_gpu *g,
			const struct hmn_gpu *parent)
{
	for (unsigned k = 0; k < g->n_migs; k++) {
		const struct mig_device *m = &g->migs[k];
		struct hmn_gpu row = *parent;
		nvmlReturn_t r = instance_memory(n, m->handle, &row);
		if (r != NVML_SUCCESS) {
			if (is_reset_error(r))
				forget_gpu(g);
			hmn_log(n->ctx, HMN_LOG_WARNING,
				"GPU %u: MIG instance %u: %s: its row shows the GPU's aggregate only (nvml)",
				sink->base + index, m->gpu_instance_id, nvml_error(n, r));
			continue;
		}
		row.name = m->id.name[0] ? m->id.name : NULL;
		row.uuid = m->id.uuid[0] ? m->id.uuid : NULL;
		/*
		 * The driver has no utilisation of an instance (nvidia-smi: N/A), and
		 * temperature and power are the whole GPU's, on its own row: never
		 * the parent's figures copied as if they were the instance's.
		 */
		row.utilization_percent = row.memory_utilization_percent = HMN_VALUE_UNKNOWN;
		row.temperature_celsius = row.power_milliwatts = row.power_limit_milliwatts = HMN_VALUE_UNKNOWN;
		row.place.is_mig = true;
		row.place.gpu_instance_id = m->gpu_instance_id;
		row.place.compute_instance_id = m->compute_instance_id;
		int e = gpu_sink_add(sink, &row);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Utilisation, temperature and power: what a call cannot say stays unknown. */
static void read_telemetry(struct nvml *n, nvmlDevice_t dev, struct hmn_gpu *gpu)
{
	nvmlUtilization_t u;
	unsigned v;

	if (n->utilization && n->utilization(dev, &u) == NVML_SUCCESS && u.gpu <= 100 && u.memory <= 100) {
		gpu->utilization_percent = u.gpu;
		gpu->memory_utilization_percent = u.memory;
	}
	if (n->temperature && n->temperature(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
		gpu->temperature_celsius = v;
	if (n->power && n->power(dev, &v) == NVML_SUCCESS && v != HMN_VALUE_UNKNOWN)
		gpu->power_milliwatts = v;
	if (n->power_limit && n->power_limit(dev, &v) == NVML_SUCCESS && v != HMN_VALUE_UNKNOWN)
		gpu->power_limit_milliwatts = v;
}

static int nvml_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct nvml *n = state;
	size_t failed = 0;

	for (unsigned i = 0; i < n->count; i++) {
		struct nvml_gpu *g = NULL;
		struct hmn_gpu gpu = {
			GPU_TELEMETRY_UNKNOWN,
			.place.index = i,
			.vendor = "nvidia",
			.shared_total_bytes = HMN_UNKNOWN,
			.shared_used_bytes = HMN_UNKNOWN,
			.driver_version = n->driver_version[0] ? n->driver_version : NULL,
		};

		nvmlReturn_t r = probe_with_memory(n, i, &g, &gpu);
		if (r != NVML_SUCCESS) {
			hmn_log(n->ctx, HMN_LOG_WARNING, "GPU %u: %s (nvml)", sink->base + i,
				nvml_error(n, r));
			failed++;
			continue;
		}
		gpu.name = g->id.name[0] ? g->id.name : NULL;
		gpu.uuid = g->id.uuid[0] ? g->id.uuid : NULL;
		gpu.pci_bus_id = g->bus_id[0] ? g->bus_id : NULL;
		gpu.compute_capability = g->compute_capability[0] ? g->compute_capability : NULL;
		if (context_telemetry(n->ctx))
			read_telemetry(n, g->handle, &gpu);
		int err = gpu_sink_add(sink, &gpu);
		if (err == 0)
			err = add_mig_rows(n, sink, i, g, &gpu);
		if (err < 0)
			return err;
	}
	*ret_failed = failed;
	return 0;
}

/*
 * One process list of one device, with NVML's INSUFFICIENT_SIZE protocol:
 * ask for the count, make room with headroom, and ask again while the list
 * keeps growing between the two calls. No fixed cap.
 */
static nvmlReturn_t read_list(struct nvml *n, const struct process_api *api, nvmlDevice_t dev,
			      unsigned *ret_count)
{
	unsigned count = 0;
	nvmlReturn_t r = api->fn(dev, &count, NULL);

	for (int attempt = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 16; attempt++) {
		size_t want = (size_t)count + count / 4 + 16;
		if (want > UINT32_MAX / api->stride)
			return NVML_ERROR_MEMORY;
		if (want * api->stride > n->buffer_size) {
			unsigned char *p = realloc(n->buffer, want * api->stride);
			if (!p)
				return NVML_ERROR_MEMORY;
			n->buffer = p;
			n->buffer_size = want * api->stride;
		}
		count = (unsigned)want;
		r = api->fn(dev, &count, n->buffer);
	}
	if (r == NVML_SUCCESS)
		*ret_count = count;
	return r;
}

/* A figure NVML cannot give is all ones (NVML_VALUE_NOT_AVAILABLE: WDDM, some containers). */
static uint64_t process_memory(unsigned long long used, uint64_t device_total)
{
	if (used == NVML_VALUE_NOT_AVAILABLE)
		return HMN_UNKNOWN;
	return plausible_process_bytes(used, device_total);
}

/* Where the entries of one process list belong: a GPU, or one of its MIG instances. */
struct list_target {
	unsigned index;
	const struct device_identity *gpu;
	uint64_t total;                  /* of the GPU or the instance */
	const struct mig_device *mig;    /* NULL: the whole GPU */
	const struct mig_device *migs;   /* the GPU's instances, to place aggregate entries */
	unsigned n_migs;
};

static const struct mig_device *mig_by_instance(const struct list_target *t, unsigned gi, unsigned ci)
{
	for (unsigned k = 0; k < t->n_migs; k++)
		if (t->migs[k].gpu_instance_id == gi && t->migs[k].compute_instance_id == ci)
			return &t->migs[k];
	return NULL;
}

static const unsigned list_type[LIST_KINDS] = {
	[LIST_COMPUTE] = HMN_PROCESS_COMPUTE,
	[LIST_GRAPHICS] = HMN_PROCESS_GRAPHICS,
	[LIST_MPS] = HMN_PROCESS_COMPUTE,
};

static int add_list(struct nvml *n, struct process_sink *sink, const struct process_api *api,
		    unsigned count, enum process_list_kind kind, const struct list_target *t)
{
	for (unsigned k = 0; k < count; k++) {
		const unsigned char *entry = n->buffer + (size_t)k * api->stride;
		unsigned int pid, gi = ~0u, ci = ~0u;
		unsigned long long used;

		/* Both versions start with pid and usedGpuMemory at the same offsets. */
		memcpy(&pid, entry + offsetof(nvmlProcessInfo_t, pid), sizeof(pid));
		memcpy(&used, entry + offsetof(nvmlProcessInfo_t, usedGpuMemory), sizeof(used));
		if (api->stride >= sizeof(nvmlProcessInfo_t)) {
			memcpy(&gi, entry + offsetof(nvmlProcessInfo_t, gpuInstanceId), sizeof(gi));
			memcpy(&ci, entry + offsetof(nvmlProcessInfo_t, computeInstanceId), sizeof(ci));
		}
		/* An aggregate list of a MIG GPU says which instance in each entry. */
		const struct mig_device *mig = t->mig ? t->mig : mig_by_instance(t, gi, ci);
		struct process_entry e = {
			.shared_bytes = HMN_UNKNOWN,
			.pid = pid,
			.place = {
				.index = t->index,
				.is_mig = mig != NULL,
				.gpu_instance_id = mig ? mig->gpu_instance_id : 0,
				.compute_instance_id = mig ? mig->compute_instance_id : 0,
			},
			.used_bytes = process_memory(used, t->total),
			.type = list_type[kind],
			.mps = kind == LIST_MPS,
			.device_name = t->gpu->name[0] ? t->gpu->name : NULL,
			.device_uuid = t->gpu->uuid[0] ? t->gpu->uuid : NULL,
			.mig_uuid = mig && mig->id.uuid[0] ? mig->id.uuid : NULL,
		};
		int r = process_sink_add(sink, &e);
		if (r < 0)
			return r;
	}
	return 0;
}

static const char *const list_label[LIST_KINDS] = { "compute", "graphics", "MPS" };

/*
 * Reads the process lists of one handle into the sink. Returns the number of
 * lists that answered, or -ENOMEM. With ret_denied, a NO_PERMISSION answer
 * sets it and is left to the caller to say; without, it is said here.
 */
static int read_lists(struct nvml *n, struct process_sink *sink, nvmlDevice_t handle,
		      const struct list_target *t, bool *ret_denied)
{
	int answered = 0;

	for (int kind = 0; kind < LIST_KINDS; kind++) {
		const struct process_api *api = &n->lists[kind];
		unsigned count = 0;

		if (!api->fn)
			continue;
		nvmlReturn_t r = read_list(n, api, handle, &count);
		if (r == NVML_ERROR_NOT_SUPPORTED) {
			answered++; /* this list does not exist here: empty */
			continue;
		}
		if (r == NVML_ERROR_NO_PERMISSION && ret_denied) {
			*ret_denied = true;
			continue;
		}
		if (r == NVML_ERROR_GPU_IS_LOST) {
			/* The GPU, not this list: said once, as hmn free says it, and its other lists not asked. */
			hmn_log(n->ctx, HMN_LOG_WARNING, "GPU %u: %s (nvml)", sink->base + t->index, nvml_error(n, r));
			return answered;
		}
		if (r != NVML_SUCCESS) {
			hmn_log(n->ctx, HMN_LOG_WARNING, "GPU %u: %s processes: %s (nvml)",
				sink->base + t->index, list_label[kind], nvml_error(n, r));
			continue;
		}
		answered++;
		int e = add_list(n, sink, api, count, (enum process_list_kind)kind, t);
		if (e < 0)
			return e;
	}
	return answered;
}

/*
 * A GPU in MIG mode: its processes instance by instance (NVML gives the
 * GPU's aggregate list only to the privileged). Where an instance's lists
 * are denied, say so and read the aggregate, which says each entry's
 * instance. Returns the lists that answered, or -ENOMEM.
 */
static int read_mig_lists(struct nvml *n, struct process_sink *sink, nvmlDevice_t dev,
			  struct list_target *t, const struct mig_device *migs, unsigned n_migs)
{
	int answered = 0;
	bool denied = false;

	for (unsigned k = 0; k < n_migs && !denied; k++) {
		struct hmn_gpu memory = { .total_bytes = HMN_UNKNOWN };
		struct list_target instance = *t;
		if (instance_memory(n, migs[k].handle, &memory) == NVML_SUCCESS)
			instance.total = memory.total_bytes;
		instance.mig = &migs[k];
		int r = read_lists(n, sink, migs[k].handle, &instance, &denied);
		if (r < 0)
			return r;
		answered += r;
	}
	if (!denied)
		return answered;
	hmn_log(n->ctx, HMN_LOG_WARNING,
		"GPU %u: no permission for per-instance (MIG) process lists: listing the GPU's aggregate (nvml)",
		sink->base + t->index);
	bool aggregate_denied = false;
	int r = read_lists(n, sink, dev, t, &aggregate_denied);
	if (aggregate_denied)
		hmn_log(n->ctx, HMN_LOG_WARNING,
			"GPU %u: no permission for its aggregate process list either: re-run elevated (nvml)",
			sink->base + t->index);
	return r < 0 ? r : answered + r;
}

static int nvml_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct nvml *n = state;
	size_t failed = 0;

	for (unsigned i = 0; i < n->count; i++) {
		struct nvml_gpu *g = NULL;
		int answered;

		if (!process_sink_wants_device(sink, i))
			continue;
		nvmlReturn_t r = probe_gpu(n, i, &g);
		/*
		 * The total bounds each process's figure: read once, not per query.
		 * A GPU whose memory cannot be read still lists its processes, unbounded.
		 */
		struct hmn_gpu memory = { .total_bytes = HMN_UNKNOWN };
		if (r == NVML_SUCCESS && g->total == HMN_UNKNOWN)
			(void)gpu_memory(n, i, g, &memory);
		if (r != NVML_SUCCESS) {
			hmn_log(n->ctx, HMN_LOG_WARNING, "GPU %u: %s (nvml)", sink->base + i,
				nvml_error(n, r));
			failed++;
			continue;
		}
		struct list_target t = {
			.index = i, .gpu = &g->id, .total = g->total, .migs = g->migs, .n_migs = g->n_migs,
		};
		if (g->n_migs > 0)
			answered = read_mig_lists(n, sink, g->handle, &t, g->migs, g->n_migs);
		else
			answered = read_lists(n, sink, g->handle, &t, NULL);
		if (answered < 0)
			return answered;
		if (answered == 0) {
			failed++;
			forget_gpu(g); /* stale handles answer nothing: probe again next time */
		}
	}
	*ret_failed = failed;
	return 0;
}

/*
 * Accounting mode keeps each process's maximum (and keeps it after the
 * process ends): exact where sampling can miss a short peak. Its record is
 * the last process's with that pid: its start time tells a reuser. Asked only at
 * the end of a run; the mode is asked each time (an administrator may turn
 * it on or off at any moment), never set.
 */
static int nvml_process_peak(void *state, uint32_t pid, unsigned local_index, uint64_t alive_at_us,
			     uint64_t *ret_bytes)
{
	struct nvml *n = state;
	struct nvml_gpu *g = NULL;
	int mode = 0;
	nvmlAccountingStats_t stats;

	if (!n->accounting_mode || !n->accounting_stats || local_index >= n->count ||
	    probe_gpu(n, local_index, &g) != NVML_SUCCESS ||
	    n->accounting_mode(g->handle, &mode) != NVML_SUCCESS || mode != 1)
		return -ENOTSUP;
	memset(&stats, 0, sizeof(stats));
	nvmlReturn_t r = n->accounting_stats(g->handle, pid, &stats);
	if (r == NVML_ERROR_NOT_FOUND)
		return -ENOENT;
	if (r != NVML_SUCCESS || stats.maxMemoryUsage == NVML_VALUE_NOT_AVAILABLE)
		return -ENOTSUP;
	/* NVML keeps the last process with that pid: one started later is not the one asked about. */
	if (alive_at_us && stats.startTime && stats.startTime > alive_at_us)
		return -ENOENT;
	*ret_bytes = stats.maxMemoryUsage;
	return 0;
}

/* The driver records each process's executable and tells any user (nvidia-smi shows it). */
static int nvml_process_path(void *state, uint32_t pid, char *buf, size_t size)
{
	struct nvml *n = state;

	if (!n->process_name || size < 2)
		return -ENOTSUP;
	buf[0] = '\0';
	nvmlReturn_t r = n->process_name(pid, buf, (unsigned)(size > UINT32_MAX ? UINT32_MAX : size));
	buf[size - 1] = '\0';
	if (r != NVML_SUCCESS || !buf[0])
		return r == NVML_ERROR_NOT_FOUND ? -ESRCH : -EIO;
	return 0;
}

const struct hmn_source hmn_source_nvml = {
	.name = "nvml",
	.family = FAMILY_NVIDIA,
	.open = nvml_open,
	.close = nvml_close,
	.device_count = nvml_device_count,
	.gpus = nvml_gpus,
	.processes = nvml_processes,
	.process_path = nvml_process_path,
	.process_peak = nvml_process_peak,
	.refresh = nvml_refresh,
	.host_pids = true,
};
