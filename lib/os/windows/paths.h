/* Private to lib/windows: where hmn looks for NVIDIA's DLL and program; command lines. */
#ifndef HMN_WINDOWS_PATHS_H
#define HMN_WINDOWS_PATHS_H

#include <windows.h>

/* System32, then NVIDIA's NVSMI folder under Program Files; returns how many (at most max). */
int os_known_dirs(wchar_t dirs[][MAX_PATH], int max);
/* Appends arg to a command line (a space first unless empty), quoted as the C runtime reads it back. */
void os_append_argument(wchar_t *line, size_t size, size_t *len, const wchar_t *arg);

#endif
