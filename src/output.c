#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "cli.h"
#include "output.h"
#include "tool.h"

/* "dir/.name.hmn-XXXXXX": beside the file (rename stays in one filesystem), hidden. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
#ifdef _WIN32
	const char *backslash = strrchr(path, '\\');
	if (backslash && (!slash || backslash > slash))
		slash = backslash;
#endif
	size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
	size_t n = strlen(path) + 16;
	char *t = malloc(n);
	if (t)
		snprintf(t, n, "%.*s.%s.hmn-XXXXXX", (int)dir_len, path, path + dir_len);
	return t;
}

static int make_temp(char *template)
{
#ifdef _WIN32
	if (!_mktemp(template))
		return -1;
	return _open(template, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, 0644);
#else
	int fd = mkstemp(template);
	/* mkstemp makes it 0600; the file it replaces is for others to read (a collector). */
	if (fd >= 0)
		fchmod(fd, 0644);
	return fd;
#endif
}

int output_open(struct output *o, const char *path)
{
	*o = (struct output){ .file = stdout, .path = path };
	if (!path)
		return 0;
	o->temp_path = temp_name(path);
	int fd = o->temp_path ? make_temp(o->temp_path) : -1;
	if (fd < 0 || !(o->file = fdopen(fd, "wb"))) {
		int e = o->temp_path ? errno : ENOMEM;
		fprintf(stderr, "hmn: cannot write %s: %s\n", path, strerror(e));
		if (fd >= 0) {
			close(fd);
			remove(o->temp_path);
		}
		free(o->temp_path);
		o->temp_path = NULL;
		o->file = NULL;
		return -e;
	}
	return 0;
}

static int sync_file(FILE *f)
{
#ifdef _WIN32
	return _commit(_fileno(f));
#else
	return fsync(fileno(f));
#endif
}

static int replace_file(const char *from, const char *to)
{
#ifdef _WIN32
	return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : -1;
#else
	return rename(from, to);
#endif
}

int output_commit(struct output *o, int status)
{
	if (!o->path)
		return finish_output(stdout, status);
	int failed = fflush(o->file) != 0 || ferror(o->file) || sync_file(o->file) != 0;
	int e = errno;
	failed |= fclose(o->file) != 0;
	o->file = NULL;
	if (!failed && replace_file(o->temp_path, o->path) != 0) {
		e = errno;
		failed = 1;
	}
	if (failed)
		remove(o->temp_path);
	free(o->temp_path);
	o->temp_path = NULL;
	if (failed) {
		fprintf(stderr, "hmn: cannot write %s: %s\n", o->path, strerror(e));
		return EXIT_RUNTIME;
	}
	return status;
}

void output_discard(struct output *o)
{
	if (!o->path || !o->temp_path)
		return;
	fclose(o->file);
	o->file = NULL;
	remove(o->temp_path);
	free(o->temp_path);
	o->temp_path = NULL;
}
