/*
 * -o FILE replaced atomically (output.h): what every OS does alike; how a
 * file is opened, flushed, renamed and removed is the OS's (sys.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "sys.h"
#include "tool.h"

/*
 * Flushes out and turns a write failure into the exit status: a closed
 * pipe ends the way SIGPIPE would have ended us (quietly), anything else
 * (a full disk, /dev/full) is a runtime failure with a message.
 */
int finish_output(FILE *out, int status)
{
	if (fflush(out) == 0 && !ferror(out))
		return status;
	if (errno == EPIPE) {
		sys_end_by_closed_pipe();
		return EXIT_RUNTIME; /* Windows has no SIGPIPE: a quiet failure, as there */
	}
	fprintf(stderr, "hmn: cannot write output: %s\n", strerror(errno));
	return EXIT_RUNTIME;
}

bool output_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

bool output_in_place(const struct output *o)
{
	return o->path && !o->temp_path && !o->unnamed;
}

static void clear(struct output *o)
{
	free(o->target);
	free(o->temp_path);
	o->target = o->temp_path = NULL;
	o->file = NULL;
	o->unnamed = false;
}

int output_open(struct output *o, const char *path)
{
	*o = (struct output){ .file = stdout };
	if (output_is_stdout(path))
		return 0;
	o->path = path;
	int fd = sys_output_open(o);
	if (fd < 0 || !(o->file = fdopen(fd, "wb"))) {
		int e = fd < 0 ? -fd : errno;
		fprintf(stderr, "hmn: cannot write %s: %s\n", path, o->refusal ? o->refusal : strerror(e));
		if (fd >= 0)
			close(fd);
		if (o->temp_path && fd >= 0)
			sys_remove_file(o->temp_path);
		clear(o);
		return -e;
	}
	return 0;
}

int output_commit(struct output *o, int status)
{
	if (!o->path)
		return finish_output(stdout, status);
	/* A device, a FIFO or our own stdout written in place: nothing to sync or rename. */
	bool in_place = output_in_place(o);
	int failed = fflush(o->file) != 0 || ferror(o->file) || (!in_place && sys_sync_file(o->file) != 0);
	int e = errno;
	if (!failed && o->unnamed) {
		int r = sys_name_unnamed(o);
		if (r < 0)
			failed = 1, e = -r;
	}
	if (fclose(o->file) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	o->file = NULL;
	if (!failed && !in_place) {
		int r = sys_replace_file(o->temp_path, o->target);
		if (r < 0)
			failed = 1, e = -r;
	}
	if (failed && o->temp_path)
		sys_remove_file(o->temp_path);
	clear(o);
	if (failed) {
		fprintf(stderr, "hmn: cannot write %s: %s\n", o->path, strerror(e));
		return EXIT_RUNTIME;
	}
	return status;
}

void output_discard(struct output *o)
{
	if (!o->path || !o->file)
		return;
	fclose(o->file);
	if (o->temp_path)
		sys_remove_file(o->temp_path);
	clear(o);
}
