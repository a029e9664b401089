/*
 * Strings (and vectors of them) that live as long as the list (or context)
 * that owns them, and growable arrays (lib/util/arena.c).
 */
#ifndef HMN_UTIL_ARENA_H
#define HMN_UTIL_ARENA_H

#include <stddef.h>

/* Owns strings, freed all at once. */
struct hmn_arena;
struct hmn_arena *arena_new(void);
struct hmn_arena *arena_free(struct hmn_arena *arena);
/* A copy of s in the arena; NULL for NULL s or when out of memory. */
const char *arena_strdup(struct hmn_arena *arena, const char *s);
/*
 * The first n words of block (one after another, each ending in its NUL)
 * as a NULL-terminated vector in the arena, the pointers and the words in
 * one piece; NULL when out of memory. (A process's argument vector.)
 */
const char *const *arena_words(struct hmn_arena *arena, const char *block, size_t n);
/* A copy of the NULL-terminated vector v in the arena; NULL for NULL v or when out of memory. */
const char *const *arena_strv_dup(struct hmn_arena *arena, const char *const *v);
/* The same, malloc'd in one piece: one free() frees it. */
const char *const *strv_dup(const char *const *v);
/* Moves every string of from into into, and frees from. */
void arena_adopt(struct hmn_arena *into, struct hmn_arena *from);

/* Makes room for one more element of size elem; -ENOMEM on failure. */
int array_reserve(void **items, size_t *capacity, size_t count, size_t elem);

#endif
