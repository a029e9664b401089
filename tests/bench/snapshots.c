/*
 * snapshots SECONDS: device snapshots per second through libhmn, with one
 * context reused for every sample (what a sampling loop should do) and with
 * a fresh context per sample (one dlopen and nvmlInit each, as a tool that
 * opens NVML per call does). Needs HMN_NVML_LIBRARY and a scenario.
 * Against the stand-in it also prints the NVML calls a reused snapshot makes
 * (the stand-in counts them); a real NVML cannot say.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hmn.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int snapshot(hmn_context *ctx)
{
	struct hmn_gpu_list *gpus = NULL;
	int r = hmn_query_gpus(ctx, &gpus);
	hmn_gpu_list_free(gpus);
	return r;
}

/* The stand-in's total of NVML calls so far, or -1 against a real NVML. */
static long stub_calls(void)
{
	const char *path = getenv("HMN_NVML_LIBRARY");
	void *lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
	unsigned long (*total)(void) = lib ? (unsigned long (*)(void))dlsym(lib, "hmnStubCallTotal") : NULL;
	long n = total ? (long)total() : -1;
	if (lib)
		dlclose(lib);
	return n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	hmn_context *ctx = NULL;
	long n = 0;

	if (hmn_context_new(NULL, &ctx, NULL) < 0 || snapshot(ctx) < 0) {
		fprintf(stderr, "snapshots: no GPU through %s\n", getenv("HMN_NVML_LIBRARY"));
		return 1;
	}
	long calls_before = stub_calls();
	double start = now(), end = start + seconds;
	for (; now() < end; n++)
		snapshot(ctx);
	double reused = (double)n / (now() - start);
	long calls = stub_calls() - calls_before;
	double calls_per_snapshot = calls_before >= 0 && n > 0 ? (double)calls / (double)n : -1;
	hmn_context_free(ctx);

	start = now();
	end = start + seconds;
	for (n = 0; now() < end; n++) {
		hmn_context_new(NULL, &ctx, NULL);
		snapshot(ctx);
		ctx = hmn_context_free(ctx);
	}
	double fresh = (double)n / (now() - start);
	printf("one context reused:      %10.0f snapshots/s  (%.2f us each)", reused, 1e6 / reused);
	if (calls_per_snapshot >= 0)
		printf("  %.1f NVML calls each\n", calls_per_snapshot);
	else
		printf("  (NVML calls: not the stand-in, not counted)\n");
	printf("a fresh context each:    %10.0f snapshots/s  (%.2f us each)\n", fresh, 1e6 / fresh);
	return 0;
}
