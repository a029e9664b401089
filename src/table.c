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

/*
 * Where a row is written: room is what is left of the window for the row's
 * text before the "…" that ends a row too wide for it (SIZE_MAX: a row
 * that fits, written whole); cut, whether the row has reached that edge.
 */
struct row_out {
	FILE *out;
	size_t room;
	bool cut;
};

static void put_text(struct row_out *r, const char *text, size_t len)
{
	size_t width, n;

	if (r->cut)
		return;
	if (r->room == SIZE_MAX) { /* the row fits: no need to measure it again */
		fwrite(text, 1, len, r->out);
		return;
	}
	n = text_fit(text, len, r->room, &width);
	fwrite(text, 1, n, r->out);
	r->room -= width;
	r->cut = n < len;
}

static void put_padding(struct row_out *r, size_t n)
{
	static const char spaces[] = "                                ";
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		put_text(r, spaces, k);
		n -= k;
	}
}

/* A row's cells: the header's names (cells NULL), or the n_columns cells from cells. */
static const char *row_text(const struct table *t, const struct cell *cells, size_t column, size_t *ret_width)
{
	if (!cells) {
		*ret_width = strlen(t->columns[column].header);
		return t->columns[column].header;
	}
	*ret_width = cells[column].width;
	return t->text + cells[column].offset;
}

/* The display width of a row: every column padded to its width but the last, which is not. */
static size_t row_width(const struct table *t, const struct cell *cells)
{
	size_t width = 0, last;

	for (size_t i = 0; i + 1 < t->n_columns; i++)
		width += t->widths[i] + 2;
	row_text(t, cells, t->n_columns - 1, &last);
	return width + (t->columns[t->n_columns - 1].align == ALIGN_RIGHT ? t->widths[t->n_columns - 1] : last);
}

/*
 * One row on one line. A row wider than columns (0: never cut) is cut at
 * the window's edge with "…", as a terminal would otherwise wrap it onto
 * the next line and break the table: NAME, the last column, first; where
 * the others already fill the window, they are cut too, the "…" saying so.
 */
static void print_row(const struct table *t, FILE *out, const struct cell *cells, size_t columns)
{
	struct row_out r = {
		.out = out,
		.room = columns && row_width(t, cells) > columns ? columns - 1 : SIZE_MAX,
	};

	for (size_t i = 0; i < t->n_columns; i++) {
		bool last = i + 1 == t->n_columns;
		size_t width;
		const char *text = row_text(t, cells, i, &width);
		if (i > 0)
			put_text(&r, "  ", 2);
		if (t->columns[i].align == ALIGN_RIGHT)
			put_padding(&r, t->widths[i] - width);
		put_text(&r, text, strlen(text));
		if (t->columns[i].align == ALIGN_LEFT && !last)
			put_padding(&r, t->widths[i] - width);
	}
	if (r.cut)
		fputs("\u2026", out);
	fputc('\n', out);
}

void table_print_cut(const struct table *t, FILE *out, bool no_header, size_t columns)
{
	if (!no_header)
		print_row(t, out, NULL, columns);
	for (size_t i = 0; i + t->n_columns <= t->n_cells; i += t->n_columns)
		print_row(t, out, &t->cells[i], columns);
}

void table_print(const struct table *t, FILE *out, bool no_header)
{
	table_print_cut(t, out, no_header, 0);
}
