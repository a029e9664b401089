/*
 * The GPU counters of Windows' Performance Data Helper: what WDDM, which
 * owns GPU memory on Windows, says each adapter and each process holds. The
 * counters are read by their English names, so a localised Windows answers
 * too. Also the pdh source: GPUs known only by their LUID, for when DXGI
 * cannot enumerate them.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <pdh.h>
#include <pdhmsg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dxgi-pdh/dxgi-pdh.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/text.h"

/* Every instance's raw value of one counter; malloc'd into *ret. */
static int counter_values(HCOUNTER counter, PDH_RAW_COUNTER_ITEM_W **ret, DWORD *ret_n)
{
	DWORD size = 0, n = 0;
	PDH_STATUS s = PdhGetRawCounterArrayW(counter, &size, &n, NULL);
	if (s != (PDH_STATUS)PDH_MORE_DATA && s != ERROR_SUCCESS)
		return -EIO;
	PDH_RAW_COUNTER_ITEM_W *items = malloc(size ? size : 1);
	if (!items)
		return -ENOMEM;
	if (size && PdhGetRawCounterArrayW(counter, &size, &n, items) != ERROR_SUCCESS) {
		free(items);
		return -EIO;
	}
	*ret = items;
	*ret_n = size ? n : 0;
	return 0;
}

struct pdh_utilization {
	PDH_HQUERY query;
	HCOUNTER counter;
	bool collected;       /* a first collection to compare with */
};

struct pdh_utilization *pdh_utilization_open(void)
{
	struct pdh_utilization *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	if (PdhOpenQueryW(NULL, 0, &u->query) != ERROR_SUCCESS) {
		free(u);
		return NULL;
	}
	if (PdhAddEnglishCounterW(u->query, L"\\GPU Engine(*)\\Utilization Percentage", 0, &u->counter) !=
	    ERROR_SUCCESS) {
		pdh_utilization_close(u);
		return NULL;
	}
	return u;
}

void pdh_utilization_close(struct pdh_utilization *u)
{
	if (!u)
		return;
	PdhCloseQuery(u->query);
	free(u);
}

int pdh_utilization_read(struct pdh_utilization *u, struct pdh_engine_load **ret, size_t *ret_n)
{
	if (!u->collected) {
		if (PdhCollectQueryData(u->query) != ERROR_SUCCESS)
			return -EIO;
		u->collected = true;
		Sleep(100); /* a rate needs two collections some time apart */
	}
	if (PdhCollectQueryData(u->query) != ERROR_SUCCESS)
		return -EIO;
	DWORD size = 0, n = 0;
	PDH_STATUS st = PdhGetFormattedCounterArrayW(u->counter, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, &size, &n, NULL);
	if (st != (PDH_STATUS)PDH_MORE_DATA && st != ERROR_SUCCESS)
		return -EIO;
	PDH_FMT_COUNTERVALUE_ITEM_W *items = malloc(size ? size : 1);
	struct pdh_engine_load *loads = calloc(n ? n : 1, sizeof(*loads));
	size_t count = 0;
	if (!items || !loads || (size && PdhGetFormattedCounterArrayW(u->counter, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100,
								   &size, &n, items) != ERROR_SUCCESS)) {
		free(items);
		free(loads);
		return !items || !loads ? -ENOMEM : -EIO;
	}
	for (DWORD i = 0; size && i < n; i++) {
		char name[256];
		utf16_to_utf8((const uint16_t *)items[i].szName, 256, name, sizeof(name));
		if (items[i].FmtValue.CStatus == PDH_CSTATUS_VALID_DATA &&
		    pdh_parse_instance(name, &loads[count].instance))
			loads[count++].percent = items[i].FmtValue.doubleValue;
	}
	free(items);
	*ret = loads;
	*ret_n = count;
	return 0;
}

static int add_row(struct pdh_memory **rows, size_t *n, size_t *capacity, const struct pdh_memory *row)
{
	if (array_reserve((void **)rows, capacity, *n, sizeof(**rows)) < 0)
		return -ENOMEM;
	(*rows)[(*n)++] = *row;
	return 0;
}

/* Adds one counter's values into rows, matched by instance name. */
static int merge_counter(HCOUNTER counter, bool dedicated, bool per_process, struct pdh_memory **rows,
			 size_t *n, size_t *capacity)
{
	PDH_RAW_COUNTER_ITEM_W *items = NULL;
	DWORD count = 0;
	int r = counter_values(counter, &items, &count);
	for (DWORD i = 0; r == 0 && i < count; i++) {
		char name[256];
		struct pdh_memory row = { 0 };
		utf16_to_utf8((const uint16_t *)items[i].szName, 256, name, sizeof(name));
		if (!pdh_parse_instance(name, &row.instance) || row.instance.has_pid != per_process)
			continue;
		uint64_t value = items[i].RawValue.FirstValue < 0 ? 0 : (uint64_t)items[i].RawValue.FirstValue;
		if (dedicated) {
			row.dedicated = value;
			r = add_row(rows, n, capacity, &row);
		} else {
			/* Shared Usage comes second: find its Dedicated row (same order, as a rule). */
			for (size_t k = 0; k < *n; k++) {
				struct pdh_instance *a = &(*rows)[k].instance;
				if (a->pid == row.instance.pid && a->luid_high == row.instance.luid_high &&
				    a->luid_low == row.instance.luid_low && a->phys == row.instance.phys) {
					(*rows)[k].shared = value;
					break;
				}
			}
		}
	}
	free(items);
	return r;
}

int pdh_read_memory(bool per_process, struct pdh_memory **ret, size_t *ret_n, char *why,
		    size_t why_size)
{
	const wchar_t *set = per_process ? L"\\GPU Process Memory(*)" : L"\\GPU Adapter Memory(*)";
	wchar_t path[128];
	PDH_HQUERY query;
	HCOUNTER dedicated, shared;
	struct pdh_memory *rows = NULL;
	size_t n = 0, capacity = 0;
	int r = 0;

	if (PdhOpenQueryW(NULL, 0, &query) != ERROR_SUCCESS) {
		snprintf(why, why_size, "PdhOpenQuery failed");
		return -EIO;
	}
	_snwprintf(path, 128, L"%ls\\Dedicated Usage", set);
	PDH_STATUS s = PdhAddEnglishCounterW(query, path, 0, &dedicated);
	if (s == ERROR_SUCCESS) {
		_snwprintf(path, 128, L"%ls\\Shared Usage", set);
		s = PdhAddEnglishCounterW(query, path, 0, &shared);
	}
	if (s != ERROR_SUCCESS) {
		snprintf(why, why_size, "the %s counters are missing (Windows before 10 1709?)",
			 per_process ? "GPU Process Memory" : "GPU Adapter Memory");
		PdhCloseQuery(query);
		return -ENOENT;
	}
	if (PdhCollectQueryData(query) != ERROR_SUCCESS) {
		snprintf(why, why_size, "PdhCollectQueryData failed");
		PdhCloseQuery(query);
		return -EIO;
	}
	r = merge_counter(dedicated, true, per_process, &rows, &n, &capacity);
	if (r == 0)
		r = merge_counter(shared, false, per_process, &rows, &n, &capacity);
	PdhCloseQuery(query);
	if (r < 0) {
		free(rows);
		snprintf(why, why_size, "reading the GPU memory counters failed");
		return r;
	}
	*ret = rows;
	*ret_n = n;
	return 0;
}

int pdh_read_engines(struct pdh_memory **ret, size_t *ret_n)
{
	PDH_HQUERY query;
	HCOUNTER counter;
	struct pdh_memory *rows = NULL;
	size_t n = 0, capacity = 0;
	PDH_RAW_COUNTER_ITEM_W *items = NULL;
	DWORD count = 0;

	if (PdhOpenQueryW(NULL, 0, &query) != ERROR_SUCCESS)
		return -EIO;
	if (PdhAddEnglishCounterW(query, L"\\GPU Engine(*)\\Running Time", 0, &counter) != ERROR_SUCCESS ||
	    PdhCollectQueryData(query) != ERROR_SUCCESS) {
		PdhCloseQuery(query);
		return -ENOENT;
	}
	int r = counter_values(counter, &items, &count);
	for (DWORD i = 0; r == 0 && i < count; i++) {
		char name[256];
		struct pdh_memory row = { 0 };
		utf16_to_utf8((const uint16_t *)items[i].szName, 256, name, sizeof(name));
		if (items[i].RawValue.FirstValue > 0 && pdh_parse_instance(name, &row.instance) &&
		    row.instance.has_pid && row.instance.engine_type[0])
			r = add_row(&rows, &n, &capacity, &row);
	}
	free(items);
	PdhCloseQuery(query);
	if (r < 0) {
		free(rows);
		return r;
	}
	*ret = rows;
	*ret_n = n;
	return 0;
}

static int compare_rows(const void *a, const void *b)
{
	const struct pdh_instance *x = &((const struct pdh_memory *)a)->instance;
	const struct pdh_instance *y = &((const struct pdh_memory *)b)->instance;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->luid_high != y->luid_high)
		return x->luid_high < y->luid_high ? -1 : 1;
	if (x->luid_low != y->luid_low)
		return x->luid_low < y->luid_low ? -1 : 1;
	return 0;
}

size_t pdh_fold(struct pdh_memory *rows, size_t n)
{
	size_t out = 0;
	if (n == 0)
		return 0;
	qsort(rows, n, sizeof(*rows), compare_rows);
	for (size_t i = 0; i < n; i++) {
		if (out > 0 && compare_rows(&rows[out - 1], &rows[i]) == 0) {
			rows[out - 1].dedicated += rows[i].dedicated;
			rows[out - 1].shared += rows[i].shared;
		} else {
			rows[out++] = rows[i];
		}
	}
	return out;
}

/* ---- the pdh source: adapters by LUID alone ------------------------------------- */

struct pdh_source {
	hmn_context *ctx;
	struct pdh_memory *adapters;
	size_t n;
};

static void pdh_close(void *state)
{
	struct pdh_source *p = state;
	if (p) {
		free(p->adapters);
		free(p);
	}
}

static int pdh_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	struct pdh_source *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ctx = ctx;
	int r = pdh_read_memory(false, &p->adapters, &p->n, why, why_size);
	if (r == 0)
		p->n = pdh_fold(p->adapters, p->n);
	if (r == 0 && p->n == 0) {
		snprintf(why, why_size, "no GPU adapter in the GPU Adapter Memory counters");
		r = -ENODEV;
	}
	if (r < 0) {
		pdh_close(p);
		return r;
	}
	hmn_log_found(ctx, "pdh", (unsigned)p->n, "the GPU Adapter Memory counters, no DXGI");
	*ret_state = p;
	return 0;
}

static unsigned pdh_device_count(void *state)
{
	return (unsigned)((struct pdh_source *)state)->n;
}

static int pdh_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct pdh_source *p = state;
	struct pdh_memory *now = NULL;
	size_t n = 0;
	char why[128];
	int r = pdh_read_memory(false, &now, &n, why, sizeof(why));
	if (r < 0)
		return r;
	n = pdh_fold(now, n);
	for (size_t i = 0; r == 0 && i < p->n; i++) {
		char name[64];
		const struct pdh_instance *a = &p->adapters[i].instance;
		snprintf(name, sizeof(name), "GPU (LUID 0x%08x:0x%08x)", (unsigned)a->luid_high,
			 (unsigned)a->luid_low);
		struct hmn_gpu g = {
			GPU_TELEMETRY_UNKNOWN,
			.place.index = (unsigned)i, .name = name, .vendor = "unknown",
			.total_bytes = HMN_UNKNOWN, .free_bytes = HMN_UNKNOWN, .used_bytes = HMN_UNKNOWN,
			.reserved_bytes = HMN_UNKNOWN, .shared_total_bytes = HMN_UNKNOWN,
			.shared_used_bytes = HMN_UNKNOWN,
		};
		for (size_t k = 0; k < n; k++)
			if (now[k].instance.luid_high == a->luid_high && now[k].instance.luid_low == a->luid_low) {
				g.used_bytes = now[k].dedicated;
				g.shared_used_bytes = now[k].shared;
			}
		r = gpu_sink_add(sink, &g);
	}
	free(now);
	*ret_failed = 0;
	return r;
}

static int pdh_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct pdh_source *p = state;
	*ret_failed = 0;
	return pdh_report_processes(p->ctx, sink, &p->adapters[0].instance, sizeof(p->adapters[0]),
				    p->n, NULL);
}

/* Which adapter a LUID is; -1 when none. adapters[i] lies at stride bytes from adapters[i-1]. */
static int adapter_by_luid(const struct pdh_instance *adapters, size_t stride, size_t n,
			   const struct pdh_instance *inst)
{
	for (size_t i = 0; i < n; i++) {
		const struct pdh_instance *a =
			(const struct pdh_instance *)((const char *)adapters + i * stride);
		if (a->luid_high == inst->luid_high && a->luid_low == inst->luid_low)
			return (int)i;
	}
	return -1;
}

static unsigned engine_type_bits(const char *engine_type)
{
	if (strncmp(engine_type, "Compute", 7) == 0)
		return HMN_PROCESS_COMPUTE;
	if (strcmp(engine_type, "3D") == 0 || strncmp(engine_type, "Graphics", 8) == 0)
		return HMN_PROCESS_GRAPHICS;
	return 0;
}

/*
 * Every process's memory on every adapter, summed over its segments, as rows.
 * Shared by the dxgi and pdh sources, which differ only in their adapter lists.
 */
int pdh_report_processes(hmn_context *ctx, struct process_sink *sink,
			 const struct pdh_instance *adapters, size_t stride, size_t n_adapters,
			 const char *const *names)
{
	struct pdh_memory *rows = NULL, *engines = NULL;
	size_t n = 0, n_engines = 0;
	char why[160];
	int r = pdh_read_memory(true, &rows, &n, why, sizeof(why));
	if (r < 0) {
		hmn_log(ctx, HMN_LOG_WARNING, "%s: %s; try --backend nvidia-smi", sink->source, why);
		return r;
	}
	n = pdh_fold(rows, n);
	if (pdh_read_engines(&engines, &n_engines) < 0)
		n_engines = 0;
	for (size_t i = 0; r == 0 && i < n; i++) {
		const struct pdh_instance *inst = &rows[i].instance;
		int gpu = adapter_by_luid(adapters, stride, n_adapters, inst);
		if (gpu < 0 || (rows[i].dedicated == 0 && rows[i].shared == 0) ||
		    !process_sink_wants_device(sink, (unsigned)gpu))
			continue;
		unsigned type = 0;
		for (size_t k = 0; k < n_engines; k++) {
			const struct pdh_instance *e = &engines[k].instance;
			if (e->pid == inst->pid && e->luid_high == inst->luid_high && e->luid_low == inst->luid_low)
				type |= engine_type_bits(e->engine_type);
		}
		struct process_entry entry = {
			.pid = inst->pid,
			.place.index = (unsigned)gpu,
			.used_bytes = rows[i].dedicated,
			.shared_bytes = rows[i].shared,
			.type = type ? type : HMN_PROCESS_GRAPHICS,
			.device_name = names ? names[gpu] : NULL,
		};
		r = process_sink_add(sink, &entry);
	}
	free(engines);
	free(rows);
	return r;
}

const struct hmn_source hmn_source_pdh = {
	.name = "pdh",
	.family = FAMILY_WINDOWS,
	.open = pdh_open,
	.close = pdh_close,
	.device_count = pdh_device_count,
	.gpus = pdh_gpus,
	.processes = pdh_processes,
};
