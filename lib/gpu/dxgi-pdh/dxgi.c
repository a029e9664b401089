/*
 * The dxgi source: every GPU adapter DXGI enumerates (the Microsoft Basic
 * Render Driver and software adapters left out), with its name, vendor,
 * dedicated memory (total) and shared system memory; what is in use comes
 * from the PDH adapter counters, per process from the PDH process counters
 * (pdh.c). On Windows WDDM owns GPU memory, so these are the figures, for
 * NVIDIA GPUs too: NVML's per-process figure is not available there.
 */
#define WIN32_LEAN_AND_MEAN
#define COBJMACROS
#include <windows.h>
#include <dxgi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dxgi-pdh/dxgi-pdh.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

#define ADAPTERS_MAX 16
#define VENDOR_MICROSOFT 0x1414

struct adapter {
	struct pdh_instance luid;   /* only luid_high and luid_low are set */
	char name[256];
	unsigned vendor_id;
	uint64_t dedicated, shared;
};

struct dxgi {
	hmn_context *ctx;
	struct adapter adapters[ADAPTERS_MAX];
	const char *names[ADAPTERS_MAX];
	unsigned n;
	struct pdh_utilization *utilization; /* opened at the first query that wants telemetry */
	bool utilization_tried;
};

static const char *vendor_name(unsigned id)
{
	switch (id) {
	case 0x10de: return "nvidia";
	case 0x1002: return "amd";
	case 0x8086: return "intel";
	case 0x5143: return "qualcomm";
	default: return "unknown";
	}
}

static void dxgi_close(void *state)
{
	struct dxgi *d = state;
	if (d)
		pdh_utilization_close(d->utilization);
	free(d);
}

/* Each engine's load now; none when the counters are missing (said once, with -v). */
static void read_utilization(struct dxgi *d, struct pdh_engine_load **ret, size_t *ret_n)
{
	*ret = NULL;
	*ret_n = 0;
	if (!d->utilization_tried) {
		d->utilization_tried = true;
		if (!(d->utilization = pdh_utilization_open()))
			hmn_log(d->ctx, HMN_LOG_INFO, "dxgi: no GPU Engine counters: utilisation unknown");
	}
	if (d->utilization && pdh_utilization_read(d->utilization, ret, ret_n) < 0)
		*ret_n = 0;
}

static int dxgi_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	IDXGIFactory1 *factory = NULL;
	HRESULT hr = CreateDXGIFactory1(&IID_IDXGIFactory1, (void **)&factory);
	if (FAILED(hr)) {
		snprintf(why, why_size, "CreateDXGIFactory1 failed (0x%08lx)", (unsigned long)hr);
		return -ENODEV;
	}
	struct dxgi *d = calloc(1, sizeof(*d));
	if (!d) {
		IDXGIFactory1_Release(factory);
		return -ENOMEM;
	}
	d->ctx = ctx;
	IDXGIAdapter1 *adapter;
	for (UINT i = 0; d->n < ADAPTERS_MAX && IDXGIFactory1_EnumAdapters1(factory, i, &adapter) == S_OK; i++) {
		DXGI_ADAPTER_DESC1 desc;
		hr = IDXGIAdapter1_GetDesc1(adapter, &desc);
		IDXGIAdapter1_Release(adapter);
		if (FAILED(hr))
			continue;
		if (desc.VendorId == VENDOR_MICROSOFT || (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) ||
		    (desc.DedicatedVideoMemory == 0 && desc.SharedSystemMemory == 0))
			continue;
		struct adapter *a = &d->adapters[d->n];
		a->luid.luid_high = (uint32_t)desc.AdapterLuid.HighPart;
		a->luid.luid_low = (uint32_t)desc.AdapterLuid.LowPart;
		a->vendor_id = desc.VendorId;
		a->dedicated = desc.DedicatedVideoMemory;
		a->shared = desc.SharedSystemMemory;
		utf16_to_utf8((const uint16_t *)desc.Description, 128, a->name, sizeof(a->name));
		d->names[d->n] = a->name;
		d->n++;
	}
	IDXGIFactory1_Release(factory);
	if (d->n == 0) {
		snprintf(why, why_size, "DXGI enumerates no GPU adapter");
		free(d);
		return -ENODEV;
	}
	hmn_log_found(ctx, "dxgi", (unsigned)d->n, "DXGI adapters, PDH memory counters");
	*ret_state = d;
	return 0;
}

static unsigned dxgi_device_count(void *state)
{
	return ((struct dxgi *)state)->n;
}

static int dxgi_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct dxgi *d = state;
	struct pdh_memory *usage = NULL;
	size_t n_usage = 0;
	char why[160];
	int r = 0;

	if (pdh_read_memory(false, &usage, &n_usage, why, sizeof(why)) < 0) {
		hmn_log(d->ctx, HMN_LOG_INFO, "dxgi: %s: used memory unknown", why);
		n_usage = 0;
	}
	n_usage = pdh_fold(usage, n_usage);
	struct pdh_engine_load *loads = NULL;
	size_t n_loads = 0;
	if (context_telemetry(d->ctx))
		read_utilization(d, &loads, &n_loads);
	for (unsigned i = 0; r == 0 && i < d->n; i++) {
		const struct adapter *a = &d->adapters[i];
		struct hmn_gpu g = {
			GPU_TELEMETRY_UNKNOWN,
			.place.index = i, .name = a->name, .vendor = vendor_name(a->vendor_id),
			.total_bytes = a->dedicated, .free_bytes = HMN_UNKNOWN, .used_bytes = HMN_UNKNOWN,
			.reserved_bytes = HMN_UNKNOWN,
			.shared_total_bytes = a->shared, .shared_used_bytes = HMN_UNKNOWN,
		};
		for (size_t k = 0; k < n_usage; k++)
			if (usage[k].instance.luid_high == a->luid.luid_high &&
			    usage[k].instance.luid_low == a->luid.luid_low) {
				g.used_bytes = usage[k].dedicated;
				g.shared_used_bytes = usage[k].shared;
			}
		if (g.used_bytes != HMN_UNKNOWN && g.used_bytes <= g.total_bytes)
			g.free_bytes = g.total_bytes - g.used_bytes;
		g.utilization_percent = pdh_adapter_utilization(loads, n_loads, a->luid.luid_high, a->luid.luid_low);
		r = gpu_sink_add(sink, &g);
	}
	free(loads);
	free(usage);
	*ret_failed = 0;
	return r;
}

static int dxgi_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct dxgi *d = state;
	*ret_failed = 0;
	return pdh_report_processes(d->ctx, sink, &d->adapters[0].luid, sizeof(d->adapters[0]), d->n,
				    d->names);
}

const struct hmn_source hmn_source_dxgi = {
	.name = "dxgi",
	.family = FAMILY_WINDOWS,
	.open = dxgi_open,
	.close = dxgi_close,
	.device_count = dxgi_device_count,
	.gpus = dxgi_gpus,
	.processes = dxgi_processes,
};
