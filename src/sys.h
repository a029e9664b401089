/*
 * What the tool needs of the operating system, in one place: sys-posix.c
 * and sys-posix-file.c (Linux, macOS) or sys-windows.c and sys-windows-file.c
 * implement it, meson picks the pair, and each holds only OS code. The
 * rest of src/ asks these, and has no #ifdef _WIN32.
 *
 * sys, not os: libhmn's own OS layer (lib/os/os.h), linked into the same
 * program, names its files and functions os.
 */
#ifndef HMN_SYS_H
#define HMN_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hmn-run.h"

/* ---- Time ---- */

/* Now in UTC, ISO 8601 with milliseconds: "2026-11-22T18:48:14.123Z". */
void sys_utc_now(char buf[32]);
/* Now on the local calendar and clock, and how far that is from UTC. */
struct local_time {
	unsigned year, month, day, hour, minute, second, ms;
	long offset;                /* minutes east of UTC */
};
void sys_local_now(struct local_time *ret_time);

/* ---- The terminal ---- */

bool sys_is_terminal(FILE *out);
/*
 * The window's columns and rows where out is a terminal that says them:
 * true; false (and 80 x 24) elsewhere: a pipe, a file.
 */
bool sys_terminal_size(FILE *out, unsigned *ret_columns, unsigned *ret_rows);

/* ---- Keys: hmn watch's terminal view ---- */

/*
 * Where stdin is a terminal hmn holds in the foreground, takes single keys
 * from it, without echo, until sys_keys_stop: sys_nap reads them while it
 * sleeps, and hands each 'q' or 'Q' to quit_key_noted. The terminal is
 * given back on every way out: sys_keys_stop, a signal that ends hmn, a
 * stop (Ctrl-Z, taken again on SIGCONT). false, and stdin never read,
 * where it is not a terminal (a pipe, a file) or not hmn's to take.
 */
bool sys_keys_start(void);
void sys_keys_stop(void);
/* sample.c's, called by sys_nap: q or Q came, which ends hmn watch as Ctrl-C does. */
void quit_key_noted(void);

/* ---- Starting ---- */

/* Documents for programs: "\n" on stdout as the contract says (Windows' text mode would write "\r\n"). */
void sys_stdout_binary(void);
/* Starts getopt afresh, for a second parse (the libc's own way: glibc's, BSD's, mingw-w64's). */
void sys_getopt_restart(void);

/* ---- Signals: sample.c's, which keeps which came (sample.h says what each does) ---- */

/*
 * Catches SIGINT, SIGTERM and SIGHUP (and, with wake_on_child, SIGCHLD);
 * keep_ignored: one ignored when hmn started stays ignored (nohup's). The
 * handlers hand each to signal_noted, and wake sys_nap.
 */
void sys_signals_catch(bool wake_on_child, bool keep_ignored);
/* sample.c's, called from a handler: sig came; from_process: sent with kill(), not by the terminal. */
void signal_noted(int sig, bool from_process);
/* Gives back the dispositions sys_signals_catch found. */
void sys_signals_restore(void);
/* Ends hmn by sig (SIGINT, SIGTERM, SIGHUP), unless it cannot: another signal, one ignored, Windows. */
void sys_signals_end_by(int sig);
/* A write to a closed pipe fails with EPIPE instead of ending hmn. */
void sys_signals_ignore_sigpipe(void);
/* Ends hmn as a write to a closed pipe would have (SIGPIPE); returns where nothing does (Windows). */
void sys_end_by_closed_pipe(void);
/* Around a look at the signals noted: no handler notes one meanwhile, and its wake-ups are spent. */
void sys_signals_hold(void);
void sys_signals_release(void);
/* Sleeps ms at most; true when something woke it sooner (a signal, a child's end, a key): the caller looks. */
bool sys_nap(uint64_t ms);

/* ---- hmn run ---- */

/* Does the OS page GPU memory out to shared memory (WDDM's spill)? Measured only where it does. */
bool sys_measures_spill(void);
/*
 * exec said ENOENT: is word (COMMAND) there all the same, so that what is
 * missing is the interpreter its #! line names (or a binary's loader)?
 */
bool sys_found_all_the_same(const char *word);
/* Says what COMMAND's exit code was where no exit status holds it (Windows: a crash's NTSTATUS). */
void sys_say_exit_note(const struct hmn_command *command, const char *name);

/* ---- -o FILE: output.c's file replaced atomically, the OS's part ---- */

/* ---- --pick: the machine's holds file, shared by every user ---- */

/*
 * The machine-wide file of --pick's holds, opened and locked: $HMN_PICK_LOCK,
 * else /run/lock/hmn-pick where /run/lock is every user's (sticky, 1777),
 * else /tmp/hmn-pick (Windows: %ProgramData%\\hmn-pick, with an ACL that
 * lets every user read and write it). Made 0666 from its first moment; never
 * followed through a link, never a file of more than one name nor anything
 * but a plain file, so nobody can make hmn write elsewhere through it. The
 * wait for the lock is bounded by wait_ms (on the clock): -ETIMEDOUT then,
 * with *ret_fd the file still open, unlocked, for its holds to be read
 * (another user may hold the lock for ever); another -errno with *ret_fd
 * untouched; where (the path) set for the message either way. 0: locked.
 */
int sys_pick_file_lock(uint64_t wait_ms, int *ret_fd, char *where, size_t where_size);
/* Its text, at most size - 1 bytes, NUL-terminated: the length, or -errno. */
long sys_pick_file_read(int fd, char *buf, size_t size);
/* Replaces its text: 0 or -errno. */
int sys_pick_file_write(int fd, const char *text, size_t len);
/* Unlocks and closes it. */
void sys_pick_file_unlock(int fd);
/* Is the process pid there (running, or a zombie not yet reaped)? An unknown answer is yes. */
bool sys_pid_alive(uint32_t pid);
/* Sets an environment variable for the command hmn starts: 0 or -errno. */
int sys_setenv(const char *name, const char *value);

/* Does s name a place, not only a file in the current directory ("./json", "C:json")? */
bool sys_names_a_path(const char *s);

/* A path as the OS's file calls take it: as given (UTF-8), or UTF-16 for Windows' wide calls. */
#ifdef _WIN32
typedef wchar_t sys_char;
#else
typedef char sys_char;
#endif

struct output;
/*
 * The descriptor to write o's document to (o->path): FILE itself where it
 * is written in place, else a new temporary file beside the file it names
 * (o->target, o->temp_path or o->unnamed set). -errno, and o->refusal where
 * strerror would not say why.
 */
int sys_output_open(struct output *o);
/* Flushes f to the disk: 0, or not with errno set. */
int sys_sync_file(FILE *f);
/* o->unnamed (Linux: O_TMPFILE): the temporary file, whole, gets its name beside o->target. 0 or -errno. */
int sys_name_unnamed(struct output *o);
/* Renames from over to: 0 or -errno. */
int sys_replace_file(const sys_char *from, const sys_char *to);
void sys_remove_file(const sys_char *path);
/*
 * The file -o resolved (o->target, its links already followed once, by
 * output_open) opened for reading, binary: hmn watch's CSV log read back.
 * Never through a link put there since, nor anything but a plain file.
 * NULL with errno.
 */
FILE *sys_open_read(const sys_char *path);

#endif
