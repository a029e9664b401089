/*
 * hmn run's command on Windows as pure text (os/windows/command-line.c):
 * exit codes, PATHEXT, names as Windows opens them, command lines. Built on
 * every OS for the unit tests and the fuzzer.
 */
#ifndef HMN_OS_WINDOWS_COMMAND_LINE_H
#define HMN_OS_WINDOWS_COMMAND_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * hmn run's exit status for a Windows exit code: the code itself when it is
 * 0-255 (NULL returned); else what it was, with a status that is never 0:
 * a crash (an NTSTATUS error: access violation, stack overflow, ...) is
 * 128 + the signal it is on POSIX (139 for SIGSEGV), a DLL that failed to
 * load 126, exit(-1) to exit(-256) (0xFFFFFFFF-0xFFFFFF00) their low 8
 * bits as on POSIX (exit(-1) is 255) but 1 for exit(-256), any other code
 * above 255 (exit(256)) 1.
 */
const char *windows_exit_status(uint32_t code, int *ret_status);
/* One PATHEXT entry, ".EXE"; cmd.exe's default when PATHEXT is unset. */
struct pathext_entry {
	uint16_t ext[16];
};
/*
 * PATHEXT (";"-separated; NULL or "": .COM;.EXE;.BAT;.CMD) into at most max
 * entries, in order, each ".EXT" once (case-insensitive); returns how many.
 */
size_t pathext_split(const uint16_t *pathext, struct pathext_entry *out, size_t max);
/* Whether name ends with one of the n extensions (ASCII case-insensitive). */
bool pathext_has(const uint16_t *name, const struct pathext_entry *exts, size_t n);
/*
 * How much of name names the file Windows opens: without the trailing dots
 * and spaces that Win32 path rules drop from a name ("run.bat. ." opens
 * run.bat), nor a "::$DATA" suffix (the file's default stream, the file
 * itself). Pure text: the caller resolves "." and ".." (GetFullPathNameW).
 */
size_t windows_name_length(const uint16_t *name);
/*
 * Whether name is a batch file (.bat, .cmd, any case), which only cmd.exe
 * runs: by what windows_name_length leaves of it, so that "run.bat." and
 * "run.bat::$DATA", which Windows runs as run.bat, are batch files too.
 */
bool windows_is_batch(const uint16_t *name);
/*
 * Appends arg to a command line (a space first unless it is empty), quoted
 * as the C runtime reads it back. -E2BIG when the line (size units with its
 * NUL; CreateProcess takes 32,767 characters) cannot hold it; then the line
 * is as it was.
 */
int cmdline_append(uint16_t *line, size_t size, size_t *len, const uint16_t *arg);
/*
 * The same for an argument of a batch file run by cmd.exe /c: quoted and
 * escaped so that cmd.exe passes it on as one argument and expands nothing
 * in it (%VAR%). -EINVAL for an argument no quoting makes safe (a line
 * break); -E2BIG as above.
 */
int cmdline_append_batch(uint16_t *line, size_t size, size_t *len, const uint16_t *arg);

#endif
