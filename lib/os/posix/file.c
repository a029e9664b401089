/* Model files on Linux and macOS: read at 64-bit offsets with pread, folders listed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/os.h"
#include "util/names.h"

int os_path_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? OS_PATH_MISSING : -errno;
	return S_ISDIR(st.st_mode) ? OS_PATH_DIRECTORY : OS_PATH_FILE;
}

bool os_path_dangling(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) < 0 && errno == ENOENT;
}

static int pread_at(void *userdata, uint64_t offset, void *buf, size_t len)
{
	int fd = (int)(intptr_t)userdata;
	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* shorter than its size said: it shrank under us */
		buf = (char *)buf + n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

int os_file_open(const char *path, struct reader *ret_reader)
{
	/* O_NONBLOCK: a FIFO named as a model must not hang the open (pread on a regular file ignores it). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0)
		return -errno;
	int r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_reader = (struct reader){
		.read_at = pread_at,
		.size = (uint64_t)st.st_size,
		.userdata = (void *)(intptr_t)fd,
		.name = path,
	};
	return 0;
}

void os_file_close(struct reader *reader)
{
	if (reader && reader->read_at == pread_at)
		close((int)(intptr_t)reader->userdata);
}

/*
 * Is this entry a file (a link to one counts: the Hugging Face cache's
 * snapshots are links to its blobs)? A folder named x.gguf is not one, as
 * Windows' listing already said, nor a link that leads nowhere (a stale
 * one beside the weights would spoil the folder): *ret_dangling says so.
 */
static bool is_file(DIR *d, const struct dirent *de, bool *ret_dangling)
{
	struct stat st;
	*ret_dangling = false;
	if (de->d_type == DT_REG)
		return true;
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
	if (fstatat(dirfd(d), de->d_name, &st, 0) == 0)
		return S_ISREG(st.st_mode);
	*ret_dangling = errno == ENOENT;
	return false;
}

int os_list_dir(const char *dir, const char *suffix, size_t max, struct name_list *ret)
{
	DIR *d = opendir(dir);
	int r = 0;
	if (!d)
		return -errno;
	size_t k = strlen(suffix);
	for (struct dirent *de; r >= 0 && (de = readdir(d));) {
		size_t n = strlen(de->d_name);
		bool dangling;
		/* Only names that could be taken are looked at (a stat for a link). */
		if (n <= k || strcmp(de->d_name + n - k, suffix) || de->d_name[0] == '.')
			continue;
		if (is_file(d, de, &dangling))
			r = name_list_add(ret, de->d_name, suffix, max);
		else if (dangling)
			r = name_list_add_dangling(ret, de->d_name, max);
	}
	closedir(d);
	return name_list_finish(ret, r);
}

int os_list_folders(const char *dir, size_t max, struct name_list *ret)
{
	DIR *d = opendir(dir);
	int r = 0;
	if (!d)
		return -errno;
	for (struct dirent *de; r >= 0 && (de = readdir(d));) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type == DT_DIR ||
		    ((de->d_type == DT_LNK || de->d_type == DT_UNKNOWN) && fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
		     S_ISDIR(st.st_mode)))
			r = name_list_add(ret, de->d_name, "", max);
	}
	closedir(d);
	return name_list_finish(ret, r);
}

char *os_full_path(const char *path)
{
	return realpath(path, NULL);
}
