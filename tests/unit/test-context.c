/*
 * libhmn end to end against the stand-in NVML (tests/stub): every driver
 * age, the INSUFFICIENT_SIZE protocol, failures, and one init per context.
 * $STUB_MODERN, $STUB_PRE_R510 and $STUB_LEGACY name the built stand-ins.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
		if (l->processes[i].pid == pid && l->processes[i].device_index == dev)
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
	ok(gpus->gpus[1].index == 1, "second GPU has index 1");
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
	ok(procs->count == 2 && procs->processes[0].device_index == 1 &&
	   procs->processes[1].device_index == 1, "--device 1: only GPU 1's rows");
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
	ok(gpus->gpus[0].index == 0 && gpus->gpus[1].index == 2, "indices stay the driver's");
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
	ctx = open_context(NULL);
	ok(hmn_query_gpus(ctx, &gpus) == -ENODEV && strstr(hmn_context_error(ctx), "not an absolute path"),
	   "a relative HMN_NVML_LIBRARY is refused, never loaded from the cwd");
	hmn_context_free(ctx);

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
	o.backends = "metal";
	ok(hmn_context_new(&o, &ctx, &why) == 0, "a known backend of another platform is accepted");
	struct hmn_gpu_list *gpus = NULL;
	ok(hmn_query_gpus(ctx, &gpus) == -ENODEV, "... and finds no GPU here");
	hmn_context_free(ctx);
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
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return tap_done();
}
