/*
 * The context: which sources, in which order, opened once and reused; the
 * walk over them that every query makes; the GPU query (the process query
 * is gpu/processes.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpu/context.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/number.h"
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

/* Every name --backend accepts, on any platform, and the systems each exists on. */
static const char *const backend_names[] = {
	"nvml", "nvidia-smi", "drm", "dxgi", "pdh", "metal", NULL,
};
static const char *const backend_homes[] = {
	"Linux and Windows", "Linux and Windows", "Linux", "Windows", "Windows", "macOS",
};
_Static_assert(sizeof(backend_homes) / sizeof(backend_homes[0]) + 1 ==
		       sizeof(backend_names) / sizeof(backend_names[0]),
	       "a system for each backend name");

/* This system, as the messages name it. */
#if defined(_WIN32)
#define THIS_OS "Windows"
#elif defined(__APPLE__)
#define THIS_OS "macOS"
#elif defined(__linux__)
#define THIS_OS "Linux"
#else
#define THIS_OS "this system"
#endif

/* How long an external program (nvidia-smi) may run without HMN_TIMEOUT, and the most it may say. */
#define PROGRAM_TIMEOUT_US (UINT64_C(10) * CLOCK_US_PER_S)
#define PROGRAM_TIMEOUT_MAX_US (UINT64_C(86400) * CLOCK_US_PER_S)

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

double context_program_timeout(const hmn_context *ctx)
{
	return (double)ctx->program_timeout_us / CLOCK_US_PER_S;
}

const char *hmn_context_error(const hmn_context *ctx)
{
	return ctx ? ctx->error : "";
}

/* Names are taken in any case (--backend NVML), as every enumerated value. */
static const struct hmn_source *source_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < N_SOURCES; i++)
		if (strlen(sources[i]->name) == len && strncasecmp(sources[i]->name, name, len) == 0)
			return sources[i];
	return NULL;
}

/* Its index in backend_names, or -1. */
static int backend_index(const char *name, size_t len)
{
	for (int i = 0; backend_names[i]; i++)
		if (strlen(backend_names[i]) == len && strncasecmp(backend_names[i], name, len) == 0)
			return i;
	return -1;
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

/*
 * Selects and orders the sources from a comma list: -EINVAL on a name that
 * is unknown, or one that does not exist on this system (--backend metal on
 * Linux would only find no GPU, and say so as if there were none), the
 * message naming the list's variable where it came from one.
 */
static int select_sources(hmn_context *ctx, const char *list, const char *variable, char *error, size_t size)
{
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int known = backend_index(p, len);
		const struct hmn_source *source = source_by_name(p, len);
		char name[48];

		/* As typed, but never a control character: a variable can hold anything. */
		snprintf(name, sizeof(name), "%.*s", (int)(len > 40 ? 40 : len), p);
		printable_name(name, name, sizeof(name));
		if (known < 0 || !source) {
			int n = snprintf(error, size, "%s%s", variable ? variable : "", variable ? ": " : "");
			n = n < 0 || (size_t)n >= size ? 0 : n;
			if (known < 0)
				snprintf(error + n, size - (size_t)n, "unknown backend '%s'", name);
			else
				snprintf(error + n, size - (size_t)n, "backend '%s' does not exist on " THIS_OS " (%s only)",
					 name, backend_homes[known]);
			return -EINVAL;
		}
		add_slot(ctx, source);
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

/*
 * HMN_TIMEOUT's seconds ("10", "0.5"; digits, then a fraction to the
 * microsecond at most) into *ret_us: more than 0, a day at most. false:
 * anything else, "1e3", " 5", "inf" and "-1" included (strtod took all four).
 */
static bool parse_timeout(const char *text, uint64_t *ret_us)
{
	const char *p = text, *end = text + strlen(text);
	uint64_t seconds, fraction = 0, scale = CLOCK_US_PER_S;

	if (!parse_decimal(&p, end, PROGRAM_TIMEOUT_MAX_US / CLOCK_US_PER_S, &seconds))
		return false;
	if (*p == '.') {
		const char *digits = ++p;
		for (; *p >= '0' && *p <= '9' && scale > 1; p++)
			fraction += (uint64_t)(*p - '0') * (scale /= 10);
		if (p == digits)
			return false;
	}
	uint64_t us = seconds * CLOCK_US_PER_S + fraction;
	if (*p || us == 0 || us > PROGRAM_TIMEOUT_MAX_US)
		return false;
	*ret_us = us;
	return true;
}

/*
 * The HMN_* variables a context reads, checked before it is made: one that
 * is malformed is an error naming it (-EINVAL, the reason in error), never
 * ignored. An empty one is as unset. The paths of what hmn loads or runs
 * are absolute: a relative one would be found from the current directory.
 */
static int check_environment(hmn_context *ctx, char *error, size_t size)
{
	static const char *const code_paths[] = { "HMN_NVML_LIBRARY", "HMN_NVIDIA_SMI" };
	const char *text = getenv("HMN_TIMEOUT");
	char shown[48];

	ctx->program_timeout_us = PROGRAM_TIMEOUT_US;
	if (text && *text && !parse_timeout(text, &ctx->program_timeout_us)) {
		snprintf(error, size,
			 "HMN_TIMEOUT: '%s' is not a number of seconds (e.g. 10 or 0.5; above 0, 86400 at most)",
			 printable_name(text, shown, sizeof(shown)));
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(code_paths) / sizeof(code_paths[0]); i++) {
		/* Where hmn runs with privileges its caller lacks, it is ignored (and said) anyway. */
		text = os_trusted_getenv(code_paths[i]);
		if (text && *text && !os_path_is_absolute(text)) {
			snprintf(error, size,
				 "%s: '%s' is not an absolute path (nothing is loaded or run from the current directory)",
				 code_paths[i], printable_name(text, shown, sizeof(shown)));
			return -EINVAL;
		}
	}
	return 0;
}

int hmn_context_new(const struct hmn_options *options, hmn_context **ret_ctx,
		    const char **ret_error)
{
	static char error[256]; /* the message ret_error points to */
	const char *list = options ? options->backends : NULL, *variable = NULL;
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
		ctx->commands = options->commands;
#ifdef __linux__
		/* Elsewhere a process's RAM is read with its name: nothing to save. */
		ctx->remember_processes = options->remember_processes;
#endif
	}
	ctx->refresh_budget_us = REFRESH_US;
	warn_ignored_variables(ctx);
	ctx->procfs = arena_strdup(ctx->arena, os_procfs_root());
	if (!list) {
		list = getenv("HMN_BACKENDS");
		variable = "HMN_BACKENDS";
	}
	r = check_environment(ctx, error, sizeof(error));
	if (r == 0 && list && *list)
		r = select_sources(ctx, list, variable, error, sizeof(error));
	if (r < 0) {
		if (ret_error)
			*ret_error = error;
		hmn_context_free(ctx);
		return r;
	}
	if (!list || !*list) {
		for (size_t i = 0; i < N_SOURCES; i++)
			if (used_by_default(sources[i]))
				add_slot(ctx, sources[i]);
	}
	*ret_ctx = ctx;
	return 0;
}

hmn_context *hmn_context_free(hmn_context *ctx)
{
	if (!ctx)
		return NULL;
	for (size_t i = 0; i < ctx->n_slots; i++)
		if (ctx->slots[i].state)
			ctx->slots[i].source->close(ctx->slots[i].state);
	os_proc_root_close(ctx->proc_root);
	known_forget(ctx);
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
 * NVIDIA GPUs the system shows (os_nvidia_gpus_shown: PCI functions in
 * sysfs) beyond those the NVIDIA sources tried could read: none read (the
 * driver not loaded, NVML missing) or one of eight (a GPU that failed its
 * initialisation, which NVML does not list at all). Said as a warning,
 * counted as unread (the status is then 1, never "no GPU" nor a success),
 * and their indices kept after those that were read (NVIDIA's range comes
 * first), so that the GPUs that answered keep theirs. Taken once, when the
 * NVIDIA sources were tried: when the first other family is placed, at the
 * end of a walk, or when no GPU was found at all. Left alone when no NVIDIA
 * source was selected (--backend drm is a choice).
 */
static void keep_unread_nvidia(hmn_context *ctx)
{
	char where[128] = "", why[2 * HMN_ERROR_MAX] = "";
	size_t len = 0;
	unsigned read = 0;
	bool tried = false;

	if (ctx->nvidia_census_taken)
		return;
	for (size_t i = 0; i < ctx->n_slots; i++) {
		const struct source_slot *s = &ctx->slots[i];
		if (s->source->family != FAMILY_NVIDIA || !s->opened)
			continue; /* not tried, or not needed: an earlier one answered */
		tried = true;
		if (s->state && s->count > read)
			read = s->count;
		len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s: %s", len ? "; " : "", s->source->name,
					!s->state ? s->why : s->count ? "read the others" : "no GPU");
		if (len >= sizeof(why))
			len = sizeof(why) - 1;
	}
	if (!tried)
		return;
	ctx->nvidia_census_taken = true;
	unsigned shown = os_nvidia_gpus_shown(where, sizeof(where));
	if (shown <= read)
		return;
	unsigned n = shown - read;
	ctx->unread_gpus += n;
	ctx->next_base += n;
	char range[32];
	if (n == 1)
		snprintf(range, sizeof(range), "GPU %u", ctx->next_base - 1);
	else
		snprintf(range, sizeof(range), "GPUs %u-%u", ctx->next_base - n, ctx->next_base - 1);
	if (read == 0)
		hmn_log(ctx, HMN_LOG_WARNING, "%u NVIDIA GPU%s (%s) that no source could read (%s): %s left out",
			n, n == 1 ? "" : "s", where, why, range);
	else
		hmn_log(ctx, HMN_LOG_WARNING,
			"%u of the %u NVIDIA GPUs the system shows (%s) no source could read (%s): %s left out",
			n, shown, where, why, range);
}

bool slot_ready(hmn_context *ctx, struct source_slot *slot)
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
	if (!slot->has_base && slot->source->family != FAMILY_NVIDIA)
		keep_unread_nvidia(ctx);
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

	keep_unread_nvidia(ctx);
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

/*
 * Walks the sources in order for one query. Returns the number of GPUs
 * found, or a negative code; *ret_failed gets the number that failed.
 */
int walk_sources(hmn_context *ctx, walk_fn fn, void *sink, unsigned *sink_base,
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
	keep_unread_nvidia(ctx); /* the NVIDIA cards none of them read, where no other family placed them */
	return 0;
}

int query_result(hmn_context *ctx, size_t found, size_t failed)
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

/* ---- the environment as the context reads it, for the tool (hmn-common.h) ---- */

const char *hmn_trusted_getenv(const char *name)
{
	return os_trusted_getenv(name);
}

bool hmn_path_is_absolute(const char *path)
{
	return path && os_path_is_absolute(path);
}

uint32_t hmn_self_pid(void)
{
	return os_self_pid();
}
