/*
 * A stand-in for libnvidia-ml.so.1, for tests on machines with no GPU.
 *
 * It answers from a scenario file named by $HMN_STUB_SCENARIO, with NVML's
 * real ABI (lib/gpu/nvml/nvml-abi.h, pinned by static assertions) and NVML's real
 * protocols: INSUFFICIENT_SIZE for process lists, the version field of
 * nvmlMemory_v2_t (a wrong one fails with FUNCTION_NOT_FOUND, as real
 * drivers answer), v1 entries of 16 bytes and v2/v3 entries of 24.
 *
 * Built three times, exporting what drivers of each age export:
 *   modern   everything hmn uses (R510 and later)
 *   pre-r510 no nvmlDeviceGetMemoryInfo_v2, no _v3 process calls
 *   legacy   only the unversioned calls (nvmlInit, v1 memory, v1 processes)
 *   r535     like modern, but the _v3 process calls write 32-byte entries, as
 *            drivers 535.43.02 to 535.98 did (give it "driver 535.54.03")
 *
 * Scenario lines (# starts a comment):
 *   driver VERSION
 *   init-error CODE                      nvmlInit fails with CODE
 *   gpu name="..." uuid=... pci=... total=N reserved=N used=N [error=CODE]
 *       [memory-v2-error=CODE]           error: every call on this GPU fails
 *   proc gpu=I pid=P|self used=N|na list=compute|graphics|mps [gi=G ci=C]
 *   procs gpu=I list=L first=P count=N used=N [churn=1]
 *                                        N processes P, P+1, ...; churn: each
 *                                        answer of the list lists the next N pids
 *   list-error gpu=I list=L code=CODE
 *   grow gpu=I list=L by=N times=K       the list gains N entries after each
 *                                        of the first K size queries
 *   mig gpu=I gi=G ci=C name=... uuid=MIG-... total=N used=N [error=CODE]
 *                                        a MIG device of GPU I (which is then in
 *                                        MIG mode); error: every call on it fails
 *   proc mig=K pid=P used=N              a process on the K-th MIG device
 * A GPU in MIG mode answers its own process lists with NO_PERMISSION, as NVML
 * does for the aggregate without privileges, unless it has aggregate=1.
 *
 *   procname pid=P path="..."            what nvmlSystemGetProcessName answers
 *   gpu ... util=N memutil=N temp=N power=MW powerlimit=MW cc=MAJOR.MINOR
 *                                        telemetry (absent: NOT_SUPPORTED)
 *   gpu ... accounting=1                 accounting mode on; then
 *   accounting gpu=I pid=P max=N [start=USEC]
 *                                        what nvmlDeviceGetAccountingStats says
 *                                        (start: the process's start, in us since
 *                                        the epoch; absent: 0)
 *   gpu ... memory-error=CODE            both memory calls fail with CODE
 *                                        (NOT_SUPPORTED: a GB10's unified memory)
 *
 * $HMN_STUB_TRACE, when set, names a file that gets one line per load,
 * nvmlInit and nvmlShutdown, so tests can count them, and at nvmlShutdown
 * one line "calls FUNCTION N" for each entry point called. In-process,
 * hmnStubCallCount("nvmlDeviceGetMigMode") says the same.
 * $HMN_STUB_WATCH=1: the scenario is read again whenever its file changes
 * (a test replaces it while hmn samples), at the next call on a device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/nvml/nvml-abi.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 64

enum { COMPUTE, GRAPHICS, MPS, KINDS };

struct proc {
	unsigned pid;
	unsigned long long used;
	unsigned gi, ci;        /* ~0: not on a MIG instance */
};

struct proc_list {
	struct proc *items;
	size_t count, capacity;
	nvmlReturn_t error;
	unsigned grow_by, grow_times;
	unsigned next_pid;      /* for grown entries */
	int churn;              /* each answer moves every pid on by count */
};

struct gpu {
	char name[96], uuid[96], pci[32];
	unsigned long long total, reserved, used;
	nvmlReturn_t error, memory_v2_error, memory_error;
	long long util, memutil, temp, power, powerlimit; /* -1: not supported */
	int cc_major, cc_minor;                           /* -1: not supported */
	int accounting;
	struct { unsigned pid; unsigned long long max, start; } stats[16];
	unsigned n_stats;
	struct proc_list lists[KINDS];
	/* MIG: a parent counts its devices; a MIG device knows its ids. */
	unsigned n_migs, first_mig, gi, ci;
	int is_mig, aggregate;
};

static struct {
	char driver[80];
	nvmlReturn_t init_error;
	struct gpu gpus[MAX_GPUS];
	unsigned n_gpus;
	struct gpu migs[MAX_GPUS];
	unsigned n_migs;
	struct { unsigned pid; char path[256]; } names[64];
	unsigned n_names;
	int initialised;
	struct stat seen;       /* the scenario file as last read, for HMN_STUB_WATCH */
} S;

/* Calls per entry point, keyed by the function's own __func__ (one pointer each). */
static struct { const char *name; unsigned long count; } calls[64];

static void count_call(const char *name)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (calls[i].name == name || !calls[i].name) {
			calls[i].name = name;
			calls[i].count++;
			return;
		}
	}
}

EXPORT unsigned long hmnStubCallCount(const char *name)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && calls[i].name; i++)
		if (strcmp(calls[i].name, name) == 0)
			return calls[i].count;
	return 0;
}

EXPORT unsigned long hmnStubCallTotal(void)
{
	unsigned long n = 0;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && calls[i].name; i++)
		n += calls[i].count;
	return n;
}

EXPORT void hmnStubResetCounts(void)
{
	memset(calls, 0, sizeof(calls));
}

static void trace(const char *what)
{
	const char *path = getenv("HMN_STUB_TRACE");
	if (!path)
		return;
	FILE *f = fopen(path, "a");
	if (f) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
}

__attribute__((constructor)) static void on_load(void)
{
	trace("load");
}

/* Finds key=value in a line; value may be "quoted". Copies into out. */
static int field(const char *line, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);
	for (const char *p = line; (p = strstr(p, key)); p++) {
		if ((p != line && p[-1] != ' ' && p[-1] != '\t') || p[klen] != '=')
			continue;
		const char *v = p + klen + 1, *end;
		if (*v == '"') {
			v++;
			end = strchr(v, '"');
			if (!end)
				end = v + strlen(v);
		} else {
			end = v + strcspn(v, " \t\n");
		}
		size_t n = (size_t)(end - v) < size - 1 ? (size_t)(end - v) : size - 1;
		memcpy(out, v, n);
		out[n] = '\0';
		return 1;
	}
	return 0;
}

static unsigned long long number(const char *line, const char *key, unsigned long long fallback)
{
	char v[64];
	if (!field(line, key, v, sizeof(v)))
		return fallback;
	if (strcmp(v, "na") == 0)
		return NVML_VALUE_NOT_AVAILABLE;
	if (strcmp(v, "self") == 0)
		return (unsigned long long)getpid();
	return strtoull(v, NULL, 0);
}

static int list_kind(const char *line)
{
	char v[32] = "compute";
	field(line, "list", v, sizeof(v));
	return strcmp(v, "graphics") == 0 ? GRAPHICS : strcmp(v, "mps") == 0 ? MPS : COMPUTE;
}

static struct proc_list *list_of(const char *line)
{
	char mig[16];
	if (field(line, "mig", mig, sizeof(mig))) {
		unsigned m = (unsigned)atoi(mig);
		if (m >= S.n_migs)
			abort();
		return &S.migs[m].lists[list_kind(line)];
	}
	unsigned g = (unsigned)number(line, "gpu", 0);
	if (g >= S.n_gpus) {
		fprintf(stderr, "nvml-stub: no gpu %u in: %s", g, line);
		abort();
	}
	return &S.gpus[g].lists[list_kind(line)];
}

static void push(struct proc_list *l, unsigned pid, unsigned long long used)
{
	if (l->count == l->capacity) {
		l->capacity = l->capacity ? l->capacity * 2 : 16;
		l->items = realloc(l->items, l->capacity * sizeof(*l->items));
		if (!l->items)
			abort();
	}
	l->items[l->count++] = (struct proc){ pid, used, ~0u, ~0u };
}

static void free_lists(void)
{
	for (unsigned g = 0; g < S.n_gpus; g++)
		for (int k = 0; k < KINDS; k++)
			free(S.gpus[g].lists[k].items);
	for (unsigned g = 0; g < S.n_migs; g++)
		for (int k = 0; k < KINDS; k++)
			free(S.migs[g].lists[k].items);
}

static void load_scenario(void)
{
	const char *path = getenv("HMN_STUB_SCENARIO");
	char line[1024];
	FILE *f = path ? fopen(path, "r") : NULL;
	int initialised = S.initialised;

	free_lists();
	memset(&S, 0, sizeof(S));
	S.initialised = initialised;
	if (f)
		fstat(fileno(f), &S.seen);
	snprintf(S.driver, sizeof(S.driver), "550.54.15");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char word[32] = "";
		sscanf(line, "%31s", word);
		if (strcmp(word, "driver") == 0) {
			sscanf(line, "%*s %79s", S.driver);
		} else if (strcmp(word, "init-error") == 0) {
			S.init_error = atoi(line + 10);
		} else if (strcmp(word, "gpu") == 0 && S.n_gpus < MAX_GPUS) {
			struct gpu *g = &S.gpus[S.n_gpus++];
			field(line, "name", g->name, sizeof(g->name));
			field(line, "uuid", g->uuid, sizeof(g->uuid));
			field(line, "pci", g->pci, sizeof(g->pci));
			g->total = number(line, "total", 0);
			g->reserved = number(line, "reserved", 0);
			g->used = number(line, "used", 0);
			g->error = (nvmlReturn_t)number(line, "error", 0);
			g->memory_v2_error = (nvmlReturn_t)number(line, "memory-v2-error", 0);
			g->memory_error = (nvmlReturn_t)number(line, "memory-error", 0);
			g->util = (long long)number(line, "util", ~0ULL);
			g->memutil = (long long)number(line, "memutil", ~0ULL);
			g->temp = (long long)number(line, "temp", ~0ULL);
			g->power = (long long)number(line, "power", ~0ULL);
			g->powerlimit = (long long)number(line, "powerlimit", ~0ULL);
			g->accounting = (int)number(line, "accounting", 0);
			char cc[16];
			g->cc_major = g->cc_minor = -1;
			if (field(line, "cc", cc, sizeof(cc)))
				sscanf(cc, "%d.%d", &g->cc_major, &g->cc_minor);
			g->aggregate = (int)number(line, "aggregate", 0);
		} else if (strcmp(word, "mig") == 0 && S.n_migs < MAX_GPUS) {
			unsigned parent = (unsigned)number(line, "gpu", 0);
			struct gpu *m = &S.migs[S.n_migs];
			if (parent >= S.n_gpus)
				abort();
			if (S.gpus[parent].n_migs++ == 0)
				S.gpus[parent].first_mig = S.n_migs;
			S.n_migs++;
			field(line, "name", m->name, sizeof(m->name));
			field(line, "uuid", m->uuid, sizeof(m->uuid));
			m->total = number(line, "total", 0);
			m->used = number(line, "used", 0);
			m->gi = (unsigned)number(line, "gi", 0);
			m->ci = (unsigned)number(line, "ci", 0);
			m->error = (nvmlReturn_t)number(line, "error", 0);
			m->is_mig = 1;
		} else if (strcmp(word, "proc") == 0) {
			struct proc_list *l = list_of(line);
			push(l, (unsigned)number(line, "pid", 0), number(line, "used", 0));
			l->items[l->count - 1].gi = (unsigned)number(line, "gi", ~0u);
			l->items[l->count - 1].ci = (unsigned)number(line, "ci", ~0u);
		} else if (strcmp(word, "procs") == 0) {
			struct proc_list *l = list_of(line);
			unsigned first = (unsigned)number(line, "first", 1000);
			unsigned long long used = number(line, "used", 0);
			for (unsigned i = 0, n = (unsigned)number(line, "count", 0); i < n; i++)
				push(l, first + i, used);
			l->churn = (int)number(line, "churn", 0);
		} else if (strcmp(word, "procname") == 0 && S.n_names < 64) {
			S.names[S.n_names].pid = (unsigned)number(line, "pid", 0);
			field(line, "path", S.names[S.n_names].path, sizeof(S.names[S.n_names].path));
			S.n_names++;
		} else if (strcmp(word, "accounting") == 0) {
			unsigned g = (unsigned)number(line, "gpu", 0);
			if (g < S.n_gpus && S.gpus[g].n_stats < 16) {
				S.gpus[g].stats[S.gpus[g].n_stats].pid = (unsigned)number(line, "pid", 0);
				S.gpus[g].stats[S.gpus[g].n_stats].start = number(line, "start", 0);
				S.gpus[g].stats[S.gpus[g].n_stats++].max = number(line, "max", 0);
			}
		} else if (strcmp(word, "list-error") == 0) {
			list_of(line)->error = (nvmlReturn_t)number(line, "code", 0);
		} else if (strcmp(word, "grow") == 0) {
			struct proc_list *l = list_of(line);
			l->grow_by = (unsigned)number(line, "by", 0);
			l->grow_times = (unsigned)number(line, "times", 0);
			l->next_pid = 3000000;
		}
	}
	fclose(f);
}

static int same_mtime(const struct stat *a, const struct stat *b)
{
#ifdef _WIN32
	return a->st_mtime == b->st_mtime; /* the Windows build of the stand-in is never watched */
#else
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
#endif
}

/* HMN_STUB_WATCH: the scenario file was replaced or rewritten since it was read. */
static void reload_if_changed(void)
{
	struct stat st;
	const char *path = getenv("HMN_STUB_SCENARIO");

	if (!getenv("HMN_STUB_WATCH") || !path || stat(path, &st) != 0)
		return;
	if (st.st_ino != S.seen.st_ino || st.st_size != S.seen.st_size || !same_mtime(&st, &S.seen))
		load_scenario();
}

static nvmlReturn_t init(const char *name)
{
	trace(name);
	load_scenario();
	if (S.init_error)
		return S.init_error;
	S.initialised = 1;
	return NVML_SUCCESS;
}

static struct gpu *gpu_of(nvmlDevice_t device, nvmlReturn_t *ret)
{
	struct gpu *g = (struct gpu *)device;
	if (!S.initialised) {
		*ret = NVML_ERROR_UNINITIALIZED;
		return NULL;
	}
	reload_if_changed();
	if (!g || !((g >= S.gpus && g < S.gpus + S.n_gpus) || (g >= S.migs && g < S.migs + S.n_migs))) {
		*ret = NVML_ERROR_INVALID_ARGUMENT;
		return NULL;
	}
	if (g->error) {
		*ret = g->error;
		return NULL;
	}
	*ret = NVML_SUCCESS;
	return g;
}

static nvmlReturn_t copy_string(const char *s, char *out, unsigned length)
{
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

static nvmlReturn_t device_count(unsigned *count)
{
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	*count = S.n_gpus;
	return NVML_SUCCESS;
}

static nvmlReturn_t handle_by_index(unsigned index, nvmlDevice_t *device)
{
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	if (index >= S.n_gpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* NVML hands out handles even for a lost GPU; the calls on it fail. */
	*device = (nvmlDevice_t)&S.gpus[index];
	return NVML_SUCCESS;
}

/*
 * The process-list protocol of NVML: with too small a buffer (or none),
 * INSUFFICIENT_SIZE and the count needed; else the entries and their count.
 * Entries are written with the stride of the calling version.
 */
static nvmlReturn_t processes(nvmlDevice_t device, unsigned *count, void *infos, int kind,
			      size_t stride)
{
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	struct proc_list *l = &g->lists[kind];
	if (l->error)
		return l->error;
	if (g->n_migs > 0 && !g->aggregate)
		return NVML_ERROR_NO_PERMISSION; /* the aggregate of a MIG GPU needs privileges */
	if (*count < l->count || (!infos && l->count > 0)) {
		*count = (unsigned)l->count;
		/* The list grows between the size query and the next call. */
		if (l->grow_times > 0) {
			l->grow_times--;
			for (unsigned i = 0; i < l->grow_by; i++)
				push(l, l->next_pid++, 1 << 20);
		}
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	unsigned char *out = infos;
	for (size_t i = 0; i < l->count; i++) {
		unsigned char *e = out + i * stride;
		memset(e, 0xff, stride); /* the instance ids of a non-MIG GPU read as ~0 */
		memcpy(e + offsetof(nvmlProcessInfo_t, pid), &l->items[i].pid, sizeof(unsigned));
		memcpy(e + offsetof(nvmlProcessInfo_t, usedGpuMemory), &l->items[i].used,
		       sizeof(unsigned long long));
		if (stride >= sizeof(nvmlProcessInfo_t)) {
			memcpy(e + offsetof(nvmlProcessInfo_t, gpuInstanceId), &l->items[i].gi, sizeof(unsigned));
			memcpy(e + offsetof(nvmlProcessInfo_t, computeInstanceId), &l->items[i].ci, sizeof(unsigned));
		}
	}
	*count = (unsigned)l->count;
	/* A churning list: processes come and go, the next answer names new ones. */
	for (size_t i = 0; l->churn && i < l->count; i++)
		l->items[i].pid += (unsigned)l->count;
	return NVML_SUCCESS;
}

/* ---- the exported entry points ----------------------------------------------- */

EXPORT nvmlReturn_t nvmlInit(void) { count_call(__func__); return init("nvmlInit"); }
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned *count) { count_call(__func__); return device_count(count); }
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *d) { count_call(__func__); return handle_by_index(i, d); }

EXPORT nvmlReturn_t nvmlShutdown(void)
{ count_call(__func__);
	trace("nvmlShutdown");
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && calls[i].name; i++) {
		char line[128];
		snprintf(line, sizeof(line), "calls %s %lu", calls[i].name, calls[i].count);
		trace(line);
	}
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	free_lists();
	memset(&S, 0, sizeof(S));
	return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t r)
{ count_call(__func__);
	switch (r) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
	case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	default: return "Unknown Error";
	}
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned length)
{ count_call(__func__);
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	return copy_string(S.driver, version, length);
}

EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned pid, char *name, unsigned length)
{ count_call(__func__);
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	for (unsigned i = 0; i < S.n_names; i++)
		if (S.names[i].pid == pid)
			return copy_string(S.names[i].path, name, length);
	return NVML_ERROR_NOT_FOUND;
}

/* A telemetry figure of a GPU already looked up: -1 in the scenario is "not supported". */
static nvmlReturn_t value(long long v, unsigned *out)
{
	if (v < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*out = (unsigned)v;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (g->util < 0 || g->memutil < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	u->gpu = (unsigned)g->util;
	u->memory = (unsigned)g->memutil;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned *t)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	return sensor == NVML_TEMPERATURE_GPU ? value(g->temp, t) : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned *mw)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	return g ? value(g->power, mw) : r;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned *mw)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	return g ? value(g->powerlimit, mw) : r;
}

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (g->cc_major < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*major = g->cc_major;
	*minor = g->cc_minor;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, int *mode)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	*mode = g->accounting ? 1 : 0; /* NVML_FEATURE_ENABLED / DISABLED */
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned pid, nvmlAccountingStats_t *stats)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (!g->accounting)
		return NVML_ERROR_NOT_SUPPORTED;
	for (unsigned i = 0; i < g->n_stats; i++)
		if (g->stats[i].pid == pid) {
			memset(stats, 0, sizeof(*stats));
			stats->maxMemoryUsage = g->stats[i].max;
			stats->startTime = g->stats[i].start;
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned length)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	return g ? copy_string(g->name, name, length) : r;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned length)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	return g ? copy_string(g->uuid, uuid, length) : r;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (g->memory_error)
		return g->memory_error;
	/* v1's used includes what the driver reserves. */
	memory->total = g->total;
	memory->used = g->used + g->reserved;
	memory->free = g->total - memory->used;
	return NVML_SUCCESS;
}

#if !defined(STUB_LEGACY) && !defined(STUB_PRE_R510)
/* MIG (R450 and later; the pre-R510 stand-in is taken as one without it). */
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned *current, unsigned *pending)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (g->is_mig)
		return NVML_ERROR_INVALID_ARGUMENT;
	*current = *pending = g->n_migs > 0;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned *count)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	*count = g->n_migs > 0 ? 7 : 0; /* an H100 has room for 7 */
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned index,
							nvmlDevice_t *mig)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	if (index >= 7)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (index >= g->n_migs)
		return NVML_ERROR_NOT_FOUND; /* an empty slot */
	*mig = (nvmlDevice_t)&S.migs[g->first_mig + index];
	return NVML_SUCCESS;
}

static nvmlReturn_t instance_id(nvmlDevice_t device, unsigned *id, int compute)
{
	struct gpu *g = (struct gpu *)device;
	if (!S.initialised)
		return NVML_ERROR_UNINITIALIZED;
	if (!(g >= S.migs && g < S.migs + S.n_migs))
		return NVML_ERROR_INVALID_ARGUMENT; /* not a MIG device */
	*id = compute ? g->ci : g->gi;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned *id) { count_call(__func__); return instance_id(d, id, 0); }
EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned *id) { count_call(__func__); return instance_id(d, id, 1); }
#endif

#if defined(STUB_LEGACY)
/* Old drivers fill a 52-byte struct whose first 16 bytes are the bus id. */
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	memset(pci, 0x5a, 52); /* what an old driver would leave is not zeros */
	/* The 16-byte field holds the 4-digit-domain form. */
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%s",
		 strlen(g->pci) == 16 ? g->pci + 4 : g->pci);
	return NVML_SUCCESS;
}
#define V1_PROCESSES(fn, kind) \
	EXPORT nvmlReturn_t fn(nvmlDevice_t d, unsigned *c, nvmlProcessInfo_v1_t *i) \
	{ count_call(__func__); return processes(d, c, i, kind, sizeof(nvmlProcessInfo_v1_t)); }
V1_PROCESSES(nvmlDeviceGetComputeRunningProcesses, COMPUTE)
V1_PROCESSES(nvmlDeviceGetGraphicsRunningProcesses, GRAPHICS)
#else
EXPORT nvmlReturn_t nvmlInit_v2(void) { count_call(__func__); return init("nvmlInit_v2"); }
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) { count_call(__func__); return device_count(count); }
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d) { count_call(__func__); return handle_by_index(i, d); }

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busId, sizeof(pci->busId), "%s", g->pci);
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%.12s", g->pci + 4);
	return NVML_SUCCESS;
}

#define PROCESSES(fn, kind, type) \
	EXPORT nvmlReturn_t fn(nvmlDevice_t d, unsigned *c, type *i) \
	{ count_call(__func__); return processes(d, c, i, kind, sizeof(type)); }
PROCESSES(nvmlDeviceGetComputeRunningProcesses, COMPUTE, nvmlProcessInfo_v1_t)
PROCESSES(nvmlDeviceGetGraphicsRunningProcesses, GRAPHICS, nvmlProcessInfo_v1_t)
PROCESSES(nvmlDeviceGetMPSComputeRunningProcesses, MPS, nvmlProcessInfo_v1_t)
PROCESSES(nvmlDeviceGetComputeRunningProcesses_v2, COMPUTE, nvmlProcessInfo_t)
PROCESSES(nvmlDeviceGetGraphicsRunningProcesses_v2, GRAPHICS, nvmlProcessInfo_t)
PROCESSES(nvmlDeviceGetMPSComputeRunningProcesses_v2, MPS, nvmlProcessInfo_t)
#if defined(STUB_R535)
/* pid, usedGpuMemory, gpuInstanceId, computeInstanceId, usedGpuCcProtectedMemory */
typedef struct { unsigned char bytes[32]; } r535_entry;
PROCESSES(nvmlDeviceGetComputeRunningProcesses_v3, COMPUTE, r535_entry)
PROCESSES(nvmlDeviceGetGraphicsRunningProcesses_v3, GRAPHICS, r535_entry)
PROCESSES(nvmlDeviceGetMPSComputeRunningProcesses_v3, MPS, r535_entry)
#endif
#if !defined(STUB_PRE_R510)
#if !defined(STUB_R535)
PROCESSES(nvmlDeviceGetComputeRunningProcesses_v3, COMPUTE, nvmlProcessInfo_t)
PROCESSES(nvmlDeviceGetGraphicsRunningProcesses_v3, GRAPHICS, nvmlProcessInfo_t)
PROCESSES(nvmlDeviceGetMPSComputeRunningProcesses_v3, MPS, nvmlProcessInfo_t)
#endif

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{ count_call(__func__);
	nvmlReturn_t r;
	struct gpu *g = gpu_of(device, &r);
	if (!g)
		return r;
	/* Real drivers answer a wrong version field with FUNCTION_NOT_FOUND. */
	if (memory->version != nvmlMemory_v2)
		return NVML_ERROR_FUNCTION_NOT_FOUND;
	if (g->memory_error || g->memory_v2_error)
		return g->memory_error ? g->memory_error : g->memory_v2_error;
	memory->total = g->total;
	memory->reserved = g->reserved;
	memory->used = g->used;
	memory->free = g->total - g->reserved - g->used;
	return NVML_SUCCESS;
}
#endif
#endif
