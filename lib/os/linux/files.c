/* Small files of /proc and /sys, and the decimal names of their entries. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/number.h"

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

/* A small sysfs file, NUL-terminated, trailing newline removed; -errno. */
int linux_read_attr(int dir, const char *path, char *buf, size_t size)
{
	ssize_t n = linux_read_head(dir, path, buf, size);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* A sysfs number (decimal, or 0x-prefixed hex as older kernels print some); -errno. */
int linux_read_u64(int dir, const char *path, uint64_t *ret)
{
	char buf[64];
	int r = linux_read_attr(dir, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
	const char *end = hex ? buf + 2 : buf;
	uint64_t v;
	if (!(hex ? parse_hex : parse_decimal)(&end, buf + strlen(buf), UINT64_MAX, &v) || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}
