/*
 * hmn run's command, written once over the OS's (os_command_*): its tree,
 * listed at most once a sample and kept sorted, is what every question of a
 * sample is answered from — which GPU rows are the tree's
 * (hmn_command_owns), whose host memory to read, what is left to wait for.
 * A process reaped meanwhile is taken out of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "os/os.h"
#include "run/run.h"
#include "util/pid-set.h"

struct hmn_command {
	struct os_command *os;
	/*
	 * The tree's living pids, a set (sorted, each once), listed by the
	 * first question after hmn_command_sample or hmn_command_done (a walk
	 * of every process's children files on Linux: some 35 us a process)
	 * for all the questions of that sample.
	 */
	uint32_t *living;
	size_t n_living;
	bool listed;
	int list_error;       /* why the sample's listing failed; 0: it did not */
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

/* The sample's listing of the tree, made at its first question. */
static int list_tree(struct hmn_command *command)
{
	if (command->listed)
		return command->list_error;
	uint32_t *living = NULL;
	size_t n = 0;
	int r = os_command_tree(command->os, &living, &n);
	command->listed = true;
	command->list_error = r < 0 ? r : 0;
	if (r < 0)
		return r; /* the last listing stands for what asks of it */
	free(command->living);
	/* An orphan re-parented to us while the walk went on is met twice (under its old parent, then as ours). */
	command->n_living = pid_set_make(living, n);
	command->living = living;
	return 0;
}

int hmn_command_sample(hmn_context *ctx, struct hmn_command *command)
{
	(void)ctx;
	command->listed = false;
	/* Windows: the job object refused the command, and nothing tells its tree. */
	int r = list_tree(command);
	return r == -EXDEV ? r : 0;
}

int hmn_command_owns(void *data, uint32_t pid, bool host_numbered)
{
	struct hmn_command *command = data;
	if (host_numbered && !os_command_numbers_as_drivers(command->os))
		return -EXDEV;
	if (list_tree(command) == -EXDEV)
		return 0;
	return pid_set_has(command->living, command->n_living, pid);
}

int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count)
{
	(void)ctx;
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
	/* From the sample's listing, less what was just reaped; a new one where none was made. */
	int r = hmn_command_pids(ctx, command, &pids, &n);
	/*
	 * The sample's list is used up: a caller that asks again, sampling or
	 * not, is answered from a new one (a descendant that its own parent
	 * reaped leaves no trace here).
	 */
	command->listed = false;
	/* What cannot be listed is not waited for: the command itself has ended. */
	if (r < 0)
		return true;
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
		free(command);
	}
	return NULL;
}

struct os_command *command_os(struct hmn_command *command)
{
	return command->os;
}
