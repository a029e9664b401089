#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "table.h"

struct cell {
	size_t offset;  /* into text */
	size_t width;   /* display width */
};

struct table {
	const struct table_column *columns;
	size_t n_columns;
	struct cell *cells;
	size_t n_cells, cells_capacity;
	char *text;
	size_t text_len, text_capacity;
	size_t *widths;
};

struct table *table_new(const struct table_column *columns, size_t n_columns)
{
	struct table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->columns = columns;
	t->n_columns = n_columns;
	t->widths = calloc(n_columns, sizeof(*t->widths));
	if (!t->widths)
		return table_free(t);
	for (size_t i = 0; i < n_columns; i++)
		t->widths[i] = strlen(columns[i].header);
	return t;
}

struct table *table_free(struct table *t)
{
	if (!t)
		return NULL;
	free(t->cells);
	free(t->text);
	free(t->widths);
	free(t);
	return NULL;
}

static int grow(void **p, size_t *capacity, size_t need, size_t elem)
{
	if (need <= *capacity)
		return 0;
	size_t cap = *capacity ? *capacity : 64;
	while (cap < need)
		cap *= 2;
	void *q = realloc(*p, cap * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*capacity = cap;
	return 0;
}

int table_add_cell(struct table *t, const char *text)
{
	/* Sanitizing never grows the text: '?' replaces byte for byte. */
	size_t len = strlen(text);

	if (grow((void **)&t->cells, &t->cells_capacity, t->n_cells + 1, sizeof(*t->cells)) < 0 ||
	    grow((void **)&t->text, &t->text_capacity, t->text_len + len + 1, 1) < 0)
		return -ENOMEM;
	struct cell *c = &t->cells[t->n_cells];
	char *cell = t->text + t->text_len;
	size_t column = t->n_cells % t->n_columns;

	c->offset = t->text_len;
	c->width = sanitize_for_terminal(text, cell, len + 1);
	/* Every cell but the last is one word, so that awk finds the columns (a user "John Smith"). */
	if (column + 1 < t->n_columns)
		for (char *space = strchr(cell, ' '); space; space = strchr(space + 1, ' '))
			*space = '_';
	t->text_len += strlen(cell) + 1;

	if (c->width > t->widths[column])
		t->widths[column] = c->width;
	t->n_cells++;
	return 0;
}

static void print_padding(FILE *out, size_t n)
{
	static const char spaces[] = "                                ";
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		fwrite(spaces, 1, k, out);
		n -= k;
	}
}

static void print_cell(const struct table *t, FILE *out, size_t column, const char *text,
		       size_t width, size_t columns)
{
	bool last = column + 1 == t->n_columns;
	size_t pad = t->widths[column] - width;

	if (column > 0)
		fputs("  ", out);
	if (t->columns[column].align == ALIGN_RIGHT)
		print_padding(out, pad);
	if (last && columns) {
		/* Where the line has room left for the free text at all: 2 columns, "x…". */
		size_t before = 0;
		for (size_t i = 0; i + 1 < t->n_columns; i++)
			before += t->widths[i] + 2;
		if (before + width > columns && columns >= before + 2)
			print_cut(out, text, strlen(text), columns - before);
		else
			fputs(text, out);
	} else {
		fputs(text, out);
	}
	if (t->columns[column].align == ALIGN_LEFT && !last)
		print_padding(out, pad);
	if (last)
		fputc('\n', out);
}

void table_print_cut(const struct table *t, FILE *out, bool no_header, size_t columns)
{
	if (!no_header)
		for (size_t i = 0; i < t->n_columns; i++)
			print_cell(t, out, i, t->columns[i].header, strlen(t->columns[i].header), columns);
	for (size_t i = 0; i < t->n_cells; i++)
		print_cell(t, out, i % t->n_columns, t->text + t->cells[i].offset, t->cells[i].width, columns);
}

void table_print(const struct table *t, FILE *out, bool no_header)
{
	table_print_cut(t, out, no_header, 0);
}
