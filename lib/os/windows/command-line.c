/*
 * hmn run's command on Windows as pure text: exit codes, PATHEXT, names as
 * Windows opens them, command lines as the C runtime and cmd.exe read them
 * back. Built on every OS, so that the unit tests run it on Linux.
 */
#include <errno.h>
#include <string.h>

#include "os/windows/command-line.h"

static const struct {
	uint32_t code;
	int status;       /* 128 + the POSIX signal a crash of this kind is */
	const char *name;
} crashes[] = {
	{ 0x80000003, 133, "a breakpoint" },
	{ 0xC0000005, 139, "an access violation" },
	{ 0xC0000006, 139, "an in-page error" },
	{ 0xC00000FD, 139, "a stack overflow" },
	{ 0xC000001D, 132, "an illegal instruction" },
	{ 0xC0000096, 132, "a privileged instruction" },
	{ 0xC000008C, 139, "an array bounds exceeded" },
	{ 0xC000008E, 136, "a floating-point division by zero" },
	{ 0xC0000090, 136, "an invalid floating-point operation" },
	{ 0xC0000091, 136, "a floating-point overflow" },
	{ 0xC0000094, 136, "an integer division by zero" },
	{ 0xC0000095, 136, "an integer overflow" },
	{ 0xC0000374, 134, "a heap corruption" },
	{ 0xC0000409, 134, "a stack buffer overrun (fail fast)" },
	{ 0xC0000420, 134, "an assertion failure" },
	{ 0xC000013A, 130, "Ctrl-C (STATUS_CONTROL_C_EXIT)" },
	{ 0xC0000135, 126, "a DLL not found" },
	{ 0xC0000139, 126, "an entry point not found" },
	{ 0xC0000142, 126, "a DLL initialization failure" },
	{ 0xC000007B, 126, "an invalid image format" },
};

/*
 * Whether code reads as an NTSTATUS error, the code of a crash: severity
 * "error" (the top two bits), and bit 28 clear. NTSTATUS reserves that bit,
 * and Windows clears it in the code of every exception it raises (an
 * unhandled RaiseException(0xFFFFFFFF) ends the process with 0xEFFFFFFF),
 * so a code with it set came from exit(), never from a crash.
 */
static bool is_ntstatus_error(uint32_t code)
{
	return code >= 0xC0000000 && !(code & 0x10000000);
}

const char *windows_exit_status(uint32_t code, int *ret_status)
{
	if (code <= 255) {
		*ret_status = (int)code;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
		if (crashes[i].code == code) {
			*ret_status = crashes[i].status;
			return crashes[i].name;
		}
	/*
	 * exit(-1) to exit(-256): what a POSIX shell reads of them, their low 8
	 * bits (exit(-1) is 255), except that one whose low 8 bits are 0
	 * (exit(-256)) is 1: a failure never reads as success.
	 */
	if (code >= 0xFFFFFF00) {
		*ret_status = (code & 0xff) != 0 ? (int)(code & 0xff) : 1;
		return "a negative exit code";
	}
	if (is_ntstatus_error(code)) {
		*ret_status = 134;
		return "a crash (an NTSTATUS error)";
	}
	*ret_status = 1;
	return "an exit code above 255";
}

static uint16_t ascii_upper(uint16_t c)
{
	return c >= 'a' && c <= 'z' ? (uint16_t)(c - 'a' + 'A') : c;
}

static size_t units(const uint16_t *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static bool same_ascii_nocase(const uint16_t *a, size_t n, const uint16_t *b, size_t m)
{
	if (n != m)
		return false;
	for (size_t i = 0; i < n; i++)
		if (ascii_upper(a[i]) != ascii_upper(b[i]))
			return false;
	return true;
}

size_t pathext_split(const uint16_t *pathext, struct pathext_entry *out, size_t max)
{
	static const uint16_t fallback[] = { '.', 'C', 'O', 'M', ';', '.', 'E', 'X', 'E', ';',
					     '.', 'B', 'A', 'T', ';', '.', 'C', 'M', 'D', 0 };
	size_t count = 0;
	if (!pathext || !pathext[0])
		pathext = fallback;
	for (const uint16_t *p = pathext; *p && count < max;) {
		const uint16_t *start = p;
		while (*p && *p != ';')
			p++;
		size_t n = (size_t)(p - start);
		/* cmd.exe takes ".EXT" entries alone: an empty one, or one without its dot, is skipped. */
		bool valid = n >= 2 && n < sizeof(out[0].ext) / sizeof(out[0].ext[0]) && start[0] == '.';
		for (size_t i = 0; valid && i < count; i++)
			valid = !same_ascii_nocase(out[i].ext, units(out[i].ext), start, n);
		if (valid) {
			memcpy(out[count].ext, start, n * sizeof(*start));
			out[count].ext[n] = 0;
			count++;
		}
		if (*p)
			p++;
	}
	return count;
}

bool pathext_has(const uint16_t *name, const struct pathext_entry *exts, size_t n)
{
	size_t len = units(name);
	for (size_t i = 0; i < n; i++) {
		size_t m = units(exts[i].ext);
		if (len > m && same_ascii_nocase(name + len - m, m, exts[i].ext, m))
			return true;
	}
	return false;
}

/* Whether the n units of name end with the ASCII suffix (any case). */
static bool ends_with_nocase(const uint16_t *name, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);
	if (n < m)
		return false;
	for (size_t i = 0; i < m; i++)
		if (ascii_upper(name[n - m + i]) != ascii_upper((uint16_t)suffix[i]))
			return false;
	return true;
}

size_t windows_name_length(const uint16_t *name)
{
	size_t n = units(name);
	/* The two may follow each other ("run.bat.::$DATA", "run.bat::$DATA. "): strip until neither is left. */
	for (;;) {
		if (n > 0 && (name[n - 1] == '.' || name[n - 1] == ' '))
			n--;
		else if (ends_with_nocase(name, n, "::$DATA"))
			n -= strlen("::$DATA");
		else
			return n;
	}
}

bool windows_is_batch(const uint16_t *name)
{
	/*
	 * By the name Windows opens, not the name as given: CreateProcess runs
	 * "run.bat." or "RUN.BAT. ." through cmd.exe as it does run.bat
	 * (CVE-2024-43402, the bypass of the fix for CVE-2024-24576).
	 */
	size_t n = windows_name_length(name);
	return ends_with_nocase(name, n, ".bat") || ends_with_nocase(name, n, ".cmd");
}

/* Appends n units of s; -E2BIG (and *len unchanged) when they and a NUL do not fit. */
static int put_units(uint16_t *line, size_t size, size_t *len, const uint16_t *s, size_t n)
{
	if (*len + n + 1 > size)
		return -E2BIG;
	memcpy(line + *len, s, n * sizeof(*s));
	*len += n;
	line[*len] = 0;
	return 0;
}

static int put_unit(uint16_t *line, size_t size, size_t *len, uint16_t c, size_t times)
{
	for (size_t i = 0; i < times; i++) {
		int r = put_units(line, size, len, &c, 1);
		if (r < 0)
			return r;
	}
	return 0;
}

int cmdline_append(uint16_t *line, size_t size, size_t *len, const uint16_t *arg)
{
	size_t start = *len;
	int r = 0;
	if (start > 0)
		r = put_unit(line, size, len, ' ', 1);
	if (r == 0)
		r = put_unit(line, size, len, '"', 1);
	for (const uint16_t *p = arg; r == 0; p++) {
		size_t backslashes = 0;
		while (*p == '\\')
			p++, backslashes++;
		/* Backslashes double only before a quote, or before the closing one. */
		r = put_unit(line, size, len, '\\', *p == '"' || *p == 0 ? backslashes * 2 : backslashes);
		if (r < 0 || *p == 0)
			break;
		if (*p == '"')
			r = put_unit(line, size, len, '\\', 1);
		if (r == 0)
			r = put_unit(line, size, len, *p, 1);
	}
	if (r == 0)
		r = put_unit(line, size, len, '"', 1);
	if (r < 0) {
		*len = start;
		line[start] = 0;
	}
	return r;
}

/*
 * An argument of a batch file, which cmd.exe reads before the script does:
 * quoted (doubling quotes, as the script's %1 expects) unless it holds only
 * characters cmd.exe gives no meaning to; each % made inert by cmd's own
 * substring syntax (%%cd:~,% expands to nothing), so %PATH% is not expanded
 * (the approach of the fix for CVE-2024-24576, "BatBadBut"). A line break
 * cannot reach a script at all: -EINVAL.
 */
int cmdline_append_batch(uint16_t *line, size_t size, size_t *len, const uint16_t *arg)
{
	static const char plain[] = "#$*+-./:?@\\_";
	static const uint16_t inert[] = { '%', '%', 'c', 'd', ':', '~', ',' };
	size_t n = units(arg), start = *len;
	bool quote = n == 0 || arg[n - 1] == '\\';
	for (size_t i = 0; i < n; i++) {
		uint16_t c = arg[i];
		if (c == '\r' || c == '\n')
			return -EINVAL;
		bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
		    (c < 0x80 && !alnum && !strchr(plain, (char)c)))
			quote = true;
	}
	int r = start > 0 ? put_unit(line, size, len, ' ', 1) : 0;
	if (r == 0 && quote)
		r = put_unit(line, size, len, '"', 1);
	size_t backslashes = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		uint16_t c = arg[i];
		if (c == '\\') {
			backslashes++;
		} else {
			if (c == '"')
				r = put_unit(line, size, len, '\\', backslashes);
			if (r == 0 && c == '"')
				r = put_unit(line, size, len, '"', 1);
			else if (r == 0 && c == '%')
				r = put_units(line, size, len, inert, sizeof(inert) / sizeof(inert[0]));
			backslashes = 0;
		}
		if (r == 0)
			r = put_unit(line, size, len, c, 1);
	}
	if (r == 0 && quote)
		r = put_unit(line, size, len, '\\', backslashes);
	if (r == 0 && quote)
		r = put_unit(line, size, len, '"', 1);
	if (r < 0) {
		*len = start;
		line[start] = 0;
	}
	return r;
}
