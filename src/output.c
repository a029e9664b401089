#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <io.h>
#include <stdint.h>
#include <wchar.h>
#include <windows.h>

#include "os/windows/win32.h" /* libhmn's UTF-16 and Win32-error helpers (static: linked in) */
#else
#include <limits.h>
#include <time.h>
#include <unistd.h>
#endif

#include "cli.h"
#include "output.h"
#include "tool.h"

bool output_is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

#ifdef _WIN32
/*
 * Windows: every path goes through the wide (UTF-16) calls. hmn holds its
 * arguments in UTF-8 (wmain turned them so); the ANSI calls (_open,
 * MoveFileExA) would read those bytes in the ANSI code page, and a name
 * such as Jérôme.json would come out garbled or not at all.
 */

/* The attributes a replaced file keeps (a read-only one is refused, see open_replacement). */
#define KEPT_ATTRIBUTES (FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM | FILE_ATTRIBUTE_ARCHIVE | \
			 FILE_ATTRIBUTE_NOT_CONTENT_INDEXED)

/* The length of path's directory part, its last separator (or a drive's colon, C:x) included. */
static size_t dir_length(const wchar_t *path)
{
	size_t len = 0;
	for (size_t i = 0; path[i]; i++)
		if (path[i] == L'\\' || path[i] == L'/' || (i == 1 && path[i] == L':'))
			len = i + 1;
	return len;
}

/*
 * Is path a DOS device (NUL, CON, COM1, nul.txt, \\.\pipe\x)? Windows
 * itself says so: their full path is in the device namespace, \\.\.
 * Such a name is never created nor replaced, whatever its attributes say
 * (GetFileAttributesW answers "archive" for NUL).
 */
static bool is_device_name(const wchar_t *path)
{
	DWORD n = GetFullPathNameW(path, 0, NULL, NULL);
	wchar_t *full = n ? malloc((size_t)n * sizeof(*full)) : NULL;
	DWORD len = full ? GetFullPathNameW(path, n, full, NULL) : 0;
	bool device = len >= 4 && len < n && wcsncmp(full, L"\\\\.\\", 4) == 0;
	free(full);
	return device;
}

/* A descriptor for h, which it then owns; h is closed on failure. */
static int fd_for(HANDLE h)
{
	int fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
	if (fd < 0) {
		int e = errno;
		CloseHandle(h);
		return -e;
	}
	return fd;
}

/*
 * o->target becomes the path of the file h is open on, its symbolic links
 * followed (and Wine's Unix ones, which show no reparse point): that file
 * is replaced, in its own directory, and the link stays. Where Windows
 * cannot say (a volume with no drive letter), the name as given is kept,
 * unless it is itself a link: then replacing it would replace the link.
 */
static int follow_link(struct output *o, HANDLE h)
{
	DWORD flags = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, flags);

	if (n) {
		wchar_t *final = malloc((size_t)n * sizeof(*final));
		if (!final)
			return -ENOMEM;
		DWORD len = GetFinalPathNameByHandleW(h, final, n, flags);
		if (len > 0 && len < n) {
			free(o->target);
			o->target = final;
			return 0;
		}
		free(final);
	}
	DWORD error = GetLastError();
	DWORD attributes = GetFileAttributesW(o->target);
	if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
		return os_errno_of(error, -EIO);
	return 0;
}

/*
 * A new temporary file ".NAME.hmn-XXXXXX" beside o->target, as on POSIX,
 * with the attributes the file will have. CREATE_NEW makes it ours alone;
 * the clock and the process id in its name make a clash (another hmn
 * writing the same FILE) rare, and a clash only means another name.
 */
static int open_temp(struct output *o, DWORD attributes)
{
	static const wchar_t digits[] = L"abcdefghijklmnopqrstuvwxyz012345";
	size_t dir_len = dir_length(o->target), len = wcslen(o->target);
	wchar_t *name = malloc((len + 16) * sizeof(*name));
	LARGE_INTEGER now;

	if (!name)
		return -ENOMEM;
	QueryPerformanceCounter(&now);
	uint32_t seed = (uint32_t)now.QuadPart ^ (uint32_t)GetCurrentProcessId() << 16;
	wmemcpy(name, o->target, dir_len);
	name[dir_len] = L'.';
	wmemcpy(name + dir_len + 1, o->target + dir_len, len - dir_len);
	wchar_t *suffix = name + len + 1;
	wmemcpy(suffix, L".hmn-", 5);
	suffix += 5;
	for (uint32_t tries = 0; tries < 100; tries++) {
		uint32_t x = seed + tries * 2654435761u; /* Knuth's multiplier: far apart names */
		for (int i = 0; i < 6; i++, x >>= 5)
			suffix[i] = digits[x & 31];
		suffix[6] = L'\0';
		HANDLE h = CreateFileW(name, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW, attributes, NULL);
		if (h != INVALID_HANDLE_VALUE) {
			int fd = fd_for(h);
			if (fd < 0)
				DeleteFileW(name), free(name);
			else
				o->temp_path = name;
			return fd;
		}
		DWORD e = GetLastError();
		if (e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS) {
			free(name);
			return os_errno_of(e, -EIO);
		}
	}
	free(name);
	return -EEXIST;
}

/*
 * FILE is a file on disk, h open on it: a temporary file to replace it,
 * with its attributes. A read-only file is refused now: MoveFileExW would
 * refuse it after the work (Wine, run as root, opens it for writing).
 */
static int open_replacement(struct output *o, HANDLE h)
{
	BY_HANDLE_FILE_INFORMATION info;
	DWORD attributes = GetFileInformationByHandle(h, &info) ? info.dwFileAttributes : 0;
	int r = attributes & FILE_ATTRIBUTE_READONLY ? -EACCES : follow_link(o, h);
	CloseHandle(h);
	if (r < 0)
		return r;
	attributes &= KEPT_ATTRIBUTES;
	return open_temp(o, attributes ? attributes : FILE_ATTRIBUTE_NORMAL);
}

/*
 * FILE is there but could not be opened for writing (error). A folder, a
 * read-only file and a device in use are refused at once; a file another
 * program holds is replaced, if it lets go by then.
 */
static int open_unwritable(struct output *o, DWORD error)
{
	if (is_device_name(o->target))
		return os_errno_of(error, -EIO);
	DWORD attributes = GetFileAttributesW(o->target);
	if (attributes == INVALID_FILE_ATTRIBUTES)
		return os_errno_of(error, -EIO);
	if (attributes & FILE_ATTRIBUTE_DIRECTORY)
		return -EISDIR;
	/* Its attributes alone: no read, write or delete access, which is all others' sharing can deny. */
	HANDLE h = CreateFileW(o->target, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return os_errno_of(GetLastError(), -EIO);
	return open_replacement(o, h);
}

/*
 * The descriptor to write the document to. FILE is opened for writing as
 * it is: what opens and is no disk file (NUL, CON, COM1, a pipe) is
 * written in place, never replaced (a rename over NUL would fail, or make
 * a file of that name); a file on disk gets a temporary file beside the
 * file its links name. Nothing there: a new temporary file, unless FILE is
 * a link to nothing (its target cannot be known without reading the
 * link; replacing the link is not allowed) or a device.
 */
static int open_target(struct output *o)
{
	int r = os_utf16(o->path, &o->target);
	if (r < 0)
		return r;
	HANDLE h = CreateFileW(o->target, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	if (h != INVALID_HANDLE_VALUE)
		return GetFileType(h) == FILE_TYPE_DISK ? open_replacement(o, h) : fd_for(h);

	DWORD error = GetLastError();
	if (error != ERROR_FILE_NOT_FOUND && error != ERROR_PATH_NOT_FOUND)
		return open_unwritable(o, error);
	DWORD attributes = GetFileAttributesW(o->target);
	if ((attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_REPARSE_POINT)) ||
	    is_device_name(o->target))
		return os_errno_of(error, -EIO);
	return open_temp(o, FILE_ATTRIBUTE_NORMAL);
}

static int sync_file(FILE *f)
{
	return _commit(_fileno(f));
}

/*
 * A reader that opened FILE without FILE_SHARE_DELETE (the C runtime's
 * fopen does) keeps it from being replaced while it reads: a moment's
 * wait for it to let go, not a failed document.
 */
static int replace_file(const wchar_t *from, const wchar_t *to)
{
	for (int tries = 0;; tries++) {
		if (MoveFileExW(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
			return 0;
		DWORD e = GetLastError();
		if ((e != ERROR_ACCESS_DENIED && e != ERROR_SHARING_VIOLATION) || tries == 20)
			return os_errno_of(e, -EIO);
		Sleep(50);
	}
}

static void remove_file(const wchar_t *path)
{
	DeleteFileW(path);
}
#else
/* The length of path's directory part, its last separator included (0: none). */
static size_t dir_length(const char *path)
{
	const char *slash = strrchr(path, '/');
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

#define MAX_LINKS 40 /* as the kernel's own limit for a path */
#define FIFO_WAIT_MS 2000

/*
 * May the link at path be followed? The kernel's own rule for links in a
 * sticky world-writable directory (fs.protected_symlinks): only where the
 * link is ours or the directory owner's. hmn reads links itself (to rename
 * over their target), so the kernel's check never runs: without this, root's
 * `-o /tmp/metrics.json` wrote over whatever another user's link there named.
 */
static bool may_follow(const char *path)
{
	size_t dir_len = dir_length(path);
	char *dir = malloc(dir_len + 2);
	struct stat link, d;
	bool ok = true;

	if (!dir)
		return false;
	if (dir_len)
		memcpy(dir, path, dir_len), dir[dir_len] = '\0';
	else
		strcpy(dir, ".");
	if (lstat(path, &link) == 0 && stat(dir, &d) == 0 && (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH))
		ok = link.st_uid == geteuid() || link.st_uid == d.st_uid;
	free(dir);
	return ok;
}

/*
 * path with the symbolic links of its last component followed (a relative
 * target is relative to the link's directory); malloc'd, NULL with errno
 * (EACCES: a link may_follow() refuses). A name that is no link, or names
 * nothing yet, is the target itself.
 */
static char *follow_links(const char *path)
{
	char *current = strdup(path);
	char target[PATH_MAX];

	for (int hops = 0; current; hops++) {
		ssize_t n = readlink(current, target, sizeof(target) - 1);
		if (n < 0)
			return current; /* not a link: the file to write (what else fails, open says) */
		if (!may_follow(current)) {
			free(current);
			errno = EACCES;
			return NULL;
		}
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

	o->target = follow_links(o->path);
	if (!o->target)
		return -errno;
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
	if (exists && S_ISBLK(st.st_mode)) {
		o->refusal = "a block device (a disk): never written over";
		return -EINVAL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/*
		 * A FIFO's reader is waited for FIFO_WAIT_MS at most (one started
		 * beside hmn: `cat fifo & hmn free -o fifo`), never for ever: the
		 * open blocked before COMMAND ran, and past SIGTERM.
		 */
		int fd;
		for (int waited = 0;; waited += 10) {
			fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
			if (fd >= 0 || errno != ENXIO || waited >= FIFO_WAIT_MS)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000000L }, NULL);
		}
		if (fd < 0 && errno == ENXIO)
			o->refusal = "a FIFO that no process reads (waited 2s)";
		if (fd < 0)
			return -errno;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
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
	return rename(from, to) < 0 ? -errno : 0;
}

static void remove_file(const char *path)
{
	unlink(path);
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
	int fd = open_target(o);
	if (fd < 0 || !(o->file = fdopen(fd, "wb"))) {
		int e = fd < 0 ? -fd : errno;
		fprintf(stderr, "hmn: cannot write %s: %s\n", path, o->refusal ? o->refusal : strerror(e));
		if (fd >= 0)
			close(fd);
		if (o->temp_path && fd >= 0)
			remove_file(o->temp_path);
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
	if (!failed && !in_place) {
		int r = replace_file(o->temp_path, o->target);
		if (r < 0)
			failed = 1, e = -r;
	}
	if (failed && o->temp_path)
		remove_file(o->temp_path);
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
		remove_file(o->temp_path);
	clear(o);
}
