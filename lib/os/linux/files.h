/*
 * Reading the small files of /proc and /sys, and naming them fast: for
 * lib/os/linux, and for the one source that is Linux's alone and reads
 * sysfs and /proc itself (gpu/drm). Nothing else outside os/ includes it.
 */
#ifndef HMN_LINUX_FILES_H
#define HMN_LINUX_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Reads the start of a small /proc or /sys file (relative to the directory
 * fd dir) with one read(): for a file the kernel makes whole at once (a
 * sysfs attribute; a /proc file of one record: status, stat, fdinfo) a
 * short read is its whole text. NUL-terminates it; returns the length or
 * -errno. Not for a /proc file of many records (task/TID/children): the
 * kernel serves those a page at a time; see linux_read_all.
 */
ssize_t linux_read_head(int dir, const char *path, char *buf, size_t size);
/*
 * Reads a whole file, to its end, into *buf (malloc'd and grown as needed,
 * *size its capacity; both may start NULL and 0), NUL-terminated. Returns
 * the length or -errno.
 */
ssize_t linux_read_all(int dir, const char *path, char **buf, size_t *size);

/*
 * Writes the decimal n at buf + len, NUL-terminated; returns the new length.
 * No printf: this runs per process and per descriptor.
 */
size_t linux_put_uint(char *buf, size_t len, unsigned long n);

/* A small sysfs attribute, NUL-terminated, its trailing newline and blanks removed; -errno. */
int linux_read_attr(int dir, const char *path, char *buf, size_t size);
/* A sysfs number: decimal, or 0x-prefixed hex (PCI's vendor and class, older kernels' sizes); -errno. */
int linux_read_u64(int dir, const char *path, uint64_t *ret);

/* The root to read instead of /sys ($HMN_SYSFS), never NULL. */
const char *os_sysfs_root(void);

struct proc_stat;
/* PID/stat under the /proc at fd procfs, parsed (parse_stat); -errno, -EINVAL when it does not parse. */
int linux_read_stat(int procfs, unsigned pid, struct proc_stat *ret);

#endif
