/*
 * Where a command's document goes: stdout ("-" too), or a file replaced
 * atomically (-o/--output): written to a temporary file in the file's own
 * directory, flushed to disk, then renamed over it. A reader (node_exporter's
 * textfile collector, a CI step) sees the old file or the whole new one,
 * never half.
 *
 * A symbolic link is followed: the file it names is replaced, the link
 * stays (not another user's link in a sticky world-writable directory, as
 * the kernel's fs.protected_symlinks). A file that exists and is not a
 * regular file (a character device such as /dev/null, a FIFO: its reader
 * waited for 2 s at most) is opened and written as it is, never replaced,
 * and so is hmn's own stdout or stderr (-o /dev/stdout keeps a shell's >>);
 * a block device is refused. A new
 * file gets 0666 less the umask; a replaced one keeps its mode (and, where
 * hmn may give it, its owner).
 *
 * Windows: paths through the wide calls (UTF-16). NUL, CON, COM1 and pipes
 * are written in place; a replaced file keeps its attributes (hidden,
 * system, archive, not indexed); a read-only one is refused at once, as
 * Windows would not replace it. Its ACL, new or replaced, is the one the
 * folder passes on: one set on the old file by hand is not carried over.
 */
#ifndef HMN_OUTPUT_H
#define HMN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sys.h"

struct output {
	FILE *file;           /* what to write to */
	const char *path;     /* as given; NULL: stdout */
	sys_char *target;     /* path with its symbolic links followed */
	sys_char *temp_path;  /* the temporary file beside target, until committed or discarded */
	bool unnamed;         /* Linux: the temporary file has no name until it is whole (O_TMPFILE) */
	const char *refusal;  /* why it cannot be written, where strerror would not say */
};

/* Flushes out; a write failure becomes the exit status (a closed pipe ends quietly). */
int finish_output(FILE *out, int status);

/* Is this -o argument stdout ("-", or none)? */
bool output_is_stdout(const char *path);
/*
 * Is o's FILE written as it is (a device, a FIFO, hmn's own stdout or
 * stderr), not replaced? What is written then comes after what was written
 * before, as on stdout. False for stdout itself ("-").
 */
bool output_in_place(const struct output *o);
/*
 * Opens the document's destination: for a file, creates its temporary file
 * (so that a FILE that cannot be written fails before any work). On
 * failure says why on stderr and returns -errno.
 */
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
