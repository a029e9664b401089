/* An index of a caller's rows by key, with open addressing (linear probing). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash-index.h"

static size_t probe_start(const struct hash_index *ix, uint64_t hash)
{
	return (size_t)hash & (ix->capacity - 1);
}

static void place_all(struct hash_index *ix, size_t count, const void *rows, hash_index_hash_fn hash_of)
{
	memset(ix->slots, 0, ix->capacity * sizeof(*ix->slots));
	for (size_t row = 0; row < count; row++) {
		size_t h = probe_start(ix, hash_of(rows, row));
		while (ix->slots[h])
			h = (h + 1) & (ix->capacity - 1);
		ix->slots[h] = row + 1;
	}
}

int hash_index_fit(struct hash_index *ix, size_t count, bool rebuild, const void *rows, hash_index_hash_fn hash_of)
{
	size_t capacity = ix->capacity ? ix->capacity : 256;
	while ((count + 1) * 2 > capacity) {
		if (capacity > SIZE_MAX / 4 / sizeof(*ix->slots))
			return -ENOMEM;
		capacity *= 2;
	}
	if (capacity != ix->capacity) {
		size_t *slots = calloc(capacity, sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		free(ix->slots);
		ix->slots = slots;
		ix->capacity = capacity;
		rebuild = true;
	}
	if (rebuild)
		place_all(ix, count, rows, hash_of);
	return 0;
}

size_t hash_index_slot(const struct hash_index *ix, uint64_t hash, const void *rows, const void *key,
		       hash_index_match_fn match)
{
	size_t h = probe_start(ix, hash);
	for (; ix->slots[h]; h = (h + 1) & (ix->capacity - 1))
		if (match(rows, ix->slots[h] - 1, key))
			break;
	return h;
}

size_t hash_index_row(const struct hash_index *ix, size_t slot)
{
	return ix->slots[slot] ? ix->slots[slot] - 1 : SIZE_MAX;
}

void hash_index_put(struct hash_index *ix, size_t slot, size_t row)
{
	ix->slots[slot] = row + 1;
}

void hash_index_free(struct hash_index *ix)
{
	free(ix->slots);
	*ix = (struct hash_index){ 0 };
}
