/*
 * An index of the rows of a caller's array by a key of the caller's, with
 * open addressing (lib/util/hash-index.c): a row found in O(1) however many
 * there are. The caller hashes its keys and says which row a key is; the
 * index holds row numbers alone. hmn ps's rows by (pid, GPU), hmn run's and
 * hmn watch's peaks by (process, GPU).
 */
#ifndef HMN_UTIL_HASH_INDEX_H
#define HMN_UTIL_HASH_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hash_index {
	size_t *slots;        /* row + 1; 0 is empty */
	size_t capacity;      /* a power of two, or 0 before the first hash_index_fit */
};

/* Is row (of the caller's rows) the one key names? */
typedef bool (*hash_index_match_fn)(const void *rows, size_t row, const void *key);
/* The hash of row's key, as the caller hashes a key. */
typedef uint64_t (*hash_index_hash_fn)(const void *rows, size_t row);

/*
 * Makes room for one row more beside the count there are, at a load of one
 * half at most, placing rows 0 to count - 1 again when it grows, or
 * whenever rebuild says they moved (rows dropped, sorted). -ENOMEM, the
 * index as it was.
 */
int hash_index_fit(struct hash_index *ix, size_t count, bool rebuild, const void *rows, hash_index_hash_fn hash_of);
/*
 * The slot of the row key names, or the empty slot where it would go (after
 * a hash_index_fit). hash: its low bits pick the first slot (hash_mix).
 */
size_t hash_index_slot(const struct hash_index *ix, uint64_t hash, const void *rows, const void *key,
		       hash_index_match_fn match);
/* The row in slot, or SIZE_MAX for an empty slot. */
size_t hash_index_row(const struct hash_index *ix, size_t slot);
/* Puts row in (the empty) slot. */
void hash_index_put(struct hash_index *ix, size_t slot, size_t row);
void hash_index_free(struct hash_index *ix);

/* A 64-bit key mixed into a hash whose every bit depends on every bit of it. */
static inline uint64_t hash_mix(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ULL;
	return k ^ k >> 32;
}

#endif
