#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "hmn-model.h"
#include "hmn.h"
#include "util/clock.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)
#define TIB (1024ULL * GIB)

/* bytes in tenths of unit, rounded, without overflowing near 2^64 */
static uint64_t tenths_of(uint64_t bytes, uint64_t unit)
{
	return bytes / unit * 10 + ((bytes % unit) * 10 + unit / 2) / unit;
}

const char *format_size(uint64_t bytes, bool exact, char buf[SIZE_TEXT_MAX])
{
	uint64_t mib = bytes / MIB + (bytes % MIB >= MIB / 2);
	uint64_t tenths = tenths_of(bytes, GIB);

	if (bytes == HMN_UNKNOWN)
		snprintf(buf, SIZE_TEXT_MAX, "-");
	else if (exact)
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64, bytes);
	else if (mib < 1024)
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 "MiB", mib);
	else if (tenths < 10240) /* by the rounded figure: never "1024.0GiB" */
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 ".%uGiB", tenths / 10, (unsigned)(tenths % 10));
	else
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 ".%uTiB", tenths_of(bytes, TIB) / 10,
			 (unsigned)(tenths_of(bytes, TIB) % 10));
	return buf;
}

const char *format_size_fine(uint64_t bytes, char buf[SIZE_TEXT_MAX])
{
	uint64_t kib = bytes / 1024 + (bytes % 1024 >= 512);

	if (bytes == HMN_UNKNOWN || kib >= 1024) /* 1023.5 KiB and up: "1MiB", format_size's rounding */
		return format_size(bytes, false, buf);
	if (bytes < 1024)
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 "B", bytes);
	else
		snprintf(buf, SIZE_TEXT_MAX, "%" PRIu64 "KiB", kib);
	return buf;
}

/* ms in whole units, rounded to the nearest, without overflowing near 2^64 */
static uint64_t rounded(uint64_t ms, uint64_t unit)
{
	return ms / unit + (ms % unit >= unit / 2);
}

const char *format_duration(uint64_t us, char buf[DURATION_TEXT_MAX])
{
	uint64_t ms = us / CLOCK_US_PER_MS; /* shown to the millisecond at most */
	uint64_t tenths = rounded(ms, 100), seconds = rounded(ms, 1000);
	uint64_t minutes = rounded(ms, 60000), hours = rounded(ms, 3600000);

	/* Each unit by the rounded figure of the smaller one: never "60.0s" nor "60m00s". */
	if (ms < 1000)
		snprintf(buf, DURATION_TEXT_MAX, "%" PRIu64 "ms", ms);
	else if (tenths < 600)
		snprintf(buf, DURATION_TEXT_MAX, "%" PRIu64 ".%us", tenths / 10, (unsigned)(tenths % 10));
	else if (seconds < 3600)
		snprintf(buf, DURATION_TEXT_MAX, "%" PRIu64 "m%02" PRIu64 "s", seconds / 60, seconds % 60);
	else if (minutes < 1440)
		snprintf(buf, DURATION_TEXT_MAX, "%" PRIu64 "h%02" PRIu64 "m", minutes / 60, minutes % 60);
	else
		snprintf(buf, DURATION_TEXT_MAX, "%" PRIu64 "d%02" PRIu64 "h", hours / 24, hours % 24);
	return buf;
}

const char *gpu_product_name(const char *name, char *buf, size_t size)
{
	/* "AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]": vendor, code name, [products] */
	size_t len = strlen(name);
	const char *space = strchr(name, ' '), *open = strstr(name, " [");
	if (!space || !open || open <= space || len == 0 || name[len - 1] != ']')
		return name;
	const char *first = open + 2, *end = first + strcspn(first, "/]");
	while (first < end && *first == ' ')
		first++;
	while (end > first && end[-1] == ' ')
		end--;
	bool letter = false;
	for (const char *p = first; p < end; p++)
		letter |= (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
	/* "AMD GPU [1002:744c]" is no product name: the ids stay. */
	if (!letter || memchr(first, ':', (size_t)(end - first)))
		return name;
	snprintf(buf, size, "%.*s %.*s", (int)(space - name), name, (int)(end - first), first);
	return buf;
}

struct codepoint_range {
	uint32_t first, last;
};

/*
 * Built in rather than wcwidth(): a cron job or a container runs in the C
 * locale, where wcwidth() says -1 for every non-ASCII character, and
 * Windows has none; a table's alignment must not depend on LC_CTYPE.
 * Zero width: combining marks, zero-width joiners/spaces, variation
 * selectors (Unicode 15, general categories Mn/Me/Cf, Hangul medial
 * vowels and final consonants).
 */
static const struct codepoint_range zero_width[] = {
	{0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x05bf, 0x05bf},
	{0x05c1, 0x05c2}, {0x05c4, 0x05c5}, {0x05c7, 0x05c7}, {0x0610, 0x061a},
	{0x064b, 0x065f}, {0x0670, 0x0670}, {0x06d6, 0x06dc}, {0x06df, 0x06e4},
	{0x06e7, 0x06e8}, {0x06ea, 0x06ed}, {0x0711, 0x0711}, {0x0730, 0x074a},
	{0x07a6, 0x07b0}, {0x07eb, 0x07f3}, {0x0816, 0x082d}, {0x0859, 0x085b},
	{0x08d3, 0x0902}, {0x093a, 0x093a}, {0x093c, 0x093c}, {0x0941, 0x0948},
	{0x094d, 0x094d}, {0x0951, 0x0957}, {0x0962, 0x0963}, {0x0981, 0x0981},
	{0x09bc, 0x09bc}, {0x09c1, 0x09c4}, {0x09cd, 0x09cd}, {0x09e2, 0x09e3},
	{0x0a01, 0x0a02}, {0x0a3c, 0x0a3c}, {0x0a41, 0x0a51}, {0x0a70, 0x0a71},
	{0x0a81, 0x0a82}, {0x0abc, 0x0abc}, {0x0ac1, 0x0ac8}, {0x0acd, 0x0acd},
	{0x0b01, 0x0b01}, {0x0b3c, 0x0b3c}, {0x0b3f, 0x0b3f}, {0x0b41, 0x0b44},
	{0x0b4d, 0x0b4d}, {0x0bc0, 0x0bc0}, {0x0bcd, 0x0bcd}, {0x0c3e, 0x0c40},
	{0x0c46, 0x0c56}, {0x0cbc, 0x0cbc}, {0x0ccc, 0x0ccd}, {0x0d41, 0x0d44},
	{0x0d4d, 0x0d4d}, {0x0dca, 0x0dca}, {0x0dd2, 0x0dd6}, {0x0e31, 0x0e31},
	{0x0e34, 0x0e3a}, {0x0e47, 0x0e4e}, {0x0eb1, 0x0eb1}, {0x0eb4, 0x0ebc},
	{0x0ec8, 0x0ecd}, {0x0f18, 0x0f19}, {0x0f35, 0x0f39}, {0x0f71, 0x0f84},
	{0x0f86, 0x0f87}, {0x0f8d, 0x0fbc}, {0x102d, 0x1030}, {0x1032, 0x1037},
	{0x1039, 0x103a}, {0x1160, 0x11ff}, {0x135d, 0x135f}, {0x1712, 0x1714},
	{0x17b4, 0x17b5}, {0x17b7, 0x17bd}, {0x17c6, 0x17c6}, {0x17c9, 0x17d3},
	{0x180b, 0x180f}, {0x1a17, 0x1a18}, {0x1ab0, 0x1aff}, {0x1b00, 0x1b03},
	{0x1dc0, 0x1dff}, {0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064},
	{0x20d0, 0x20f0}, {0x2cef, 0x2cf1}, {0x2de0, 0x2dff}, {0x302a, 0x302d},
	{0x3099, 0x309a}, {0xa66f, 0xa672}, {0xa674, 0xa67d}, {0xa69e, 0xa69f},
	{0xd7b0, 0xd7ff}, {0xfe00, 0xfe0f}, {0xfe20, 0xfe2f}, {0xfeff, 0xfeff},
	{0x1d167, 0x1d169}, {0x1d173, 0x1d182}, {0x1e8d0, 0x1e8d6},
	{0xe0001, 0xe007f}, {0xe0100, 0xe01ef},
};

/* East Asian Wide and Fullwidth (Unicode 15): two columns in a terminal. */
static const struct codepoint_range double_width[] = {
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
	{0x23f0, 0x23f0}, {0x23f3, 0x23f3}, {0x25fd, 0x25fe}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267f, 0x267f}, {0x2693, 0x2693}, {0x26a1, 0x26a1},
	{0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5}, {0x26ce, 0x26ce},
	{0x26d4, 0x26d4}, {0x26ea, 0x26ea}, {0x26f2, 0x26f3}, {0x26f5, 0x26f5},
	{0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b},
	{0x2728, 0x2728}, {0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27b0, 0x27b0}, {0x27bf, 0x27bf},
	{0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55}, {0x2e80, 0x303e},
	{0x3041, 0x3247}, {0x3250, 0x4dbf}, {0x4e00, 0xa4cf}, {0xa960, 0xa97f},
	{0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f},
	{0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x16fe0, 0x16fe4}, {0x17000, 0x18cff},
	{0x1b000, 0x1b2ff}, {0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e},
	{0x1f191, 0x1f19a}, {0x1f200, 0x1f251}, {0x1f260, 0x1f265}, {0x1f300, 0x1f320},
	{0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393}, {0x1f3a0, 0x1f3ca},
	{0x1f3cf, 0x1f3d3}, {0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4}, {0x1f3f8, 0x1f43e},
	{0x1f440, 0x1f440}, {0x1f442, 0x1f4fc}, {0x1f4ff, 0x1f53d}, {0x1f54b, 0x1f54e},
	{0x1f550, 0x1f567}, {0x1f57a, 0x1f57a}, {0x1f595, 0x1f596}, {0x1f5a4, 0x1f5a4},
	{0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5}, {0x1f6cc, 0x1f6cc}, {0x1f6d0, 0x1f6d2},
	{0x1f6d5, 0x1f6d7}, {0x1f6dc, 0x1f6df}, {0x1f6eb, 0x1f6ec}, {0x1f6f4, 0x1f6fc},
	{0x1f7e0, 0x1f7eb}, {0x1f7f0, 0x1f7f0}, {0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945},
	{0x1f947, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
};

static bool in_ranges(uint32_t cp, const struct codepoint_range *r, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < r[mid].first)
			hi = mid;
		else if (cp > r[mid].last)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

unsigned codepoint_width(uint32_t cp)
{
	if (cp < 0x300)
		return 1;
	if (in_ranges(cp, zero_width, sizeof(zero_width) / sizeof(zero_width[0])))
		return 0;
	if (in_ranges(cp, double_width, sizeof(double_width) / sizeof(double_width[0])))
		return 2;
	return 1;
}

size_t text_fit(const char *text, size_t len, size_t columns, size_t *ret_width)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i = 0, used = 0;

	while (i < len) {
		uint32_t cp = '?';
		size_t n = utf8_sequence_length(p + i, len - i, &cp);
		unsigned w = n ? codepoint_width(cp) : 1;
		if (used + w > columns)
			break;
		used += w;
		i += n ? n : 1;
	}
	*ret_width = used;
	return i;
}

void print_cut(FILE *out, const char *text, size_t len, size_t columns)
{
	size_t width;

	if (text_fit(text, len, columns, &width) == len) {
		fwrite(text, 1, len, out);
		return;
	}
	/* Too wide: what fits before a "…" in the last column. */
	fwrite(text, 1, text_fit(text, len, columns ? columns - 1 : 0, &width), out);
	fputs("\u2026", out);
}

size_t sanitize_for_terminal(const char *s, char *out, size_t out_size)
{
	size_t width = 0;

	if (out_size == 0)
		return 0;
	printable_name(s, out, out_size);
	text_fit(out, strlen(out), SIZE_MAX, &width);
	return width;
}

static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("%+,-./:=@_", c));
}

void shell_quote_word(const char *word, char *out, size_t out_size)
{
	char shown[4096 + 1]; /* a word as long as the command lines hmn ps reads (4 KiB) */
	size_t o = 0;
	bool plain = *word != '\0';

	if (out_size == 0)
		return;
	sanitize_for_terminal(word, shown, sizeof(shown));
	for (const unsigned char *p = (const unsigned char *)shown; *p && plain; p++)
		plain = shell_safe(*p);
	if (plain) {
		snprintf(out, out_size, "%s", shown);
		return;
	}
	/* Room is kept for the closing quote and the terminator. */
	if (o + 2 < out_size)
		out[o++] = '\'';
	for (const char *p = shown; *p; p++) {
		const char *piece = *p == '\'' ? "'\\''" : NULL;
		size_t len = piece ? 4 : 1;
		if (o + len + 2 > out_size)
			break;
		if (piece)
			memcpy(out + o, piece, len);
		else
			out[o] = *p;
		o += len;
	}
	if (o + 1 < out_size)
		out[o++] = '\'';
	out[o] = '\0';
}

size_t strv_count(const char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	return n;
}

char *command_text(const char *const *argv, size_t argc)
{
	size_t size = 1, len = 0;

	/* Each byte quoted at most as '\'' (4), a word's two quotes and the space before it. */
	for (size_t i = 0; i < argc; i++)
		size += 4 * strlen(argv[i]) + 3;
	char *line = malloc(size);
	if (!line)
		return NULL;
	line[0] = '\0';
	for (size_t i = 0; i < argc; i++) {
		if (i > 0)
			line[len++] = ' ';
		shell_quote_word(argv[i], line + len, size - len);
		len += strlen(line + len);
	}
	return line;
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

const char *model_format_name(enum hmn_model_format format)
{
	switch (format) {
	case HMN_MODEL_GGUF: return "gguf";
	case HMN_MODEL_SAFETENSORS: return "safetensors";
	case HMN_MODEL_CONFIG: return "config";
	}
	return "unknown";
}

const char *parameters_text(uint64_t parameters, char buf[32])
{
	if (parameters >= 1000000000000ull)
		snprintf(buf, 32, "%.2fT", parameters / 1e12);
	else if (parameters >= 1000000000ull)
		snprintf(buf, 32, "%.2fB", parameters / 1e9);
	else if (parameters >= 1000000ull)
		snprintf(buf, 32, "%.1fM", parameters / 1e6);
	else
		snprintf(buf, 32, "%llu", (unsigned long long)parameters);
	return buf;
}

const char *signal_name(int sig, char buf[SIGNAL_NAME_MAX])
{
	static const struct {
		int number;
		const char *name;
	} names[] = {
		{ SIGINT, "SIGINT" },   { SIGILL, "SIGILL" },   { SIGABRT, "SIGABRT" },
		{ SIGFPE, "SIGFPE" },   { SIGSEGV, "SIGSEGV" }, { SIGTERM, "SIGTERM" },
#ifdef SIGKILL /* POSIX's; Windows' C library has the six of C alone (and SIGBREAK) */
		{ SIGHUP, "SIGHUP" },   { SIGQUIT, "SIGQUIT" }, { SIGKILL, "SIGKILL" },
		{ SIGBUS, "SIGBUS" },   { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGXCPU, "SIGXCPU" },
		{ SIGXFSZ, "SIGXFSZ" }, { SIGTRAP, "SIGTRAP" },
#endif
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].number == sig)
			return names[i].name;
	snprintf(buf, SIGNAL_NAME_MAX, "signal %d", sig);
	return buf;
}
