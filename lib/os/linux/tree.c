/*
 * A command's tree on Linux: COMMAND, everything it starts, and what of it
 * detaches and is adopted by us (a child subreaper); never a child we had
 * before COMMAND (a shell that exec'd us left them), never our own helper.
 *
 * Membership is a property a process has from birth to death, so it is
 * looked up once per process: a process the GPU lists is walked up through
 * its parents (/proc/PID/stat) to COMMAND or to us, and the answer kept for
 * as long as the process is listed, sample after sample. A tree of 10,000
 * processes then costs a hash lookup a process a sample, not 10,000 reads.
 *
 * A pid names a process only for that process's life: the kernel gives it
 * again once the process has ended, as its cursor comes round to it. So
 * each answer is kept with the process's start time, and a pid the cursor
 * has passed since the last sample (or every pid, where that cannot be
 * told) is looked at again before its answer is given once more: its /proc
 * directory's inode first (one fstatat; the kernel makes a new one for a
 * new process), its start time where that changed.
 *
 * Pids are as $HMN_PROCFS numbers them. In a container (a PID namespace)
 * with the host's /proc there, that is the host's numbering, which the
 * drivers use too; with the container's own /proc, a driver's pids cannot
 * be told (-EXDEV), and the caller measures device-wide. A signal takes
 * the caller's own numbering: each pid is translated through the
 * process's NSpid line before it is sent (os_tree_signal).
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/linux/proc-parse.h"
#include "os/os.h"
#include "util/arena.h"
#include "util/number.h"
#include "os/linux/files.h"

/* The initial PID namespace's inode (PROC_PID_INIT_INO): the one a driver numbers pids in. */
#define INIT_PID_NAMESPACE "pid:[4026531836]"
#define MAX_DEPTH 1024 /* a parent chain longer than this is not one we follow */

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
		ssize_t n = linux_read_all(dirfd, path, buf, size);
		/* No file in a thread that is still there: a kernel without CONFIG_PROC_CHILDREN. */
		if (n == -ENOENT && faccessat(dirfd, e->d_name, F_OK, 0) == 0) {
			r = -ENOENT;
			break;
		}
		if (n == -ENOMEM) {
			r = -ENOMEM;
			break;
		}
		if (n > 0)
			parse_pid_list(*buf, (size_t)n, push_pid, a);
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
		const char *end = e->d_name;
		uint64_t pid;
		uint32_t ppid;
		if (!parse_decimal(&end, e->d_name + strlen(e->d_name), UINT32_MAX, &pid) || *end || pid == 0)
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

static int add_descendants(int procfs, uint32_t root, uint32_t **pids, size_t *count, size_t *capacity,
			   char **buf, size_t *size)
{
	struct pid_array a = { .pids = pids, .count = count, .capacity = capacity };
	size_t start = *count;
	int r = add_children(procfs, root, &a, buf, size);
	/* Each pid added is visited in turn: its children join the end of the list. */
	for (size_t i = start; r == 0 && i < *count && !a.failed; i++)
		r = add_children(procfs, (*pids)[i], &a, buf, size);
	if (r == -ENOENT) {
		*count = start;
		r = add_by_parents(procfs, root, &a);
	}
	return a.failed ? -ENOMEM : r;
}

/* ---- the tree of one command ------------------------------------------------ */

struct member {
	uint32_t pid;         /* 0: an empty slot */
	bool in_tree;
	uint64_t start_time;
	unsigned generation;  /* the last sample that asked */
	bool suspect;         /* the kernel may have given its pid to another process since it was seen */
	dev_t dev;            /* its /proc directory, when last seen (ino 0: not seen) */
	ino_t ino;
};

/*
 * The kernel's pid cursor and counters, as the last sample read them: a
 * new process gets the next free pid after the last one given, round to
 * the lowest past pid_max. While the cursor has not come round to where it
 * was, the pids given since lie between its two places.
 */
struct pid_clock {
	bool known;
	uint32_t last_pid;    /* the last pid given (in our namespace) */
	uint64_t forks;       /* tasks ever made, in every namespace: at least as many as pids given */
	uint64_t tasks;       /* tasks there were: at least as many as pids held */
};

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
	struct member *slots;       /* open addressing, a power of two */
	size_t n_slots, count;
	unsigned generation;
	size_t asked;               /* distinct pids asked about in the last sample */
	uint32_t pid_max;           /* the kernel's; 0: unknown */
	struct pid_clock clock;
	char *buf;                  /* children files */
	size_t buf_size;
};

static int read_stat(struct os_tree *t, uint32_t pid, struct proc_stat *ret)
{
	return linux_read_stat(t->procfs, pid, ret);
}

/* Our children now, as $HMN_PROCFS numbers them (every thread's: an orphan goes to any of them). */
static int own_children(struct os_tree *t, uint32_t **ret, size_t *ret_count)
{
	struct pid_array a = { .pids = ret, .count = ret_count };
	size_t capacity = 0;
	a.capacity = &capacity;
	*ret = NULL;
	*ret_count = 0;
	int r = add_children(t->procfs, t->self, &a, &t->buf, &t->buf_size);
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
	char pid_max[32];
	ssize_t n = linux_read_head(t->procfs, "sys/kernel/pid_max", pid_max, sizeof(pid_max));
	const char *digits = pid_max;
	uint64_t max;
	if (n > 0 && parse_decimal(&digits, pid_max + n, UINT32_MAX, &max))
		t->pid_max = (uint32_t)max;
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

static bool is_excluded(const struct os_tree *t, uint32_t pid, uint64_t start_time)
{
	for (size_t i = 0; i < t->n_excluded; i++)
		if (t->excluded[i].pid == pid && t->excluded[i].start_time == start_time)
			return true;
	return false;
}

/* Walks pid's parents up to COMMAND (in the tree) or to us (in it when adopted from it). */
static bool classify(struct os_tree *t, uint32_t pid, uint64_t *ret_start)
{
	uint32_t p = pid, child = 0;
	uint64_t child_start = 0;

	*ret_start = 0;
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		struct proc_stat st;
		if (read_stat(t, p, &st) < 0)
			return false; /* gone */
		if (depth == 0)
			*ret_start = st.start_time;
		if (child && st.start_time > child_start) {
			/*
			 * A parent younger than its child is another process that
			 * took the pid: the parent ended, and the child has been
			 * given to a new one since. Its stat again says which.
			 */
			p = child;
			child = 0;
			continue;
		}
		if (p == t->command && st.start_time == t->command_start)
			return true;
		if (p == t->self)
			/* Our child: adopted from the tree, or one we had (or made) ourselves. */
			return depth > 0 && !is_excluded(t, child, child_start) && child_start >= t->command_start;
		if (st.ppid == 0)
			return false; /* init, or a kernel thread */
		child = p;
		child_start = st.start_time;
		p = st.ppid;
	}
	return false;
}

static size_t slot_of(const struct os_tree *t, uint32_t pid)
{
	size_t h = (size_t)((pid * 0x9e3779b97f4a7c15ULL) >> 32) & (t->n_slots - 1);
	while (t->slots[h].pid && t->slots[h].pid != pid)
		h = (h + 1) & (t->n_slots - 1);
	return h;
}

/* A table of n_slots holding the entries asked about since generation keep_from. */
static int rebuild(struct os_tree *t, size_t n_slots, unsigned keep_from)
{
	struct member *old = t->slots;
	size_t old_n = t->n_slots;
	struct member *slots = calloc(n_slots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	t->slots = slots;
	t->n_slots = n_slots;
	t->count = 0;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].pid && old[i].generation >= keep_from) {
			t->slots[slot_of(t, old[i].pid)] = old[i];
			t->count++;
		}
	free(old);
	return 0;
}

/* The pids below this are never given again once the cursor has come round (the kernel's RESERVED_PIDS). */
#define RESERVED_PIDS 300

static int read_pid_clock(struct os_tree *t, struct pid_clock *ret)
{
	char loadavg[128];
	uint64_t tasks, forks;
	uint32_t last;
	ssize_t n = linux_read_head(t->procfs, "loadavg", loadavg, sizeof(loadavg));
	if (n < 0)
		return (int)n;
	int r = parse_loadavg(loadavg, (size_t)n, &tasks, &last);
	if (r < 0)
		return r;
	/* Its "intr" line comes first, a number an interrupt: read whole. */
	n = linux_read_all(t->procfs, "stat", &t->buf, &t->buf_size);
	if (n < 0)
		return (int)n;
	r = parse_stat_forks(t->buf, (size_t)n, &forks);
	if (r < 0)
		return r;
	*ret = (struct pid_clock){ .known = true, .last_pid = last, .forks = forks, .tasks = tasks };
	return 0;
}

/* The pids given since the last sample: (from, to], round past pid_max; all: any may have been. */
struct pid_window {
	bool all;
	uint32_t from, to;
};

static bool in_window(const struct pid_window *w, uint32_t pid)
{
	if (w->all)
		return true;
	if (w->from <= w->to)
		return pid > w->from && pid <= w->to;
	return pid > w->from || pid <= w->to;
}

/*
 * Where the cursor went since the last sample. It cannot have come round
 * to where it was unless it gave every free pid on the way: more pids than
 * pid_max less the reserved ones and those held, which the counters bound
 * (each fork holds one more at most). The cursor is our namespace's: told
 * only where $HMN_PROCFS numbers as we do. A pid set by hand (ns_last_pid,
 * clone3's set_tid: a checkpoint being restored, with privileges) is
 * beyond this.
 */
static struct pid_window pids_given(struct os_tree *t)
{
	struct pid_clock now = { 0 };
	struct pid_window w = { .all = true };
	if (!t->same_numbering || !t->numbering_known || t->pid_max <= RESERVED_PIDS || read_pid_clock(t, &now) < 0) {
		t->clock.known = false;
		return w;
	}
	if (t->clock.known && now.forks >= t->clock.forks) {
		uint64_t forks = now.forks - t->clock.forks;
		if (2 * forks + t->clock.tasks < t->pid_max - RESERVED_PIDS)
			w = (struct pid_window){ .from = t->clock.last_pid, .to = now.last_pid };
	}
	t->clock = now;
	return w;
}

void os_tree_sample(struct os_tree *t)
{
	size_t asked = 0;
	/*
	 * No answer kept (no GPU row asked about yet: hmn run without a GPU):
	 * no /proc/stat read; the next sample that has answers takes every one
	 * as suspect, which is safe.
	 */
	struct pid_window given = { .all = true };
	if (t->count > 0)
		given = pids_given(t);
	else
		t->clock.known = false;
	for (size_t i = 0; i < t->n_slots; i++) {
		struct member *m = &t->slots[i];
		asked += m->pid && m->generation == t->generation;
		if (m->pid && in_window(&given, m->pid))
			m->suspect = true;
	}
	t->asked = asked;
	t->generation++;
	/* What the last sample did not ask about has ended: forget it once it is most of the table. */
	if (t->count > 64 && t->count > 2 * asked)
		(void)rebuild(t, t->n_slots, t->generation - 1);
}

/* pid's /proc directory, as fstatat says: -errno when it has none (gone). */
static int stat_dir(struct os_tree *t, uint32_t pid, struct stat *ret)
{
	char path[16];
	linux_put_uint(path, 0, pid);
	return fstatat(t->procfs, path, ret, 0) < 0 ? -errno : 0;
}

/*
 * Is the process that has m's pid now the one m's answer is about? One
 * that has gone (reaped: only the driver's row is left of it) has given its
 * pid to nobody yet. One whose /proc directory is the inode it was is the
 * same: procfs makes a new inode for a new process, and a stat of the
 * directory costs a fifth of reading its stat file. Else the start time
 * says (the inode may have been evicted and made anew for the same
 * process).
 */
static bool same_process(struct os_tree *t, struct member *m)
{
	struct stat dir;
	struct proc_stat st;
	if (stat_dir(t, m->pid, &dir) < 0)
		return true;
	if (m->ino && dir.st_ino == m->ino && dir.st_dev == m->dev)
		return true;
	if (read_stat(t, m->pid, &st) < 0)
		return true;
	if (st.start_time != m->start_time)
		return false;
	m->dev = dir.st_dev;
	m->ino = dir.st_ino;
	return true;
}

int os_tree_owns(struct os_tree *t, uint32_t pid, bool host_numbered)
{
	if (host_numbered && !t->host_numbering)
		return -EXDEV;
	if (!t->command || pid == 0)
		return 0;
	if ((t->count + 1) * 2 > t->n_slots && rebuild(t, t->n_slots ? t->n_slots * 2 : 256, 0) < 0)
		return -ENOMEM;
	size_t h = slot_of(t, pid);
	struct member *m = &t->slots[h];
	/*
	 * Asked about for the first time, or by a pid that another process may
	 * have taken since (a tree's process ended, and an unrelated one got its
	 * pid, or the other way round): classified anew.
	 */
	bool fresh = !m->pid;
	if (fresh || (m->suspect && !same_process(t, m))) {
		uint64_t start;
		struct stat dir;
		/* Its directory before its answer: a process that took the pid after is told by its start. */
		bool seen = stat_dir(t, pid, &dir) == 0;
		bool in_tree = classify(t, pid, &start);
		*m = (struct member){
			.pid = pid, .in_tree = in_tree, .start_time = start,
			.dev = seen ? dir.st_dev : 0, .ino = seen ? dir.st_ino : 0,
		};
		t->count += fresh;
	}
	m->suspect = false;
	m->generation = t->generation;
	return m->in_tree;
}

/* Living (no zombie) and, for our own children, adopted from the tree. */
static bool alive(struct os_tree *t, uint32_t pid, struct proc_stat *st)
{
	return read_stat(t, pid, st) == 0 && st->state != 'Z' && st->state != 'X';
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
		if (!alive(t, c, &st))
			continue;
		bool command = c == t->command && st.start_time == t->command_start;
		if (!command && (is_excluded(t, c, st.start_time) || st.start_time < t->command_start))
			continue;
		uint64_t child_start = st.start_time;
		size_t first = count;
		struct pid_array a = { .pids = &pids, .count = &count, .capacity = &capacity };
		push_pid(c, &a);
		r = a.failed ? -ENOMEM : add_descendants(t->procfs, c, &pids, &count, &capacity, &t->buf, &t->buf_size);
		if (r == 0 && ret_starts)
			r = reserve_starts(&starts, &starts_capacity, capacity);
		/* Zombies among the descendants (their parents' to reap) are not running. */
		size_t kept = first;
		for (size_t k = first; r == 0 && k < count; k++) {
			if (k == first)
				st.start_time = child_start;
			else if (!alive(t, pids[k], &st))
				continue;
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

int os_tree_living(struct os_tree *t, uint32_t **ret_pids, size_t *ret_count)
{
	return list_living(t, ret_pids, NULL, ret_count);
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

struct os_tree *os_tree_free(struct os_tree *t)
{
	if (!t)
		return NULL;
	close(t->procfs);
	free(t->excluded);
	free(t->slots);
	free(t->buf);
	free(t);
	return NULL;
}
