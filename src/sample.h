/* What hmn watch and hmn run share: sleeping between samples, and signals (times on util/clock.h's clock). */
#ifndef HMN_SAMPLE_H
#define HMN_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Catches SIGINT, SIGTERM and SIGHUP (and, with wake_on_child, SIGCHLD) so
 * that a sleep ends early and the command can finish its sample and say
 * what it saw.
 */
void signals_catch(bool wake_on_child);
/*
 * The same for hmn run, with SIGCHLD, except that a signal ignored when
 * hmn started stays ignored, for hmn and for the command it runs (nohup).
 */
void signals_catch_for_command(void);
/* Gives back the dispositions signals_catch found (before a report is written). */
void signals_restore(void);
/*
 * Ends hmn by sig, as the command it ran was ended (SIGINT, SIGTERM and
 * SIGHUP: a calling script then stops as it would without hmn). Returns
 * where it cannot (another signal, one ignored when hmn started, Windows).
 */
void signals_end_by(int sig);
/* A write to a closed pipe fails with EPIPE instead of ending hmn (no-op on Windows). */
void signals_ignore_sigpipe(void);
/*
 * The signal that arrived since the last call (0: none), and whether it was
 * sent by a process with kill() rather than by the terminal (Ctrl-C reaches
 * the whole foreground group, a command hmn runs included).
 */
int signal_take(bool *ret_sent_by_process);
/* Sleeps until the deadline (clock_us()'s), or until a caught signal arrives. */
void sleep_until(uint64_t deadline_us);

#endif
