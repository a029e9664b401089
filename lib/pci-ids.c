/*
 * A device's name from the PCI ids database (Debian's pci.ids package,
 * /usr/share/misc/pci.ids), when sysfs has none. The format: a vendor line
 * "1002  Advanced Micro Devices, Inc. [AMD/ATI]" at column 0, then its
 * devices "\t744c  Navi 31 [...]", subsystems "\t\t..." and comments "#".
 * Pure: the caller maps the file.
 */
#include <string.h>

#include "internal.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits then two spaces, as every id line has; -1 otherwise. */
static int line_id(const char *p, size_t n)
{
	int id = 0;
	if (n < 6 || p[4] != ' ' || p[5] != ' ')
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(p[i]);
		if (d < 0)
			return -1;
		id = id * 16 + d;
	}
	return id;
}

bool pci_ids_name(const char *text, size_t len, unsigned vendor, unsigned device, char *out,
		  size_t size)
{
	const char *end = text + len;
	bool in_vendor = false;

	if (size == 0)
		return false;
	for (const char *line = text; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		size_t n = (size_t)(eol - line);
		if (n > 0 && line[0] != '#') {
			if (line[0] != '\t') {
				if (in_vendor)
					return false; /* the vendor's devices are behind us */
				in_vendor = line_id(line, n) == (int)vendor;
			} else if (in_vendor && n > 1 && line[1] != '\t' &&
				   line_id(line + 1, n - 1) == (int)device) {
				size_t k = n - 7;
				if (k >= size)
					k = size - 1;
				memcpy(out, line + 7, k);
				out[k] = '\0';
				for (size_t i = 0; i < k; i++)
					if ((unsigned char)out[i] < 0x20)
						out[i] = '?';
				return k > 0;
			}
		}
		line = eol + 1;
	}
	return false;
}
