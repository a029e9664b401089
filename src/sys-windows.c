/*
 * sys.h on Windows: where hmn starts (wmain, its UTF-16 arguments), signals
 * and the sleep they end, the clock's time, the console and its keys,
 * COMMAND's exit code.
 */
#define WIN32_LEAN_AND_MEAN
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <windows.h>

#include "cli.h"
#include "format.h"
#include "sys.h"

/* main.c's: the tool itself, given its arguments in UTF-8. */
int main(int argc, char **argv);

/*
 * The arguments as Windows holds them (UTF-16), turned into UTF-8 once,
 * which is what the rest of hmn reads (and what hmn run turns back into
 * UTF-16 for COMMAND). A narrow main() would get them in the ANSI code
 * page, where any character outside it is already lost ("?"): hmn is
 * linked with -municode, so that wmain is where it starts.
 */
int wmain(int argc, wchar_t **wargv);
int wmain(int argc, wchar_t **wargv)
{
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	for (int i = 0; argv && i < argc; i++) {
		int n = WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, NULL, 0, NULL, NULL);
		argv[i] = n > 0 ? malloc((size_t)n) : NULL;
		if (!argv[i] || WideCharToMultiByte(CP_UTF8, 0, wargv[i], -1, argv[i], n, NULL, NULL) <= 0) {
			fprintf(stderr, "hmn: the command line cannot be read as UTF-8\n");
			return EXIT_RUNTIME;
		}
	}
	if (!argv) {
		fprintf(stderr, "hmn: %s\n", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	return main(argc, argv);
}

void sys_utc_now(char buf[32])
{
	SYSTEMTIME st;
	GetSystemTime(&st);
	snprintf(buf, 32, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", st.wYear % 10000u, st.wMonth % 100u,
		 st.wDay % 100u, st.wHour % 100u, st.wMinute % 100u, st.wSecond % 100u,
		 st.wMilliseconds % 1000u);
}

void sys_local_now(struct local_time *ret_time)
{
	SYSTEMTIME st;
	TIME_ZONE_INFORMATION tz;
	DWORD zone = GetTimeZoneInformation(&tz);
	GetLocalTime(&st);
	*ret_time = (struct local_time){
		.year = st.wYear, .month = st.wMonth, .day = st.wDay,
		.hour = st.wHour, .minute = st.wMinute, .second = st.wSecond, .ms = st.wMilliseconds,
		.offset = -(long)(tz.Bias + (zone == TIME_ZONE_ID_DAYLIGHT ? tz.DaylightBias : 0)),
	};
}

bool sys_is_terminal(FILE *out)
{
	return _isatty(_fileno(out));
}

bool sys_terminal_size(FILE *out, unsigned *ret_columns, unsigned *ret_rows)
{
	CONSOLE_SCREEN_BUFFER_INFO info;
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(out));
	*ret_columns = 80;
	*ret_rows = 24;
	if (!_isatty(_fileno(out)) || !GetConsoleScreenBufferInfo(h, &info))
		return false;
	*ret_columns = (unsigned)(info.srWindow.Right - info.srWindow.Left + 1);
	*ret_rows = (unsigned)(info.srWindow.Bottom - info.srWindow.Top + 1);
	return true;
}

void sys_stdout_binary(void)
{
	_setmode(_fileno(stdout), _O_BINARY);
}

/* mingw-w64's getopt is OpenBSD's, which takes optind 0 for a reset (the Wine tests parse twice). */
void sys_getopt_restart(void)
{
	optind = 0;
}

/* The C library's signal(): its handler runs on a console thread of its own, one at a time. */
static void on_signal(int sig)
{
	signal_noted(sig, false);
	signal(sig, on_signal);
}

void sys_signals_catch(bool wake_on_child, bool keep_ignored)
{
	(void)wake_on_child, (void)keep_ignored; /* no SIGCHLD; nothing was ignored by a nohup */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

void sys_signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void sys_signals_end_by(int sig)
{
	(void)sig; /* no signal ends a Windows process as it ended the command */
}

void sys_signals_ignore_sigpipe(void)
{
}

void sys_end_by_closed_pipe(void)
{
	/* no SIGPIPE: a quiet failure, as there */
}

void sys_signals_hold(void)
{
}

void sys_signals_release(void)
{
}

/*
 * Keys: the console's input without line input or echo (processed input
 * kept: Ctrl-C is still SIGINT), its key events read while sys_nap waits.
 * The mode is given back by sys_keys_stop; a console keeps a mode a
 * process left, but cmd.exe and PowerShell set their own before each line.
 */
static HANDLE keys_input = INVALID_HANDLE_VALUE; /* the console's input while keys are taken */
static DWORD keys_found;                          /* its mode as hmn found it */

bool sys_keys_start(void)
{
	HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
	DWORD mode;

	/* GetConsoleMode fails on anything but a console: a pipe or a file is never read. */
	if (keys_input != INVALID_HANDLE_VALUE || in == NULL || in == INVALID_HANDLE_VALUE ||
	    !GetConsoleMode(in, &keys_found))
		return false;
	mode = keys_found & ~(DWORD)(ENABLE_LINE_INPUT | ENABLE_ECHO_INPUT);
	if (!SetConsoleMode(in, mode | ENABLE_PROCESSED_INPUT))
		return false;
	keys_input = in;
	return true;
}

void sys_keys_stop(void)
{
	if (keys_input == INVALID_HANDLE_VALUE)
		return;
	SetConsoleMode(keys_input, keys_found);
	keys_input = INVALID_HANDLE_VALUE;
}

/*
 * The console's events waiting: each key pressed that is q or Q a quit, the
 * rest (releases, the mouse, a resize) dropped. A console that cannot be
 * read is read no more, never a loop of wake-ups.
 */
static void read_keys(void)
{
	INPUT_RECORD events[32];
	DWORD n = 0;

	if (!GetNumberOfConsoleInputEvents(keys_input, &n) ||
	    (n > 0 && !ReadConsoleInputW(keys_input, events, n < 32 ? n : 32, &n))) {
		sys_keys_stop();
		return;
	}
	for (DWORD i = 0; i < n; i++) {
		const KEY_EVENT_RECORD *k = &events[i].Event.KeyEvent;
		if (events[i].EventType == KEY_EVENT && k->bKeyDown &&
		    (k->uChar.UnicodeChar == L'q' || k->uChar.UnicodeChar == L'Q')) {
			quit_key_noted();
			return;
		}
	}
}

bool sys_nap(uint64_t ms)
{
	DWORD wait = (DWORD)(ms < 50 ? ms : 50); /* short naps: a console handler runs on its own thread */

	if (keys_input == INVALID_HANDLE_VALUE) {
		Sleep(wait);
		return false;
	}
	/* Signalled while the console holds input events. */
	if (WaitForSingleObject(keys_input, wait) != WAIT_OBJECT_0)
		return false;
	read_keys();
	return true;
}

bool sys_measures_spill(void)
{
	return true; /* WDDM pages dedicated memory out to shared */
}

bool sys_names_a_path(const char *s)
{
	return strpbrk(s, "/\\:") != NULL;
}

bool sys_found_all_the_same(const char *word)
{
	(void)word;
	return false; /* no #! lines */
}

/*
 * An exit code that no exit status holds (a crash's NTSTATUS, exit(256))
 * is mapped to one that is never 0 (lib/os/windows/command-line.c); said,
 * as a POSIX shell says "Segmentation fault".
 */
void sys_say_exit_note(const struct hmn_command *command, const char *name)
{
	uint32_t code;
	int status, sig;
	char word[256];
	const char *note = hmn_command_exit_note(command, &code);
	if (note && hmn_command_status(command, &status, &sig) == 0) {
		sanitize_for_terminal(name, word, sizeof(word));
		fprintf(stderr, "hmn: %s ended with %s (exit code 0x%08" PRIX32 "): exit status %d\n", word,
			note, code, status);
	}
}
