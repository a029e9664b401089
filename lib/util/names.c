/* Lists of file names: a folder's listing, as the model reader takes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/names.h"

int name_list_add(struct name_list *l, const char *name, const char *suffix, size_t max)
{
	size_t len = strlen(name), k = strlen(suffix);
	if (len <= k || strcmp(name + len - k, suffix) || name[0] == '.')
		return 0;
	if (l->count >= max)
		return -E2BIG;
	int r = array_reserve((void **)&l->names, &l->capacity, l->count, sizeof(*l->names));
	if (r < 0)
		return r;
	if (!(l->names[l->count] = malloc(len + 1)))
		return -ENOMEM;
	memcpy(l->names[l->count++], name, len + 1);
	return 0;
}

int name_list_add_dangling(struct name_list *l, const char *name, size_t max)
{
	if (l->n_dangling >= max)
		return 0;
	int r = array_reserve((void **)&l->dangling, &l->dangling_capacity, l->n_dangling, sizeof(*l->dangling));
	if (r < 0)
		return r;
	if (!(l->dangling[l->n_dangling] = strdup(name)))
		return -ENOMEM;
	l->n_dangling++;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void name_list_sort(struct name_list *l)
{
	if (l->count)
		qsort(l->names, l->count, sizeof(*l->names), compare_names);
}

const char *name_list_find(const struct name_list *l, const char *name)
{
	char *const *found = l->count ? bsearch(&name, l->names, l->count, sizeof(*l->names), compare_names) : NULL;
	return found ? *found : NULL;
}

int name_list_finish(struct name_list *l, int r)
{
	if (r < 0) {
		name_list_clear(l);
		return r;
	}
	name_list_sort(l);
	if (l->n_dangling)
		qsort(l->dangling, l->n_dangling, sizeof(*l->dangling), compare_names);
	return 0;
}

void name_list_clear(struct name_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->names[i]);
	free(l->names);
	for (size_t i = 0; i < l->n_dangling; i++)
		free(l->dangling[i]);
	free(l->dangling);
	*l = (struct name_list){ 0 };
}
