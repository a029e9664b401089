/*
 * A command's tree on Linux: COMMAND, everything it starts, and what of it
 * detaches and is adopted by us (a child subreaper); never a child we had
 * before COMMAND (a shell that exec'd us left them), never our own helper.
 *
 * The tree is listed, not remembered: each listing walks down from our
 * children through every process's children files (some 35 us a process),
 * and the caller asks once a sample (run/command.c keeps the sorted list,
 * and a process is the tree's when it is in it). A pid given to another
 * process since is told by its start time, kept with each of our children.
 *
 * Pids are as $HMN_PROCFS numbers them. In a container (a PID namespace)
 * with the host's /proc there, that is the host's numbering, which the
 * drivers use too; with the container's own /proc, a driver's pids cannot
 * be told (os_tree_numbers_as_drivers), and the caller measures
 * device-wide. A signal takes the caller's own numbering: each pid is
 * translated through the process's NSpid line before it is sent
 * (os_tree_signal).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/linux/files.h"
#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "os/posix/posix.h"
#include "util/arena.h"
#include "util/number.h"

/* The initial PID namespace's inode (PROC_PID_INIT_INO): the one a driver numbers pids in. */
#define INIT_PID_NAMESPACE "pid:[4026531836]"

int os_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

/*
 * Out of descriptors or memory: what was not read then is not known, and a
 * listing that went on would leave it out (a process "with no children",
 * one "not alive"). Such a listing fails; the caller keeps the last.
 */
static bool is_resource_error(long r)
{
	return r == -EMFILE || r == -ENFILE || r == -ENOMEM;
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
 * children files; a pid that has gone meanwhile has no children. Each file
 * is read to its end: the kernel serves it a page at a time (one read()
 * stopped at 819 children of 1,500).
 */
static int add_children(int procfs, uint32_t pid, struct pid_array *a, char **buf, size_t *size)
{
	char path[300];
	size_t len = linux_put_uint(path, 0, pid);
	snprintf(path + len, sizeof(path) - len, "/task");
	int dirfd = openat(procfs, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Gone, or not ours to read (hidepid): no children we can see. */
	if (dirfd < 0)
		return is_resource_error(-errno) ? -errno : 0;
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
		ssize_t n = linux_read_all(dirfd, path, buf, size);
		/* No file in a thread that is still there: a kernel without CONFIG_PROC_CHILDREN. */
		if (n == -ENOENT && faccessat(dirfd, e->d_name, F_OK, 0) == 0) {
			r = -ENOENT;
			break;
		}
		if (is_resource_error(n)) {
			r = (int)n;
			break;
		}
		if (n > 0)
			parse_pid_list(*buf, (size_t)n, push_pid, a);
	}
	closedir(dir);
	return r;
}

/*
 * Without children files (a kernel without CONFIG_PROC_CHILDREN): every
 * process's parent, read from its stat once a listing (struct parents),
 * sorted by parent, each parent's children then found by halves.
 */
struct parent_of {
	uint32_t pid, ppid;
	bool listed;                /* by this listing's walk already: a loop of parents lists nobody twice */
};

struct parents {
	struct parent_of *all;
	size_t n, capacity;
	bool made;                  /* for this listing: parents_forget at the start of each */
	size_t scans;               /* of /proc, so far (os_tree_parent_scans) */
};

static void parents_forget(struct parents *p)
{
	p->made = false;
}

static int compare_parents(const void *a, const void *b)
{
	const struct parent_of *x = a, *y = b;
	if (x->ppid != y->ppid)
		return (x->ppid > y->ppid) - (x->ppid < y->ppid);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int parents_make(int procfs, struct parents *p)
{
	if (p->made)
		return 0;
	p->n = 0;
	int dirfd = dup(procfs);
	DIR *dir = dirfd >= 0 ? fdopendir(dirfd) : NULL;
	if (!dir) {
		if (dirfd >= 0)
			close(dirfd);
		return -errno;
	}
	/* From the top: a dup shares its offset, which the last walk of procfs left at the end. */
	rewinddir(dir);
	struct dirent *e;
	char path[300], buf[1024];
	while ((e = readdir(dir))) {
		const char *end = e->d_name;
		uint64_t pid;
		uint32_t ppid;
		if (!parse_decimal(&end, e->d_name + strlen(e->d_name), UINT32_MAX, &pid) || *end || pid == 0)
			continue;
		snprintf(path, sizeof(path), "%s/stat", e->d_name);
		ssize_t len = linux_read_head(procfs, path, buf, sizeof(buf));
		if (is_resource_error(len) ||
		    (len > 0 && array_reserve((void **)&p->all, &p->capacity, p->n, sizeof(*p->all)) < 0)) {
			closedir(dir);
			return is_resource_error(len) ? (int)len : -ENOMEM;
		}
		if (len <= 0 || parse_stat_ppid(buf, (size_t)len, &ppid) < 0)
			continue;
		p->all[p->n++] = (struct parent_of){ (uint32_t)pid, ppid, false };
	}
	closedir(dir);
	qsort(p->all, p->n, sizeof(*p->all), compare_parents);
	p->made = true;
	p->scans++;
	return 0;
}

/*
 * Appends parent's children, from the sorted parents: the first by halves,
 * the rest after it; none the walk has listed, nor its root (a pid given
 * again while /proc was read can make a loop of parents).
 */
static void add_children_of(struct parents *p, uint32_t parent, uint32_t root, struct pid_array *a)
{
	size_t low = 0, high = p->n;
	while (low < high) {
		size_t mid = low + (high - low) / 2;
		if (p->all[mid].ppid < parent)
			low = mid + 1;
		else
			high = mid;
	}
	for (size_t k = low; k < p->n && p->all[k].ppid == parent; k++) {
		if (p->all[k].listed || p->all[k].pid == root)
			continue;
		p->all[k].listed = true;
		push_pid(p->all[k].pid, a);
	}
}

/* root's children and, with all_levels, theirs and so on: breadth first, each found pid visited in turn. */
static int add_by_parents(int procfs, struct parents *p, uint32_t root, struct pid_array *a, bool all_levels)
{
	int r = parents_make(procfs, p);
	if (r < 0)
		return r;
	size_t next = *a->count;
	for (uint32_t parent = root;; parent = (*a->pids)[next++]) {
		add_children_of(p, parent, root, a);
		if (a->failed || !all_levels || next >= *a->count)
			break;
	}
	return a->failed ? -ENOMEM : 0;
}

static int add_descendants(int procfs, struct parents *parents, uint32_t root, uint32_t **pids, size_t *count,
			   size_t *capacity, char **buf, size_t *size)
{
	struct pid_array a = { .pids = pids, .count = count, .capacity = capacity };
	size_t start = *count;
	int r = add_children(procfs, root, &a, buf, size);
	/* Each pid added is visited in turn: its children join the end of the list. */
	for (size_t i = start; r == 0 && i < *count && !a.failed; i++)
		r = add_children(procfs, (*pids)[i], &a, buf, size);
	if (r == -ENOENT) {
		*count = start;
		r = add_by_parents(procfs, parents, root, &a, true);
	}
	return a.failed ? -ENOMEM : r;
}

/* ---- the tree of one command ------------------------------------------------ */

struct own_child {
	uint32_t pid;
	uint64_t start_time;
};

struct os_tree {
	int procfs;
	uint32_t self;              /* we, as $HMN_PROCFS numbers us */
	bool same_numbering;        /* $HMN_PROCFS numbers as getpid() does */
	bool host_numbering;        /* ...as the drivers do (the kernel's initial namespace) */
	/*
	 * $HMN_PROCFS says which process is ours (its "self"), and so how its
	 * pids translate to ours: false for a /proc that has no pid for us (a
	 * fake tree; another container's), whose pids no signal may be sent to.
	 */
	bool numbering_known;
	unsigned self_level;        /* our namespace's field in $HMN_PROCFS's NSpid lines (0: its own) */
	uint32_t command;           /* as $HMN_PROCFS numbers it; 0: not known */
	uint64_t command_start;
	int command_pid;            /* as fork() answered: our own numbering */
	struct own_child *excluded; /* our children that are not the tree's */
	size_t n_excluded, excluded_capacity;
	char *buf;                  /* children files */
	size_t buf_size;
	struct parents parents;     /* where there are none */
};

static int read_stat(struct os_tree *t, uint32_t pid, struct proc_stat *ret)
{
	return linux_read_stat(t->procfs, pid, ret);
}

/*
 * Our children now, as $HMN_PROCFS numbers them (every thread's: an orphan
 * goes to any of them). Each listing starts here: without children files,
 * /proc is scanned once for it, here or for the first descendants asked.
 */
static int own_children(struct os_tree *t, uint32_t **ret, size_t *ret_count)
{
	struct pid_array a = { .pids = ret, .count = ret_count };
	size_t capacity = 0;
	a.capacity = &capacity;
	*ret = NULL;
	*ret_count = 0;
	parents_forget(&t->parents);
	int r = add_children(t->procfs, t->self, &a, &t->buf, &t->buf_size);
	if (r == -ENOENT) {
		*ret_count = 0;
		r = add_by_parents(t->procfs, &t->parents, t->self, &a, false);
	}
	return a.failed ? -ENOMEM : r;
}

/* A child of ours that is not the tree's (one we had before COMMAND), by pid and start. */
static void exclude(struct os_tree *t, uint32_t pid, uint64_t start_time)
{
	if (array_reserve((void **)&t->excluded, &t->excluded_capacity, t->n_excluded,
			  sizeof(*t->excluded)) == 0)
		t->excluded[t->n_excluded++] = (struct own_child){ pid, start_time };
}

static bool in_initial_namespace(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	if (n < 0)
		return true; /* no /proc to ask: nothing says otherwise */
	link[n] = '\0';
	return strcmp(link, INIT_PID_NAMESPACE) == 0;
}

/* The pid $HMN_PROCFS calls ours (its "self"); 0 where it has none. */
static uint32_t procfs_self(struct os_tree *t)
{
	char link[32];
	ssize_t n = readlinkat(t->procfs, "self", link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	const char *end = link;
	uint64_t self;
	return parse_decimal(&end, link + n, UINT32_MAX, &self) && !*end ? (uint32_t)self : 0;
}

/*
 * How $HMN_PROCFS numbers pids against us. Its NSpid line for us has a
 * field for each namespace from its own down to ours: one field, its
 * numbers are ours; more, we are nested below it (a container with the
 * host's /proc), and a process's pid here is its field at our level.
 */
static void learn_numbering(struct os_tree *t)
{
	char status[16384];
	uint32_t self = procfs_self(t), inner = 0;
	unsigned depth = 0;

	t->self = self ? self : (uint32_t)getpid();
	if (self == 0) {
		/* No pid for us there: taken as ours for what is read, as ever; never for a signal. */
		t->same_numbering = true;
		t->host_numbering = in_initial_namespace();
		return;
	}
	ssize_t m = linux_read_head(t->procfs, "self/status", status, sizeof(status));
	if (m > 0 && parse_proc_nspid(status, (size_t)m, &inner, &depth) == 0) {
		t->same_numbering = depth == 1;
		t->self_level = depth - 1;
		t->numbering_known = inner == (uint32_t)getpid();
	} else {
		/* No NSpid (before Linux 4.1): ours where it calls us as we do; else nothing translates. */
		t->same_numbering = self == (uint32_t)getpid();
		t->numbering_known = t->same_numbering;
	}
	/* Nested below the namespace $HMN_PROCFS numbers in: the host's, as advised. */
	t->host_numbering = t->same_numbering ? in_initial_namespace() : depth > 1;
}

int os_tree_new(const char *procfs, struct os_tree **ret)
{
	struct os_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->procfs = open(procfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->procfs < 0) {
		int r = -errno;
		free(t);
		return r;
	}
	learn_numbering(t);
	/* The children we have before COMMAND are never its own. */
	uint32_t *children = NULL;
	size_t n_children = 0;
	if (own_children(t, &children, &n_children) == 0) {
		for (size_t i = 0; i < n_children; i++) {
			struct proc_stat st;
			if (read_stat(t, children[i], &st) == 0)
				exclude(t, children[i], st.start_time);
		}
	}
	free(children);
	*ret = t;
	return 0;
}

/*
 * pid, as $HMN_PROCFS numbers it, as we number it (what kill() takes):
 * -ESRCH when it has gone, -EXDEV when it has no pid of ours (it lives in a
 * namespace above ours) or nothing says which (an unknown numbering).
 */
static int our_pid(struct os_tree *t, uint32_t pid, uint32_t *ret_pid)
{
	char path[32], status[16384];

	if (!t->numbering_known)
		return -EXDEV;
	if (t->same_numbering) {
		*ret_pid = pid;
		return 0;
	}
	size_t len = linux_put_uint(path, 0, pid);
	memcpy(path + len, "/status", 8);
	ssize_t m = linux_read_head(t->procfs, path, status, sizeof(status));
	if (m == -ENOENT || m == -ESRCH)
		return -ESRCH;
	if (m <= 0 || parse_proc_nspid_at(status, (size_t)m, t->self_level, ret_pid) < 0)
		return -EXDEV;
	return 0;
}

/* Our child pid (as fork() answered) as $HMN_PROCFS numbers it; 0 when not found. */
static uint32_t procfs_pid_of_child(struct os_tree *t, int pid)
{
	if (t->same_numbering)
		return (uint32_t)pid;
	uint32_t *children = NULL, found = 0;
	size_t n = 0;
	if (own_children(t, &children, &n) == 0) {
		for (size_t i = 0; i < n && !found; i++) {
			uint32_t ours;
			if (our_pid(t, children[i], &ours) == 0 && ours == (uint32_t)pid)
				found = children[i];
		}
	}
	free(children);
	return found;
}

void os_tree_set_command(struct os_tree *t, int pid)
{
	struct proc_stat st;
	t->command_pid = pid;
	t->command = procfs_pid_of_child(t, pid);
	if (t->command && read_stat(t, t->command, &st) == 0)
		t->command_start = st.start_time;
}

void os_tree_command_reaped(struct os_tree *t)
{
	(void)t; /* COMMAND is known by its start time too: a pid given to another process is not it */
}

int os_tree_start_time(struct os_tree *t, uint32_t pid, uint64_t *ret_start)
{
	struct proc_stat st;
	int r = read_stat(t, pid, &st);
	if (r == 0)
		*ret_start = st.start_time;
	return r;
}

bool os_tree_numbers_as_drivers(const struct os_tree *t)
{
	return t->host_numbering;
}

static bool is_excluded(const struct os_tree *t, uint32_t pid, uint64_t start_time)
{
	for (size_t i = 0; i < t->n_excluded; i++)
		if (t->excluded[i].pid == pid && t->excluded[i].start_time == start_time)
			return true;
	return false;
}

/* 1: running (no zombie), 0: not (ended, a zombie, unreadable), or a resource error (is_resource_error). */
static int alive(struct os_tree *t, uint32_t pid, struct proc_stat *st)
{
	int r = read_stat(t, pid, st);
	if (is_resource_error(r))
		return r;
	return r == 0 && proc_stat_running(st);
}

/* Makes room in *starts for as many as *pids has: the two arrays side by side. */
static int reserve_starts(uint64_t **starts, size_t *starts_capacity, size_t capacity)
{
	if (capacity <= *starts_capacity)
		return 0;
	uint64_t *bigger = realloc(*starts, capacity * sizeof(*bigger));
	if (!bigger)
		return -ENOMEM;
	*starts = bigger;
	*starts_capacity = capacity;
	return 0;
}

/*
 * The tree's living processes, and (ret_starts not NULL) each one's start
 * time, which tells it from a process that takes its pid later.
 */
static int list_living(struct os_tree *t, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count)
{
	uint32_t *children = NULL, *pids = NULL;
	uint64_t *starts = NULL;
	size_t n_children = 0, count = 0, capacity = 0, starts_capacity = 0;
	struct proc_stat st;
	int r = own_children(t, &children, &n_children);

	for (size_t i = 0; r == 0 && i < n_children; i++) {
		uint32_t c = children[i];
		int child_running = alive(t, c, &st);
		if (child_running <= 0) {
			r = child_running;
			continue;
		}
		bool command = c == t->command && st.start_time == t->command_start;
		if (!command && (is_excluded(t, c, st.start_time) || st.start_time < t->command_start))
			continue;
		uint64_t child_start = st.start_time;
		size_t first = count;
		struct pid_array a = { .pids = &pids, .count = &count, .capacity = &capacity };
		push_pid(c, &a);
		if (a.failed)
			r = -ENOMEM;
		else
			r = add_descendants(t->procfs, &t->parents, c, &pids, &count, &capacity, &t->buf, &t->buf_size);
		if (r == 0 && ret_starts)
			r = reserve_starts(&starts, &starts_capacity, capacity);
		/* Zombies among the descendants (their parents' to reap) are not running. */
		size_t kept = first;
		for (size_t k = first; r == 0 && k < count; k++) {
			int running = k == first ? 1 : alive(t, pids[k], &st);
			if (running < 0)
				r = running;
			if (running <= 0)
				continue;
			if (k == first)
				st.start_time = child_start;
			if (ret_starts)
				starts[kept] = st.start_time;
			pids[kept++] = pids[k];
		}
		if (r == 0)
			count = kept;
	}
	free(children);
	if (r < 0) {
		free(pids);
		free(starts);
		return r;
	}
	*ret_pids = pids;
	if (ret_starts)
		*ret_starts = starts;
	*ret_count = count;
	return 0;
}

int os_tree_living(struct os_tree *t, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count)
{
	return list_living(t, ret_pids, ret_starts, ret_count);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/*
 * Sends sig to the process $HMN_PROCFS calls pid, which started at start,
 * by ours, its pid here: 1 sent, 0 it has ended (its pid may be another's
 * now: nothing is sent), -errno. A pidfd, taken before its start is read
 * again, holds the process that had the pid then; if the start is still
 * the same after, that was the very process, and the signal cannot reach
 * one that took the pid meanwhile. Without pidfds (before Linux 5.3, or a
 * seccomp filter that refuses them), kill() right after the check: a
 * window of microseconds for a pid to be given again.
 */
static int signal_process(struct os_tree *t, uint32_t pid, uint64_t start, uint32_t ours, int sig)
{
	struct proc_stat st;
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)ours, 0u);
	if (fd < 0 && errno == ESRCH)
		return 0;
	if (read_stat(t, pid, &st) < 0 || st.start_time != start) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	int r = fd >= 0 ? (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0u) : kill((pid_t)ours, sig);
	int e = errno;
	if (fd >= 0)
		close(fd);
	return r == 0 ? 1 : e == ESRCH ? 0 : -e;
}

int os_tree_signal(struct os_tree *t, int sig, size_t *ret_refused)
{
	uint32_t *pids = NULL;
	uint64_t *starts = NULL;
	size_t n = 0, sent = 0, refused = 0;
	int r = list_living(t, &pids, &starts, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint32_t ours;
		/* COMMAND is ours by fork(), whatever $HMN_PROCFS numbers. */
		if (pids[i] == t->command && starts[i] == t->command_start && t->command_pid > 0)
			ours = (uint32_t)t->command_pid;
		else if ((r = our_pid(t, pids[i], &ours)) == -ESRCH)
			continue;
		else if (r < 0) {
			refused++;
			continue;
		}
		/* Not ours to signal (-EPERM: a set-user-ID program) is left as kill() leaves it. */
		sent += signal_process(t, pids[i], starts[i], ours, sig) > 0;
	}
	free(pids);
	free(starts);
	*ret_refused = refused;
	return sent > INT_MAX ? INT_MAX : (int)sent;
}

size_t os_tree_parent_scans(const struct os_tree *t)
{
	return t->parents.scans;
}

struct os_tree *os_tree_free(struct os_tree *t)
{
	if (!t)
		return NULL;
	close(t->procfs);
	free(t->excluded);
	free(t->buf);
	free(t->parents.all);
	free(t);
	return NULL;
}
