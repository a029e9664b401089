/* What of a text a terminal may be shown (lib/text.h). */
#include <string.h>

#include "text.h"

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

bool codepoint_is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

char *printable_name(const char *s, char *out, size_t size)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), o = 0;

	if (size == 0)
		return out;
	/* In place, o == i: each byte is read before it is written over. */
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_sequence_length(p + i, n - i, &cp);
		bool bad = len == 0 || codepoint_is_control(cp);

		if (len == 0)
			len = 1;
		if (o + len >= size)
			break;
		for (size_t k = 0; k < len; k++)
			out[o++] = bad ? '?' : (char)p[i + k];
		i += len;
	}
	out[o] = '\0';
	return out;
}
