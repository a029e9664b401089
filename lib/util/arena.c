/* Strings (and vectors of them) that live as long as the list (or context) that owns them; growable arrays. */
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "util/arena.h"

#define ARENA_BLOCK 16384

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

struct hmn_arena {
	struct arena_block *head;
};

struct hmn_arena *arena_new(void)
{
	return calloc(1, sizeof(struct hmn_arena));
}

struct hmn_arena *arena_free(struct hmn_arena *arena)
{
	if (!arena)
		return NULL;
	for (struct arena_block *b = arena->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(arena);
	return NULL;
}

/* n bytes at a multiple of align (1: a string's; a vector's pointers want their own). */
static char *arena_alloc(struct hmn_arena *arena, size_t n, size_t align)
{
	struct arena_block *b = arena->head;
	size_t pad = b ? (align - (uintptr_t)(b->data + b->used) % align) % align : 0;

	if (!b || b->size - b->used < n || b->size - b->used - n < pad) {
		/* A block's data is aligned for a pointer: it follows the header's size_t fields. */
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = arena->head;
		arena->head = b;
		pad = 0;
	}
	char *p = b->data + b->used + pad;
	b->used += pad + n;
	return p;
}

const char *arena_strdup(struct hmn_arena *arena, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(arena, n, 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

const char *const *arena_words(struct hmn_arena *arena, const char *block, size_t n)
{
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += strlen(block + bytes) + 1;
	const char **v = (const char **)arena_alloc(arena, (n + 1) * sizeof(*v) + bytes, sizeof(*v));
	if (!v)
		return NULL;
	char *words = memcpy(v + n + 1, block, bytes);
	for (size_t i = 0; i < n; i++) {
		v[i] = words;
		words += strlen(words) + 1;
	}
	v[n] = NULL;
	return v;
}

/* The bytes a copy of v takes in one piece: its pointers, its NULL, its words; their count into *ret_n. */
static size_t strv_size(const char *const *v, size_t *ret_n)
{
	size_t n = 0, bytes = 0;
	for (; v[n]; n++)
		bytes += strlen(v[n]) + 1;
	*ret_n = n;
	return (n + 1) * sizeof(*v) + bytes;
}

/* v's n words copied into mem: the pointers, then the words behind them. */
static const char *const *pack_strv(void *mem, const char *const *v, size_t n)
{
	const char **copy = mem;
	char *words = (char *)(copy + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]) + 1;
		copy[i] = memcpy(words, v[i], len);
		words += len;
	}
	copy[n] = NULL;
	return copy;
}

const char *const *arena_strv_dup(struct hmn_arena *arena, const char *const *v)
{
	size_t n;
	void *mem = v ? arena_alloc(arena, strv_size(v, &n), sizeof(*v)) : NULL;
	return mem ? pack_strv(mem, v, n) : NULL;
}

const char *const *strv_dup(const char *const *v)
{
	size_t n;
	void *mem = v ? malloc(strv_size(v, &n)) : NULL;
	return mem ? pack_strv(mem, v, n) : NULL;
}

void arena_adopt(struct hmn_arena *into, struct hmn_arena *from)
{
	if (!from)
		return;
	/* Its blocks go behind ours: the head, where allocation continues, stays ours. */
	struct arena_block **tail = into->head ? &into->head->next : &into->head;
	struct arena_block *rest = *tail;
	*tail = from->head;
	while (*tail)
		tail = &(*tail)->next;
	*tail = rest;
	free(from);
}

int array_reserve(void **items, size_t *capacity, size_t count, size_t elem)
{
	if (count < *capacity)
		return 0;
	size_t cap = *capacity ? *capacity * 2 : 16;
	if (cap > SIZE_MAX / elem)
		return -ENOMEM;
	void *p = realloc(*items, cap * elem);
	if (!p)
		return -ENOMEM;
	*items = p;
	*capacity = cap;
	return 0;
}
