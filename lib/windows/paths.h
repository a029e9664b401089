/* Private to lib/windows: where hmn looks for NVIDIA's DLL and program. */
#ifndef HMN_WINDOWS_PATHS_H
#define HMN_WINDOWS_PATHS_H

#include <windows.h>

/* System32, then NVIDIA's NVSMI folder under Program Files; returns how many (at most max). */
int os_known_dirs(wchar_t dirs[][MAX_PATH], int max);

#endif
