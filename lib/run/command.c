/*
 * hmn run's command, written once over the OS's (os_command_*): its tree,
 * listed once a sample and kept sorted, is what every question of a sample
 * is answered from — which GPU rows are the tree's (hmn_command_owns),
 * whose host memory to read, what is left to wait for. A process reaped
 * meanwhile is taken out of it. Where the OS says when each process
 * started (Linux), every process a listing found is remembered too: a GPU
 * row whose pid the sample's listing lacks is still the tree's while that
 * pid is the process the tree had (it ended, and the driver lists it still),
 * for as long as the driver lists it, and a few listings more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "os/os.h"
#include "run/run.h"
#include "util/pid-set.h"

/*
 * A process some listing found in the tree: its pid, when it started (which
 * tells a pid given again), and the last listing that found it, or after
 * which a GPU row asked of it.
 */
struct member {
	uint32_t pid;
	uint64_t start;
	uint64_t seen;
};

/*
 * A member that has ended is kept while the driver still lists memory for
 * it (a GPU row asks of it each sample), and for this many listings after
 * the last ask, or the last listing that found it: a sample whose GPU query
 * failed does not forget it, and the members stay as many as the tree's
 * processes and what ended lately, not every pid the run has met.
 */
#define MEMBER_KEPT_LISTINGS 4

struct hmn_command {
	struct os_command *os;
	/*
	 * The tree's living pids, a set (sorted, each once), listed by
	 * hmn_command_sample, or the first question after hmn_command_done (a
	 * walk of every process's children files on Linux: some 35 us a
	 * process), for all the questions of that sample.
	 */
	uint32_t *living;
	size_t n_living;
	bool listed;
	int list_error;       /* why the sample's listing failed; 0: it did not */
	/*
	 * Every process the listings found lately (MEMBER_KEPT_LISTINGS),
	 * sorted by pid, the last to have each pid; none where the OS says no
	 * start times.
	 */
	struct member *members;
	size_t n_members;
	uint64_t listings;    /* made so far: the members' clock */
};

int hmn_command_start(hmn_context *ctx, char *const argv[], struct hmn_command **ret_command,
		      bool *ret_exec_failed)
{
	(void)ctx;
	*ret_exec_failed = false;
	struct hmn_command *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	int r = os_command_start(argv, &c->os, ret_exec_failed);
	if (r < 0) {
		free(c);
		return r;
	}
	*ret_command = c;
	return 0;
}

uint32_t hmn_command_pid(const struct hmn_command *command)
{
	return os_command_pid(command->os);
}

static int compare_members(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct member *member_of(struct hmn_command *command, uint32_t pid)
{
	struct member key = { .pid = pid };
	return command->n_members ? bsearch(&key, command->members, command->n_members, sizeof(key), compare_members)
				  : NULL;
}

/*
 * The members after a listing: each listed process (a pid given again to
 * the tree taking the old one's place), and those of before that it did
 * not find but were seen lately. One pass over both, sorted; on an error
 * the members are as they were.
 */
static int remember_members(struct hmn_command *command, const uint32_t *pids, const uint64_t *starts, size_t n)
{
	struct member *listed = malloc((n ? n : 1) * sizeof(*listed));
	struct member *merged = malloc((command->n_members + n ? command->n_members + n : 1) * sizeof(*merged));
	if (!listed || !merged) {
		free(listed);
		free(merged);
		return -ENOMEM;
	}
	uint64_t now = ++command->listings;
	for (size_t i = 0; i < n; i++)
		listed[i] = (struct member){ pids[i], starts[i], now };
	qsort(listed, n, sizeof(*listed), compare_members);
	size_t kept = 0, i = 0, k = 0;
	while (i < n || k < command->n_members) {
		const struct member *old = k < command->n_members ? &command->members[k] : NULL;
		if (i < n && (!old || listed[i].pid <= old->pid)) {
			if (old && old->pid == listed[i].pid)
				k++;
			/* A process met twice in one walk (re-parented to us meanwhile) is one member. */
			if (kept == 0 || merged[kept - 1].pid != listed[i].pid)
				merged[kept++] = listed[i];
			i++;
		} else {
			if (now - old->seen <= MEMBER_KEPT_LISTINGS)
				merged[kept++] = *old;
			k++;
		}
	}
	free(listed);
	free(command->members);
	command->members = merged;
	command->n_members = kept;
	return 0;
}

/* The sample's listing of the tree, made once (an error too: what asks of it then has the last listing). */
static int list_tree(struct hmn_command *command)
{
	if (command->listed)
		return command->list_error;
	uint32_t *living = NULL;
	uint64_t *starts = NULL;
	size_t n = 0;
	int r = os_command_tree(command->os, &living, &starts, &n);
	if (r == 0 && starts)
		r = remember_members(command, living, starts, n);
	free(starts);
	command->listed = true;
	command->list_error = r < 0 ? r : 0;
	if (r < 0) {
		free(living);
		return r;
	}
	free(command->living);
	/* An orphan re-parented to us while the walk went on is met twice (under its old parent, then as ours). */
	command->n_living = pid_set_make(living, n);
	command->living = living;
	return 0;
}

int hmn_command_sample(hmn_context *ctx, struct hmn_command *command)
{
	command->listed = false;
	int r = list_tree(command);
	/* Windows: the job object refused the command, and nothing tells its tree; the caller says so. */
	if (r == -EXDEV)
		return r;
	if (r < 0)
		return hmn_fail(ctx, r, "cannot list the command's processes: %s", strerror(-r));
	return 0;
}

/*
 * Was pid a process of the tree, which a listing found, that no other has
 * taken the pid of since? One that has gone, or is a zombie its parent has
 * not reaped, is still the tree's where the driver still lists it (a child
 * it forked kept its device's descriptor): its memory is the tree's until
 * the driver frees it. A process that took the pid since (another start)
 * is not.
 */
static bool was_member(struct hmn_command *command, uint32_t pid)
{
	struct member *m = member_of(command, pid);
	uint64_t start;
	if (!m)
		return false;
	int r = os_command_start_time(command->os, pid, &start);
	/*
	 * Gone from /proc, it is still the tree's; so where its stat could not
	 * be read this time (out of descriptors). One we may not read is
	 * another user's (hidepid=1), as the listing says too; under hidepid=2
	 * it reads as gone, as far as we can see.
	 */
	if (r == 0 ? start != m->start : r == -EACCES || r == -EPERM)
		return false;
	m->seen = command->listings; /* its memory is listed still: kept */
	return true;
}

int hmn_command_owns(struct hmn_command *command, uint32_t pid, bool host_numbered)
{
	if (host_numbered && !os_command_numbers_as_drivers(command->os))
		return -EXDEV;
	if (list_tree(command) == -EXDEV)
		return 0;
	return pid_set_has(command->living, command->n_living, pid) || was_member(command, pid);
}

int hmn_command_keep_pid(void *command, uint32_t pid, bool host_numbered)
{
	return hmn_command_owns(command, pid, host_numbered);
}

int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count)
{
	(void)ctx;
	/* A listing that failed is tried again (hmn_command_owns, asked once a row, does not). */
	if (command->list_error && command->list_error != -EXDEV)
		command->listed = false;
	int r = list_tree(command);
	if (r < 0)
		return r;
	uint32_t *copy = malloc((command->n_living ? command->n_living : 1) * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	if (command->n_living)
		memcpy(copy, command->living, command->n_living * sizeof(*copy));
	*ret_pids = copy;
	*ret_count = command->n_living;
	return 0;
}

/* A process reaped since the tree was listed this sample is no more the tree's. */
static void forget_reaped(void *data, uint32_t pid)
{
	struct hmn_command *command = data;
	command->n_living = pid_set_remove(command->living, command->n_living, pid);
}

bool hmn_command_done(hmn_context *ctx, struct hmn_command *command)
{
	uint32_t *pids = NULL;
	size_t n = 0;

	if (!os_command_reap(command->os, forget_reaped, command))
		return false;
	/*
	 * From the sample's listing, less what was just reaped; a new one where
	 * none was made, or where nothing is reaped (Windows: what ended since
	 * is in the listing still).
	 */
	if (!os_command_reap_names_ends())
		command->listed = false;
	int r = hmn_command_pids(ctx, command, &pids, &n);
	/*
	 * The sample's list is used up: a caller that asks again, sampling or
	 * not, is answered from a new one (a descendant that its own parent
	 * reaped leaves no trace here).
	 */
	command->listed = false;
	/* Windows: a job that could not take the command lists nothing; the command itself has ended. */
	if (r == -EXDEV)
		return true;
	/* A listing that failed (out of descriptors a moment): the last one, less what was reaped since. */
	if (r < 0)
		return command->n_living == 0;
	free(pids);
	return n == 0;
}

int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal)
{
	struct os_command_exit e;
	int r = os_command_exit(command->os, &e);
	if (r < 0)
		return r;
	*ret_exit_code = e.exit_code;
	*ret_signal = e.signal;
	return 0;
}

const char *hmn_command_exit_note(const struct hmn_command *command, uint32_t *ret_code)
{
	struct os_command_exit e;
	if (os_command_exit(command->os, &e) < 0 || !e.note)
		return NULL;
	*ret_code = e.code;
	return e.note;
}

int hmn_command_peak_rss(const struct hmn_command *command, uint64_t *ret_bytes)
{
	struct os_command_exit e;
	int r = os_command_exit(command->os, &e);
	if (r < 0)
		return r;
	if (e.peak_rss == 0)
		return -ENODATA;
	*ret_bytes = e.peak_rss;
	return 0;
}

int hmn_command_signal(struct hmn_command *command, int sig)
{
	return os_command_signal(command->os, sig);
}

int hmn_command_signal_tree(hmn_context *ctx, struct hmn_command *command, int sig)
{
	size_t refused = 0;
	int r = os_command_signal_tree(command->os, sig, &refused);

	if (r < 0)
		return hmn_fail(ctx, r, "cannot list the command's processes: %s", strerror(-r));
	/*
	 * A process of the tree that has no pid in our PID namespace (or none
	 * that can be told: a /proc at HMN_PROCFS that does not number us) is
	 * never sent the signal by the number another namespace gives it,
	 * which here may be any process's: said, and the tree not stopped.
	 */
	if (refused > 0)
		return hmn_fail(ctx, -EXDEV, "%zu process%s of the tree %s no pid that hmn can tell in its own PID "
				"namespace (the /proc at HMN_PROCFS numbers %s in another): not signalled", refused,
				refused == 1 ? "" : "es", refused == 1 ? "has" : "have", refused == 1 ? "it" : "them");
	return r;
}

int hmn_command_pass_on(struct hmn_command *command, int sig, bool from_kernel)
{
	struct os_command_exit e;
	if (os_command_exit(command->os, &e) == 0 || os_command_got_signal(command->os, sig, from_kernel))
		return 0;
	int r = os_command_signal(command->os, sig);
	return r < 0 ? r : 1;
}

struct hmn_command *hmn_command_free(struct hmn_command *command)
{
	if (command) {
		os_command_free(command->os);
		free(command->living);
		free(command->members);
		free(command);
	}
	return NULL;
}

struct os_command *command_os(struct hmn_command *command)
{
	return command->os;
}
