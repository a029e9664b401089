#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "hmn.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

const char *format_size(uint64_t bytes, bool exact, char buf[SIZE_TEXT_MAX])
{
	if (bytes == HMN_UNKNOWN) {
		snprintf(buf, SIZE_TEXT_MAX, "-");
	} else if (exact) {
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64, bytes);
	} else {
		uint64_t mib = bytes / MIB + (bytes % MIB >= MIB / 2);
		if (mib < 1024) {
			snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 " MiB", mib);
		} else {
			/* Tenths of a GiB, rounded, without overflowing near 2^64. */
			uint64_t tenths = bytes / GIB * 10 + ((bytes % GIB) * 10 + GIB / 2) / GIB;
			snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 ".%u GiB", tenths / 10,
				 (unsigned)(tenths % 10));
		}
	}
	return buf;
}

size_t utf8_sequence_length(const unsigned char *s, size_t n, uint32_t *ret_codepoint)
{
	uint32_t cp, min;
	size_t len;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		len = 1, cp = s[0], min = 0;
	} else if ((s[0] & 0xe0) == 0xc0) {
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (ret_codepoint)
		*ret_codepoint = cp;
	return len;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

size_t sanitize_for_terminal(const char *s, char *out, size_t out_size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0, width = 0;

	if (out_size == 0)
		return 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_sequence_length(p + i, n - i, &cp);
		bool bad = len == 0 || is_control(cp);

		if (len == 0)
			len = 1;
		if (o + len >= out_size)
			break;
		for (size_t k = 0; k < len; k++)
			out[o++] = bad ? '?' : (char)p[i + k];
		width += bad ? len : 1;
		i += len;
	}
	out[o] = '\0';
	return width;
}

char *utf8_repair(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	char *out = malloc(n * 3 + 1); /* each bad byte grows to 3 */

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence_length(p + i, n - i, NULL);
		if (len == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
		}
	}
	out[o] = '\0';
	return out;
}
