/*
 * What Linux says about a process: /proc/PID/exe for its name and path,
 * /proc/PID/status for its owner, /proc/PID/comm when exe is unreadable.
 * $HMN_PROCFS replaces /proc, for a host's /proc mounted in a container and
 * for test trees.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../internal.h"

const char *os_procfs_root(void)
{
	const char *root = getenv("HMN_PROCFS");
	return root && *root ? root : "/proc";
}

uint32_t os_self_pid(void)
{
	return (uint32_t)getpid();
}

/* Reads up to size - 1 bytes of a small /proc file; returns length or -errno. */
static ssize_t read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int r = -errno;
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

static bool is_permission_error(int r)
{
	return r == -EACCES || r == -EPERM;
}

void os_process_info(const char *procfs, uint32_t pid, struct os_process_info *info)
{
	char path[4096], target[4096], buf[4096], name[256];
	uint32_t uid = HMN_UID_UNKNOWN;
	ssize_t n;

	*info = (struct os_process_info){ .uid = HMN_UID_UNKNOWN };

	/* status first: if it is gone, so is the process. */
	snprintf(path, sizeof(path), "%s/%u/status", procfs, pid);
	n = read_small_file(path, buf, sizeof(buf));
	if (n == -ENOENT || n == -ESRCH)
		return; /* exited, or lives in another PID namespace */
	info->exists = true;
	if (n < 0) {
		info->is_protected = is_permission_error((int)n);
	} else if (parse_proc_status(buf, (size_t)n, name, sizeof(name), &uid, NULL) == 0) {
		info->uid = uid;
	}

	snprintf(path, sizeof(path), "%s/%u/exe", procfs, pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		info->path = strdup(target);
		info->name = strdup(exe_basename(target, name, sizeof(name)));
		return;
	}
	/*
	 * exe is unreadable for other users' processes (EACCES) and absent for
	 * kernel threads: comm still names them, cut to 15 bytes.
	 */
	snprintf(path, sizeof(path), "%s/%u/comm", procfs, pid);
	n = read_small_file(path, buf, sizeof(buf));
	if (n > 0) {
		if (buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		info->name = strdup(buf);
	} else if (n == -ENOENT || n == -ESRCH) {
		info->exists = false; /* exited between the two reads */
		info->uid = HMN_UID_UNKNOWN;
		info->is_protected = false;
	} else if (is_permission_error((int)n)) {
		info->is_protected = true;
	}
}

void os_process_info_clear(struct os_process_info *info)
{
	free(info->name);
	free(info->path);
	info->name = info->path = NULL;
}

const char *os_user_name(hmn_context *ctx, uint32_t uid)
{
	for (size_t i = 0; i < ctx->n_users; i++)
		if (ctx->users[i].uid == uid)
			return ctx->users[i].name;

	struct passwd pw, *found = NULL;
	char buf[4096];
	const char *name = NULL;
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		name = arena_strdup(ctx->arena, found->pw_name);

	if (array_reserve((void **)&ctx->users, &ctx->users_capacity, ctx->n_users,
			  sizeof(*ctx->users)) == 0)
		ctx->users[ctx->n_users++] = (struct user_cache_entry){ .uid = uid, .name = name };
	return name;
}

int os_self_rss(const char *procfs, uint64_t *ret_bytes)
{
	/* VmRSS sits below Groups, which can be long. */
	char path[4096], buf[16384];
	uint64_t rss = HMN_UNKNOWN;

	snprintf(path, sizeof(path), "%s/self/status", procfs);
	ssize_t n = read_small_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (parse_proc_status(buf, (size_t)n, NULL, 0, NULL, &rss) < 0 || rss == HMN_UNKNOWN)
		return -EINVAL;
	*ret_bytes = rss;
	return 0;
}
