/*
 * The process query: each source's rows through the process sink (one row
 * per process and place, merged across a source's lists), the OS's word on
 * who each process is (once a process, however many GPUs it is on), and
 * what a source that lists but cannot measure leaves to the next of its
 * family.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/context.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/hash-index.h"
#include "util/text.h"

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

struct source_slot *slot_of(hmn_context *ctx, const char *source)
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
	if (f->n_pids == 0 && !f->pids_given)
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
	p->command = d->command;
}

/* The process table, opened at the first query that asks it, reading what the context asks of each process. */
static int open_proc_root(hmn_context *ctx)
{
	if (!(ctx->proc_root = os_proc_root_open(ctx->procfs)))
		return -ENOMEM;
#ifdef __linux__
	if (ctx->remember_processes)
		os_proc_root_read_start_times(ctx->proc_root);
#endif
	if (ctx->commands)
		os_proc_root_read_commands(ctx->proc_root);
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
	if (!ctx->proc_root && open_proc_root(ctx) < 0)
		goto out;
	for (size_t i = 0; i < list->count; i++)
		order[i] = (struct pid_row){ list->processes[i].pid, i };
	qsort(order, list->count, sizeof(*order), compare_pid_row);
	for (size_t i = 0; i < list->count; i++)
		if (i == 0 || order[i].pid != order[i - 1].pid)
			pids[distinct++] = order[i].pid;
	if (ctx->remember_processes) {
		known_recall(ctx, pids, distinct, hits);
		known_refresh(ctx, pids, distinct, hits);
	}
	for (size_t k = 0; k < distinct; k++)
		if (!hits[k])
			to_read[n_read++] = pids[k];

	r = os_process_details(ctx->proc_root, to_read, n_read, details, list->arena);
	for (size_t i = 0, k = 0, read = 0; r == 0 && i < list->count; i++) {
		struct hmn_process *p = &list->processes[order[i].row];
		if (i > 0 && order[i].pid == order[i - 1].pid) {
			process_copy_identity(p, first[k]);
			continue;
		}
		k += i > 0;
		if (hits[k]) {
			/* Its RAM as known_refresh last read it (this query, or one of the last few). */
			r = known_copy(hits[k], p, list->arena);
		} else
			identify_process(ctx, &details[read++], p, list->arena);
		first[k] = p;
	}
	if (r == 0 && ctx->remember_processes)
		r = known_remember(ctx, first, hits, distinct);
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
	if (!ctx->proc_root && open_proc_root(ctx) < 0)
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
