/*
 * A device's name from the PCI ids database (Debian's pci.ids package,
 * /usr/share/misc/pci.ids), when sysfs has none. The format: a vendor line
 * "1002  Advanced Micro Devices, Inc. [AMD/ATI]" at column 0, then its
 * devices "\t744c  Navi 31 [...]", subsystems "\t\t..." and comments "#".
 * Pure: the caller maps the file.
 */
#include <stdio.h>
#include <string.h>

#include "gpu/pci.h"

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

/* Reads 1 to max hex digits; returns the count read, 0 on none. */
static size_t hex_field(const char *p, size_t max, unsigned long long *ret)
{
	unsigned long long v = 0;
	size_t n = 0;

	for (; n < max; n++) {
		char c = p[n];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (unsigned)d;
	}
	*ret = v;
	return n;
}

void normalize_pci_bus_id(const char *in, char *out, size_t size)
{
	unsigned long long domain, bus, device, function;
	const char *p = in;
	size_t n;

	/*
	 * NVML writes DDDDDDDD:BB:DD.F with an 8-digit domain; sysfs, lspci and
	 * DRM write 4 digits. Anything else is kept as it is.
	 */
	if ((n = hex_field(p, 8, &domain)) && p[n] == ':' && (p += n + 1) &&
	    hex_field(p, 2, &bus) == 2 && p[2] == ':' && (p += 3) &&
	    hex_field(p, 2, &device) == 2 && p[2] == '.' && (p += 3) &&
	    hex_field(p, 1, &function) == 1 && p[1] == '\0' && device <= 0x1f && function <= 7) {
		snprintf(out, size, "%04llx:%02llx:%02llx.%llx", domain, bus, device, function);
		return;
	}
	snprintf(out, size, "%s", in);
}
