#include <stdio.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

#include "terminal.h"

bool terminal_size(FILE *out, unsigned *ret_columns, unsigned *ret_rows)
{
	*ret_columns = 80;
	*ret_rows = 24;
#ifdef _WIN32
	CONSOLE_SCREEN_BUFFER_INFO info;
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(out));
	if (!_isatty(_fileno(out)) || !GetConsoleScreenBufferInfo(h, &info))
		return false;
	*ret_columns = (unsigned)(info.srWindow.Right - info.srWindow.Left + 1);
	*ret_rows = (unsigned)(info.srWindow.Bottom - info.srWindow.Top + 1);
	return true;
#else
	struct winsize w;
	if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &w) != 0 || w.ws_col == 0 || w.ws_row == 0)
		return false;
	*ret_columns = w.ws_col;
	*ret_rows = w.ws_row;
	return true;
#endif
}
