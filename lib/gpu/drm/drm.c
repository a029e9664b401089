/*
 * The drm source: AMD and Intel GPUs on Linux, measured by the kernel's own
 * accounting, with no vendor library.
 *
 * GPUs: $HMN_SYSFS/class/drm/cardN → device (the PCI function): its uevent
 * gives driver, ids and slot. amdgpu prints VRAM and GTT totals and use in
 * mem_info_*; xe prints each tile's VRAM size; i915 answers a memory-region
 * query on its render node. What a driver does not expose stays unknown,
 * and -v says why.
 *
 * Processes: /proc/PID/fdinfo of each DRM descriptor (drm-proc.c), merged
 * per client (drm-clients.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(HAVE_I915_DRM_H)
#include <i915_drm.h>
#endif

#include "gpu/drm/drm.h"
#include "gpu/pci.h"
#include "os/linux/files.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/number.h"

#define GPUS_MAX 64
#define NODES_MAX 256

#define VENDOR_AMD 0x1002
#define VENDOR_INTEL 0x8086
#define VENDOR_NVIDIA 0x10de

struct drm {
	hmn_context *ctx;
	int sysfs;                    /* directory fd of $HMN_SYSFS or /sys */
	bool fake_sysfs;              /* $HMN_SYSFS set: no /dev node is opened */
	struct drm_gpu gpus[GPUS_MAX];
	unsigned n_gpus;
	struct drm_node nodes[NODES_MAX];
	size_t n_nodes;
};

static const char *sysfs_root(bool *ret_fake)
{
	const char *root = os_sysfs_root();
	*ret_fake = strcmp(root, "/sys") != 0;
	return root;
}

/* "card0" → 0, "renderD128" → 128 with *ret_render; false for "card0-DP-1", "version". */
static bool node_number(const char *name, unsigned *ret, bool *ret_render)
{
	const char *digits;
	if (strncmp(name, "card", 4) == 0)
		digits = name + 4, *ret_render = false;
	else if (strncmp(name, "renderD", 7) == 0)
		digits = name + 7, *ret_render = true;
	else
		return false;
	const char *end = digits;
	uint64_t v;
	if (!parse_decimal(&end, digits + strlen(digits), 1000000, &v) || *end)
		return false;
	*ret = (unsigned)v;
	return true;
}

/* The PCI slot a class/drm entry's device link points to ("../../../0000:08:00.0"). */
static bool node_slot(int class_dir, const char *name, char slot[32])
{
	char path[64], target[512];
	snprintf(path, sizeof(path), "%s/device", name);
	ssize_t n = readlinkat(class_dir, path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= 32)
		return false;
	strcpy(slot, base);
	return true;
}

struct uevent {
	char driver[32], slot[32];
	unsigned vendor_id, device_id;
	bool has_ids;
};

/* The value of "KEY=value" in a uevent text, into out ("" when absent or too long). */
static void uevent_value(const char *text, const char *key, char *out, size_t size)
{
	size_t k = strlen(key);
	out[0] = '\0';
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		if (len > k && strncmp(line, key, k) == 0 && line[k] == '=') {
			if (len - k - 1 < size) {
				memcpy(out, line + k + 1, len - k - 1);
				out[len - k - 1] = '\0';
			}
			return;
		}
		line += len + (line[len] == '\n');
	}
}

static bool read_uevent(int class_dir, const char *name, struct uevent *u)
{
	char path[64], text[1024], ids[32];
	snprintf(path, sizeof(path), "%s/device/uevent", name);
	if (linux_read_attr(class_dir, path, text, sizeof(text)) < 0)
		return false;
	uevent_value(text, "DRIVER", u->driver, sizeof(u->driver));
	uevent_value(text, "PCI_SLOT_NAME", u->slot, sizeof(u->slot));
	uevent_value(text, "PCI_ID", ids, sizeof(ids));
	u->has_ids = sscanf(ids, "%x:%x", &u->vendor_id, &u->device_id) == 2;
	return u->slot[0] != '\0';
}

static const char *vendor_name(unsigned vendor_id)
{
	return vendor_id == VENDOR_AMD ? "amd" : "intel";
}

/* The PCI ids database, mapped: $HMN_PCI_IDS, else where distributions put it. NULL: none. */
static void *map_pci_database(size_t *ret_len)
{
	static const char *const places[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids" };
	const char *env = os_trusted_getenv("HMN_PCI_IDS");
	size_t n_places = env && *env ? 1 : sizeof(places) / sizeof(places[0]);

	for (size_t i = 0; i < n_places; i++) {
		int fd = open(env && *env ? env : places[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		void *text = MAP_FAILED;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && st.st_size > 0)
			text = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (text != MAP_FAILED) {
			*ret_len = (size_t)st.st_size;
			return text;
		}
	}
	return NULL;
}

/*
 * Names each GPU: its product name (amdgpu's product_name, from the board's
 * FRU), else the PCI ids database (mapped once for all of them), else
 * "AMD GPU [1002:744c]".
 */
static void name_gpus(struct drm *d, int class_dir)
{
	void *database = NULL;
	size_t database_len = 0;
	bool database_tried = false;

	for (unsigned i = 0; i < d->n_gpus; i++) {
		struct drm_gpu *g = &d->gpus[i];
		const char *vendor = g->vendor_id == VENDOR_AMD ? "AMD" : "Intel";
		char path[64], text[128];

		snprintf(path, sizeof(path), "card%u/device/product_name", g->card);
		if (linux_read_attr(class_dir, path, text, sizeof(text)) == 0 && text[0]) {
			snprintf(g->name, sizeof(g->name), "%s", text);
			continue;
		}
		if (!database_tried) {
			database = map_pci_database(&database_len);
			database_tried = true;
		}
		if (database && pci_ids_name(database, database_len, g->vendor_id, g->device_id, text,
					     sizeof(text)))
			snprintf(g->name, sizeof(g->name), "%s %s", vendor, text);
		else
			snprintf(g->name, sizeof(g->name), "%s GPU [%04x:%04x]", vendor, g->vendor_id,
				 g->device_id);
	}
	if (database)
		munmap(database, database_len);
}

static bool driver_measured(const char *driver)
{
	return strcmp(driver, "amdgpu") == 0 || strcmp(driver, "i915") == 0 ||
	       strcmp(driver, "xe") == 0;
}

/* The GPU's hwmon folder (temperature, power), found once: its number changes from boot to boot. */
static void find_hwmon(int class_dir, const char *card, char *out, size_t size)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/device/hwmon", card);
	int fd = openat(class_dir, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	out[0] = '\0';
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, "hwmon", 5) == 0 && e->d_name[5] >= '0' && e->d_name[5] <= '9' &&
		    strlen(e->d_name) < size) {
			memcpy(out, e->d_name, strlen(e->d_name) + 1);
			break;
		}
	closedir(dir);
}

/* A cardN entry: one GPU, when it is an AMD or Intel PCI GPU that a driver we read runs. */
static void add_card(struct drm *d, int class_dir, const char *name, unsigned number)
{
	struct uevent u = { 0 };

	if (!read_uevent(class_dir, name, &u)) {
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: %s: not a PCI device: skipped", name);
		return;
	}
	if (u.has_ids && u.vendor_id == VENDOR_NVIDIA) {
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: %s (%s): NVIDIA: left to nvml and nvidia-smi",
			name, u.slot);
		return;
	}
	if (!u.has_ids || (u.vendor_id != VENDOR_AMD && u.vendor_id != VENDOR_INTEL) ||
	    !driver_measured(u.driver)) {
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: %s (%s): driver %s: not a GPU hmn measures",
			name, u.slot, u.driver[0] ? u.driver : "none");
		return;
	}
	for (unsigned i = 0; i < d->n_gpus; i++)
		if (strcmp(d->gpus[i].slot, u.slot) == 0)
			return; /* two card nodes of one PCI GPU */
	if (d->n_gpus == GPUS_MAX)
		return;
	struct drm_gpu *g = &d->gpus[d->n_gpus];
	*g = (struct drm_gpu){ .card = number, .vendor_id = u.vendor_id, .device_id = u.device_id };
	snprintf(g->driver, sizeof(g->driver), "%s", u.driver);
	snprintf(g->slot, sizeof(g->slot), "%s", u.slot);
	find_hwmon(class_dir, name, g->hwmon, sizeof(g->hwmon));
	d->n_gpus++;
}

static int compare_gpus(const void *a, const void *b)
{
	const struct drm_gpu *x = a, *y = b;
	return x->card < y->card ? -1 : x->card > y->card;
}

/* Every node of every GPU found, so that a descriptor without drm-pdev still maps. */
static void map_nodes(struct drm *d, int class_dir, char (*names)[24], size_t n)
{
	for (size_t i = 0; i < n && d->n_nodes < NODES_MAX; i++) {
		char slot[32];
		if (!node_slot(class_dir, names[i], slot))
			continue;
		for (unsigned g = 0; g < d->n_gpus; g++) {
			if (strcmp(d->gpus[g].slot, slot) != 0)
				continue;
			struct drm_node *node = &d->nodes[d->n_nodes++];
			snprintf(node->name, sizeof(node->name), "%s", names[i]);
			node->gpu = g;
			if (strncmp(names[i], "renderD", 7) == 0)
				snprintf(d->gpus[g].render_node, sizeof(d->gpus[g].render_node), "%s",
					 names[i]);
		}
	}
}

static void drm_close(void *state)
{
	struct drm *d = state;
	if (!d)
		return;
	if (d->sysfs >= 0)
		close(d->sysfs);
	free(d);
}

static int drm_open(hmn_context *ctx, void **ret_state, char *why, size_t why_size)
{
	struct drm *d = calloc(1, sizeof(*d));
	char (*names)[24] = NULL;
	size_t n_names = 0;
	const char *root;

	if (!d)
		return -ENOMEM;
	d->ctx = ctx;
	root = sysfs_root(&d->fake_sysfs);
	d->sysfs = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int class_dir = d->sysfs >= 0 ? openat(d->sysfs, "class/drm", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *dir = class_dir >= 0 ? fdopendir(dup(class_dir)) : NULL;
	if (!dir) {
		snprintf(why, why_size, "no DRM devices (%s/class/drm: %s)", root, strerror(errno));
		if (class_dir >= 0)
			close(class_dir);
		drm_close(d);
		return -ENODEV;
	}
	names = calloc(NODES_MAX, sizeof(*names));
	for (struct dirent *e; names && (e = readdir(dir)) && n_names < NODES_MAX;) {
		unsigned number;
		bool render;
		size_t len = strlen(e->d_name);
		if (len >= sizeof(names[0]) || !node_number(e->d_name, &number, &render))
			continue;
		memcpy(names[n_names++], e->d_name, len + 1);
		if (!render)
			add_card(d, class_dir, e->d_name, number);
	}
	closedir(dir);
	if (!names) {
		close(class_dir);
		drm_close(d);
		return -ENOMEM;
	}
	/* Card numbers give the order the kernel found the GPUs in: a stable index. */
	qsort(d->gpus, d->n_gpus, sizeof(d->gpus[0]), compare_gpus);
	name_gpus(d, class_dir);
	map_nodes(d, class_dir, names, n_names);
	free(names);
	close(class_dir);
	if (d->n_gpus == 0) {
		snprintf(why, why_size, "no AMD or Intel GPU in %s/class/drm", root);
		drm_close(d);
		return -ENODEV;
	}
	/* "card0 amdgpu, card1 xe": what a reader needs to match the GPU column to the kernel's cards */
	char cards[160] = "";
	for (unsigned i = 0; i < d->n_gpus && strlen(cards) + 40 < sizeof(cards); i++)
		snprintf(cards + strlen(cards), sizeof(cards) - strlen(cards), "%scard%u %s", i ? ", " : "",
			 d->gpus[i].card, d->gpus[i].driver);
	hmn_log_found(ctx, "drm", d->n_gpus, "%s/class/drm (%s)", root, cards);
	*ret_state = d;
	return 0;
}

static unsigned drm_device_count(void *state)
{
	return ((struct drm *)state)->n_gpus;
}

/* ---- device memory, per driver ------------------------------------------------ */

/* An attribute of GPU i's PCI device, relative to the sysfs root. */
static int device_u64(struct drm *d, unsigned i, const char *attr, uint64_t *ret)
{
	char path[128];
	snprintf(path, sizeof(path), "class/drm/card%u/device/%s", d->gpus[i].card, attr);
	return linux_read_u64(d->sysfs, path, ret);
}

/* A read error other than "no such attribute": the GPU itself is failing (off the bus). */
static bool is_device_error(int r)
{
	return r < 0 && r != -ENOENT && r != -EINVAL;
}

static int amdgpu_memory(struct drm *d, unsigned i, struct hmn_gpu *g)
{
	uint64_t total = HMN_UNKNOWN, used = HMN_UNKNOWN;
	int r1 = device_u64(d, i, "mem_info_vram_total", &total);
	int r2 = device_u64(d, i, "mem_info_vram_used", &used);

	if (is_device_error(r1) || is_device_error(r2))
		return r1 < 0 && is_device_error(r1) ? r1 : r2;
	if (r1 < 0 || r2 < 0)
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: card%u: amdgpu prints no mem_info_vram_%s",
			d->gpus[i].card, r1 < 0 ? "total" : "used");
	g->total_bytes = total;
	g->used_bytes = used;
	if (device_u64(d, i, "mem_info_gtt_total", &g->shared_total_bytes) < 0)
		g->shared_total_bytes = HMN_UNKNOWN;
	if (device_u64(d, i, "mem_info_gtt_used", &g->shared_used_bytes) < 0)
		g->shared_used_bytes = HMN_UNKNOWN;
	return 0;
}

static int xe_memory(struct drm *d, unsigned i, struct hmn_gpu *g)
{
	uint64_t total = 0;
	unsigned tiles = 0;

	for (unsigned t = 0; t < 8; t++) {
		char attr[64];
		uint64_t size;
		snprintf(attr, sizeof(attr), "tile%u/physical_vram_size_bytes", t);
		int r = device_u64(d, i, attr, &size);
		if (is_device_error(r))
			return r;
		if (r < 0)
			break;
		total += size;
		tiles++;
	}
	if (tiles == 0) {
		hmn_log(d->ctx, HMN_LOG_INFO,
			"drm: card%u: xe prints no tile VRAM size (an integrated GPU, or a kernel before 6.9): total unknown",
			d->gpus[i].card);
		return 0;
	}
	g->total_bytes = total;
	hmn_log(d->ctx, HMN_LOG_INFO, "drm: card%u: xe prints no used VRAM figure in sysfs: used unknown",
		d->gpus[i].card);
	return 0;
}

#if defined(HAVE_I915_DRM_H)
/* DRM_I915_QUERY_MEMORY_REGIONS on the render node: the device-local regions' size and room. */
static int i915_query_regions(int fd, uint64_t *ret_total, uint64_t *ret_unallocated)
{
	struct drm_i915_query_item item = { .query_id = DRM_I915_QUERY_MEMORY_REGIONS };
	struct drm_i915_query query = { .num_items = 1, .items_ptr = (uintptr_t)&item };

	if (ioctl(fd, DRM_IOCTL_I915_QUERY, &query) < 0)
		return -errno;
	if (item.length < (int32_t)sizeof(struct drm_i915_query_memory_regions))
		return item.length < 0 ? item.length : -EINVAL;
	struct drm_i915_query_memory_regions *regions = calloc(1, (size_t)item.length);
	if (!regions)
		return -ENOMEM;
	item.data_ptr = (uintptr_t)regions;
	int r = ioctl(fd, DRM_IOCTL_I915_QUERY, &query) < 0 ? -errno : item.length < 0 ? item.length : 0;
	uint64_t total = 0, unallocated = 0;
	size_t room = ((size_t)item.length - sizeof(*regions)) / sizeof(regions->regions[0]);
	for (uint32_t k = 0; r == 0 && k < regions->num_regions && k < room; k++)
		if (regions->regions[k].region.memory_class == I915_MEMORY_CLASS_DEVICE) {
			total += regions->regions[k].probed_size;
			unallocated += regions->regions[k].unallocated_size;
		}
	free(regions);
	if (r == 0) {
		*ret_total = total;
		*ret_unallocated = unallocated;
	}
	return r;
}
#endif

static int i915_memory(struct drm *d, unsigned i, struct hmn_gpu *g)
{
	unsigned card = d->gpus[i].card;
#if defined(HAVE_I915_DRM_H)
	char path[64];
	uint64_t total = 0, unallocated = 0;

	if (d->fake_sysfs || !d->gpus[i].render_node[0]) {
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: card%u: i915: %s: memory unknown", card,
			d->fake_sysfs ? "HMN_SYSFS is set, so no device node is queried" : "no render node");
		return 0;
	}
	snprintf(path, sizeof(path), "/dev/dri/%s", d->gpus[i].render_node);
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	int r = fd < 0 ? -errno : i915_query_regions(fd, &total, &unallocated);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		hmn_log(d->ctx, HMN_LOG_INFO, "drm: card%u: i915 memory query on %s: %s: memory unknown",
			card, path, strerror(-r));
		return 0;
	}
	if (total == 0) {
		hmn_log(d->ctx, HMN_LOG_INFO,
			"drm: card%u: i915: no device-local memory (an integrated GPU shares system memory)", card);
		return 0;
	}
	g->total_bytes = total;
	/*
	 * Without CAP_PERFMON the kernel reports unallocated == probed: a "0 used"
	 * that would be a lie. Only a privileged reading is used.
	 */
	if (geteuid() == 0 && unallocated <= total)
		g->used_bytes = total - unallocated;
	else
		hmn_log(d->ctx, HMN_LOG_INFO,
			"drm: card%u: i915 reports used memory only to privileged callers: used unknown", card);
#else
	(void)g;
	hmn_log(d->ctx, HMN_LOG_INFO, "drm: card%u: i915: built without i915_drm.h: memory unknown", card);
#endif
	return 0;
}

/* A telemetry figure from sysfs, divided down to our unit; unknown when absent or implausible. */
static uint32_t telemetry_value(struct drm *d, unsigned i, const char *attr, uint64_t divisor,
				uint64_t max)
{
	uint64_t v;
	if (device_u64(d, i, attr, &v) < 0 || v / divisor > max)
		return HMN_VALUE_UNKNOWN;
	return (uint32_t)(v / divisor);
}

/*
 * amdgpu: gpu_busy_percent and mem_busy_percent; every driver's hwmon:
 * temp1_input (millidegrees), power1_average or power1_input (microwatts;
 * amdgpu names it by ASIC generation), power1_cap or power1_max (the limit:
 * amdgpu and i915/xe). What a kernel does not print stays unknown.
 */
static void drm_telemetry(struct drm *d, unsigned i, struct hmn_gpu *g)
{
	const struct drm_gpu *dg = &d->gpus[i];
	char attr[96];

	if (strcmp(dg->driver, "amdgpu") == 0) {
		g->utilization_percent = telemetry_value(d, i, "gpu_busy_percent", 1, 100);
		g->memory_utilization_percent = telemetry_value(d, i, "mem_busy_percent", 1, 100);
	}
	if (!dg->hwmon[0])
		return;
	snprintf(attr, sizeof(attr), "hwmon/%s/temp1_input", dg->hwmon);
	g->temperature_celsius = telemetry_value(d, i, attr, 1000, 300);
	snprintf(attr, sizeof(attr), "hwmon/%s/power1_average", dg->hwmon);
	g->power_milliwatts = telemetry_value(d, i, attr, 1000, 10000000);
	if (g->power_milliwatts == HMN_VALUE_UNKNOWN) {
		snprintf(attr, sizeof(attr), "hwmon/%s/power1_input", dg->hwmon);
		g->power_milliwatts = telemetry_value(d, i, attr, 1000, 10000000);
	}
	snprintf(attr, sizeof(attr), "hwmon/%s/power1_cap", dg->hwmon);
	g->power_limit_milliwatts = telemetry_value(d, i, attr, 1000, 10000000);
	if (g->power_limit_milliwatts == HMN_VALUE_UNKNOWN) {
		snprintf(attr, sizeof(attr), "hwmon/%s/power1_max", dg->hwmon);
		g->power_limit_milliwatts = telemetry_value(d, i, attr, 1000, 10000000);
	}
}

static int drm_gpus(void *state, struct gpu_sink *sink, size_t *ret_failed)
{
	struct drm *d = state;
	size_t failed = 0;

	for (unsigned i = 0; i < d->n_gpus; i++) {
		const struct drm_gpu *dg = &d->gpus[i];
		struct hmn_gpu g = {
			GPU_TELEMETRY_UNKNOWN,
			.place.index = i,
			.name = dg->name,
			.vendor = vendor_name(dg->vendor_id),
			.pci_bus_id = dg->slot,
			.total_bytes = HMN_UNKNOWN, .free_bytes = HMN_UNKNOWN, .used_bytes = HMN_UNKNOWN,
			.reserved_bytes = HMN_UNKNOWN,
			.shared_total_bytes = HMN_UNKNOWN, .shared_used_bytes = HMN_UNKNOWN,
		};
		int r;
		if (strcmp(dg->driver, "amdgpu") == 0)
			r = amdgpu_memory(d, i, &g);
		else if (strcmp(dg->driver, "xe") == 0)
			r = xe_memory(d, i, &g);
		else
			r = i915_memory(d, i, &g);
		if (r < 0) {
			hmn_log(d->ctx, HMN_LOG_WARNING, "drm: GPU %u (%s): %s", sink->base + i,
				dg->slot, strerror(-r));
			failed++;
			continue;
		}
		if (g.total_bytes != HMN_UNKNOWN && g.used_bytes != HMN_UNKNOWN && g.used_bytes <= g.total_bytes)
			g.free_bytes = g.total_bytes - g.used_bytes;
		if (context_telemetry(d->ctx))
			drm_telemetry(d, i, &g);
		r = gpu_sink_add(sink, &g);
		if (r < 0)
			return r;
	}
	*ret_failed = failed;
	return 0;
}

/* ---- processes ------------------------------------------------------------------- */

static int drm_processes(void *state, struct process_sink *sink, size_t *ret_failed)
{
	struct drm *d = state;
	struct drm_gpu_map map = {
		.gpus = d->gpus, .n_gpus = d->n_gpus,
		.nodes = d->nodes, .n_nodes = d->n_nodes,
	};
	struct drm_scan scan = { 0 };
	int procfs = open(context_procfs(sink->ctx), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = procfs < 0 ? 0 : drm_scan_processes(procfs, &map, sink, &scan);

	if (procfs >= 0)
		close(procfs);
	size_t rows = r == 0 ? drm_merge_clients(scan.clients, scan.count) : 0;
	hmn_log(d->ctx, HMN_LOG_INFO, "drm: read %zu processes, %zu DRM descriptors, %zu clients",
		scan.processes, scan.fdinfo_reads, rows);
	if (scan.unreadable > 0)
		hmn_log(d->ctx, HMN_LOG_INFO,
			"drm: %zu processes' descriptors are unreadable without privilege: their GPU memory is not counted",
			scan.unreadable);
	sink->list->unreadable += scan.unreadable;
	for (size_t i = 0; r == 0 && i < rows; i++) {
		const struct drm_usage *c = &scan.clients[i];
		if (!process_sink_wants_device(sink, c->gpu))
			continue;
		struct process_entry e = {
			.pid = c->pid,
			.place.index = c->gpu,
			.used_bytes = c->local_bytes,
			.shared_bytes = c->shared_bytes,
			/* A client that has run nothing yet holds buffers for drawing. */
			.type = c->type ? c->type : HMN_PROCESS_GRAPHICS,
			.device_name = d->gpus[c->gpu].name,
		};
		r = process_sink_add(sink, &e);
	}
	free(scan.clients);
	*ret_failed = 0;
	return r;
}

const struct hmn_source hmn_source_drm = {
	.name = "drm",
	.family = FAMILY_DRM,
	.open = drm_open,
	.close = drm_close,
	.device_count = drm_device_count,
	.gpus = drm_gpus,
	.processes = drm_processes,
};
