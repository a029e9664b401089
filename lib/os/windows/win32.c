/* UTF-8 strings as Win32's UTF-16, and Win32's errors as negative errno, for every file of lib/windows. */
#include <errno.h>
#include <stdlib.h>

#include "os/windows/win32.h"

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
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_BAD_NET_NAME:
		return -ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
		return -EACCES;
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		return -ENOEXEC;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return -EEXIST;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return -ENOSPC;
	case ERROR_WRITE_PROTECT:
		return -EROFS;
	case ERROR_FILENAME_EXCED_RANGE:
		return -ENAMETOOLONG;
	case ERROR_DIRECTORY:
		return -ENOTDIR;
	case ERROR_NOT_SAME_DEVICE:
		return -EXDEV;
	case ERROR_BAD_PATHNAME:
	case ERROR_INVALID_PARAMETER:
		return -EINVAL;
	case ERROR_INVALID_HANDLE: /* CON with no console */
		return -EBADF;
	case ERROR_PIPE_BUSY:
		return -EBUSY;
	default:
		return otherwise;
	}
}
