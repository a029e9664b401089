/* UTF-8 strings as Win32's UTF-16, and Win32's errors as negative errno, for every file of lib/windows. */
#include <errno.h>
#include <stdlib.h>

#include "win32.h"

int os_utf16(const char *s, wchar_t **ret)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0)
		return -EILSEQ;
	if (n > WIDE_PATH_MAX)
		return -ENAMETOOLONG;
	wchar_t *w = malloc((size_t)n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) <= 0) {
		free(w);
		return -EILSEQ;
	}
	*ret = w;
	return 0;
}

int os_errno_of(DWORD error, int otherwise)
{
	switch (error) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return -ENOENT;
	case ERROR_ACCESS_DENIED:
		return -EACCES;
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		return -ENOEXEC;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	default:
		return otherwise;
	}
}
