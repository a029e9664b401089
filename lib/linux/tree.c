/*
 * A process's descendants on Linux: each thread's children file
 * (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN), walked breadth
 * first; where the kernel has no such file, one pass over every
 * /proc/PID/stat for its parent. $HMN_PROCFS replaces /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../internal.h"
#include "files.h"

int os_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

struct pid_array {
	uint32_t **pids;
	size_t *count, *capacity;
	bool failed;
};

static void push_pid(uint32_t pid, void *data)
{
	struct pid_array *a = data;
	if (array_reserve((void **)a->pids, a->capacity, *a->count, sizeof(**a->pids)) < 0) {
		a->failed = true;
		return;
	}
	(*a->pids)[(*a->count)++] = pid;
}

/*
 * Appends pid's children, thread by thread. -ENOENT when the kernel has no
 * children files; a pid that has gone meanwhile has no children.
 */
static int add_children(int procfs, uint32_t pid, struct pid_array *a)
{
	char path[300], buf[16384];
	size_t len = linux_put_uint(path, 0, pid);
	snprintf(path + len, sizeof(path) - len, "/task");
	int dirfd = openat(procfs, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return 0;
	DIR *dir = fdopendir(dirfd);
	if (!dir) {
		close(dirfd);
		return -errno;
	}
	int r = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/children", e->d_name);
		ssize_t n = linux_read_head(dirfd, path, buf, sizeof(buf));
		/* No file in a thread that is still there: a kernel without CONFIG_PROC_CHILDREN. */
		if (n == -ENOENT && faccessat(dirfd, e->d_name, F_OK, 0) == 0) {
			r = -ENOENT;
			break;
		}
		if (n > 0)
			parse_pid_list(buf, (size_t)n, push_pid, a);
	}
	closedir(dir);
	return r;
}

/* Without children files: every process's parent, from its stat, then the walk over that. */
static int add_by_parents(int procfs, uint32_t root, struct pid_array *a)
{
	struct { uint32_t pid, ppid; } *all = NULL;
	size_t n = 0, capacity = 0;
	int dirfd = dup(procfs);
	DIR *dir = dirfd >= 0 ? fdopendir(dirfd) : NULL;
	if (!dir) {
		if (dirfd >= 0)
			close(dirfd);
		return -errno;
	}
	struct dirent *e;
	char path[300], buf[1024];
	while ((e = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		uint32_t ppid;
		if (*end || pid == 0 || pid > UINT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/stat", e->d_name);
		ssize_t len = linux_read_head(procfs, path, buf, sizeof(buf));
		if (len <= 0 || parse_stat_ppid(buf, (size_t)len, &ppid) < 0)
			continue;
		if (array_reserve((void **)&all, &capacity, n, sizeof(*all)) < 0) {
			closedir(dir);
			free(all);
			return -ENOMEM;
		}
		all[n].pid = (uint32_t)pid;
		all[n++].ppid = ppid;
	}
	closedir(dir);
	/* Breadth first: each found pid's children are appended and visited in turn. */
	size_t next = *a->count;
	for (uint32_t parent = root;; parent = (*a->pids)[next++]) {
		for (size_t k = 0; k < n; k++)
			if (all[k].ppid == parent)
				push_pid(all[k].pid, a);
		if (a->failed || next >= *a->count)
			break;
	}
	free(all);
	return a->failed ? -ENOMEM : 0;
}

int os_add_descendants(const char *procfs_path, uint32_t root, uint32_t **pids, size_t *count,
		       size_t *capacity)
{
	struct pid_array a = { .pids = pids, .count = count, .capacity = capacity };
	int procfs = open(procfs_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfs < 0)
		return -errno;
	size_t start = *count;
	int r = add_children(procfs, root, &a);
	/* Each pid added is visited in turn: its children join the end of the list. */
	for (size_t i = start; r == 0 && i < *count && !a.failed; i++)
		r = add_children(procfs, (*pids)[i], &a);
	if (r == -ENOENT) {
		*count = start;
		r = add_by_parents(procfs, root, &a);
	}
	close(procfs);
	return a.failed ? -ENOMEM : r;
}
