/*
 * The processes a remembering context keeps between queries
 * (hmn_options.remember_processes, hmn watch): each one's identity (its
 * name, path, owner, command line...), read once when first listed; its
 * start time and RAM read again in turns, a few milliseconds a query; a
 * pid given to another process read anew.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/context.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/clock.h"

/* What one process's rows share: its identity, read once. */
void process_copy_identity(struct hmn_process *p, const struct hmn_process *first)
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
	p->command = first->command;
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
	free((void *)k->identity.command);
	k->identity.name = k->identity.path = k->identity.container = k->identity.pod_uid = NULL;
	k->identity.command = NULL;
}

void known_forget(hmn_context *ctx)
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
	k->identity.command = p->command ? strv_dup(p->command) : NULL;
	if ((p->name && !k->identity.name) || (p->path && !k->identity.path) ||
	    (p->container && !k->identity.container) || (p->pod_uid && !k->identity.pod_uid) ||
	    (p->command && !k->identity.command)) {
		known_clear(k);
		return -ENOMEM;
	}
	return 0;
}

/* A remembered identity into a row of a list (the list may outlive the memory). */
int known_copy(const struct known_process *k, struct hmn_process *p, struct hmn_arena *arena)
{
	process_copy_identity(p, &k->identity);
	p->name = arena_strdup(arena, k->identity.name);
	p->path = arena_strdup(arena, k->identity.path);
	p->container = arena_strdup(arena, k->identity.container);
	p->pod_uid = arena_strdup(arena, k->identity.pod_uid);
	p->command = arena_strv_dup(arena, k->identity.command);
	if ((k->identity.name && !p->name) || (k->identity.path && !p->path) ||
	    (k->identity.container && !p->container) || (k->identity.pod_uid && !p->pod_uid) ||
	    (k->identity.command && !p->command))
		return -ENOMEM;
	return 0;
}

/*
 * The remembered process of each of the distinct pids (ascending), or NULL
 * where it was never seen: both lists are sorted, so one merge.
 */
void known_recall(const hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **ret_hits)
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
void known_refresh(hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **hits)
{
	uint64_t deadline = clock_us() + ctx->refresh_budget_us;
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
int known_remember(hmn_context *ctx, const struct hmn_process *const *first,
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
	known_forget(ctx);
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
