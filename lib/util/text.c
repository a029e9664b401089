/* What of a text a terminal may be shown; UTF-16 into UTF-8; a path's last name; an argv's words. */
#include <string.h>

#include "util/text.h"

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

/*
 * How many of text's first len bytes are left without the start of a UTF-8
 * sequence they end in, where a cut fell inside a character: len when they
 * end on a boundary, or in bytes that no more bytes would make a character.
 */
static size_t utf8_cut_length(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t lead = len;

	/* Back over the continuation bytes a sequence has at most (three) to the byte that began it. */
	while (lead > 0 && len - lead < 3 && (p[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead == 0 || (p[lead - 1] & 0xc0) != 0xc0)
		return len;
	lead--;
	size_t need = (p[lead] & 0xe0) == 0xc0 ? 2 : (p[lead] & 0xf0) == 0xe0 ? 3 : (p[lead] & 0xf8) == 0xf0 ? 4 : 1;
	return len - lead < need ? lead : len;
}

size_t argv_words(const char *text, size_t len, bool cut, size_t *ret_len)
{
	size_t words = 1;

	/* A character the bound fell inside is left out whole, not shown as a broken byte. */
	if (cut)
		len = utf8_cut_length(text, len);
	/* The last word's NUL, and those a rewritten argv is padded with ("postgres: writer\0\0..."). */
	while (len > 0 && text[len - 1] == '\0')
		len--;
	*ret_len = len;
	if (len == 0)
		return 0;
	for (const char *p = text; (p = memchr(p, '\0', len - (size_t)(p - text))); p++)
		words++;
	return words;
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

/* Appends code point cp as UTF-8 if it fits whole (with room for the NUL). */
static bool put_utf8(char *out, size_t size, size_t *len, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (*len + n >= size)
		return false;
	memcpy(out + *len, b, n);
	*len += n;
	return true;
}

size_t utf16_to_utf8(const uint16_t *in, size_t n, char *out, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < n && in[i]; i++) {
		uint32_t cp = in[i];
		if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n && in[i + 1] >= 0xdc00 && in[i + 1] <= 0xdfff) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (in[i + 1] - 0xdc00);
			i++;
		} else if (cp >= 0xd800 && cp <= 0xdfff) {
			cp = 0xfffd; /* a lone surrogate: not a character */
		}
		if (!put_utf8(out, size, &len, cp))
			break; /* cut at a character's boundary, never inside one */
	}
	out[len] = '\0';
	return len;
}

const char *path_basename_any(const char *path)
{
	/* A POSIX path ("/usr/bin/x"): a backslash is a character of a file name there. */
	bool posix = path[0] == '/';
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || (*p == '\\' && !posix))
			base = p + 1;
	return base;
}
