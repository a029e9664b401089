/*
 * sys.h's -o FILE on POSIX systems: its symbolic links followed (as the
 * kernel's rules allow), a temporary file beside it, renamed over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "sys.h"
#include "util/clock.h"

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
 * The target itself when it is there and no regular file (a device, a
 * FIFO: written as it is) or is our stdout or stderr, else a new temporary
 * file beside it with the mode (and owner) the file will have.
 */
int sys_output_open(struct output *o)
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

int sys_name_unnamed(struct output *o)
{
#ifdef O_TMPFILE
	return name_unnamed(o, fileno(o->file));
#else
	(void)o;
	return -EOPNOTSUPP; /* never unnamed without O_TMPFILE */
#endif
}

int sys_sync_file(FILE *f)
{
	return fsync(fileno(f));
}

int sys_replace_file(const char *from, const char *to)
{
	return rename(from, to) < 0 ? -errno : 0;
}

void sys_remove_file(const char *path)
{
	unlink(path);
}

/* ---- --pick's holds file ------------------------------------------------------------ */

#define PICK_LOCK_POLL_MS 5

/*
 * $HMN_PICK_LOCK, else /run/lock's (a tmpfs emptied at boot) where every
 * user may write there (Debian's 1777; upstream systemd's is root's 0755),
 * else /tmp's. Decided by the folder's mode alone, never by who asks, so
 * that root and the others always name the same file.
 */
static const char *pick_file_path(void)
{
	const char *path = hmn_trusted_getenv("HMN_PICK_LOCK");
	struct stat st;
	if (path && *path)
		return path;
	return stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 01777) == 01777
		       ? "/run/lock/hmn-pick" : "/tmp/hmn-pick";
}

/*
 * Opens the file for every user: an existing one without O_CREAT (a sticky
 * directory's protected_regular refuses O_CREAT on another user's file,
 * even to root), else a new one, made 0666 whatever the umask. O_NOFOLLOW:
 * never through a link; then it must be a plain file of one name, or
 * someone's hard link to another file could be written through it.
 */
static int open_pick_file(const char *path)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		/* 0666 from its first moment: another user opening it before a fchmod would be refused. */
		mode_t umask_was = umask(0);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		int e = errno;
		umask(umask_was);
		errno = e;
		if (fd < 0 && errno == EEXIST) /* another launch made it first */
			fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The file at path is still the one fd has open (not unlinked, nor replaced, while we waited for it)? */
static bool still_named(int fd, const char *path)
{
	struct stat at_fd, at_path;
	return fstat(fd, &at_fd) == 0 && lstat(path, &at_path) == 0 && at_fd.st_dev == at_path.st_dev &&
	       at_fd.st_ino == at_path.st_ino;
}

int sys_pick_file_lock(uint64_t wait_ms, int *ret_fd, char *where, size_t where_size)
{
	const char *path = pick_file_path();
	uint64_t give_up = clock_us() + wait_ms * CLOCK_US_PER_MS;
	snprintf(where, where_size, "%s", path);
	/*
	 * flock, not fcntl's locks: one per open file, not per process. A child
	 * forked meanwhile shares it until its exec (O_CLOEXEC); hmn closes the
	 * file before it starts COMMAND.
	 */
	for (;;) {
		int fd = open_pick_file(path);
		if (fd < 0)
			return fd;
		while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			if ((errno != EWOULDBLOCK && errno != EINTR) || clock_us() >= give_up) {
				int e = errno == EWOULDBLOCK ? ETIMEDOUT : errno;
				if (e != ETIMEDOUT) {
					close(fd);
					return -e;
				}
				*ret_fd = fd; /* not locked, but its holds may still be read */
				return -ETIMEDOUT;
			}
			nanosleep(&(struct timespec){ .tv_nsec = PICK_LOCK_POLL_MS * 1000000L }, NULL);
		}
		/* Unlinked while another held it: ours is a file nobody else will lock. Again, by name. */
		if (still_named(fd, path)) {
			*ret_fd = fd;
			return 0;
		}
		close(fd);
		if (clock_us() >= give_up)
			return -ETIMEDOUT;
	}
}

long sys_pick_file_read(int fd, char *buf, size_t size)
{
	ssize_t n = size ? pread(fd, buf, size - 1, 0) : 0;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (long)n;
}

int sys_pick_file_write(int fd, const char *text, size_t len)
{
	if (ftruncate(fd, 0) < 0)
		return -errno;
	for (size_t done = 0; done < len;) {
		ssize_t n = pwrite(fd, text + done, len - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

void sys_pick_file_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the last descriptor of the open file */
}

bool sys_pid_alive(uint32_t pid)
{
	return pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

int sys_setenv(const char *name, const char *value)
{
	return setenv(name, value, 1) == 0 ? 0 : -errno;
}

FILE *sys_open_read(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}
