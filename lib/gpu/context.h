/*
 * struct hmn_context, private to lib/gpu: which sources, opened how far,
 * and what a context keeps between queries (user names, remembered
 * processes, the last error).
 */
#ifndef HMN_GPU_CONTEXT_H
#define HMN_GPU_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/source.h"
#include "util/clock.h"


struct user_cache_entry {
	uint32_t uid;
	const char *name;     /* in the context's arena; NULL: no such user */
};

struct source_slot {
	const struct hmn_source *source;
	bool opened;          /* open() was tried: it is never tried twice */
	void *state;          /* NULL: not open (see why) */
	char why[256];        /* why open() failed */
	bool told;            /* -v said why it was skipped in a query (once a context, not a query) */
	bool broken;          /* open() failed as a source that is there fails (hung: -ETIMEDOUT) */
	bool has_base;
	unsigned base;        /* global index of its device 0, shared by its family */
	unsigned count;       /* devices it found when opened */
};

/* A process a remembering context keeps (gpu/known.c). */
struct known_process;

struct hmn_context {
	struct source_slot *slots;
	size_t n_slots;
	unsigned next_base;               /* where the next family's index range starts */
	unsigned unread_gpus;             /* GPUs shown but read by no source; their indices kept */
	bool nvidia_census_taken;         /* the system's NVIDIA GPUs counted, once a context */
	char error[HMN_ERROR_MAX];
	hmn_log_fn log;
	void *log_userdata;
	enum hmn_log_level log_level;
	bool telemetry;                   /* hmn_options.telemetry */
	const char *procfs;
	struct os_proc_root *proc_root;   /* opened at the first process query */
	struct hmn_arena *arena;          /* lives as long as the context */
	struct user_cache_entry *users;
	size_t n_users, users_capacity;
	bool remember_processes;          /* hmn_options.remember_processes */
	bool commands;                    /* hmn_options.commands */
	struct known_process *known;      /* the last process query's, sorted by pid */
	size_t n_known;
	uint32_t refresh_next;            /* the pid the next query's re-reading of known ones starts at */
	/* How long a query re-reads known ones (REFRESH_US; 0, as a test sets it: one a query). */
	uint64_t refresh_budget_us;
	uint64_t program_timeout_us;      /* how long nvidia-smi may run: $HMN_TIMEOUT, else 10 s */
};

/* A remembering context reads its known processes again for this long a query, at most. */
#define REFRESH_US (4 * CLOCK_US_PER_MS)

/* ---- the walk over the sources (gpu/context.c) ---- */

/* Opens slot's source the first time a query needs it; false when it is not there. */
bool slot_ready(hmn_context *ctx, struct source_slot *slot);
/* The slot of the source named source (a slot's own name pointer). */
struct source_slot *slot_of(hmn_context *ctx, const char *source);
typedef int (*walk_fn)(struct source_slot *slot, void *sink, size_t *ret_failed);
/*
 * Walks the sources in order for one query, fn(slot, sink) for each that
 * is open and not answered for by an earlier one of its family, with the
 * sink's base and source set. 0 with *ret_found GPUs (*ret_failed of them
 * failed, *ret_unrecovered of those with no later source of their family
 * answering for them), or a negative code.
 */
int walk_sources(hmn_context *ctx, walk_fn fn, void *sink, unsigned *sink_base, const char **sink_source,
		 size_t *ret_found, size_t *ret_failed, size_t *ret_unrecovered);
/* A query's result from what the walk found: 0, -ENODEV (no GPU), -EIO (all failed), said. */
int query_result(hmn_context *ctx, size_t found, size_t failed);

/* ---- a process's identity, and the processes a remembering context keeps (gpu/known.c) ---- */

/* What one process's rows share: its identity, read once, copied from its first row (or what is known of it). */
void process_copy_identity(struct hmn_process *p, const struct hmn_process *first);

/* Forgets them all. */
void known_forget(hmn_context *ctx);
/* The known process of each of the distinct pids (ascending), or NULL where it was never seen. */
void known_recall(const hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **ret_hits);
/*
 * Reads the known ones among hits again (start time, RAM), for
 * ctx->refresh_budget_us at most, in turns from where the last query
 * stopped; a hit whose pid is another process's now becomes NULL.
 */
void known_refresh(hmn_context *ctx, const uint32_t *pids, size_t n, struct known_process **hits);
/* A known process's identity into a row of a list (the list may outlive the memory). */
int known_copy(const struct known_process *k, struct hmn_process *p, struct hmn_arena *arena);
/*
 * Keeps the processes this query listed (first[k]: the first row of the
 * k-th distinct pid; hits[k]: what was known of it) for the next; -ENOMEM.
 */
int known_remember(hmn_context *ctx, const struct hmn_process *const *first, struct known_process *const *hits,
		   size_t n);

#endif
