/*
 * libhmn — a command and everything it starts (hmn run): running it, its
 * tree of processes, the host memory that tree holds, signals to all of it.
 * The GPU memory it holds is hmn.h's process query, filtered to the tree.
 *
 * hmn_command_start() runs argv (PATH searched as execvp does, no shell)
 * with the caller's stdin, stdout and stderr, its signal dispositions (a
 * signal the caller ignores stays ignored; one it catches is the default
 * again, as exec makes it) and an empty signal mask. On Linux the caller
 * becomes a child subreaper first, so that descendants which detach
 * (double fork, setsid) come back to it rather than to init; on Windows
 * the command runs in a job object, which its descendants inherit.
 *
 * The tree is the command and what it starts: never a child the caller had
 * before (a shell that exec'd into it left them), never a process that only
 * reuses one of its pids.
 */
#ifndef HMN_RUN_H
#define HMN_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hmn_command;

/*
 * Returns 0, or a negative errno with nothing left running. *ret_exec_failed
 * says which: true when the command itself failed to start (-ENOENT: not
 * found; -EACCES, -ENOEXEC, ...: found but could not run; -E2BIG: on Windows,
 * a command line past 32,767 characters), false when the caller could not
 * start anything (fork, pipe: -EAGAIN, -ENOMEM, ...).
 */
int hmn_command_start(hmn_context *ctx, char *const argv[], struct hmn_command **ret_command,
		      bool *ret_exec_failed);
/* The command's pid (0 once reaped is not a concern: it stays the one started). */
uint32_t hmn_command_pid(const struct hmn_command *command);
/*
 * A sample of the tree begins (before its hmn_query_processes with
 * hmn_command_keep_pid in the filter): the tree is listed, once for all
 * that the sample asks of it. Returns 0; -EXDEV (on Windows) when the tree
 * cannot be told at all (the job object could not take the command), so
 * that the caller measures device-wide; another negative errno, said,
 * when it could not be listed (the last listing stands for this sample).
 */
int hmn_command_sample(hmn_context *ctx, struct hmn_command *command);
/*
 * Is pid in command's tree? 1 or 0: in the sample's listing (by halves),
 * or, where the OS says when processes started (Linux), a process an
 * earlier listing found whose pid nobody else has taken since (it ended,
 * and the driver lists its memory still). -EXDEV when host_numbered (a
 * driver's pid) cannot be matched to the tree's numbering ($HMN_PROCFS a
 * PID namespace's own /proc). Answers from the last hmn_command_sample's
 * listing: call that first, each sample.
 */
int hmn_command_owns(struct hmn_command *command, uint32_t pid, bool host_numbered);
/* hmn_command_owns as a process filter's keep_pid takes it (keep_pid_data: the command). */
int hmn_command_keep_pid(void *command, uint32_t pid, bool host_numbered);
/*
 * The pids of the command (while it runs) and every living descendant,
 * adopted ones included, sorted, each once: malloc'd, in *ret_pids (free
 * it). From $HMN_PROCFS on Linux (and in its numbering), proc_listchildpids
 * on macOS, the job's list on Windows. Listed once a sample, by
 * hmn_command_sample or the first call after hmn_command_done (a tree of
 * thousands costs milliseconds to walk): the later calls until then answer
 * the same list, less what was reaped since.
 */
int hmn_command_pids(hmn_context *ctx, struct hmn_command *command, uint32_t **ret_pids,
		     size_t *ret_count);
/*
 * Reaps whatever of the tree has ended, without waiting. Returns true once
 * the command and every descendant it left to us are gone.
 */
bool hmn_command_done(hmn_context *ctx, struct hmn_command *command);
/*
 * How the command ended, once it has: its exit code and -1 for signal, or
 * -1 and the signal that ended it. -EBUSY while it runs. The exit code is
 * 0-255 everywhere: on Windows a process's 32-bit code above 255 is mapped,
 * never to 0 and never cut to 8 bits (exit(256) is 1, not 0; a crash's
 * NTSTATUS is 128 + its POSIX signal: an access violation, 0xC0000005, is
 * 139, not 5), save exit(-1) to exit(-255), read as POSIX reads them (255
 * to 1; exit(-256) is 1), and hmn_command_exit_note says what it was.
 */
int hmn_command_status(const struct hmn_command *command, int *ret_exit_code, int *ret_signal);
/*
 * Once the command has ended, the largest resident set of any one process
 * of its tree that was reaped (Linux, macOS: what wait4 says of the
 * command, of what it reaped itself, and of the orphans the caller
 * adopted): a floor for a tree that ended before any reading of it.
 * -EBUSY while it runs, -ENODATA when none was said (always on Windows,
 * where the job's peak is read instead).
 */
int hmn_command_peak_rss(const struct hmn_command *command, uint64_t *ret_bytes);
/* Sends signal sig to the command (on Windows: any signal ends the job). */
int hmn_command_signal(struct hmn_command *command, int sig);
/*
 * Passes on sig, which reached the caller (from_kernel: the terminal sent
 * it, not a process), unless the command got it itself: a signal sent to
 * the whole process group reaches the command directly, and is not sent a
 * second time. Returns 1 when it was sent, 0 when it was not needed.
 */
int hmn_command_pass_on(struct hmn_command *command, int sig, bool from_kernel);
/* Forgets the command (it is not killed); accepts NULL. */
struct hmn_command *hmn_command_free(struct hmn_command *command);


/* ---- What hmn run measures and does to the whole tree ---------------------- */

struct hmn_tree_memory {
	uint64_t bytes;       /* HMN_UNKNOWN: nothing could be measured */
	/*
	 * How: "pss" (Linux: the sum of each process's proportional set size,
	 * each page counted once), "rss" (Linux: some process's Pss could not
	 * be read and its resident set stands in; Windows where the job keeps
	 * no figures: working sets), "footprint" (macOS: the sum of physical
	 * footprints), "commit" (Windows: the job's committed memory).
	 */
	const char *measure;
	bool is_peak;         /* Windows' "commit": the job's peak so far, not its use now */
	/*
	 * Every process was read in this call. false: the time it was given ran
	 * out first, and some count with what an earlier call read of them.
	 */
	bool complete;
	/*
	 * Every process was read since the tree last gained one. false: a fork
	 * since some reading may have split its pages with the newcomer, which
	 * Pss then counts twice: the sum is too high until they are read again.
	 */
	bool settled;
	/*
	 * What the tree holds at least, each page counted once: bytes where
	 * settled; else bytes less the figures of the processes that came
	 * since the oldest reading the sum keeps (the pages such a reading may
	 * count again are theirs, and count at most as much as they do).
	 * HMN_UNKNOWN where bytes is.
	 */
	uint64_t lower_bytes;
};
/*
 * Reads a command's tree's host memory again and again (hmn run's
 * peak_ram_bytes), keeping each process's last reading between calls.
 */
struct hmn_tree_meter;
struct hmn_tree_meter *hmn_tree_meter_new(void);
struct hmn_tree_meter *hmn_tree_meter_free(struct hmn_tree_meter *meter);
/*
 * The host memory the command's tree holds now (on Windows, the job's peak
 * so far), each page counted once where the OS can say. Reading it costs
 * Linux a walk of each process's page tables (smaps_rollup: some 10 ms per
 * GiB a process maps, so a parent's 4 GiB and 99 forked workers mapping it
 * cost seconds): a call reads for about budget_us microseconds (0: no bound), the
 * processes it has no reading of first, then the others in turn from where
 * the last call stopped; those it did not reach count with their last
 * reading, and the next calls go on with them.
 */
int hmn_tree_meter_read(hmn_context *ctx, struct hmn_tree_meter *meter, struct hmn_command *command,
			uint64_t budget_us, struct hmn_tree_memory *ret);
/*
 * Sends sig to every process of the command's tree (hmn run --limit:
 * SIGTERM, then SIGKILL to what is left); on Windows any signal ends the
 * whole job. Each process is signalled by its pid in the caller's own PID
 * namespace, and only the process the tree listed (never one that took its
 * pid since). Returns how many processes it was sent to (0: none left), or
 * a negative errno: -EXDEV when some process of the tree has no pid that
 * the caller can tell (a /proc at HMN_PROCFS that numbers it in a PID
 * namespace the caller's pids do not reach), which then was not signalled
 * (the others were: hmn_context_error() says how many); another when the
 * tree could not be listed.
 */
int hmn_command_signal_tree(hmn_context *ctx, struct hmn_command *command, int sig);

/*
 * When the command's exit code was one hmn_command_status could not give
 * as it is (Windows: a crash's NTSTATUS, any code above 255), what it was
 * ("an access violation", "a stack overflow", ...) and, in *ret_code, the
 * code itself; NULL for an exit code of 0-255 (always elsewhere) or a
 * command still running.
 */
const char *hmn_command_exit_note(const struct hmn_command *command, uint32_t *ret_code);

#ifdef __cplusplus
}
#endif

#endif
