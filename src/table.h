/* Aligned text tables: columns two spaces apart, no trailing spaces. */
#ifndef HMN_TABLE_H
#define HMN_TABLE_H

#include <stdbool.h>
#include <stdio.h>

enum table_align { ALIGN_LEFT, ALIGN_RIGHT };

struct table_column {
	const char *header;
	enum table_align align;
};

struct table;

struct table *table_new(const struct table_column *columns, size_t n_columns);
struct table *table_free(struct table *t);
/*
 * Appends the next cell of the current row (rows fill left to right). The
 * text is made terminal-safe here, so nothing a process names itself can
 * reach the terminal raw, and every cell but the last one word (a space
 * becomes '_'). Returns -ENOMEM on failure.
 */
int table_add_cell(struct table *t, const char *text);
/* Prints every row, with the header first unless no_header. */
void table_print(const struct table *t, FILE *out, bool no_header);
/*
 * The same, each line cut to columns display columns (0: not cut), as a
 * terminal's window allows: a line too wide ends in "…" in its last column.
 * NAME, the last column, is cut first; where the other columns alone are
 * wider than the window, they are cut too (the "…" says a figure is not
 * whole), never wrapped onto the next line.
 */
void table_print_cut(const struct table *t, FILE *out, bool no_header, size_t columns);

#endif
