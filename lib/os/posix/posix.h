/*
 * Private to lib/os: what the POSIX command (os/posix/command.c) asks of the
 * Linux and macOS trees (os/linux/tree.c, os/darwin/tree.c) and group
 * watches (os/linux/group.c), and the fork both use (os/posix/fork.c).
 */
#ifndef HMN_OS_POSIX_H
#define HMN_OS_POSIX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * ---- process trees (os/linux/tree.c, os/darwin/tree.c) ----
 *
 * os_become_subreaper: orphaned descendants are re-parented to the caller
 * (Linux); -ENOTSUP elsewhere.
 */
int os_become_subreaper(void);
/*
 * The tree of one command (hmn run): COMMAND and what it starts, never a
 * child the caller had before (os_tree_new takes note of them; the
 * programs the sources run are waited for inside a query, never between).
 * Pids are as $HMN_PROCFS numbers them. Which process is the tree's is the
 * listing's answer alone (os_tree_living), asked once a sample.
 */
struct os_tree;
int os_tree_new(const char *procfs, struct os_tree **ret);
/* COMMAND, by the pid fork() answered. */
void os_tree_set_command(struct os_tree *t, int pid);
/* COMMAND was reaped: its pid may be another process's from now on. */
void os_tree_command_reaped(struct os_tree *t);
/* Does $HMN_PROCFS number pids as the drivers do (the kernel's initial PID namespace)? */
bool os_tree_numbers_as_drivers(const struct os_tree *t);
/*
 * The tree's living processes now, COMMAND included while it runs: malloc'd;
 * with ret_starts (not NULL), each one's start time beside it (Linux; NULL
 * where the OS says none: macOS).
 */
int os_tree_living(struct os_tree *t, uint32_t **ret_pids, uint64_t **ret_starts, size_t *ret_count);
/* When process pid started, as the listing says it (Linux): -ENOENT, -ESRCH when it has gone. */
int os_tree_start_time(struct os_tree *t, uint32_t pid, uint64_t *ret_start);
/*
 * Sends sig to each of the tree's living processes, by its pid in the
 * caller's own numbering (translated from $HMN_PROCFS's, through NSpid,
 * where the two differ: a container with the host's /proc), and only to
 * the process the tree listed (a pid given to another process since is
 * left alone). Returns how many it was sent to; *ret_refused: how many
 * could not be sent to because nothing names them in the caller's
 * numbering (they live above its namespace; $HMN_PROCFS has no pid for
 * the caller). -errno when the tree cannot be listed.
 */
int os_tree_signal(struct os_tree *t, int sig, size_t *ret_refused);
/* Linux, for the tests: how often /proc was scanned for every process's parent (a kernel without children files). */
size_t os_tree_parent_scans(const struct os_tree *t);
struct os_tree *os_tree_free(struct os_tree *t);

/*
 * fork() with every signal blocked across it (os/posix/fork.c). In the
 * child, every signal the caller catches is back to its default (one it
 * ignores stays ignored), and all are still blocked: a signal that comes
 * before the child is ready stays pending, never runs the caller's handler
 * there, and does what it does to the child once the child unblocks it.
 * The parent has its own mask again on return. *ret_saved_mask: that mask,
 * for the child to set (or another) when ready. Returns as fork() does, or
 * -errno.
 */
pid_t os_fork_blocked(sigset_t *ret_saved_mask);

/*
 * Signals sent to the caller's whole process group, told from those sent to
 * it alone (os/linux/group.c): a sentinel child in the group keeps them
 * pending. os_group_watch_got: 1 when sig reached the group (and is taken
 * from the sentinel), 0 when it reached the caller alone, -ENOTSUP (macOS)
 * or -errno when it cannot be told.
 */
struct os_group_watch {
	int pid;              /* the sentinel; -1: none */
	int sock;
};
int os_group_watch_start(struct os_group_watch *w);
int os_group_watch_got(struct os_group_watch *w, int sig);
void os_group_watch_stop(struct os_group_watch *w);

#endif
