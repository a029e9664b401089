#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <limits.h>
#include <unistd.h>
#endif

#include "cli.h"
#include "output.h"
#include "tool.h"

bool output_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* The length of path's directory part, its last separator included (0: none). */
static size_t dir_length(const char *path)
{
	const char *slash = strrchr(path, '/');
#ifdef _WIN32
	const char *backslash = strrchr(path, '\\');
	if (backslash && (!slash || backslash > slash))
		slash = backslash;
#endif
	return slash ? (size_t)(slash - path + 1) : 0;
}

/* "dir/.name.hmn-XXXXXX": beside the file (rename stays in one filesystem), hidden. */
static char *temp_name(const char *path)
{
	size_t dir_len = dir_length(path);
	size_t n = strlen(path) + 16;
	char *t = malloc(n);
	if (t)
		snprintf(t, n, "%.*s.%s.hmn-XXXXXX", (int)dir_len, path, path + dir_len);
	return t;
}

#ifdef _WIN32
static char *follow_links(const char *path)
{
	char *copy = malloc(strlen(path) + 1); /* no strdup in strict C11 on mingw */
	if (copy)
		strcpy(copy, path);
	return copy;
}

static int open_target(struct output *o)
{
	o->temp_path = temp_name(o->target);
	if (!o->temp_path)
		return -ENOMEM;
	if (!_mktemp(o->temp_path))
		return -errno;
	int fd = _open(o->temp_path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, 0644);
	return fd < 0 ? -errno : fd;
}

static int sync_file(FILE *f)
{
	return _commit(_fileno(f));
}

static int replace_file(const char *from, const char *to)
{
	return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : -1;
}
#else
#define MAX_LINKS 40 /* as the kernel's own limit for a path */

/*
 * path with the symbolic links of its last component followed (a relative
 * target is relative to the link's directory); malloc'd, NULL with errno.
 * A name that is no link, or names nothing yet, is the target itself.
 */
static char *follow_links(const char *path)
{
	char *current = strdup(path);
	char target[PATH_MAX];

	for (int hops = 0; current; hops++) {
		ssize_t n = readlink(current, target, sizeof(target) - 1);
		if (n < 0)
			return current; /* not a link: the file to write (what else fails, open says) */
		if (hops == MAX_LINKS) {
			free(current);
			errno = ELOOP;
			return NULL;
		}
		target[n] = '\0';
		size_t dir_len = target[0] == '/' ? 0 : dir_length(current);
		char *next = malloc(dir_len + (size_t)n + 1);
		if (next) {
			memcpy(next, current, dir_len);
			memcpy(next + dir_len, target, (size_t)n + 1);
		}
		free(current);
		current = next;
	}
	return NULL;
}

/* umask() can only be read by setting it: set it back at once (no thread runs here). */
static mode_t current_umask(void)
{
	mode_t mask = umask(022);
	umask(mask);
	return mask;
}

/*
 * A sticky directory (/tmp) lets only a file's owner, or the directory's,
 * replace it: a rename by anyone else fails with EPERM, at the very end of
 * the work. Known at once, it is said at once.
 */
static bool replace_refused(const char *target, const struct stat *st)
{
	size_t dir_len = dir_length(target);
	char *dir = malloc(dir_len + 2);
	struct stat d;
	uid_t me = geteuid();
	bool refused = false;

	if (!dir)
		return false;
	if (dir_len)
		memcpy(dir, target, dir_len), dir[dir_len] = '\0';
	else
		strcpy(dir, ".");
	if (stat(dir, &d) == 0)
		refused = (d.st_mode & S_ISVTX) && me != 0 && st->st_uid != me && d.st_uid != me;
	free(dir);
	return refused;
}

/*
 * Is the file at path (links followed by the kernel) the one our stdout or
 * stderr is? -o /dev/stdout, /dev/stderr, /proc/self/fd/1: written through
 * that descriptor, so that a shell's >> (O_APPEND) or a pipe is honoured.
 */
static int std_stream_for(const struct stat *st)
{
	for (int fd = 1; fd <= 2; fd++) {
		struct stat s;
		if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return fd;
	}
	return -1;
}

#ifdef O_TMPFILE
/*
 * Linux: the temporary file has no name until it is whole (O_TMPFILE), so a
 * hmn killed mid-document (a signal, a file size limit) leaves nothing behind
 * in a textfile directory. Linked by /proc/self/fd, which needs no privilege.
 * -EOPNOTSUPP where the file system or the kernel has no O_TMPFILE.
 */
static int open_unnamed(const char *target, int *ret_fd)
{
	size_t dir_len = dir_length(target);
	char *dir = malloc(dir_len + 2);
	if (!dir)
		return -ENOMEM;
	if (dir_len)
		memcpy(dir, target, dir_len), dir[dir_len] = '\0';
	else
		strcpy(dir, ".");
	int fd = access("/proc/self/fd", X_OK) == 0 ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600) : -1;
	int e = fd < 0 ? errno : 0;
	free(dir);
	if (fd < 0)
		return e == EISDIR || e == EOPNOTSUPP || e == EINVAL || e == ENOENT ? -EOPNOTSUPP : -e;
	*ret_fd = fd;
	return 0;
}

/* Gives the unnamed file a temporary name beside target (renamed over it next). */
static int name_unnamed(struct output *o, int fd)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		char *name = temp_name(o->target);
		if (!name)
			return -ENOMEM;
		int tmp = mkstemp(name); /* a fresh name: made, then freed for the link */
		if (tmp < 0 || (close(tmp), unlink(name)) < 0) {
			int e = errno;
			free(name);
			return -e;
		}
		if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0) {
			o->temp_path = name;
			return 0;
		}
		int e = errno;
		free(name);
		if (e != EEXIST)
			return -e;
	}
	return -EEXIST;
}
#endif

/*
 * The descriptor to write the document to: the target itself when it is
 * there and no regular file (a device, a FIFO: written as it is) or is our
 * stdout or stderr, else a new temporary file beside it with the mode (and
 * owner) the file will have.
 */
static int open_target(struct output *o)
{
	struct stat st;
	bool exists = stat(o->path, &st) == 0;

	if (exists && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (exists) {
		int std = std_stream_for(&st);
		if (std >= 0) {
			fflush(std == 1 ? stdout : stderr);
			int fd = fcntl(std, F_DUPFD_CLOEXEC, 3);
			return fd < 0 ? -errno : fd;
		}
	}
	if (exists && !S_ISREG(st.st_mode)) {
		int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (exists && replace_refused(o->target, &st))
		return -EPERM;
	int fd = -1;
#ifdef O_TMPFILE
	int r = open_unnamed(o->target, &fd);
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	o->unnamed = r == 0;
#endif
	if (fd < 0) {
		o->temp_path = temp_name(o->target);
		if (!o->temp_path)
			return -ENOMEM;
		fd = mkostemp(o->temp_path, O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	/* A replaced file keeps its owner where we may give it, then its mode. */
	if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, st.st_uid, st.st_gid) < 0) {
		/* not ours to give: the new file is ours */
	}
	/* mkstemp makes it 0600, whatever the umask: a collector must read it. */
	fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~current_umask());
	return fd;
}

static int sync_file(FILE *f)
{
	return fsync(fileno(f));
}

static int replace_file(const char *from, const char *to)
{
	return rename(from, to);
}
#endif

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
	o->target = follow_links(path);
	int fd = o->target ? open_target(o) : -errno;
	if (fd < 0 || !(o->file = fdopen(fd, "wb"))) {
		int e = fd < 0 ? -fd : errno;
		fprintf(stderr, "hmn: cannot write %s: %s\n", path, strerror(e));
		if (fd >= 0)
			close(fd);
		if (o->temp_path && fd >= 0)
			remove(o->temp_path);
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
	bool in_place = !o->temp_path && !o->unnamed;
	int failed = fflush(o->file) != 0 || ferror(o->file) || (!in_place && sync_file(o->file) != 0);
	int e = errno;
#ifdef O_TMPFILE
	if (!failed && o->unnamed) {
		int r = name_unnamed(o, fileno(o->file));
		if (r < 0)
			failed = 1, e = -r;
	}
#endif
	if (fclose(o->file) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	o->file = NULL;
	if (!failed && !in_place && replace_file(o->temp_path, o->target) != 0) {
		e = errno;
		failed = 1;
	}
	if (failed && o->temp_path)
		remove(o->temp_path);
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
		remove(o->temp_path);
	clear(o);
}
