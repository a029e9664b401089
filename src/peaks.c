#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peaks.h"
#include "util/hash-index.h"
#include "util/pid-set.h"

/*
 * A row's place: process (its pid and start time: a pid given again is
 * another process), GPU, and the MIG GPU and compute instance (0/2.0 and
 * 0/2.1 are two).
 */
static uint64_t hash(const struct peak *k)
{
	const struct hmn_place *at = &k->place;
	uint64_t instance = at->is_mig ? ((uint64_t)at->gpu_instance_id << 16 ^ at->compute_instance_id) + 1 : 0;
	return hash_mix(((uint64_t)k->pid << 20) ^ at->index ^ (instance << 40) ^ k->start_time * 0xff51afd7ed558ccdULL);
}

static uint64_t hash_of_item(const void *items, size_t i)
{
	return hash(&((const struct peak *)items)[i]);
}

static bool same_place(const void *items, size_t i, const void *key)
{
	const struct peak *a = &((const struct peak *)items)[i], *b = key;
	return a->pid == b->pid && a->start_time == b->start_time && hmn_place_equal(&a->place, &b->place);
}

static size_t find_slot(const struct peaks *p, const struct peak *key)
{
	return hash_index_slot(&p->index, hash(key), p->items, key, same_place);
}

static int compare_peak_values(const struct peak *x, const struct peak *y)
{
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return (x->place.index > y->place.index) - (x->place.index < y->place.index);
}

static int compare_peaks_items(const void *a, const void *b)
{
	return compare_peak_values(a, b);
}

/* Keeps the limit highest peaks, drops the others: amortised O(1) a row. */
static void prune(struct peaks *p)
{
	qsort(p->items, p->count, sizeof(*p->items), compare_peaks_items);
	for (size_t i = p->limit; i < p->count; i++)
		free(p->items[i].name);
	p->count = p->limit;
	(void)hash_index_fit(&p->index, p->count, true, p->items, hash_of_item); /* fewer: it has room */
}

int peaks_add(struct peaks *p, const struct hmn_process *row, uint64_t seen_us)
{
	struct peak key = {
		.pid = row->pid, .start_time = row->start_time, .place = row->place,
		.bytes = row->used_bytes, .last_seen_us = seen_us,
	};

	if (row->used_bytes == HMN_UNKNOWN)
		return 0;
	/* Bounded: room is made only for a process not kept already. */
	if (p->limit && p->count >= 2 * p->limit &&
	    hash_index_row(&p->index, find_slot(p, &key)) == SIZE_MAX)
		prune(p);
	if (hash_index_fit(&p->index, p->count, false, p->items, hash_of_item) < 0)
		return -ENOMEM;
	size_t h = find_slot(p, &key);
	size_t found = hash_index_row(&p->index, h);
	if (found != SIZE_MAX) {
		struct peak *e = &p->items[found];
		if (row->used_bytes > e->bytes)
			e->bytes = row->used_bytes;
		e->last_seen_us = seen_us;
		return 0;
	}
	if (p->count == p->capacity) {
		size_t capacity = p->capacity ? p->capacity * 2 : 64;
		struct peak *items = realloc(p->items, capacity * sizeof(*items));
		if (!items)
			return -ENOMEM;
		p->items = items;
		p->capacity = capacity;
	}
	char *name = row->name ? strdup(row->name) : NULL;
	if (row->name && !name)
		return -ENOMEM;
	key.name = name;
	p->items[p->count] = key;
	hash_index_put(&p->index, h, p->count++);
	return 0;
}

static int compare_peaks(const void *a, const void *b)
{
	return compare_peak_values(*(const struct peak *const *)a, *(const struct peak *const *)b);
}

const struct peak **peaks_sorted(const struct peaks *p)
{
	const struct peak **sorted = malloc((p->count ? p->count : 1) * sizeof(*sorted));
	if (!sorted)
		return NULL;
	for (size_t i = 0; i < p->count; i++)
		sorted[i] = &p->items[i];
	qsort(sorted, p->count, sizeof(*sorted), compare_peaks);
	return sorted;
}

/* Sorted, not compared pair by pair. */
size_t peaks_pids_held(const struct peaks *p)
{
	uint32_t *pids = malloc((p->count ? p->count : 1) * sizeof(*pids));
	size_t n = 0;
	if (!pids)
		return p->count; /* an upper bound, where there is no memory to count */
	for (size_t i = 0; i < p->count; i++)
		if (p->items[i].bytes > 0)
			pids[n++] = p->items[i].pid;
	size_t distinct = pid_set_make(pids, n);
	free(pids);
	return distinct;
}

void peaks_clear(struct peaks *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->items[i].name);
	free(p->items);
	hash_index_free(&p->index);
	size_t limit = p->limit;
	*p = (struct peaks){ .limit = limit };
}
