#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peaks.h"

static size_t hash(uint32_t pid, unsigned device, unsigned instance)
{
	uint64_t k = ((uint64_t)pid << 20) ^ device ^ ((uint64_t)instance << 44);
	return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 32);
}

static size_t find_slot(const struct peaks *p, uint32_t pid, unsigned device, unsigned instance)
{
	size_t h = hash(pid, device, instance) & (p->n_slots - 1);
	for (; p->slots[h]; h = (h + 1) & (p->n_slots - 1)) {
		const struct peak *e = &p->items[p->slots[h] - 1];
		if (e->pid == pid && e->device_index == device && e->instance == instance)
			break;
	}
	return h;
}

static int grow(struct peaks *p)
{
	size_t n = p->n_slots ? p->n_slots * 2 : 256;
	size_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(p->slots);
	p->slots = slots;
	p->n_slots = n;
	for (size_t i = 0; i < p->count; i++)
		p->slots[find_slot(p, p->items[i].pid, p->items[i].device_index, p->items[i].instance)] = i + 1;
	return 0;
}

int peaks_add(struct peaks *p, const struct hmn_process *row)
{
	unsigned instance = row->is_mig ? row->gpu_instance_id + 1 : 0;

	if (row->used_bytes == HMN_UNKNOWN)
		return 0;
	if ((p->count + 1) * 2 > p->n_slots && grow(p) < 0)
		return -ENOMEM;
	size_t h = find_slot(p, row->pid, row->device_index, instance);
	if (p->slots[h]) {
		struct peak *e = &p->items[p->slots[h] - 1];
		if (row->used_bytes > e->bytes)
			e->bytes = row->used_bytes;
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
	p->items[p->count] = (struct peak){
		.pid = row->pid, .device_index = row->device_index, .instance = instance,
		.bytes = row->used_bytes, .name = name,
	};
	p->slots[h] = ++p->count;
	return 0;
}

static int compare_peaks(const void *a, const void *b)
{
	const struct peak *x = *(const struct peak *const *)a, *y = *(const struct peak *const *)b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->device_index > y->device_index) - (x->device_index < y->device_index);
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

void peaks_clear(struct peaks *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->items[i].name);
	free(p->items);
	free(p->slots);
	*p = (struct peaks){ 0 };
}
