/*
 * A process's descendants on macOS: proc_listchildpids, breadth first.
 * macOS has no subreaper: a descendant that detaches (double fork) is
 * re-parented to launchd, and from then on is not found here. The tree of
 * a command is walked down from it at each listing (trees are small here),
 * and nothing tells a group's signals from ours.
 */
#include <errno.h>
#include <libproc.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "os/darwin/darwin-parse.h"
#include "os/os.h"
#include "os/posix/posix.h"
#include "util/arena.h"

int os_become_subreaper(void)
{
	return -ENOTSUP;
}

#define MAX_CHILDREN 4096

/* Appends every living descendant of root (not root) to *pids, breadth first. */
static int add_descendants(uint32_t root, uint32_t **pids, size_t *count, size_t *capacity)
{
	static int children[MAX_CHILDREN];
	size_t next = *count;

	for (uint32_t parent = root;; parent = (*pids)[next++]) {
		/* Zeroed: what the call leaves unwritten is never read as a pid. */
		memset(children, 0, sizeof(children));
		int n = proc_listchildpids((pid_t)parent, children, (int)sizeof(children));
		size_t listed = darwin_child_count(n, MAX_CHILDREN);
		for (size_t i = 0; i < listed; i++) {
			if (children[i] <= 0)
				continue;
			if (array_reserve((void **)pids, capacity, *count, sizeof(**pids)) < 0)
				return -ENOMEM;
			(*pids)[(*count)++] = (uint32_t)children[i];
		}
		if (next >= *count)
			return 0;
	}
}

struct os_tree {
	uint32_t command;
	bool command_reaped;  /* its pid is no more its own; its children went to launchd */
};

int os_tree_new(const char *procfs, struct os_tree **ret)
{
	(void)procfs;
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void os_tree_set_command(struct os_tree *t, int pid)
{
	t->command = (uint32_t)pid;
}

void os_tree_command_reaped(struct os_tree *t)
{
	t->command_reaped = true;
}

int os_tree_living(struct os_tree *t, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count)
{
	if (ret_starts)
		*ret_starts = NULL; /* pids alone: a process that left the listing is not looked for */
	uint32_t *pids = NULL;
	size_t count = 0, capacity = 0;
	if (array_reserve((void **)&pids, &capacity, 0, sizeof(*pids)) < 0)
		return -ENOMEM;
	/*
	 * COMMAND while it runs (a zombie is no more the tree's), and what
	 * descends from it; once it is reaped, nothing: its pid may be any
	 * process's, and what it left was re-parented to launchd.
	 */
	if (t->command_reaped) {
		*ret_pids = pids;
		*ret_count = 0;
		return 0;
	}
	if (os_process_running(NULL, t->command))
		pids[count++] = t->command;
	int r = add_descendants(t->command, &pids, &count, &capacity);
	if (r < 0) {
		free(pids);
		return r;
	}
	*ret_pids = pids;
	*ret_count = count;
	return 0;
}

int os_tree_start_time(struct os_tree *t, uint32_t pid, uint64_t *ret_start)
{
	(void)t, (void)pid, (void)ret_start;
	return -ENOTSUP;
}

bool os_tree_numbers_as_drivers(const struct os_tree *t)
{
	(void)t;
	return true; /* no PID namespaces here */
}

/*
 * One numbering here, no PID namespaces: each pid as it was listed. The tree
 * is listed anew just before, so a pid given to another process since is a
 * window of microseconds (macOS has no pidfd to close it).
 */
int os_tree_signal(struct os_tree *t, int sig, size_t *ret_refused)
{
	uint32_t *pids = NULL;
	size_t n = 0, sent = 0;
	int r = os_tree_living(t, &pids, NULL, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		sent += kill((pid_t)pids[i], sig) == 0;
	free(pids);
	*ret_refused = 0;
	return sent > INT_MAX ? INT_MAX : (int)sent;
}

struct os_tree *os_tree_free(struct os_tree *t)
{
	free(t);
	return NULL;
}

int os_group_watch_start(struct os_group_watch *w)
{
	w->pid = -1;
	w->sock = -1;
	return -ENOTSUP;
}

int os_group_watch_got(struct os_group_watch *w, int sig)
{
	(void)w, (void)sig;
	return -ENOTSUP;
}

void os_group_watch_stop(struct os_group_watch *w)
{
	(void)w;
}
