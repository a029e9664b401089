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

struct known_process;

struct hmn_context {
	struct source_slot *slots;
	size_t n_slots;
	unsigned next_base;               /* where the next family's index range starts */
	unsigned unread_gpus;             /* GPUs shown but read by no source; their indices kept */
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
	struct known_process *known;      /* the last process query's, sorted by pid */
	size_t n_known;
	uint32_t refresh_next;            /* the pid the next query's re-reading of known ones starts at */
};

#endif
