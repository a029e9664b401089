/*
 * libhmn end to end against the stand-in NVML (tests/stub): every driver
 * age, the INSUFFICIENT_SIZE protocol, failures, and one init per context.
 * $STUB_MODERN, $STUB_PRE_R510 and $STUB_LEGACY name the built stand-ins.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/context.h" /* refresh_budget_us: the refresh in turns, one a query */
#include "hmn.h"
#include "tap.h"

static char dir[] = "/tmp/hmn-test-context-XXXXXX";

static void scenario(const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/scenario", dir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	setenv("HMN_STUB_SCENARIO", path, 1);
}

static void use_stub(const char *variable)
{
	const char *path = getenv(variable);
	if (!path) {
		fprintf(stderr, "%s is not set\n", variable);
		exit(99);
	}
	setenv("HMN_NVML_LIBRARY", path, 1);
}

static char last_warning[512];
static int warnings, infos;

static void capture(enum hmn_log_level level, const char *message, void *userdata)
{
	if (level == HMN_LOG_WARNING) {
		warnings++;
		snprintf(last_warning, sizeof(last_warning), "%s", message);
	} else {
		infos++;
	}
}

static hmn_context *open_context(const char *backends)
{
	struct hmn_options o = { .backends = backends, .log = capture };
	hmn_context *ctx = NULL;
	warnings = infos = 0;
	last_warning[0] = '\0';
	if (hmn_context_new(&o, &ctx, NULL) < 0)
		return NULL;
	return ctx;
}

static const char two_gpus[] =
	"driver 550.54.15\n"
	"gpu name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-aaaaaaaa-0000-0000-0000-000000000000 "
	"pci=00000000:1B:00.0 total=85520809984 reserved=502267904 used=20780679168\n"
	"gpu name=\"NVIDIA L40S\" uuid=GPU-bbbbbbbb-0000-0000-0000-000000000000 "
	"pci=00000000:3B:00.0 total=48305799168 reserved=0 used=1048576\n"
	"proc gpu=0 pid=100 used=2690646016 list=compute\n"
	"proc gpu=0 pid=101 used=1617952768 list=compute\n"
	"proc gpu=0 pid=101 used=1617952768 list=graphics\n"
	"proc gpu=1 pid=200 used=na list=graphics\n"
	"proc gpu=1 pid=100 used=1048576 list=mps\n";

static const struct hmn_process *find(const struct hmn_process_list *l, uint32_t pid, unsigned dev)
{
	for (size_t i = 0; i < l->count; i++)
		if (l->processes[i].pid == pid && l->processes[i].place.index == dev)
			return &l->processes[i];
	return NULL;
}

static void test_modern(void)
{
	use_stub("STUB_MODERN");
	scenario(two_gpus);
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;

	ok(ctx != NULL, "modern: context opens");
	ok(hmn_query_gpus(ctx, &gpus) == 0, "modern: GPUs answer");
	ok(gpus && gpus->count == 2 && gpus->found == 2 && gpus->failed == 0, "modern: two GPUs");
	const struct hmn_gpu *g = &gpus->gpus[0];
	is_str(g->name, "NVIDIA H100 80GB HBM3", "name");
	is_str(g->uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000000", "uuid");
	is_str(g->pci_bus_id, "0000:1b:00.0", "bus id in sysfs form");
	is_str(g->vendor, "nvidia", "vendor");
	is_str(g->driver_version, "550.54.15", "driver version");
	is_str(g->source, "nvml", "source");
	is_u64(g->total_bytes, 85520809984ULL, "total");
	is_u64(g->reserved_bytes, 502267904ULL, "reserved from the v2 call");
	is_u64(g->used_bytes, 20780679168ULL, "used from the v2 call");
	is_u64(g->free_bytes, 85520809984ULL - 502267904ULL - 20780679168ULL, "free");
	ok(g->total_bytes == g->reserved_bytes + g->used_bytes + g->free_bytes,
	   "total = reserved + used + free");
	ok(gpus->gpus[1].place.index == 1, "second GPU has index 1");
	hmn_gpu_list_free(gpus);

	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0, "modern: processes answer");
	ok(procs && procs->count == 4, "four (process, GPU) rows, the C+G process merged");
	const struct hmn_process *p = find(procs, 101, 0);
	ok(p && p->type == (HMN_PROCESS_COMPUTE | HMN_PROCESS_GRAPHICS), "compute and graphics merge into C+G");
	ok(p && p->used_bytes == 1617952768ULL, "merged row keeps the footprint, not the sum");
	p = find(procs, 200, 1);
	ok(p && p->used_bytes == HMN_UNKNOWN && p->type == HMN_PROCESS_GRAPHICS,
	   "NVML_VALUE_NOT_AVAILABLE becomes unknown, never 2^64-1");
	p = find(procs, 100, 1);
	ok(p && p->type == HMN_PROCESS_COMPUTE, "an MPS client is compute");
	ok(p && p->device_name && !strcmp(p->device_name, "NVIDIA L40S"), "device name on the row");
	ok(p && p->device_uuid && !strcmp(p->device_uuid, "GPU-bbbbbbbb-0000-0000-0000-000000000000"),
	   "device uuid on the row");
	ok(p && !p->exists && p->name == NULL && !p->is_protected, "a PID not in /proc has no name");
	hmn_process_list_free(procs);

	uint32_t pid = 100;
	unsigned dev = 1;
	struct hmn_process_filter f = { .pids = &pid, .n_pids = 1 };
	hmn_query_processes(ctx, &f, &procs);
	ok(procs->count == 2, "--pid 100: its rows on both GPUs");
	hmn_process_list_free(procs);
	f = (struct hmn_process_filter){ .devices = &dev, .n_devices = 1 };
	hmn_query_processes(ctx, &f, &procs);
	ok(procs->count == 2 && procs->processes[0].place.index == 1 &&
	   procs->processes[1].place.index == 1, "--device 1: only GPU 1's rows");
	hmn_process_list_free(procs);
	ok(infos == 0, "no INFO message reaches a caller that asked for warnings only");
	ok(hmn_context_free(ctx) == NULL, "context frees");
	struct hmn_options verbose = { .log = capture, .log_level = HMN_LOG_INFO };
	hmn_context_new(&verbose, &ctx, NULL);
	struct hmn_gpu_list *listed = NULL;
	hmn_query_gpus(ctx, &listed);
	ok(infos > 0, "with HMN_LOG_INFO, the sources tried are said");
	hmn_gpu_list_free(listed);
	hmn_context_free(ctx);
	ok(hmn_context_free(NULL) == NULL && hmn_gpu_list_free(NULL) == NULL &&
	   hmn_process_list_free(NULL) == NULL, "destructors accept NULL");
}

static int count_lines(const char *path, const char *word)
{
	char line[128];
	int n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, word, strlen(word)) == 0 && line[strlen(word)] == '\n';
	fclose(f);
	return n;
}

static void test_one_init_per_context(void)
{
	char trace[512];
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	unlink(trace);
	setenv("HMN_STUB_TRACE", trace, 1);
	use_stub("STUB_MODERN");
	scenario(two_gpus);

	hmn_context *ctx = open_context(NULL);
	ok(count_lines(trace, "load") <= 0, "creating a context loads nothing yet");
	for (int i = 0; i < 50; i++) {
		struct hmn_gpu_list *g = NULL;
		struct hmn_process_list *p = NULL;
		hmn_query_gpus(ctx, &g);
		hmn_query_processes(ctx, NULL, &p);
		hmn_gpu_list_free(g);
		hmn_process_list_free(p);
	}
	struct hmn_self_memory self;
	hmn_query_self(ctx, &self);
	hmn_context_free(ctx);
	is_u64(count_lines(trace, "load"), 1, "100 queries: NVML loaded once");
	is_u64(count_lines(trace, "nvmlInit_v2"), 1, "100 queries: nvmlInit_v2 once");
	is_u64(count_lines(trace, "nvmlShutdown"), 1, "freeing the context: nvmlShutdown once");
	unsetenv("HMN_STUB_TRACE");
}

static void test_pre_r510(void)
{
	use_stub("STUB_PRE_R510");
	scenario(two_gpus);
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;
	struct hmn_process_list *procs = NULL;

	ok(hmn_query_gpus(ctx, &gpus) == 0 && gpus->count == 2, "pre-R510: GPUs answer without _v2 memory");
	const struct hmn_gpu *g = &gpus->gpus[0];
	is_u64(g->reserved_bytes, HMN_UNKNOWN, "pre-R510: reserved unknown");
	is_u64(g->used_bytes, 20780679168ULL + 502267904ULL, "pre-R510: v1 used includes reserved");
	ok(g->total_bytes == g->used_bytes + g->free_bytes, "pre-R510: total = used + free");
	hmn_gpu_list_free(gpus);
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 4, "pre-R510: processes through _v2");
	const struct hmn_process *p = find(procs, 100, 0);
	ok(p && p->used_bytes == 2690646016ULL, "pre-R510: 24-byte entries read right");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

static void test_legacy(void)
{
	use_stub("STUB_LEGACY");
	scenario(two_gpus);
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;
	struct hmn_process_list *procs = NULL;

	ok(hmn_query_gpus(ctx, &gpus) == 0 && gpus->count == 2, "legacy: GPUs answer through v1 calls");
	is_str(gpus->gpus[1].pci_bus_id, "0000:3b:00.0", "legacy: bus id from the 16-byte field only");
	is_u64(gpus->gpus[0].reserved_bytes, HMN_UNKNOWN, "legacy: reserved unknown");
	hmn_gpu_list_free(gpus);
	ok(hmn_query_processes(ctx, NULL, &procs) == 0, "legacy: processes through v1");
	/* No MPS call in the legacy library: the MPS row of pid 100 on GPU 1 is absent. */
	ok(procs->count == 3, "legacy: three rows");
	const struct hmn_process *p = find(procs, 101, 0);
	ok(p && p->used_bytes == 1617952768ULL, "legacy: 16-byte entries read right");
	ok(find(procs, 200, 1) != NULL, "legacy: second entry of a list read at the right stride");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

static void test_failures(void)
{
	struct hmn_gpu_list *gpus = NULL;
	struct hmn_process_list *procs = NULL;
	hmn_context *ctx;

	use_stub("STUB_MODERN");
	scenario("init-error 9\n");
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == -ENODEV, "init failure: no GPU found");
	ok(strstr(hmn_context_error(ctx), "Driver Not Loaded") != NULL, "init failure: the message says why");
	ok(strstr(hmn_context_error(ctx), "nvml") != NULL, "init failure: the message names the source");
	ok(gpus == NULL, "init failure: ret_list untouched");
	hmn_context_free(ctx);

	scenario("gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=1000 used=10\n"
		 "gpu name=B uuid=GPU-b pci=00000000:02:00.0 total=1000 used=10 error=15\n"
		 "gpu name=C uuid=GPU-c pci=00000000:03:00.0 total=1000 used=10\n"
		 "proc gpu=0 pid=10 used=5\nproc gpu=2 pid=30 used=5\n");
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == 0, "a lost GPU does not fail the query");
	ok(gpus->count == 2 && gpus->found == 3 && gpus->failed == 1, "the other two GPUs answer");
	ok(gpus->gpus[0].place.index == 0 && gpus->gpus[1].place.index == 2, "indices stay the driver's");
	ok(warnings == 1 && strstr(last_warning, "GPU 1") && strstr(last_warning, "GPU is lost"),
	   "the lost GPU is reported as a warning");
	hmn_gpu_list_free(gpus);
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 2 &&
	   find(procs, 10, 0) && find(procs, 30, 2), "processes on the others are listed");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);

	scenario("gpu name=A total=1000 used=10 error=15\n");
	ctx = open_context(NULL);
	gpus = NULL;
	ok(hmn_query_gpus(ctx, &gpus) == -EIO && gpus == NULL, "every GPU lost: -EIO");
	ok(strstr(hmn_context_error(ctx), "failed") != NULL, "every GPU lost: said");
	hmn_context_free(ctx);

	scenario("gpu name=A total=1000 used=10 memory-v2-error=3\n");
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == 0 && gpus->gpus[0].reserved_bytes == HMN_UNKNOWN &&
	   gpus->gpus[0].used_bytes == 10, "_v2 memory NOT_SUPPORTED: v1 answers");
	hmn_gpu_list_free(gpus);
	hmn_context_free(ctx);

	scenario("gpu name=A total=1000 used=10\n"
		 "proc gpu=0 pid=10 used=5 list=compute\n"
		 "list-error gpu=0 list=graphics code=4\n");
	ctx = open_context(NULL);
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 1 && find(procs, 10, 0),
	   "NO_PERMISSION on the graphics list: the compute list still answers");
	ok(warnings == 1 && strstr(last_warning, "graphics"), "the failed list is reported");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);

	scenario("");
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == -ENODEV && strstr(hmn_context_error(ctx), "no GPU"),
	   "zero GPUs: -ENODEV");
	hmn_context_free(ctx);

	setenv("HMN_NVML_LIBRARY", "tests/libnvidia-ml.so.1", 1);
	ok(open_context(NULL) == NULL, "a relative HMN_NVML_LIBRARY is refused, never loaded from the cwd");

	setenv("HMN_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == -ENODEV && strstr(hmn_context_error(ctx), "/nonexistent"),
	   "a missing library: no GPU, and the message names it");
	hmn_context_free(ctx);
}

static void test_r535_quirk(void)
{
	use_stub("STUB_R535");
	scenario("driver 535.54.03\n"
		 "gpu name=A total=100000000000 used=10\n"
		 "proc gpu=0 pid=10 used=1000 list=compute\n"
		 "proc gpu=0 pid=11 used=2000 list=compute\n"
		 "proc gpu=0 pid=12 used=3000 list=compute\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 3, "R535 quirk: three rows");
	const struct hmn_process *p10 = find(procs, 10, 0), *p11 = find(procs, 11, 0), *p12 = find(procs, 12, 0);
	ok(p10 && p11 && p12 && p10->used_bytes == 1000 && p11->used_bytes == 2000 && p12->used_bytes == 3000,
	   "R535 quirk: _v2 used, every entry read right");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

static void test_impossible_sizes(void)
{
	use_stub("STUB_MODERN");
	scenario("gpu name=A total=1000000 used=10\n"
		 "proc gpu=0 pid=10 used=1000001 list=compute\n"
		 "proc gpu=0 pid=11 used=1000000 list=compute\n"
		 "proc gpu=0 pid=12 used=na list=compute\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = NULL;
	hmn_query_processes(ctx, NULL, &procs);
	ok(find(procs, 10, 0)->used_bytes == HMN_UNKNOWN, "a process figure above the GPU's total is unknown");
	ok(find(procs, 11, 0)->used_bytes == 1000000, "one equal to the total is kept");
	ok(find(procs, 12, 0)->used_bytes == HMN_UNKNOWN, "NOT_AVAILABLE is unknown");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

static void test_many_processes(void)
{
	use_stub("STUB_MODERN");
	scenario("gpu name=A total=100000000000 used=10\n"
		 "procs gpu=0 list=compute first=100000 count=500 used=1048576\n"
		 "grow gpu=0 list=compute by=200 times=2\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0, "a list growing between calls answers");
	is_u64(procs->count, 900, "500 processes + 2 x 200 that appeared while listing");
	bool all = true;
	for (uint32_t pid = 100000; pid < 100500; pid++)
		all = all && find(procs, pid, 0);
	ok(all, "every one of the first 500 is there");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

static void test_backends(void)
{
	hmn_context *ctx = NULL;
	const char *why = NULL;
	struct hmn_options o = { .backends = "nvml,bogus" };

	ok(hmn_context_new(&o, &ctx, &why) == -EINVAL && ctx == NULL, "an unknown backend is -EINVAL");
	ok(why && strstr(why, "'bogus'"), "the message names it");
#ifdef __linux__
	why = NULL;
	o.backends = "NVML,metal";
	ok(hmn_context_new(&o, &ctx, &why) == -EINVAL && ctx == NULL, "a backend of another system is -EINVAL");
	is_str(why, "backend 'metal' does not exist on Linux (macOS only)", "... named with the system");
	o.backends = "Drm,NVIDIA-SMI";
	ok(hmn_context_new(&o, &ctx, &why) == 0, "names in any case");
	hmn_context_free(ctx);
	ctx = NULL;
#endif
	const char *const *names = hmn_backend_names();
	ok(names[0] && !strcmp(names[0], "nvml") && !strcmp(names[1], "nvidia-smi"), "backend names listed");
}

static void test_self(void)
{
	use_stub("STUB_MODERN");
	scenario("gpu name=A total=100000000000 used=10\n"
		 "gpu name=B total=100000000000 used=10\n"
		 "proc gpu=0 pid=self used=12345 list=compute\n"
		 "proc gpu=1 pid=self used=100 list=graphics\n"
		 "proc gpu=1 pid=1 used=999 list=graphics\n");
	unsetenv("HMN_PROCFS");
	hmn_context *ctx = open_context(NULL);
	struct hmn_self_memory m = { 0 };
	ok(hmn_query_self(ctx, &m) == 0, "self query answers");
	is_u64(m.gpu_bytes, 12445, "own GPU memory summed over GPUs, others' excluded");
	ok(m.rss_bytes != HMN_UNKNOWN && m.rss_bytes > 100000, "own RSS from /proc/self/status");
	hmn_context_free(ctx);
}

/* More processes than the threaded path's threshold, each with its own name and owner. */
static void test_many_named_processes(void)
{
	char root[600], path[700], target[64], *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	snprintf(root, sizeof(root), "%s/proc", dir);
	mkdir(root, 0755);
	fprintf(f, "gpu name=A total=100000000000 used=10\ngpu name=B total=100000000000 used=10\n");
	for (unsigned pid = 5000; pid < 5600; pid++) {
		snprintf(path, sizeof(path), "%s/%u", root, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%u/status", root, pid);
		FILE *st = fopen(path, "w");
		fprintf(st, "Name:\tx\nUid:\t%u\t%u\t%u\t%u\n", pid % 7, pid % 7, pid % 7, pid % 7);
		fclose(st);
		snprintf(path, sizeof(path), "%s/%u/exe", root, pid);
		snprintf(target, sizeof(target), "/opt/bin/prog-%u", pid);
		if (symlink(target, path) != 0)
			perror("symlink");
		fprintf(f, "proc gpu=%u pid=%u used=%u list=compute\n", pid % 2, pid, pid);
	}
	fprintf(f, "proc gpu=1 pid=5000 used=1 list=graphics\n");
	fclose(f);
	use_stub("STUB_MODERN");
	scenario(text);
	free(text);
	setenv("HMN_PROCFS", root, 1);
	hmn_context *ctx = open_context(NULL);
	unsetenv("HMN_PROCFS");
	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 601, "601 rows of 600 named processes");
	size_t right = 0;
	for (size_t i = 0; i < procs->count; i++) {
		const struct hmn_process *p = &procs->processes[i];
		snprintf(target, sizeof(target), "prog-%u", p->pid);
		right += p->name && !strcmp(p->name, target) && p->uid == p->pid % 7 && p->exists &&
			 p->path && !strcmp(p->path + strlen("/opt/bin/"), target);
	}
	is_u64(right, 601, "every row has its own process's name, path and uid");
	const struct hmn_process *twice = find(procs, 5000, 1);
	ok(twice && twice->name && !strcmp(twice->name, "prog-5000"), "a pid on two GPUs is named on both rows");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

/* ---- what a reused context calls: the cost of a sample ----------------------------- */

/* The stand-in's own count of calls to an NVML entry point (it is loaded once per process). */
static unsigned long stub_calls(const char *function)
{
	void *lib = dlopen(getenv("STUB_MODERN"), RTLD_NOW | RTLD_NOLOAD);
	unsigned long (*count)(const char *) = lib ? (unsigned long (*)(const char *))dlsym(lib, "hmnStubCallCount") : NULL;
	unsigned long n = count ? count(function) : ~0ul;
	if (lib)
		dlclose(lib);
	return n;
}

static void reset_stub_calls(void)
{
	void *lib = dlopen(getenv("STUB_MODERN"), RTLD_NOW | RTLD_NOLOAD);
	void (*reset)(void) = lib ? (void (*)(void))dlsym(lib, "hmnStubResetCounts") : NULL;
	if (reset)
		reset();
	if (lib)
		dlclose(lib);
}

static const char *const identity_calls[] = {
	"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetName", "nvmlDeviceGetUUID",
	"nvmlDeviceGetPciInfo_v3", "nvmlSystemGetDriverVersion", "nvmlDeviceGetMigMode",
	"nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex",
};

static unsigned long identity_call_total(void)
{
	unsigned long n = 0;
	for (size_t i = 0; i < sizeof(identity_calls) / sizeof(identity_calls[0]); i++)
		n += stub_calls(identity_calls[i]);
	return n;
}

static const char mig_gpu[] =
	"gpu name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-cccccccc-0000-0000-0000-000000000000 "
	"pci=00000000:5B:00.0 total=85520809984 reserved=502267904 used=11672748032\n"
	"mig gpu=2 gi=2 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 3g.40gb\" "
	"uuid=MIG-00000000-0000-0000-0000-000000000000 total=42412802048 used=11629756416\n"
	"mig gpu=2 gi=3 ci=0 name=\"NVIDIA H100 80GB HBM3 MIG 2g.20gb\" "
	"uuid=MIG-00000001-0000-0000-0000-000000000001 total=21072183296 used=17825792\n"
	"proc mig=0 pid=300 used=11534336000\n";

static void test_cheap_snapshots(void)
{
	char text[4096];
	snprintf(text, sizeof(text), "%s%s", two_gpus, mig_gpu);
	use_stub("STUB_MODERN");
	scenario(text);
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;

	ok(hmn_query_gpus(ctx, &gpus) == 0 && gpus->count == 5, "snapshot 1: 3 GPUs, 2 MIG instances");
	gpus = hmn_gpu_list_free(gpus);
	unsigned long probed = identity_call_total();
	ok(probed > 0 && stub_calls("nvmlDeviceGetMigMode") == 3, "snapshot 1 probes each GPU's MIG mode once");
	reset_stub_calls();
	for (int i = 0; i < 10; i++) {
		hmn_query_gpus(ctx, &gpus);
		gpus = hmn_gpu_list_free(gpus);
	}
	is_u64(identity_call_total(), 0, "snapshots 2-11: no identity, PCI, driver or MIG call");
	/* 3 GPUs and 2 instances: one memory query each per snapshot, nothing else. */
	is_u64(stub_calls("nvmlDeviceGetMemoryInfo_v2"), 50, "snapshots 2-11: one memory query per GPU and instance");
	is_u64(stub_calls("nvmlDeviceGetMemoryInfo"), 0, "no v1 memory call where v2 answers");

	reset_stub_calls();
	struct hmn_process_list *procs = NULL;
	hmn_query_processes(ctx, NULL, &procs);
	procs = hmn_process_list_free(procs);
	reset_stub_calls();
	hmn_query_processes(ctx, NULL, &procs);
	ok(procs && procs->count == 5, "processes of every GPU and instance");
	procs = hmn_process_list_free(procs);
	is_u64(identity_call_total(), 0, "a second process query probes nothing again");
	is_u64(stub_calls("nvmlDeviceGetMemoryInfo_v2"), 2,
	       "a process query reads no GPU's memory again, only each instance's (its bound)");

	hmn_context_refresh(ctx);
	reset_stub_calls();
	hmn_query_gpus(ctx, &gpus);
	gpus = hmn_gpu_list_free(gpus);
	is_u64(stub_calls("nvmlDeviceGetMigMode"), 3, "hmn_context_refresh: the next query probes again");
	hmn_context_free(ctx);
}

/* A GPU whose memory query fails still lists its processes (with no bound on their figures). */
static void test_memory_failing(void)
{
	use_stub("STUB_MODERN");
	scenario("gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=1073741824 used=1 memory-error=999\n"
		 "proc gpu=0 pid=100 used=2147483648 list=compute\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;
	ok(hmn_query_gpus(ctx, &gpus) == -EIO, "memory failing: the GPU's own row fails");
	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 1 &&
	   procs->processes[0].used_bytes == 2147483648ULL,
	   "its processes are still listed, their figures unbounded");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

/* MIG reconfigured under a running context: the stale instance handle fails, and it probes again. */
static void test_mig_reconfigured(void)
{
	char text[4096];
	use_stub("STUB_MODERN");
	setenv("HMN_STUB_WATCH", "1", 1);
	snprintf(text, sizeof(text), "%s", mig_gpu);
	/* gpu=2 in the text: make it GPU 0 here. */
	for (char *p = strstr(text, "gpu=2"); p; p = strstr(p, "gpu=2"))
		p[4] = '0';
	scenario(text);
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;
	hmn_query_gpus(ctx, &gpus);
	ok(gpus && gpus->count == 3, "MIG: the GPU and its two instances");
	gpus = hmn_gpu_list_free(gpus);

	/* One instance destroyed: the second handle now names no device. */
	char *second = strstr(text, "mig gpu=0 gi=3");
	char *end = strchr(second, '\n');
	memmove(second, end + 1, strlen(end + 1) + 1);
	scenario(text);
	reset_stub_calls();
	hmn_query_gpus(ctx, &gpus);
	ok(gpus && gpus->count == 2 && warnings == 1 && strstr(last_warning, "MIG instance 3"),
	   "the stale instance handle fails: said once, the rest still listed");
	ok(stub_calls("nvmlDeviceGetMigMode") == 0, "that query used the cached layout");
	gpus = hmn_gpu_list_free(gpus);
	reset_stub_calls();
	hmn_query_gpus(ctx, &gpus);
	ok(gpus && gpus->count == 2 && warnings == 1, "the next query: the GPU and its one instance, no warning");
	ok(stub_calls("nvmlDeviceGetMigMode") == 1, "the GPU was probed again");
	gpus = hmn_gpu_list_free(gpus);
	reset_stub_calls();
	hmn_query_gpus(ctx, &gpus);
	ok(stub_calls("nvmlDeviceGetMigMode") == 0, "then cached again");
	gpus = hmn_gpu_list_free(gpus);
	hmn_context_free(ctx);
	unsetenv("HMN_STUB_WATCH");
}

/* DGX Spark's GB10: no memory of its own; both memory calls answer NOT_SUPPORTED. */
static void test_unified(void)
{
	char procfs[600], path[700];
	snprintf(procfs, sizeof(procfs), "%s/unified-proc", dir);
	mkdir(procfs, 0755);
	snprintf(path, sizeof(path), "%s/meminfo", procfs);
	FILE *f = fopen(path, "w");
	fputs("MemTotal:       127535708 kB\nMemFree:         1000000 kB\n"
	      "MemAvailable:   118000000 kB\nBuffers:          100000 kB\n", f);
	fclose(f);
	setenv("HMN_PROCFS", procfs, 1);
	use_stub("STUB_MODERN");
	scenario("driver 580.95.05\n"
		 "gpu name=\"NVIDIA GB10\" uuid=GPU-dddddddd-0000-0000-0000-000000000000 "
		 "pci=00000000:01:00.0 memory-error=3\n"
		 "proc gpu=0 pid=700 used=8589934592 list=compute\n"
		 "proc gpu=0 pid=701 used=137438953472 list=compute\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_gpu_list *gpus = NULL;
	ok(hmn_query_gpus(ctx, &gpus) == 0 && gpus->count == 1 && gpus->failed == 0,
	   "GB10: answers, not a failed GPU");
	const struct hmn_gpu *g = gpus ? &gpus->gpus[0] : NULL;
	ok(g && g->unified_memory, "GB10: unified_memory");
	ok(g && g->total_bytes == 127535708ULL * 1024, "total is MemTotal");
	ok(g && g->free_bytes == 118000000ULL * 1024, "free is MemAvailable");
	ok(g && g->used_bytes == (127535708ULL - 118000000ULL) * 1024, "used is the rest");
	ok(g && g->reserved_bytes == HMN_UNKNOWN, "reserved unknown");
	ok(warnings == 0, "no warning for a GPU that has no memory of its own");
	gpus = hmn_gpu_list_free(gpus);
	struct hmn_process_list *procs = NULL;
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 2, "GB10: processes as usual");
	ok(procs && find(procs, 700, 0) && find(procs, 700, 0)->used_bytes == 8589934592ULL,
	   "a process's figure stands");
	ok(procs && find(procs, 701, 0) && find(procs, 701, 0)->used_bytes == HMN_UNKNOWN,
	   "a figure above the system's whole memory is unknown");
	procs = hmn_process_list_free(procs);
	reset_stub_calls();
	hmn_query_gpus(ctx, &gpus);
	gpus = hmn_gpu_list_free(gpus);
	is_u64(stub_calls("nvmlDeviceGetMemoryInfo_v2") + stub_calls("nvmlDeviceGetMemoryInfo"), 0,
	       "a later snapshot asks no memory call it knows unsupported");
	hmn_context_free(ctx);

	/* No meminfo to read: the GPU failed, said once. */
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == -EIO, "GB10 without a readable meminfo: failed");
	hmn_context_free(ctx);
}

/* Another user's process: /proc cannot say, the driver can. */
static void test_names_from_driver(void)
{
	char procfs[600], path[800];
	snprintf(procfs, sizeof(procfs), "%s/names-proc", dir);
	snprintf(path, sizeof(path), "%s/482", procfs);
	mkdir(procfs, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/482/status", procfs);
	FILE *f = fopen(path, "w");
	fputs("Name:\ta-very-long-pro\nUid:\t0\t0\t0\t0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/483", procfs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/483/status", procfs);
	f = fopen(path, "w");
	fputs("Name:\tmy-worker\nUid:\t0\t0\t0\t0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/483/comm", procfs);
	f = fopen(path, "w");
	fputs("my-worker\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/482/comm", procfs);
	f = fopen(path, "w");
	fputs("a-very-long-pro\n", f);
	fclose(f);
	setenv("HMN_PROCFS", procfs, 1);
	use_stub("STUB_MODERN");
	scenario("gpu name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-2be53767 pci=00000000:00:06.0 "
		 "total=85520809984 reserved=503316480 used=11196694528\n"
		 "proc gpu=0 pid=482 used=1591738368 list=compute\n"
		 "proc gpu=0 pid=483 used=1277165568 list=compute\n"
		 "proc gpu=0 pid=490 used=2640314368 list=compute\n"
		 "proc gpu=0 pid=491 used=1048576 list=compute\n"
		 "procname pid=482 path=/tmp/b/a-very-long-process-name-beyond-fifteen\n"
		 "procname pid=483 path=/usr/bin/python3\n"
		 "procname pid=490 path=/tmp/b/trainer\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = NULL;
	reset_stub_calls();
	ok(hmn_query_processes(ctx, NULL, &procs) == 0 && procs->count == 4, "four processes");
	const struct hmn_process *p = procs ? find(procs, 482, 0) : NULL;
	ok(p && p->name && !strcmp(p->name, "a-very-long-process-name-beyond-fifteen"),
	   "comm a prefix of the driver's basename: the whole name");
	ok(p && p->path && !strcmp(p->path, "/tmp/b/a-very-long-process-name-beyond-fifteen"),
	   "path from the driver");
	p = procs ? find(procs, 483, 0) : NULL;
	ok(p && p->name && !strcmp(p->name, "my-worker") && p->path && !strcmp(p->path, "/usr/bin/python3"),
	   "comm that is no truncation of the basename stays the name; the path is the driver's");
	p = procs ? find(procs, 490, 0) : NULL;
	ok(p && p->name && !strcmp(p->name, "trainer") && !p->exists,
	   "a pid outside our namespace: named by the driver");
	p = procs ? find(procs, 491, 0) : NULL;
	ok(p && !p->name && !p->path, "nobody can name it: null");
	is_u64(stub_calls("nvmlSystemGetProcessName"), 4, "one nvmlSystemGetProcessName per process");
	procs = hmn_process_list_free(procs);
	uint32_t pid = 490;
	struct hmn_process_filter filter = { .pids = &pid, .n_pids = 1 };
	reset_stub_calls();
	hmn_query_processes(ctx, &filter, &procs);
	is_u64(stub_calls("nvmlSystemGetProcessName"), 1, "--pid: only the kept row's process is asked");
	procs = hmn_process_list_free(procs);
	hmn_context_free(ctx);
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
}

/* The MPS recording: a server (compute) and two clients (the MPS list). */
static void test_mps(void)
{
	use_stub("STUB_MODERN");
	scenario("gpu name=\"NVIDIA H100 80GB HBM3\" uuid=GPU-2be53767 pci=00000000:00:06.0 "
		 "total=85520809984 reserved=503316480 used=2200000000\n"
		 "proc gpu=0 pid=470 used=69206016 list=compute\n"
		 "proc gpu=0 pid=461 used=1275068416 list=mps\n"
		 "proc gpu=0 pid=463 used=855638016 list=mps\n");
	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = NULL;
	hmn_query_processes(ctx, NULL, &procs);
	const struct hmn_process *server = procs ? find(procs, 470, 0) : NULL;
	const struct hmn_process *client = procs ? find(procs, 461, 0) : NULL;
	ok(server && !server->is_mps_client && server->type == HMN_PROCESS_COMPUTE, "the MPS server: compute");
	ok(client && client->is_mps_client && client->type == HMN_PROCESS_COMPUTE,
	   "an MPS client: an MPS client, still compute");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
}

/* ---- a remembering context (hmn watch) and pids given again ------------------------ */

/* dir/reuse-proc/PID as a process: its status (owner), exe and stat (start time). */
static void fake_process_rss(const char *procfs, unsigned pid, unsigned uid, const char *exe, uint64_t start,
			     unsigned rss_pages)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/%u", procfs, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/status", procfs, pid);
	FILE *f = fopen(path, "w");
	fprintf(f, "Name:\tx\nUid:\t%u\t%u\t%u\t%u\n", uid, uid, uid, uid);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%u/stat", procfs, pid);
	f = fopen(path, "w");
	fprintf(f, "%u (x) S 1 %u %u 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 8 0 %" PRIu64 " 123456 %u\n", pid,
		pid, pid, start, rss_pages);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%u/exe", procfs, pid);
	unlink(path);
	if (symlink(exe, path) != 0)
		perror("symlink");
}

static void fake_process_at(const char *procfs, unsigned pid, unsigned uid, const char *exe, uint64_t start)
{
	fake_process_rss(procfs, pid, uid, exe, start, 5120);
}

static struct hmn_process_list *query_again(hmn_context *ctx)
{
	struct hmn_process_list *procs = NULL;
	if (hmn_query_processes(ctx, NULL, &procs) < 0)
		return NULL;
	return procs;
}

/* The next query's pid 100 is this process: its name, owner and start time. */
static void pid100_is(hmn_context *ctx, const char *name, unsigned uid, uint64_t start, const char *what)
{
	struct hmn_process_list *procs = query_again(ctx);
	const struct hmn_process *p = procs ? find(procs, 100, 0) : NULL;
	ok(p && p->name && !strcmp(p->name, name) && p->uid == uid && p->start_time == start, "%s", what);
	hmn_process_list_free(procs);
}

/*
 * A pid listed by two queries in a row is one process only while its start
 * time is the same: the system may have given it to another process between
 * them, which must not inherit the first one's name, owner and start time
 * (hmn watch keys its peaks by pid and start time).
 */
static void test_pid_reused(void)
{
	char procfs[600];
	snprintf(procfs, sizeof(procfs), "%s/reuse-proc", dir);
	mkdir(procfs, 0755);
	fake_process_at(procfs, 100, 1000, "/opt/bin/trainer", 1000);
	setenv("HMN_PROCFS", procfs, 1);
	use_stub("STUB_MODERN");
	scenario("gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=85520809984 used=2690646016\n"
		 "proc gpu=0 pid=100 used=2690646016 list=compute\n");
	struct hmn_options o = { .log = capture, .remember_processes = true };
	hmn_context *ctx = NULL;
	ok(hmn_context_new(&o, &ctx, NULL) == 0, "pid reused: a remembering context opens");

	pid100_is(ctx, "trainer", 1000, 1000, "pid reused: the first process read, with its start time");

	/* The same process exec()s: same start time, remembered, not read again. */
	fake_process_at(procfs, 100, 1000, "/opt/bin/exec-ed", 1000);
	pid100_is(ctx, "trainer", 1000, 1000, "pid reused: the same start time is the same process, its name remembered");

	/* It ended and the pid went to another process, between two queries that both list it. */
	fake_process_at(procfs, 100, 2000, "/usr/bin/miner", 999999);
	struct hmn_process_list *procs = query_again(ctx);
	const struct hmn_process *p = procs ? find(procs, 100, 0) : NULL;
	ok(p && p->name && !strcmp(p->name, "miner") && p->path && !strcmp(p->path, "/usr/bin/miner") && p->uid == 2000 &&
	   p->start_time == 999999, "pid reused: another start time is another process, read anew: its own name, path,"
	   " owner and start time");
	procs = hmn_process_list_free(procs);

	/* And that one is remembered in turn. */
	fake_process_at(procfs, 100, 2000, "/usr/bin/exec-ed", 999999);
	pid100_is(ctx, "miner", 2000, 999999, "pid reused: the new process is remembered from then on");

	/*
	 * It exits; the driver lists it once more. Nothing says another process
	 * has the pid: the one it was, still (not a nameless row whose peak
	 * would count apart).
	 */
	char path[800];
	snprintf(path, sizeof(path), "rm -rf '%s/100'", procfs);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s/100\n", procfs);
	pid100_is(ctx, "miner", 2000, 999999, "pid reused: a process gone from /proc is still the one it was");

	hmn_context_free(ctx);
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
}

/*
 * A remembering context reads its known processes' RAM again in turns, a
 * few milliseconds a query: the turn goes on where the last query stopped,
 * so that every process is read again within a few queries however many
 * there are, not the first ones over and over (its budget set to one read
 * a query here, which is what a long list on a slow /proc comes to).
 */
static void test_refresh_in_turns(void)
{
	char procfs[600];
	snprintf(procfs, sizeof(procfs), "%s/turns-proc", dir);
	mkdir(procfs, 0755);
	for (unsigned pid = 100; pid <= 102; pid++)
		fake_process_rss(procfs, pid, 1000, "/opt/bin/trainer", 1000 + pid, 5120);
	setenv("HMN_PROCFS", procfs, 1);
	use_stub("STUB_MODERN");
	scenario("gpu name=A uuid=GPU-a pci=00000000:01:00.0 total=85520809984 used=2690646016\n"
		 "proc gpu=0 pid=100 used=1073741824 list=compute\n"
		 "proc gpu=0 pid=101 used=1073741824 list=compute\n"
		 "proc gpu=0 pid=102 used=1073741824 list=compute\n");
	struct hmn_options o = { .log = capture, .remember_processes = true };
	hmn_context *ctx = NULL;
	ok(hmn_context_new(&o, &ctx, NULL) == 0, "turns: a remembering context opens");
	ctx->refresh_budget_us = 0;
	struct hmn_process_list *procs = query_again(ctx);
	hmn_process_list_free(procs);
	/* Each grows; four queries later (one read each, in turns), every one says so. */
	for (unsigned pid = 100; pid <= 102; pid++)
		fake_process_rss(procfs, pid, 1000, "/opt/bin/trainer", 1000 + pid, 10240);
	for (int i = 0; i < 3; i++)
		hmn_process_list_free(query_again(ctx));
	procs = query_again(ctx);
	long page = sysconf(_SC_PAGESIZE);
	uint64_t grown = 10240ULL * (uint64_t)(page > 0 ? page : 4096);
	unsigned seen = 0;
	for (unsigned pid = 100; procs && pid <= 102; pid++) {
		const struct hmn_process *p = find(procs, pid, 0);
		seen += p && p->ram_bytes == grown;
	}
	ok(seen == 3, "turns: every known process's RAM read again within a few queries, not the first one's alone "
	   "(%u of 3)", seen);
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
}

/* procfs/PID/cmdline: the words, each NUL-terminated, as the kernel writes them. */
static void fake_cmdline(const char *procfs, unsigned pid, const char *const *argv)
{
	char path[800];
	snprintf(path, sizeof(path), "%s/%u/cmdline", procfs, pid);
	FILE *f = fopen(path, "w");
	for (; *argv; argv++)
		fwrite(*argv, 1, strlen(*argv) + 1, f);
	fclose(f);
}

/* Is p's command line these words? */
static bool command_is(const struct hmn_process *p, const char *const *want)
{
	size_t i = 0;
	if (!p || !p->command)
		return false;
	for (; want[i]; i++)
		if (!p->command[i] || strcmp(p->command[i], want[i]) != 0)
			return false;
	return !p->command[i];
}

/*
 * hmn_options.commands: each process's argument vector, once a process
 * however many rows it has; nothing read without it; a remembering context
 * reads it once, when the process is first listed, and anew for a pid
 * given to another process.
 */
static void test_commands(void)
{
	static const char *const trainer[] = { "python3", "train.py", "--epochs", "3", NULL };
	static const char *const renamed[] = { "python3", "serve.py", NULL };
	static const char *const miner[] = { "miner", "--pool=x", NULL };
	char procfs[600];
	snprintf(procfs, sizeof(procfs), "%s/command-proc", dir);
	mkdir(procfs, 0755);
	fake_process_at(procfs, 100, 1000, "/usr/bin/python3", 1000);
	fake_process_at(procfs, 101, 1000, "/usr/bin/python3", 1001);
	fake_process_at(procfs, 200, 0, "/usr/lib/xorg/Xorg", 1002);
	fake_cmdline(procfs, 100, trainer);
	fake_cmdline(procfs, 101, renamed);
	setenv("HMN_PROCFS", procfs, 1);
	use_stub("STUB_MODERN");
	scenario(two_gpus);

	hmn_context *ctx = open_context(NULL);
	struct hmn_process_list *procs = query_again(ctx);
	ok(procs && procs->count == 4 && !find(procs, 100, 0)->command && !find(procs, 101, 0)->command,
	   "commands: not read unless asked for");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);

	struct hmn_options o = { .log = capture, .commands = true };
	ctx = NULL;
	ok(hmn_context_new(&o, &ctx, NULL) == 0, "commands: a context that reads them opens");
	procs = query_again(ctx);
	ok(procs && command_is(find(procs, 100, 0), trainer) && command_is(find(procs, 100, 1), trainer) &&
	   command_is(find(procs, 101, 0), renamed), "commands: each process's words, on each of its rows");
	ok(procs && find(procs, 200, 1) && !find(procs, 200, 1)->command, "commands: none where there is no cmdline");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);

	o.remember_processes = true;
	ctx = NULL;
	ok(hmn_context_new(&o, &ctx, NULL) == 0, "commands: a remembering context opens");
	ctx->refresh_budget_us = 0;
	hmn_process_list_free(query_again(ctx));
	/* The same process (same start time) rewrites its arguments: remembered as first read. */
	fake_cmdline(procfs, 100, renamed);
	procs = query_again(ctx);
	ok(procs && command_is(find(procs, 100, 0), trainer), "commands: read once, when the process was first listed");
	/* The list outlives the context: its words are its own. */
	hmn_context_free(ctx);
	ok(procs && command_is(find(procs, 100, 1), trainer), "commands: a list's words outlive its context");
	hmn_process_list_free(procs);

	ctx = NULL;
	ok(hmn_context_new(&o, &ctx, NULL) == 0, "commands: a remembering context opens again");
	hmn_process_list_free(query_again(ctx));
	/* Pid 100 given to another process: its own words. */
	fake_process_at(procfs, 100, 2000, "/usr/bin/miner", 999999);
	fake_cmdline(procfs, 100, miner);
	procs = query_again(ctx);
	ok(procs && command_is(find(procs, 100, 0), miner), "commands: a pid given to another process, its words read anew");
	hmn_process_list_free(procs);
	hmn_context_free(ctx);
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 99;
	setenv("HMN_PROCFS", "/nonexistent-procfs", 1);
	setenv("HMN_SYSFS", "/nonexistent-sysfs", 1); /* no AMD or Intel GPU of this machine's */
	/* No nvidia-smi fallback here, whatever this machine has: tests/e2e covers it. */
	setenv("HMN_NVIDIA_SMI", "/nonexistent/nvidia-smi", 1);
	test_modern();
	test_one_init_per_context();
	test_pre_r510();
	test_legacy();
	test_failures();
	test_many_processes();
	test_r535_quirk();
	test_impossible_sizes();
	test_backends();
	test_self();
	test_many_named_processes();
	test_cheap_snapshots();
	test_mig_reconfigured();
	test_memory_failing();
	test_unified();
	test_names_from_driver();
	test_mps();
	test_pid_reused();
	test_refresh_in_turns();
	test_commands();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return tap_done();
}
