/* Strings that live as long as the list (or context) that owns them, and growable arrays (lib/util/arena.c). */
#ifndef HMN_UTIL_ARENA_H
#define HMN_UTIL_ARENA_H

#include <stddef.h>

/* Owns strings, freed all at once. */
struct hmn_arena;
struct hmn_arena *arena_new(void);
struct hmn_arena *arena_free(struct hmn_arena *arena);
/* A copy of s in the arena; NULL for NULL s or when out of memory. */
const char *arena_strdup(struct hmn_arena *arena, const char *s);
/* Moves every string of from into into, and frees from. */
void arena_adopt(struct hmn_arena *into, struct hmn_arena *from);

/* Makes room for one more element of size elem; -ENOMEM on failure. */
int array_reserve(void **items, size_t *capacity, size_t count, size_t elem);

#endif
