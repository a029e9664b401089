/*
 * What the DRM source parses, pure (gpu/drm/drm-fdinfo.c, drm-clients.c):
 * built on every OS for the unit tests and the fuzzer.
 */
#ifndef HMN_GPU_DRM_PARSE_H
#define HMN_GPU_DRM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

/* DRM fdinfo (gpu/drm/drm-fdinfo.c). */
struct drm_fdinfo {
	char driver[32];          /* "amdgpu", "i915", "xe" */
	char pdev[32];            /* "0000:08:00.0"; "": not printed */
	uint64_t client_id;
	bool has_client_id;
	uint64_t local_bytes;     /* resident device memory; HMN_UNKNOWN: no such line */
	uint64_t shared_bytes;    /* resident system memory the GPU maps; HMN_UNKNOWN: none */
	unsigned engines;         /* enum hmn_process_type bits of the engines it has used */
};
/* "2068 KiB", "16 MiB" or "4096" in bytes; false when it breaks the contract. */
bool drm_parse_size(const char *p, size_t n, uint64_t *ret_bytes);
/* Parses one fdinfo text; -EINVAL when it has no drm-driver line (not DRM). */
int drm_parse_fdinfo(const char *text, size_t len, struct drm_fdinfo *ret_info);

/* One DRM client as one process reaches it (gpu/drm/drm-clients.c). */
struct drm_usage {
	uint32_t pid;
	unsigned gpu;             /* the source's device index */
	uint64_t client_id;
	bool has_client_id;       /* false: a kernel without drm-client-id; never merged */
	uint64_t local_bytes;     /* HMN_UNKNOWN: not measured */
	uint64_t shared_bytes;    /* HMN_UNKNOWN: not measured */
	unsigned type;            /* enum hmn_process_type bits; 0: no engine used yet */
	bool dropped;             /* private to drm_merge_clients() */
};
/*
 * Merges clients into one row per (pid, gpu), at the front of c, sorted by
 * pid then gpu; returns how many. A client reached by several descriptors of
 * one process counts once; one held by several processes has its memory
 * counted in the lowest pid's row alone (the others get 0 from it).
 */
size_t drm_merge_clients(struct drm_usage *c, size_t n);

#endif
