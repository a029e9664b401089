/*
 * The metal source: Apple Silicon's one GPU, which shares system memory.
 *
 * GPU: total is hw.memsize; free is Metal's recommendedMaxWorkingSetSize,
 * the kernel's budget for GPU working sets (it moves with memory pressure);
 * used is the rest. Metal and the Objective-C runtime are reached with
 * dlopen at run time, so hmn links against libSystem alone; the device is
 * created once per context and asked again at each query.
 *
 * Processes: each process's GPU footprint is its "graphics_footprint"
 * entry in XNU's per-task ledger (the figure Activity Monitor shows),
 * read with the ledger() system call. The entry's index is looked up by
 * name in the ledger template once, never hard-coded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libproc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "gpu/metal/metal-abi.h"
#include "gpu/metal/metal.h"
#include "gpu/source.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/text.h"

#define METAL_PATH "/System/Library/Frameworks/Metal.framework/Metal"
#define OBJC_PATH "/usr/lib/libobjc.A.dylib"

struct metal {
	hmn_context *ctx;
	char name[128];
	uint64_t total;
	int ledger_entries;       /* entries in every task's ledger */
	int gpu_entry;            /* index of graphics_footprint; -1: none in this kernel */
	void *metal_library, *objc_library;
	void *device;             /* id<MTLDevice>; NULL: none */
	uint64_t (*get_u64)(void *, void *);    /* objc_msgSend, as (id, SEL) -> uint64_t */
	void (*send_void)(void *, void *);      /* objc_msgSend, as (id, SEL) -> void */
	void *sel_budget, *sel_release;
};

/*
 * ledger() has no SDK wrapper: syscall() is the way, deprecated or not. All
 * its uses are here.
 */
static int ledger_call(int cmd, void *a1, void *a2, void *a3)
{
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
	return syscall(SYS_LEDGER, cmd, a1, a2, a3);
#pragma clang diagnostic pop
}

/* A function from dlsym, as the object pointer dlsym returns; NULL without the library. */
static void *symbol(void *library, const char *name)
{
	return library ? dlsym(library, name) : NULL;
}

/*
 * The default Metal device, created once per context (as NVML is initialised
 * once) and asked for its budget at each query: objc_msgSend called as the
 * method's own type, (id, SEL) -> uint64_t. No device: m->device stays NULL.
 */
static void metal_device_open(struct metal *m)
{
	void *(*create)(void) = NULL;
	void *(*sel)(const char *) = NULL;

	m->metal_library = dlopen(METAL_PATH, RTLD_LAZY | RTLD_LOCAL);
	m->objc_library = dlopen(OBJC_PATH, RTLD_LAZY | RTLD_LOCAL);
	void *p = symbol(m->metal_library, "MTLCreateSystemDefaultDevice");
	memcpy(&create, &p, sizeof(p));
	p = symbol(m->objc_library, "sel_registerName");
	memcpy(&sel, &p, sizeof(p));
	void *send = symbol(m->objc_library, "objc_msgSend");
	if (!create || !sel || !send || !(m->device = create())) {
		hmn_log(m->ctx, HMN_LOG_INFO, "metal: no Metal device: free is the whole of memory");
		return;
	}
	memcpy(&m->get_u64, &send, sizeof(send));
	memcpy(&m->send_void, &send, sizeof(send));
	m->sel_budget = sel("recommendedMaxWorkingSetSize");
	m->sel_release = sel("release");
}

/* recommendedMaxWorkingSetSize; HMN_UNKNOWN without a device. */
static uint64_t metal_working_set_budget(const struct metal *m)
{
	return m->device ? m->get_u64(m->device, m->sel_budget) : HMN_UNKNOWN;
}

/* How many entries a ledger has, and which one is graphics_footprint. */
static void find_gpu_entry(struct metal *m)
{
	struct ledger_info info;
	m->gpu_entry = -1;
	if (ledger_call(LEDGER_INFO, (void *)(intptr_t)getpid(), &info, NULL) < 0 || info.li_entries <= 0 ||
	    info.li_entries > 4096)
		return;
	int count = (int)info.li_entries;
	struct ledger_template_info *templates = calloc((size_t)count, sizeof(*templates));
	if (templates && ledger_call(LEDGER_TEMPLATE_INFO, templates, &count, NULL) == 0 && count > 0) {
		m->ledger_entries = (int)info.li_entries;
		m->gpu_entry = ledger_entry_index(templates, (size_t)count, "graphics_footprint");
	}
	free(templates);
}

static void metal_close(void *state)
{
	struct metal *m = state;
	if (!m)
		return;
	if (m->device)
		m->send_void(m->device, m->sel_release);
	if (m->objc_library)
		dlclose(m->objc_library);
	if (m->metal_library)
		dlclose(m->metal_library);
	free(m);
}

static int metal_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	struct metal *m = calloc(1, sizeof(*m));
	size_t len = sizeof(m->total);
	if (!m)
		return -ENOMEM;
	m->ctx = ctx;
	if (sysctlbyname("hw.memsize", &m->total, &len, NULL, 0) < 0) {
		snprintf(why, why_size, "sysctl hw.memsize: %s", strerror(errno));
		free(m);
		return -ENODEV;
	}
	len = sizeof(m->name) - 1;
	if (sysctlbyname("machdep.cpu.brand_string", m->name, &len, NULL, 0) < 0)
		snprintf(m->name, sizeof(m->name), "Apple GPU");
	find_gpu_entry(m);
	metal_device_open(m);
	hmn_log_found(ctx, "metal", 1, "%s, %llu bytes of unified memory", m->name, (unsigned long long)m->total);
	if (m->gpu_entry < 0)
		hmn_log(ctx, HMN_LOG_INFO, "metal: this kernel's ledger has no graphics_footprint: no per-process figures");
	*ret_state = m;
	return 0;
}

static unsigned metal_device_count(void *state)
{
	(void)state;
	return 1;
}

static int metal_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct metal *m = state;
	struct hmn_gpu g = {
		GPU_TELEMETRY_UNKNOWN,
		.place.index = 0, .name = m->name, .vendor = "apple", .total_bytes = m->total,
		.reserved_bytes = HMN_UNKNOWN,
		.shared_total_bytes = HMN_UNKNOWN, .shared_used_bytes = HMN_UNKNOWN,
		.unified_memory = true,
	};
	uma_figures(m->total, metal_working_set_budget(m), &g.used_bytes, &g.free_bytes);
	*ret_failed = 0;
	return gpu_sink_add(sink, &g);
}

static int metal_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct metal *m = state;
	int r = 0;

	*ret_failed = 0;
	if (m->gpu_entry < 0 || !process_sink_wants_device(sink, 0))
		return 0;
	int bytes = proc_listpids(PROC_ALL_PIDS, 0, NULL, 0);
	size_t capacity = bytes > 0 ? (size_t)bytes / sizeof(pid_t) + 64 : 0;
	pid_t *pids = calloc(capacity ? capacity : 1, sizeof(*pids));
	struct ledger_entry_info *entries = calloc((size_t)m->ledger_entries, sizeof(*entries));
	if (!pids || !entries) {
		free(pids);
		free(entries);
		return -ENOMEM;
	}
	bytes = proc_listpids(PROC_ALL_PIDS, 0, pids, (int)(capacity * sizeof(pid_t)));
	for (size_t i = 0; r == 0 && bytes > 0 && i < (size_t)bytes / sizeof(pid_t); i++) {
		if (pids[i] <= 0 || !process_sink_wants_pid(sink, (uint32_t)pids[i]))
			continue;
		int count = m->ledger_entries;
		if (ledger_call(LEDGER_ENTRY_INFO, (void *)(intptr_t)pids[i], entries, &count) < 0) {
			if (errno == EPERM || errno == EACCES)
				sink->list->unreadable++; /* another user's: re-run with sudo */
			continue;                         /* ESRCH: it exited */
		}
		uint64_t gpu = ledger_entry_balance(entries, (size_t)count, m->gpu_entry);
		if (gpu == 0 || gpu == HMN_UNKNOWN)
			continue;
		struct process_entry e = {
			.pid = (uint32_t)pids[i],
			.used_bytes = gpu,
			.shared_bytes = HMN_UNKNOWN,
			/* The ledger does not say which kind of work: Metal's is drawing unless told. */
			.type = HMN_PROCESS_GRAPHICS,
			.device_name = m->name,
		};
		r = process_sink_add(sink, &e);
	}
	free(pids);
	free(entries);
	return r;
}

const struct hmn_source hmn_source_metal = {
	.name = "metal",
	.family = FAMILY_APPLE,
	.open = metal_open,
	.close = metal_close,
	.device_count = metal_device_count,
	.gpus = metal_gpus,
	.processes = metal_processes,
};
