/* Strings that live as long as the list (or context) that owns them; growable arrays. */
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

static char *arena_alloc(struct hmn_arena *arena, size_t n)
{
	struct arena_block *b = arena->head;

	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = arena->head;
		arena->head = b;
	}
	char *p = b->data + b->used;
	b->used += n;
	return p;
}

const char *arena_strdup(struct hmn_arena *arena, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(arena, n);
	if (p)
		memcpy(p, s, n);
	return p;
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
