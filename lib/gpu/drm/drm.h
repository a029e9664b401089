/* Private to the DRM source (gpu/drm): what the /proc scan needs to know of the GPUs. */
#ifndef HMN_GPU_DRM_H
#define HMN_GPU_DRM_H

#include "gpu/drm/drm-parse.h"
#include "gpu/source.h"

/* An AMD or Intel GPU the drm source measures. */
struct drm_gpu {
	unsigned card;                /* N of /dev/dri/cardN */
	unsigned vendor_id, device_id;
	char slot[32];                /* PCI slot, "0000:08:00.0" */
	char driver[32];
	char name[160];
	char render_node[24];         /* "renderD128"; "": none */
	char hwmon[24];               /* "hwmon3" under device/hwmon; "": none */
};

/* A device node under /dev/dri ("renderD128", "card0") and its GPU. */
struct drm_node {
	char name[24];
	unsigned gpu;
};

/* The GPUs the source measures, as the scan maps a client to one. */
struct drm_gpu_map {
	const struct drm_gpu *gpus;
	unsigned n_gpus;
	const struct drm_node *nodes;
	size_t n_nodes;
};

struct drm_scan {
	struct drm_usage *clients;
	size_t count, capacity;
	size_t unreadable;        /* processes whose descriptors no permission let us read */
	size_t fdinfo_reads;      /* for the -v line: what the scan cost */
	size_t processes;
};

/*
 * One pass over procfs (a directory fd): every process's descriptors, the
 * fdinfo of those that point into /dev/dri. Processes the sink's filter
 * drops are not read. Returns 0 or -ENOMEM; scan->clients is malloc'd.
 */
int drm_scan_processes(int procfs, const struct drm_gpu_map *map, struct process_sink *sink,
		       struct drm_scan *scan);

#endif
