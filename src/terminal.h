/* The terminal a FILE writes to: its window's size, where it is one. */
#ifndef HMN_TERMINAL_H
#define HMN_TERMINAL_H

#include <stdbool.h>
#include <stdio.h>

/*
 * The window's columns and rows where out is a terminal that says them:
 * true; false (and 80 x 24) elsewhere: a pipe, a file.
 */
bool terminal_size(FILE *out, unsigned *ret_columns, unsigned *ret_rows);

#endif
