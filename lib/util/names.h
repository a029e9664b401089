/* Lists of file names (lib/util/names.c): what a folder's listing gives the model reader. */
#ifndef HMN_UTIL_NAMES_H
#define HMN_UTIL_NAMES_H

#include <stddef.h>

/* File names, malloc'd, owned by the list. */
struct name_list {
	char **names;
	size_t count, capacity;
	/* The names of the suffix left out as links that lead nowhere (a deleted blob's), sorted; max at most. */
	char **dangling;
	size_t n_dangling, dangling_capacity;
};
/* Adds name when it ends with suffix (and does not start with a dot); -E2BIG past max names. */
int name_list_add(struct name_list *l, const char *name, const char *suffix, size_t max);
void name_list_sort(struct name_list *l);
/* Adds name to l's dangling links; past max of them, the rest are not kept (0). */
int name_list_add_dangling(struct name_list *l, const char *name, size_t max);
/* The list's own copy of name, found by halves in a sorted list; NULL when it has none. */
const char *name_list_find(const struct name_list *l, const char *name);
void name_list_clear(struct name_list *l);
/* A listing's end: r < 0, the list cleared and r returned; else the list sorted, 0. */
int name_list_finish(struct name_list *l, int r);

#endif
