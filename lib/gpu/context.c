/*
 * The context: which sources, in which order, opened once and reused; and
 * the two queries that walk them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/context.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/hash-index.h"
#include "util/pid-set.h"
#include "util/text.h"

/* Every source built for this platform, in default order. */
static const struct hmn_source *const sources[] = {
#ifdef _WIN32
	&hmn_source_dxgi,
	&hmn_source_pdh,
#endif
#ifdef __APPLE__
	&hmn_source_metal,
#else
	/* No NVIDIA GPU has run macOS on Apple Silicon. */
	&hmn_source_nvml,
	&hmn_source_nvidia_smi,
#endif
#ifdef __linux__
	&hmn_source_drm,
#endif
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))

/* Every name --backend accepts, on any platform. */
static const char *const backend_names[] = {
	"nvml", "nvidia-smi", "drm", "dxgi", "pdh", "metal", NULL,
};

const char *const *hmn_backend_names(void)
{
	return backend_names;
}

const char *source_family_name(enum source_family family)
{
	static const char *const names[] = {
		[FAMILY_NVIDIA] = "nvidia", [FAMILY_DRM] = "drm", [FAMILY_WINDOWS] = "windows", [FAMILY_APPLE] = "apple",
	};
	return names[family];
}

const char *hmn_version(void)
{
	return HMN_VERSION;
}

void hmn_log(const hmn_context *ctx, enum hmn_log_level level, const char *fmt, ...)
{
	char message[HMN_ERROR_MAX];
	va_list ap;

	if (!ctx->log || level > ctx->log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	ctx->log(level, message, ctx->log_userdata);
}

void hmn_log_found(const hmn_context *ctx, const char *source, unsigned gpus, const char *fmt, ...)
{
	char what[HMN_ERROR_MAX];
	va_list ap;

	if (!ctx->log || ctx->log_level < HMN_LOG_INFO)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	hmn_log(ctx, HMN_LOG_INFO, "%s: %s, %u GPU%s", source, what, gpus, gpus == 1 ? "" : "s");
}

int hmn_fail(hmn_context *ctx, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->error, sizeof(ctx->error), fmt, ap);
	va_end(ap);
	return r;
}

void hmn_context_refresh(hmn_context *ctx)
{
	for (size_t i = 0; i < ctx->n_slots; i++)
		if (ctx->slots[i].state && ctx->slots[i].source->refresh)
			ctx->slots[i].source->refresh(ctx->slots[i].state);
}

unsigned hmn_context_unread_gpus(const hmn_context *ctx)
{
	return ctx ? ctx->unread_gpus : 0;
}

bool hmn_place_equal(const struct hmn_place *a, const struct hmn_place *b)
{
	return a->index == b->index && a->is_mig == b->is_mig &&
	       (!a->is_mig || (a->gpu_instance_id == b->gpu_instance_id &&
			       a->compute_instance_id == b->compute_instance_id));
}

bool hmn_place_within(const struct hmn_place *inner, const struct hmn_place *outer)
{
	return outer->is_mig ? hmn_place_equal(inner, outer) : inner->index == outer->index;
}

const char *context_procfs(const hmn_context *ctx)
{
	return ctx->procfs;
}

bool context_telemetry(const hmn_context *ctx)
{
	return ctx->telemetry;
}

const char *hmn_context_error(const hmn_context *ctx)
{
	return ctx ? ctx->error : "";
}

static const struct hmn_source *source_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < N_SOURCES; i++)
		if (strlen(sources[i]->name) == len && memcmp(sources[i]->name, name, len) == 0)
			return sources[i];
	return NULL;
}

static bool is_backend_name(const char *name, size_t len)
{
	for (size_t i = 0; backend_names[i]; i++)
		if (strlen(backend_names[i]) == len && memcmp(backend_names[i], name, len) == 0)
			return true;
	return false;
}

/*
 * On Windows, DXGI and PDH measure every GPU, NVIDIA's included, and WDDM
 * keeps NVML's per-process figures from it: by default the NVIDIA sources
 * would only list those GPUs twice. --backend nvml or nvidia-smi still asks
 * them.
 */
static bool used_by_default(const struct hmn_source *source)
{
#ifdef _WIN32
	return source->family == FAMILY_WINDOWS;
#else
	(void)source;
	return true;
#endif
}

static int add_slot(hmn_context *ctx, const struct hmn_source *source)
{
	for (size_t i = 0; i < ctx->n_slots; i++)
		if (ctx->slots[i].source == source)
			return 0; /* named twice: the first place counts */
	ctx->slots[ctx->n_slots++] = (struct source_slot){ .source = source };
	return 0;
}

/* Selects and orders the sources from a comma list; -EINVAL on an unknown name. */
static int select_sources(hmn_context *ctx, const char *list, const char **ret_error)
{
	static char error[128];

	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!is_backend_name(p, len)) {
			snprintf(error, sizeof(error), "unknown backend '%.*s'", (int)(len > 40 ? 40 : len), p);
			if (ret_error)
				*ret_error = error;
			return -EINVAL;
		}
		const struct hmn_source *source = source_by_name(p, len);
		if (source)
			add_slot(ctx, source);
		else
			hmn_log(ctx, HMN_LOG_INFO, "%.*s: skipped: not available on this platform",
				(int)len, p);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Says which of the variables naming what hmn loads, runs or reads it ignores, and why. */
static void warn_ignored_variables(const hmn_context *ctx)
{
	static const char *const names[] = {
		"HMN_NVML_LIBRARY", "HMN_NVIDIA_SMI", "HMN_PROCFS", "HMN_SYSFS", "HMN_PCI_IDS",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);
		if (value && *value && !os_trusted_getenv(names[i]))
			hmn_log(ctx, HMN_LOG_WARNING,
				"%s ignored: hmn runs with privileges its caller lacks (set-user-ID or file capabilities)",
				names[i]);
	}
}

int hmn_context_new(const struct hmn_options *options, hmn_context **ret_ctx,
		    const char **ret_error)
{
	const char *list = options ? options->backends : NULL;
	hmn_context *ctx = calloc(1, sizeof(*ctx));
	int r;

	if (!ctx)
		return -ENOMEM;
	ctx->slots = calloc(N_SOURCES, sizeof(*ctx->slots));
	ctx->arena = arena_new();
	if (!ctx->slots || !ctx->arena) {
		hmn_context_free(ctx);
		return -ENOMEM;
	}
	if (options) {
		ctx->log = options->log;
		ctx->log_userdata = options->log_userdata;
		ctx->log_level = options->log_level;
		ctx->telemetry = options->telemetry;
#ifdef __linux__
		/* Elsewhere a process's RAM is read with its name: nothing to save. */
		ctx->remember_processes = options->remember_processes;
#endif
	}
	warn_ignored_variables(ctx);
	ctx->procfs = arena_strdup(ctx->arena, os_procfs_root());
	if (!list)
		list = getenv("HMN_BACKENDS");
	if (list && *list) {
		r = select_sources(ctx, list, ret_error);
		if (r < 0) {
			hmn_context_free(ctx);
			return r;
		}
	} else {
		for (size_t i = 0; i < N_SOURCES; i++)
			if (used_by_default(sources[i]))
				add_slot(ctx, sources[i]);
	}
	*ret_ctx = ctx;
	return 0;
}

static void forget_processes(hmn_context *ctx);

hmn_context *hmn_context_free(hmn_context *ctx)
{
	if (!ctx)
		return NULL;
	for (size_t i = 0; i < ctx->n_slots; i++)
		if (ctx->slots[i].state)
			ctx->slots[i].source->close(ctx->slots[i].state);
	os_proc_root_close(ctx->proc_root);
	forget_processes(ctx);
	free(ctx->slots);
	free(ctx->users);
	arena_free(ctx->arena);
	free(ctx);
	return NULL;
}

/*
 * Opens a source the first time a query needs it, and never again: a
 * context loads each source once. Sources of one family share one range of
 * GPU indices (they see the same GPUs); a family's range is placed after
 * those of the families opened before it.
 */
/*
 * NVIDIA cards that slot (DRM) saw in sysfs, when every NVIDIA source
 * selected was tried and none could read a GPU: said as a warning, and
 * their indices kept (NVIDIA's range comes first), so that the GPUs that
 * answered keep theirs and --device 3 names the same GPU as before. Left
 * alone when no NVIDIA source was selected (--backend drm is a choice).
 */
static void keep_unread_nvidia(hmn_context *ctx, struct source_slot *slot)
{
	char where[128] = "", why[2 * HMN_ERROR_MAX] = "";
	size_t len = 0;
	bool tried = false;

	for (size_t i = 0; i < ctx->n_slots; i++) {
		const struct source_slot *s = &ctx->slots[i];
		if (s->source->family != FAMILY_NVIDIA)
			continue;
		if (!s->opened || (s->state && s->count > 0))
			return;
		tried = true;
		len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s: %s", len ? "; " : "",
					s->source->name, s->state ? "no GPU" : s->why);
		if (len >= sizeof(why))
			len = sizeof(why) - 1;
	}
	unsigned n = tried ? slot->source->nvidia_seen(slot->state, where, sizeof(where)) : 0;
	if (n == 0)
		return;
	ctx->unread_gpus += n;
	ctx->next_base += n;
	char range[32];
	if (n == 1)
		snprintf(range, sizeof(range), "GPU %u", ctx->next_base - 1);
	else
		snprintf(range, sizeof(range), "GPUs %u-%u", ctx->next_base - n, ctx->next_base - 1);
	hmn_log(ctx, HMN_LOG_WARNING, "%u NVIDIA GPU%s (%s) that no source could read (%s): %s left out",
		n, n == 1 ? "" : "s", where, why, range);
}

static bool slot_ready(hmn_context *ctx, struct source_slot *slot)
{
	char why[HMN_ERROR_MAX] = "";

	if (slot->opened)
		return slot->state != NULL;
	slot->opened = true;
	int r = slot->source->open(ctx, &slot->state, why, sizeof(why));
	if (r < 0) {
		slot->state = NULL;
		snprintf(slot->why, sizeof(slot->why), "%s", why[0] ? why : strerror(-r));
		/* There, but hung or out of bounds: not the same as absent. */
		slot->broken = r == -ETIMEDOUT || r == -EFBIG;
		hmn_log(ctx, HMN_LOG_INFO, "%s: skipped: %s", slot->source->name, slot->why);
		return false;
	}
	slot->count = slot->source->device_count(slot->state);
	for (size_t i = 0; i < ctx->n_slots; i++) {
		struct source_slot *other = &ctx->slots[i];
		if (other != slot && other->state && other->has_base &&
		    other->source->family == slot->source->family) {
			slot->base = other->base;
			slot->has_base = true;
		}
	}
	if (!slot->has_base && slot->source->nvidia_seen)
		keep_unread_nvidia(ctx, slot);
	if (!slot->has_base) {
		slot->base = ctx->next_base;
		slot->has_base = true;
		ctx->next_base += slot->count;
	}
	return true;
}

/* Has an earlier source of this family already answered in this query? */
static const char *answered_by(const bool *answered, const hmn_context *ctx, size_t upto)
{
	for (size_t i = 0; i < upto; i++)
		if (answered[i] && ctx->slots[i].source->family == ctx->slots[upto].source->family)
			return ctx->slots[i].source->name;
	return NULL;
}

/*
 * Why no GPU was found: what each source said. A source that is there but
 * failed (a hung or flooding nvidia-smi) is a failure (-EIO), not an
 * absent GPU (-ENODEV): monitoring must not read "this machine has none".
 */
static int fail_no_gpu(hmn_context *ctx)
{
	size_t len = 0;
	bool broken = false;

	for (size_t i = 0; i < ctx->n_slots; i++)
		broken |= ctx->slots[i].broken;
	broken |= ctx->unread_gpus > 0; /* there, but nothing could read it */
	len += (size_t)snprintf(ctx->error, sizeof(ctx->error),
				broken ? "no GPU could be read" : "no GPU found");
	if (ctx->n_slots == 0)
		snprintf(ctx->error + len, sizeof(ctx->error) - len,
			 ": no source is available on this platform");
	for (size_t i = 0; i < ctx->n_slots && len < sizeof(ctx->error); i++) {
		const struct source_slot *s = &ctx->slots[i];
		len += (size_t)snprintf(ctx->error + len, sizeof(ctx->error) - len, "%s %s: %s",
					i == 0 ? " (tried" : ";", s->source->name,
					s->state ? "no GPU" : s->why);
		if (i + 1 == ctx->n_slots && len < sizeof(ctx->error))
			len += (size_t)snprintf(ctx->error + len, sizeof(ctx->error) - len, ")");
	}
	return broken ? -EIO : -ENODEV;
}

typedef int (*walk_fn)(struct source_slot *slot, void *sink, size_t *ret_failed);

/*
 * Walks the sources in order for one query. Returns the number of GPUs
 * found, or a negative code; *ret_failed gets the number that failed.
 */
static int walk_sources(hmn_context *ctx, walk_fn fn, void *sink, unsigned *sink_base,
			const char **sink_source, size_t *ret_found, size_t *ret_failed,
			size_t *ret_unrecovered)
{
	bool answered[N_SOURCES] = { false };
	size_t failed_by[N_SOURCES] = { 0 };
	size_t found = 0, failed = 0;

	ctx->error[0] = '\0';
	for (size_t i = 0; i < ctx->n_slots; i++) {
		struct source_slot *slot = &ctx->slots[i];
		const char *earlier = answered_by(answered, ctx, i);
		size_t source_failed = 0;

		if (earlier) {
			if (!slot->told)
				hmn_log(ctx, HMN_LOG_INFO, "%s: skipped: %s answered for the %s GPUs",
					slot->source->name, earlier, source_family_name(slot->source->family));
			slot->told = true;
			continue;
		}
		if (!slot_ready(ctx, slot))
			continue;
		*sink_base = slot->base;
		*sink_source = slot->source->name;
		int r = fn(slot, sink, &source_failed);
		if (r == -ENOMEM)
			return hmn_fail(ctx, r, "out of memory");
		if (r < 0) {
			hmn_log(ctx, HMN_LOG_WARNING, "%s: failed: %s", slot->source->name, strerror(-r));
			continue;
		}
		found += slot->count;
		failed += source_failed;
		failed_by[i] = source_failed;
		answered[i] = slot->count > source_failed;
		if (slot->count == 0 && !slot->told)
			hmn_log(ctx, HMN_LOG_INFO, "%s: skipped: it found no GPU", slot->source->name);
		slot->told |= slot->count == 0;
	}
	*ret_found = found;
	*ret_failed = failed;
	/* What failed and no later source of its family answered for (nvidia-smi after NVML). */
	size_t unrecovered = 0;
	for (size_t i = 0; i < ctx->n_slots; i++) {
		bool recovered = false;
		for (size_t j = i + 1; j < ctx->n_slots && failed_by[i] && !recovered; j++)
			recovered = answered[j] && answered_by(answered, ctx, j) == NULL &&
				    ctx->slots[i].source->family == ctx->slots[j].source->family;
		unrecovered += recovered ? 0 : failed_by[i];
	}
	*ret_unrecovered = unrecovered;
	return 0;
}

static int query_result(hmn_context *ctx, size_t found, size_t failed)
{
	if (found == 0)
		return fail_no_gpu(ctx);
	if (failed >= found)
		return hmn_fail(ctx, -EIO, "every GPU found (%zu) failed to answer", found);
	return 0;
}

/* ---- GPUs ------------------------------------------------------------------ */

int gpu_sink_add(struct gpu_sink *sink, const struct hmn_gpu *gpu)
{
	struct hmn_gpu_list *list = sink->list;
	struct hmn_arena *a = list->arena;

	if (array_reserve((void **)&list->gpus, &sink->capacity, list->count, sizeof(*list->gpus)) < 0)
		return -ENOMEM;
	struct hmn_gpu *g = &list->gpus[list->count];
	*g = *gpu;
	g->place.index = sink->base + gpu->place.index;
	g->source = sink->source;
	g->name = arena_strdup(a, gpu->name);
	g->uuid = arena_strdup(a, gpu->uuid);
	g->pci_bus_id = arena_strdup(a, gpu->pci_bus_id);
	g->driver_version = arena_strdup(a, gpu->driver_version);
	g->compute_capability = arena_strdup(a, gpu->compute_capability);
	if ((gpu->name && !g->name) || (gpu->uuid && !g->uuid) ||
	    (gpu->pci_bus_id && !g->pci_bus_id) || (gpu->driver_version && !g->driver_version) ||
	    (gpu->compute_capability && !g->compute_capability))
		return -ENOMEM;
	list->count++;
	return 0;
}

static int walk_gpus(struct source_slot *slot, void *sink, size_t *ret_failed)
{
	return slot->source->gpus(slot->state, sink, ret_failed);
}

struct hmn_gpu_list *hmn_gpu_list_free(struct hmn_gpu_list *list)
{
	if (!list)
		return NULL;
	free(list->gpus);
	arena_free(list->arena);
	free(list);
	return NULL;
}

int hmn_query_gpus(hmn_context *ctx, struct hmn_gpu_list **ret_list)
{
	struct hmn_gpu_list *list = calloc(1, sizeof(*list));
	struct gpu_sink sink = { .ctx = ctx, .list = list };
	size_t found = 0, failed = 0, unrecovered = 0;
	int r;

	if (!list || !(list->arena = arena_new())) {
		hmn_gpu_list_free(list);
		return hmn_fail(ctx, -ENOMEM, "out of memory");
	}
	r = walk_sources(ctx, walk_gpus, &sink, &sink.base, &sink.source, &found, &failed, &unrecovered);
	if (r == 0)
		r = query_result(ctx, found, failed);
	if (r < 0) {
		hmn_gpu_list_free(list);
		return r;
	}
	list->found = found;
	list->failed = unrecovered;
	*ret_list = list;
	return 0;
}

/* ---- processes ----------------------------------------------------------------- */

/*
 * Rows are keyed by (pid, device, GPU instance): a process's compute
 * instances of one GPU instance are one row. gi + 1, so that 0 is "not MIG".
 */
static unsigned row_instance(const struct hmn_place *at)
{
	return at->is_mig ? at->gpu_instance_id + 1 : 0;
}

static uint64_t row_hash(uint32_t pid, const struct hmn_place *at)
{
	return hash_mix(((uint64_t)pid << 16) ^ at->index ^ (uint64_t)row_instance(at) << 40);
}

static uint64_t hash_of_row(const void *rows, size_t row)
{
	const struct hmn_process *p = &((const struct hmn_process *)rows)[row];
	return row_hash(p->pid, &p->place);
}

/* A row's key: which process, where. */
struct row_key {
	uint32_t pid;
	const struct hmn_place *at;
};

static bool row_is(const void *rows, size_t row, const void *key)
{
	const struct hmn_process *p = &((const struct hmn_process *)rows)[row];
	const struct row_key *k = key;
	return p->pid == k->pid && p->place.index == k->at->index && row_instance(&p->place) == row_instance(k->at);
}

/* The slot holding the row with this key, or the empty slot where it would go. */
static size_t row_slot(const struct hash_index *idx, const struct hmn_process_list *list, uint32_t pid,
		       const struct hmn_place *at)
{
	struct row_key key = { pid, at };
	return hash_index_slot(idx, row_hash(pid, at), list->processes, &key, row_is);
}

static struct source_slot *slot_of(hmn_context *ctx, const char *source)
{
	for (size_t i = 0; i < ctx->n_slots; i++)
		if (ctx->slots[i].source->name == source)
			return &ctx->slots[i];
	return NULL;
}

bool process_sink_wants_device(const struct process_sink *sink, unsigned local_index)
{
	const struct hmn_process_filter *f = sink->filter;
	if (!f || f->n_devices == 0)
		return true;
	for (size_t i = 0; i < f->n_devices; i++)
		if (f->devices[i] == sink->base + local_index)
			return true;
	return false;
}

/* Does the source now being asked number pids as a driver does (the host's)? */
static bool sink_host_numbered(const struct process_sink *sink)
{
	const struct source_slot *slot = slot_of(sink->ctx, sink->source);
	return slot && slot->source->host_pids;
}

bool process_sink_wants_pid(struct process_sink *sink, uint32_t pid)
{
	const struct hmn_process_filter *f = sink->filter;
	if (!f)
		return true;
	if (f->keep_pid) {
		int r = f->keep_pid(f->keep_pid_data, pid, sink_host_numbered(sink));
		sink->unmatched += r == -EXDEV;
		if (r != 1)
			return false;
	}
	if (f->n_pids == 0)
		return true;
	for (size_t i = 0; i < f->n_pids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

int process_sink_add(struct process_sink *sink, const struct process_entry *e)
{
	struct hmn_process_list *list = sink->list;
	struct hash_index *idx = sink->index;
	struct hmn_place at = e->place;
	at.index += sink->base;

	if (!process_sink_wants_pid(sink, e->pid))
		return 0;
	if (hash_index_fit(idx, list->count, false, list->processes, hash_of_row) < 0)
		return -ENOMEM;

	size_t h = row_slot(idx, list, e->pid, &at);
	size_t row = hash_index_row(idx, h);
	if (row != SIZE_MAX) {
		/*
		 * The same process in two lists (compute and graphics): both
		 * report its whole footprint, so keep the larger.
		 */
		struct hmn_process *p = &list->processes[row];
		p->type |= e->type;
		p->is_mps_client |= e->mps;
		if (e->used_bytes != HMN_UNKNOWN &&
		    (p->used_bytes == HMN_UNKNOWN || e->used_bytes > p->used_bytes))
			p->used_bytes = e->used_bytes;
		if (e->shared_bytes != HMN_UNKNOWN &&
		    (p->shared_used_bytes == HMN_UNKNOWN || e->shared_bytes > p->shared_used_bytes))
			p->shared_used_bytes = e->shared_bytes;
		return 0;
	}
	if (array_reserve((void **)&list->processes, &sink->capacity, list->count,
			  sizeof(*list->processes)) < 0)
		return -ENOMEM;
	/* Device names repeat on every row of a device: store each once. */
	if (!sink->last_name || !e->device_name || strcmp(sink->last_name, e->device_name) != 0)
		sink->last_name = arena_strdup(list->arena, e->device_name);
	if (!sink->last_uuid || !e->device_uuid || strcmp(sink->last_uuid, e->device_uuid) != 0)
		sink->last_uuid = arena_strdup(list->arena, e->device_uuid);
	const char *reported = arena_strdup(list->arena, e->reported_path);
	const char *mig_uuid = arena_strdup(list->arena, e->mig_uuid);
	if ((e->reported_path && !reported) || (e->mig_uuid && !mig_uuid))
		return -ENOMEM;
	list->processes[list->count] = (struct hmn_process){
		.pid = e->pid,
		.path = reported, /* until the OS says better: see resolve_processes() */
		.uid = HMN_UID_UNKNOWN,
		.used_bytes = e->used_bytes,
		.shared_used_bytes = e->shared_bytes,
		.ram_bytes = HMN_UNKNOWN, /* the OS says: see resolve_processes() */
		.place = at,
		.device_name = sink->last_name,
		.device_uuid = sink->last_uuid,
		.type = e->type,
		.source = sink->source,
		.mig_uuid = mig_uuid,
		.is_mps_client = e->mps,
	};
	hash_index_put(idx, h, list->count++);
	return 0;
}

static int walk_processes(struct source_slot *slot, void *sink, size_t *ret_failed)
{
	return slot->source->processes(slot->state, sink, ret_failed);
}

struct pid_row {
	uint32_t pid;
	size_t row;
};

static int compare_pid_row(const void *a, const void *b)
{
	const struct pid_row *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The slot of the source that produced a row (its name is the slot's own pointer). */
/*
 * Where the OS cannot say which executable a process runs (another user's,
 * or a pid outside our PID namespace), the driver can: nvidia-smi printed it
 * with the row, and NVML is asked, once per process. The path is then the
 * driver's and the name its last component, unless /proc's name (comm)
 * tells another story than a truncation of it.
 */
static const char *reported_path(hmn_context *ctx, const struct hmn_process *p,
				 struct hmn_arena *arena)
{
	char buf[4096];

	if (p->path)
		return p->path; /* the source gave it with the row */
	struct source_slot *slot = slot_of(ctx, p->source);
	if (!slot || !slot->state || !slot->source->process_path ||
	    slot->source->process_path(slot->state, p->pid, buf, sizeof(buf)) < 0)
		return NULL;
	return arena_strdup(arena, buf);
}

static void name_process(hmn_context *ctx, const struct os_process_details *d,
			 struct hmn_process *p, struct hmn_arena *arena)
{
	const char *path = d->path ? NULL : reported_path(ctx, p, arena);

	p->name = d->name;
	p->path = d->path;
	if (!path)
		return;
	const char *base = path_basename_any(path);
	p->path = path;
	if (!d->name || strncmp(base, d->name, strlen(d->name)) == 0)
		p->name = arena_strdup(arena, base);
}

/* What one process's rows share: its identity, read once. */
static void copy_identity(struct hmn_process *p, const struct hmn_process *first)
{
	p->name = first->name;
	p->path = first->path;
	p->user = first->user;
	p->uid = first->uid;
	p->ns_pid = first->ns_pid;
	p->container = first->container;
	p->pod_uid = first->pod_uid;
	p->exists = first->exists;
	p->is_protected = first->is_protected;
	p->start_time = first->start_time;
	p->ram_bytes = first->ram_bytes;
}

/* The user name for uid, looked up once a context; NULL where it has none. */
static const char *user_name(hmn_context *ctx, uint32_t uid)
{
	char name[256];
	const char *kept = NULL;

	for (size_t i = 0; i < ctx->n_users; i++)
		if (ctx->users[i].uid == uid)
			return ctx->users[i].name;
	if (os_user_name(uid, name, sizeof(name)) == 0)
		kept = arena_strdup(ctx->arena, name);
	if (array_reserve((void **)&ctx->users, &ctx->users_capacity, ctx->n_users, sizeof(*ctx->users)) == 0)
		ctx->users[ctx->n_users++] = (struct user_cache_entry){ .uid = uid, .name = kept };
	return kept;
}

/* A process's identity from what the OS said of it now. */
static void identify_process(hmn_context *ctx, const struct os_process_details *d, struct hmn_process *p,
			     struct hmn_arena *arena)
{
	if (!d->exists)
		hmn_log(ctx, HMN_LOG_INFO, "pid %u: not in %s (exited, or in another PID namespace)", p->pid,
			ctx->procfs);
	name_process(ctx, d, p, arena);
	p->uid = d->uid;
	p->ns_pid = d->ns_pid;
	p->container = d->container;
	p->pod_uid = d->pod_uid;
	p->user = d->user ? d->user : d->uid != HMN_UID_UNKNOWN ? user_name(ctx, d->uid) : NULL;
	p->exists = d->exists;
	p->is_protected = d->is_protected;
	p->start_time = d->start_time;
	p->ram_bytes = d->ram_bytes;
}

/*
 * A process a remembering context has read (hmn_options.remember_processes):
 * its first row's identity, the strings its own (user is the context's).
 */
struct known_process {
	struct hmn_process identity;
};

static void known_clear(struct known_process *k)
{
	free((char *)k->identity.name);
	free((char *)k->identity.path);
	free((char *)k->identity.container);
	free((char *)k->identity.pod_uid);
	k->identity.name = k->identity.path = k->identity.container = k->identity.pod_uid = NULL;
}

static void forget_processes(hmn_context *ctx)
{
	for (size_t i = 0; i < ctx->n_known; i++)
		known_clear(&ctx->known[i]);
	free(ctx->known);
	ctx->known = NULL;
	ctx->n_known = 0;
}

static int known_set(struct known_process *k, const struct hmn_process *p)
{
	*k = (struct known_process){ .identity = *p };
	k->identity.name = p->name ? strdup(p->name) : NULL;
	k->identity.path = p->path ? strdup(p->path) : NULL;
	k->identity.container = p->container ? strdup(p->container) : NULL;
	k->identity.pod_uid = p->pod_uid ? strdup(p->pod_uid) : NULL;
	if ((p->name && !k->identity.name) || (p->path && !k->identity.path) ||
	    (p->container && !k->identity.container) || (p->pod_uid && !k->identity.pod_uid)) {
		known_clear(k);
		return -ENOMEM;
	}
	return 0;
}

/* A remembered identity into a row of a list (the list may outlive the memory). */
static int recall_process(const struct known_process *k, struct hmn_process *p, struct hmn_arena *arena)
{
	copy_identity(p, &k->identity);
	p->name = arena_strdup(arena, k->identity.name);
	p->path = arena_strdup(arena, k->identity.path);
	p->container = arena_strdup(arena, k->identity.container);
	p->pod_uid = arena_strdup(arena, k->identity.pod_uid);
	if ((k->identity.name && !p->name) || (k->identity.path && !p->path) ||
	    (k->identity.container && !p->container) || (k->identity.pod_uid && !p->pod_uid))
		return -ENOMEM;
	return 0;
}

/*
 * The remembered process of each of the distinct pids (ascending), or NULL
 * where it was never seen: both lists are sorted, so one merge.
 */
static void recall_known(const hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **ret_hits)
{
	size_t j = 0;
	for (size_t k = 0; k < n; k++) {
		while (j < ctx->n_known && ctx->known[j].identity.pid < pids[k])
			j++;
		ret_hits[k] = j < ctx->n_known && ctx->known[j].identity.pid == pids[k] ? &ctx->known[j] : NULL;
	}
}

/*
 * Reads a remembered process again: false when its pid is now another
 * process's (a start time that differs: the system gives a pid again once
 * its process has ended, and that can happen between two queries that both
 * list it), to be read anew rather than take the first one's name, owner
 * and start time (hmn watch keeps each process's peak by pid and start
 * time); else its RAM now. A start time that cannot be read (the process
 * has just ended and the driver lists it one last time) says nothing
 * against it.
 */
static bool read_known_again(const hmn_context *ctx, struct known_process *k)
{
#ifdef __linux__
	/* One read of stat: the start time and the resident set (statm only where stat has none). */
	uint64_t start, ram = HMN_UNKNOWN;
	int r = os_process_stat(ctx->proc_root, k->identity.pid, &start, &ram);
	if (r == 0 && start != k->identity.start_time)
		return false;
	if (ram == HMN_UNKNOWN && os_process_ram(ctx->proc_root, k->identity.pid, &ram) < 0)
		ram = HMN_UNKNOWN;
	k->identity.ram_bytes = ram;
#else
	(void)ctx, (void)k;
#endif
	return true;
}

/*
 * The remembered processes among hits read again, for REFRESH_US at most a
 * query, in turns from where the last query stopped: thousands of
 * processes cost a few milliseconds a sample, each read again within a few
 * samples (its last RAM and identity stand until then). At least one is
 * read a query, so a turn always moves on.
 */
#define REFRESH_US (4 * CLOCK_US_PER_MS)
static void refresh_known(hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **hits)
{
	uint64_t deadline = clock_us() + REFRESH_US;
	size_t start = 0, reads = 0;
	while (start < n && pids[start] < ctx->refresh_next)
		start++;
	for (size_t step = 0; step < n; step++) {
		size_t k = (start + step) % n;
		if (!hits[k])
			continue;
		if (reads > 0 && clock_us() >= deadline) {
			ctx->refresh_next = pids[k];
			return;
		}
		if (!read_known_again(ctx, hits[k]))
			hits[k] = NULL;
		reads++;
	}
	ctx->refresh_next = 0; /* all read: the next query starts from the first */
}

/*
 * What a remembering context keeps for the next query: the processes this
 * one listed (first[k], the first row of the k-th distinct pid), those it
 * knew moved over, the rest forgotten: a pid given again later is read anew.
 * A process not in our /proc is not remembered: it is looked for again.
 */
static int remember_processes(hmn_context *ctx, const struct hmn_process *const *first,
			      struct known_process *const *hits, size_t n)
{
	struct known_process *known = malloc((n ? n : 1) * sizeof(*known));
	size_t count = 0;
	int r = known ? 0 : -ENOMEM;

	for (size_t k = 0; k < n && r == 0; k++) {
		if (hits[k]) {
			known[count++] = *hits[k];
			*hits[k] = (struct known_process){ 0 }; /* moved: not freed below */
		} else if (first[k]->exists) {
			r = known_set(&known[count], first[k]);
			count += r == 0;
		}
	}
	forget_processes(ctx);
	if (r < 0) {
		for (size_t i = 0; i < count; i++)
			known_clear(&known[i]);
		free(known);
		return r;
	}
	ctx->known = known;
	ctx->n_known = count;
	return 0;
}

/*
 * Reads each distinct pid's details once, however many GPUs it is on; a
 * remembering context reads only the processes the last query did not list.
 */
static int resolve_processes(hmn_context *ctx, struct hmn_process_list *list)
{
	size_t n = list->count ? list->count : 1;
	struct pid_row *order = malloc(n * sizeof(*order));
	uint32_t *pids = malloc(n * sizeof(*pids)), *to_read = malloc(n * sizeof(*to_read));
	struct os_process_details *details = malloc(n * sizeof(*details));
	struct known_process **hits = calloc(n, sizeof(*hits));
	const struct hmn_process **first = malloc(n * sizeof(*first));
	size_t distinct = 0, n_read = 0;
	int r = -ENOMEM;

	if (!order || !pids || !to_read || !details || !hits || !first)
		goto out;
	if (!ctx->proc_root) {
		if (!(ctx->proc_root = os_proc_root_open(ctx->procfs)))
			goto out;
#ifdef __linux__
		if (ctx->remember_processes)
			os_proc_root_read_start_times(ctx->proc_root);
#endif
	}
	for (size_t i = 0; i < list->count; i++)
		order[i] = (struct pid_row){ list->processes[i].pid, i };
	qsort(order, list->count, sizeof(*order), compare_pid_row);
	for (size_t i = 0; i < list->count; i++)
		if (i == 0 || order[i].pid != order[i - 1].pid)
			pids[distinct++] = order[i].pid;
	if (ctx->remember_processes) {
		recall_known(ctx, pids, distinct, hits);
		refresh_known(ctx, pids, distinct, hits);
	}
	for (size_t k = 0; k < distinct; k++)
		if (!hits[k])
			to_read[n_read++] = pids[k];

	r = os_process_details(ctx->proc_root, to_read, n_read, details, list->arena);
	for (size_t i = 0, k = 0, read = 0; r == 0 && i < list->count; i++) {
		struct hmn_process *p = &list->processes[order[i].row];
		if (i > 0 && order[i].pid == order[i - 1].pid) {
			copy_identity(p, first[k]);
			continue;
		}
		k += i > 0;
		if (hits[k]) {
			/* Its RAM as refresh_known last read it (this query, or one of the last few). */
			r = recall_process(hits[k], p, list->arena);
		} else
			identify_process(ctx, &details[read++], p, list->arena);
		first[k] = p;
	}
	if (r == 0 && ctx->remember_processes)
		r = remember_processes(ctx, first, hits, distinct);
out:
	free(first);
	free(hits);
	free(details);
	free(to_read);
	free(pids);
	free(order);
	return r;
}

struct hmn_process_list *hmn_process_list_free(struct hmn_process_list *list)
{
	if (!list)
		return NULL;
	free(list->processes);
	arena_free(list->arena);
	free(list);
	return NULL;
}

/* Rows from this source, and whether any of them has a figure. */
static size_t rows_from(const struct hmn_process_list *list, const char *source, bool *ret_measured)
{
	size_t n = 0;
	*ret_measured = false;
	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->processes[i].source, source) == 0) {
			n++;
			*ret_measured |= list->processes[i].used_bytes != HMN_UNKNOWN;
		}
	return n;
}

/*
 * A source can list processes yet measure none of them: NVML answers
 * NOT_AVAILABLE for every process under Windows' WDDM and on WSL2. Then the
 * next source of its family is asked for the figures alone, and the rows it
 * measures say so in their source.
 */
static int fill_unmeasured(hmn_context *ctx, struct hmn_process_list *list,
			   const struct hmn_process_filter *filter)
{
	for (size_t i = 0; i < ctx->n_slots; i++) {
		const struct source_slot *slot = &ctx->slots[i];
		bool measured;
		if (!slot->state || rows_from(list, slot->source->name, &measured) == 0 || measured)
			continue;
		for (size_t k = i + 1; k < ctx->n_slots; k++) {
			struct source_slot *next = &ctx->slots[k];
			if (next->source->family != slot->source->family)
				continue;
			hmn_log(ctx, HMN_LOG_INFO, "%s: measured no process: asking %s for the figures",
				slot->source->name, next->source->name);
			if (!slot_ready(ctx, next))
				continue;
			struct hmn_process_list other = { 0 };
			struct hash_index index = { 0 };
			struct process_sink sink = {
				.ctx = ctx, .list = &other, .filter = filter, .index = &index,
				.base = next->base, .source = next->source->name,
			};
			size_t failed = 0;
			other.arena = arena_new();
			int r = other.arena ? next->source->processes(next->state, &sink, &failed) : -ENOMEM;
			for (size_t j = 0; r == 0 && other.count > 0 && j < list->count; j++) {
				struct hmn_process *p = &list->processes[j];
				size_t h = row_slot(&index, &other, p->pid, &p->place);
				size_t row = hash_index_row(&index, h);
				const struct hmn_process *q = row != SIZE_MAX ? &other.processes[row] : NULL;
				if (q && q->used_bytes != HMN_UNKNOWN && strcmp(p->source, slot->source->name) == 0) {
					p->used_bytes = q->used_bytes;
					p->source = next->source->name;
				}
			}
			hash_index_free(&index);
			free(other.processes);
			arena_free(other.arena);
			if (r == -ENOMEM)
				return r;
			break;
		}
	}
	return 0;
}

int hmn_query_processes(hmn_context *ctx, const struct hmn_process_filter *filter,
			struct hmn_process_list **ret_list)
{
	struct hmn_process_list *list = calloc(1, sizeof(*list));
	struct hash_index index = { 0 };
	struct process_sink sink = { .ctx = ctx, .list = list, .filter = filter, .index = &index };
	size_t found = 0, failed = 0, unrecovered = 0;
	int r;

	if (!list || !(list->arena = arena_new())) {
		hmn_process_list_free(list);
		return hmn_fail(ctx, -ENOMEM, "out of memory");
	}
	r = walk_sources(ctx, walk_processes, &sink, &sink.base, &sink.source, &found, &failed, &unrecovered);
	hash_index_free(&index);
	if (r == 0)
		r = query_result(ctx, found, failed);
	if (r == 0 && sink.unmatched > 0)
		r = hmn_fail(ctx, -EXDEV,
			     "%zu GPU process%s named by the host's pids, which cannot be matched to the "
			     "command's tree: %s is this PID namespace's own /proc (set HMN_PROCFS to the host's)",
			     sink.unmatched, sink.unmatched == 1 ? " is" : "es are", ctx->procfs);
	bool details = !filter || !filter->figures_only;
	if (r == 0 && (fill_unmeasured(ctx, list, filter) < 0 || (details && resolve_processes(ctx, list) < 0)))
		r = hmn_fail(ctx, -ENOMEM, "out of memory");
	if (r < 0) {
		hmn_process_list_free(list);
		return r;
	}
	list->failed_gpus = unrecovered;
	*ret_list = list;
	return 0;
}

int hmn_query_process_peak(hmn_context *ctx, uint32_t pid, unsigned device_index,
			   uint64_t alive_at_us, uint64_t *ret_bytes)
{
	for (size_t i = 0; i < ctx->n_slots; i++) {
		struct source_slot *slot = &ctx->slots[i];
		if (!slot->state || !slot->has_base || device_index < slot->base ||
		    device_index - slot->base >= slot->count)
			continue;
		if (!slot->source->process_peak)
			continue; /* a fallback of the family may keep accounting */
		int r = slot->source->process_peak(slot->state, pid, device_index - slot->base, alive_at_us,
						   ret_bytes);
		if (r != -ENOTSUP)
			return r;
	}
	return -ENOTSUP;
}

int hmn_query_self(hmn_context *ctx, struct hmn_self_memory *ret_self)
{
	uint32_t self = os_self_pid();
	struct hmn_process_filter filter = { .pids = &self, .n_pids = 1 };
	struct hmn_process_list *list = NULL;
	struct hmn_self_memory m = { .rss_bytes = HMN_UNKNOWN, .gpu_bytes = 0 };

	if (os_self_rss(ctx->procfs, &m.rss_bytes) < 0)
		m.rss_bytes = HMN_UNKNOWN;
	int r = hmn_query_processes(ctx, &filter, &list);
	if (r == -ENODEV) {
		*ret_self = m; /* no GPU: it holds none */
		return 0;
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < list->count; i++)
		if (list->processes[i].used_bytes != HMN_UNKNOWN)
			m.gpu_bytes += list->processes[i].used_bytes;
	hmn_process_list_free(list);
	*ret_self = m;
	return 0;
}

int hmn_query_process_name(hmn_context *ctx, uint32_t pid, char *buf, size_t size)
{
	struct os_process_details d;
	struct hmn_arena *arena = arena_new();
	int r = -ENOMEM;

	if (!arena || size == 0)
		goto out;
	if (!ctx->proc_root && !(ctx->proc_root = os_proc_root_open(ctx->procfs)))
		goto out;
	r = os_process_details(ctx->proc_root, &pid, 1, &d, arena);
	if (r == 0 && (!d.exists || !d.name))
		r = -ESRCH;
	if (r == 0)
		snprintf(buf, size, "%s", d.name);
out:
	arena_free(arena);
	return r;
}
