/* Small files of /proc and /sys, and the decimal names of their entries. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "files.h"

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
