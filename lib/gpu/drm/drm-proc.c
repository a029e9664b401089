/*
 * The DRM clients of every process, in one pass over /proc: list each
 * process's descriptors, keep those whose link points into /dev/dri, read
 * their fdinfo once each. Nothing else is opened, nothing is read twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/drm/drm.h"
#include "os/linux/files.h"
#include "util/arena.h"
#include "util/number.h"

#define FDINFO_MAX (64 * 1024) /* a DRM fdinfo is 1-2 KiB; more is not a DRM file */
#define DRM_FDS_MAX 256        /* DRM descriptors read per process */

struct scratch {
	char dents[16384];
	char fdinfo[FDINFO_MAX + 1];
	struct { unsigned fd; char node[24]; } drm_fds[DRM_FDS_MAX];
};

/* A /proc entry's name that is a number and nothing else (a pid, a descriptor). */
static bool parse_number(const char *s, unsigned long *ret)
{
	const char *end = s;
	uint64_t v;
	if (!parse_decimal(&end, s + strlen(s), ULONG_MAX, &v) || *end)
		return false;
	*ret = (unsigned long)v;
	return true;
}

static bool is_permission_error(int e)
{
	return e == EACCES || e == EPERM;
}

/*
 * A kernel thread, or a zombie, has an empty cmdline and no descriptors: its
 * unreadable fd directory hides nothing. (cmdline is readable by anyone.)
 */
static bool holds_no_files(int procfs, const char *pid_path)
{
	char path[48], c;
	size_t len = strlen(pid_path);
	memcpy(path, pid_path, len);
	memcpy(path + len, "/cmdline", sizeof("/cmdline"));
	int fd = openat(procfs, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	ssize_t n = read(fd, &c, 1);
	close(fd);
	return n == 0;
}

/* The whole of a small file, up to FDINFO_MAX bytes ending at a line's end; -errno. */
static ssize_t read_fdinfo(int procfs, const char *path, char *buf)
{
	int fd = openat(procfs, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t len = 0;
	if (fd < 0)
		return -errno;
	while (len < FDINFO_MAX) {
		ssize_t n = read(fd, buf + len, FDINFO_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == FDINFO_MAX) {
		/* Cut: a number cut in two would be wrong, so drop the partial line. */
		while (len > 0 && buf[len - 1] != '\n')
			len--;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

static int gpu_by_slot(const struct drm_gpu_map *map, const char *slot)
{
	for (unsigned i = 0; slot[0] && i < map->n_gpus; i++)
		if (strcmp(map->gpus[i].slot, slot) == 0)
			return (int)i;
	return -1;
}

static int gpu_by_node(const struct drm_gpu_map *map, const char *node)
{
	for (size_t i = 0; i < map->n_nodes; i++)
		if (strcmp(map->nodes[i].name, node) == 0)
			return (int)map->nodes[i].gpu;
	return -1;
}

static int add_client(struct drm_scan *scan, const struct drm_usage *c)
{
	if (array_reserve((void **)&scan->clients, &scan->capacity, scan->count,
			  sizeof(*scan->clients)) < 0)
		return -ENOMEM;
	scan->clients[scan->count++] = *c;
	return 0;
}

/* Lists a process's descriptors into s->drm_fds; returns how many, or -errno. */
static int list_drm_fds(int fd_dir, struct scratch *s, bool *ret_kfd)
{
	int n_drm = 0;
	for (;;) {
		ssize_t n = getdents64(fd_dir, s->dents, sizeof(s->dents));
		if (n < 0)
			return -errno;
		if (n == 0)
			return n_drm;

		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(s->dents + off);
			char target[64];
			unsigned long fd;
			off += d->d_reclen;
			if (!parse_number(d->d_name, &fd))
				continue;
			ssize_t k = readlinkat(fd_dir, d->d_name, target, sizeof(target) - 1);
			if (k <= 0 || (size_t)k >= sizeof(target) - 1)
				continue;
			target[k] = '\0';
			if (k > 9 && memcmp(target, "/dev/dri/", 9) == 0 && n_drm < DRM_FDS_MAX &&
			    (size_t)k - 9 < sizeof(s->drm_fds[0].node)) {
				s->drm_fds[n_drm].fd = (unsigned)fd;
				memcpy(s->drm_fds[n_drm].node, target + 9, (size_t)k - 9 + 1);
				n_drm++;
			} else if (strcmp(target, "/dev/kfd") == 0) {
				*ret_kfd = true;
			}
		}
	}
}

static int scan_process(int procfs, uint32_t pid, const struct drm_gpu_map *map, struct drm_scan *scan,
			struct scratch *s)
{
	char path[64];
	size_t base = linux_put_uint(path, 0, pid);
	bool kfd = false;

	memcpy(path + base, "/fd", sizeof("/fd"));
	int fd_dir = openat(procfs, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd_dir < 0) {
		path[base] = '\0';
		if (is_permission_error(errno) && !holds_no_files(procfs, path))
			scan->unreadable++;
		return 0; /* or it exited: nothing to count */
	}
	scan->processes++;
	int n_drm = list_drm_fds(fd_dir, s, &kfd);
	close(fd_dir);
	if (n_drm == -EACCES || n_drm == -EPERM)
		scan->unreadable++;
	for (int i = 0; i < n_drm; i++) {
		memcpy(path + base, "/fdinfo/", sizeof("/fdinfo/"));
		linux_put_uint(path, base + strlen("/fdinfo/"), s->drm_fds[i].fd);
		ssize_t len = read_fdinfo(procfs, path, s->fdinfo);
		if (len < 0) {
			if (is_permission_error((int)-len)) {
				scan->unreadable++;
				return 0;
			}
			continue; /* closed since we listed it */
		}
		scan->fdinfo_reads++;
		struct drm_fdinfo info;
		bool parsed = drm_parse_fdinfo(s->fdinfo, (size_t)len, &info) == 0;
		int gpu = parsed ? gpu_by_slot(map, info.pdev) : -1;
		if (gpu < 0)
			gpu = gpu_by_node(map, s->drm_fds[i].node);
		if (gpu < 0)
			continue; /* a GPU another source measures, or no GPU at all */
		struct drm_usage c = {
			.pid = pid,
			.gpu = (unsigned)gpu,
			.client_id = parsed ? info.client_id : 0,
			.has_client_id = parsed && info.has_client_id,
			.local_bytes = parsed ? info.local_bytes : HMN_UNKNOWN,
			.shared_bytes = parsed ? info.shared_bytes : HMN_UNKNOWN,
			.type = parsed ? info.engines : 0,
		};
		/* ROCm's compute queues go through /dev/kfd, not the render node's engines. */
		if (kfd && strcmp(map->gpus[gpu].driver, "amdgpu") == 0)
			c.type |= HMN_PROCESS_COMPUTE;
		if (add_client(scan, &c) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The numeric entries of procfs the filter wants, malloc'd into *ret_pids; -ENOMEM. */
static int list_pids(int procfs, struct process_sink *sink, uint32_t **ret_pids, size_t *ret_n)
{
	char dents[16384];
	uint32_t *pids = NULL;
	size_t n = 0, capacity = 0;
	int dir = openat(procfs, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dir < 0)
		goto out; /* no /proc: no process to list */
	for (ssize_t len; (len = getdents64(dir, dents, sizeof(dents))) > 0;) {
		for (ssize_t off = 0; off < len;) {
			struct dirent64 *d = (struct dirent64 *)(dents + off);
			unsigned long pid;
			off += d->d_reclen;
			if (!parse_number(d->d_name, &pid) || pid == 0 || pid > UINT32_MAX ||
			    !process_sink_wants_pid(sink, (uint32_t)pid))
				continue;
			if (array_reserve((void **)&pids, &capacity, n, sizeof(*pids)) < 0) {
				close(dir);
				free(pids);
				return -ENOMEM;
			}
			pids[n++] = (uint32_t)pid;
		}
	}
	close(dir);
out:
	*ret_pids = pids;
	*ret_n = n;
	return 0;
}

struct worker {
	int procfs;
	const struct drm_gpu_map *map;
	const uint32_t *pids;
	size_t begin, end;
	struct drm_scan scan;
	int r;
};

static void *scan_range(void *data)
{
	struct worker *w = data;
	struct scratch *s = malloc(sizeof(*s));

	w->r = s ? 0 : -ENOMEM;
	for (size_t i = w->begin; i < w->end && w->r == 0; i++)
		w->r = scan_process(w->procfs, w->pids[i], w->map, &w->scan, s);
	free(s);
	return NULL;
}

/*
 * Below this many processes a second thread costs more than it saves; above
 * it the scan is all system calls (a readlink per descriptor), and two cores
 * halve it.
 */
#define THREAD_THRESHOLD 256

int drm_scan_processes(int procfs, const struct drm_gpu_map *map, struct process_sink *sink,
		       struct drm_scan *scan)
{
	uint32_t *pids;
	size_t n;
	int r = list_pids(procfs, sink, &pids, &n);
	if (r < 0)
		return r;

	struct worker w[2] = {
		{ .procfs = procfs, .map = map, .pids = pids, .begin = 0, .end = n },
		{ .procfs = procfs, .map = map, .pids = pids, .begin = n / 2, .end = n },
	};
	pthread_t thread;
	bool threaded = n >= THREAD_THRESHOLD && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	if (threaded) {
		w[0].end = n / 2;
		threaded = pthread_create(&thread, NULL, scan_range, &w[1]) == 0;
		if (!threaded)
			w[0].end = n;
	}
	scan_range(&w[0]);
	if (threaded)
		pthread_join(thread, NULL);
	free(pids);

	*scan = w[0].scan;
	r = w[0].r < 0 ? w[0].r : threaded ? w[1].r : 0;
	if (threaded) {
		/* The second half's clients after the first's. */
		const struct drm_scan *b = &w[1].scan;
		scan->unreadable += b->unreadable;
		scan->fdinfo_reads += b->fdinfo_reads;
		scan->processes += b->processes;
		for (size_t i = 0; r == 0 && i < b->count; i++)
			r = add_client(scan, &b->clients[i]);
		free(b->clients);
	}
	return r;
}
