/*
 * UTF-8 as the UTF-16 Win32 takes, Win32's errors as negative errno: for
 * lib/os/windows, and for the tool's Windows seam (src/sys-windows*.c),
 * so that the table of errors is written once. Nothing else includes it.
 */
#ifndef HMN_WINDOWS_WIN32_H
#define HMN_WINDOWS_WIN32_H

#include <windows.h>

/* The longest path Win32 takes (\\?\ paths), in UTF-16 units with the NUL. */
#define WIDE_PATH_MAX 32768

/*
 * s as UTF-16, malloc'd, into *ret: -EILSEQ for invalid UTF-8 (never
 * a name with U+FFFD in it, which could be another file), -ENAMETOOLONG
 * past WIDE_PATH_MAX, -ENOMEM.
 */
int os_utf16(const char *s, wchar_t **ret);
/* error (GetLastError()) as a negative errno (the one POSIX would say); otherwise for what has none. */
int os_errno_of(DWORD error, int otherwise);

#endif
