/*
 * Where a command's document goes: stdout, or a file replaced atomically
 * (-o/--output): written to a temporary file in the same directory, flushed
 * to disk, then renamed over it. A reader (node_exporter's textfile
 * collector, a CI step) sees the old file or the whole new one, never half.
 */
#ifndef HMN_OUTPUT_H
#define HMN_OUTPUT_H

#include <stdio.h>

struct output {
	FILE *file;           /* what to write to */
	const char *path;     /* NULL: stdout */
	char *temp_path;      /* the temporary file, until committed or discarded */
};

/* Opens the document's destination; on failure says why on stderr and returns -errno. */
int output_open(struct output *o, const char *path);
/*
 * Finishes the document: stdout is flushed (a closed pipe ends quietly);
 * a file is flushed, synced and renamed into place. status is what the
 * command would exit with; returns it, or EXIT_RUNTIME with a message when
 * the document could not be written, in which case the file keeps its old
 * content and the temporary file is removed.
 */
int output_commit(struct output *o, int status);
/* Gives up a document (the command failed before it was whole): the file keeps its old content. */
void output_discard(struct output *o);

#endif
