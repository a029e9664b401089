/* Small files of /proc and /sys, and the decimal names of their entries. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "util/arena.h"

ssize_t linux_read_head(int dir, const char *path, char *buf, size_t size)
{
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	int r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return n;
}

ssize_t linux_read_all(int dir, const char *path, char **buf, size_t *size)
{
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (len + 1 >= *size) {
			size_t capacity = *size ? *size * 2 : 4096;
			char *p = realloc(*buf, capacity);
			if (!p) {
				close(fd);
				return -ENOMEM;
			}
			*buf = p;
			*size = capacity;
		}
		n = read(fd, *buf + len, *size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	int r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

size_t linux_put_uint(char *buf, size_t len, unsigned long n)
{
	char digits[24];
	size_t k = 0;
	do
		digits[k++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	while (k > 0)
		buf[len++] = digits[--k];
	buf[len] = '\0';
	return len;
}

int linux_read_stat(int procfs, unsigned pid, struct proc_stat *ret)
{
	char path[32], buf[1024];
	size_t len = linux_put_uint(path, 0, pid);
	memcpy(path + len, "/stat", 6);
	ssize_t n = linux_read_head(procfs, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse_stat(buf, (size_t)n, ret);
}
