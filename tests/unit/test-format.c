/* Size formatting, the terminal sanitizer, UTF-8 repair and table layout. */
#include <signal.h>
#include <stdlib.h>

#include "format.h"
#include "units.h"
#include "hmn.h"
#include "table.h"
#include "tap.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)
#define TIB (1024ULL * GIB)

static void test_sizes(void)
{
	char b[SIZE_TEXT_MAX];

	is_str(format_size(0, false, b), "0MiB", "zero");
	is_str(format_size(512 * MIB, false, b), "512MiB", "512MiB: one word");
	is_str(format_size(MIB / 2 - 1, false, b), "0MiB", "just under half a MiB rounds down");
	is_str(format_size(MIB / 2, false, b), "1MiB", "half a MiB rounds up");
	is_str(format_size(1023 * MIB, false, b), "1023MiB", "1023MiB stays MiB");
	is_str(format_size(1024 * MIB - 1, false, b), "1.0GiB", "a byte under 1 GiB rounds to 1.0GiB");
	is_str(format_size(GIB, false, b), "1.0GiB", "1 GiB");
	is_str(format_size(8 * GIB + GIB / 5, false, b), "8.2GiB", "8.2GiB");
	is_str(format_size(81559 * MIB, false, b), "79.6GiB", "an H100's 81559 MiB");
	is_str(format_size(GIB * 10 - 1, false, b), "10.0GiB", "rounding carries into the integer part");
	is_str(format_size(1023 * GIB + GIB / 2, false, b), "1023.5GiB", "below 1 TiB: GiB");
	is_str(format_size(1024 * GIB - GIB / 20, false, b), "1.0TiB", "1023.95 GiB rounds to 1024.0: TiB, never 1024.0GiB");
	is_str(format_size(TIB + TIB / 2, false, b), "1.5TiB", "1.5TiB");
	/* --need 15.99999T said "16384.0 GiB" */
	is_str(format_size(16 * TIB - 11 * GIB, false, b), "16.0TiB", "15.99999T is 16.0TiB");
	is_str(format_size(UINT64_MAX - 1, false, b), "16777216.0TiB", "near 2^64 does not overflow");
	is_str(format_size(HMN_UNKNOWN, false, b), "-", "unknown is a dash");
	is_str(format_size(HMN_UNKNOWN, true, b), "-", "unknown is a dash with --bytes too");
	is_str(format_size(85899345920ULL, true, b), "85899345920", "--bytes prints the exact count");
	/* hmn run's report: hmn run -- true said "peak 0MiB of GPU memory ..., 0MiB of RAM". */
	is_str(format_size_fine(0, b), "0B", "fine: zero is 0B");
	is_str(format_size_fine(700, b), "700B", "fine: under 1 KiB in bytes");
	is_str(format_size_fine(1023, b), "1023B", "fine: 1023 bytes");
	is_str(format_size_fine(1024, b), "1KiB", "fine: 1 KiB");
	is_str(format_size_fine(512 * 1024 + 511, b), "512KiB", "fine: KiB rounded down");
	is_str(format_size_fine(512 * 1024 + 512, b), "513KiB", "fine: KiB rounded up");
	is_str(format_size_fine(MIB - 513, b), "1023KiB", "fine: just under 1023.5 KiB stays KiB");
	is_str(format_size_fine(MIB - 512, b), "1MiB", "fine: 1023.5 KiB rounds to 1MiB, never 1024KiB");
	is_str(format_size_fine(512 * MIB, b), "512MiB", "fine: from 1 MiB as format_size");
	is_str(format_size_fine(8 * GIB + GIB / 5, b), "8.2GiB", "fine: GiB as format_size");
	is_str(format_size_fine(HMN_UNKNOWN, b), "-", "fine: unknown is a dash");
	bool one_word = true;
	for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + 7)
		one_word &= strchr(format_size(v, false, b), ' ') == NULL;
	ok(one_word, "no size has a space, from 1 byte to 2^64");
}

static void test_durations(void)
{
	char b[DURATION_TEXT_MAX];

	is_str(format_duration(0ULL * 1000, b), "0ms", "0ms");
	is_str(format_duration(20ULL * 1000, b), "20ms", "20ms: two samples 10ms apart, not 0.0 s");
	is_str(format_duration(999ULL * 1000, b), "999ms", "below a second: ms");
	is_str(format_duration(1000ULL * 1000, b), "1.0s", "1.0s");
	is_str(format_duration(12449ULL * 1000, b), "12.4s", "12.4s");
	is_str(format_duration(59949ULL * 1000, b), "59.9s", "59.9s");
	is_str(format_duration(59950ULL * 1000, b), "1m00s", "59.95 s rounds to a minute, never 60.0s");
	is_str(format_duration(245000ULL * 1000, b), "4m05s", "4m05s");
	is_str(format_duration(3599499ULL * 1000, b), "59m59s", "59m59s");
	is_str(format_duration(3599500ULL * 1000, b), "1h00m", "never 60m00s");
	is_str(format_duration(7800000ULL * 1000, b), "2h10m", "2h10m");
	is_str(format_duration(86369999ULL * 1000, b), "23h59m", "23h59m");
	is_str(format_duration(86370000ULL * 1000, b), "1d00h", "never 24h00m");
	is_str(format_duration(273600000ULL * 1000, b), "3d04h", "3d04h");
	is_str(format_duration(UINT64_MAX, b), "213503982d08h", "2^64-1 us does not overflow");
}

static void test_gpu_names(void)
{
	static const struct { const char *name, *shown; } names[] = {
		{ "AMD Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]", "AMD Radeon RX 7900 XT" },
		{ "Intel Battlemage G21 [Arc B580]", "Intel Arc B580" },
		{ "AMD Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]", "AMD Radeon RX 6800" },
		{ "AMD Strix [Radeon 880M / 890M]", "AMD Radeon 880M" },
		{ "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3" },
		{ "NVIDIA H100 80GB HBM3 MIG 3g.40gb", "NVIDIA H100 80GB HBM3 MIG 3g.40gb" },
		{ "AMD GPU [1002:744c]", "AMD GPU [1002:744c]" },           /* ids, not a product */
		{ "AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XTX" },     /* sysfs product_name */
		{ "Navi [Radeon]", "Navi [Radeon]" },                       /* no vendor before a code name */
		{ "AMD X [Radeon] more", "AMD X [Radeon] more" },           /* brackets not at the end */
		{ "AMD X []", "AMD X []" }, { "AMD X [/]", "AMD X [/]" }, { "AMD X [ 7 ]", "AMD X [ 7 ]" },
		{ "AMD X [ A / B ]", "AMD A" }, { "]", "]" }, { "", "" }, { "A [", "A [" },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		is_str(gpu_product_name(names[i].name, buf, sizeof(buf)), names[i].shown, names[i].name);
	char tiny[8];
	is_str(gpu_product_name("AMD Navi 31 [Radeon RX 7900 XT]", tiny, sizeof(tiny)), "AMD Rad",
	       "cut to its buffer, terminated");
}

static void test_utf8(void)
{
	uint32_t cp;

	ok(utf8_sequence_length((const unsigned char *)"A", 1, &cp) == 1 && cp == 'A', "ASCII");
	ok(utf8_sequence_length((const unsigned char *)"\xc3\xa9", 2, &cp) == 2 && cp == 0xe9, "2-byte é");
	ok(utf8_sequence_length((const unsigned char *)"\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20ac, "3-byte €");
	ok(utf8_sequence_length((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp) == 4, "4-byte emoji");
	ok(utf8_sequence_length((const unsigned char *)"\xc0\xaf", 2, NULL) == 0, "overlong '/' rejected");
	ok(utf8_sequence_length((const unsigned char *)"\xed\xa0\x80", 3, NULL) == 0, "surrogate rejected");
	ok(utf8_sequence_length((const unsigned char *)"\xf4\x90\x80\x80", 4, NULL) == 0, "beyond U+10FFFF rejected");
	ok(utf8_sequence_length((const unsigned char *)"\xe2\x82", 2, NULL) == 0, "truncated sequence rejected");
	ok(utf8_sequence_length((const unsigned char *)"\x80", 1, NULL) == 0, "stray continuation rejected");
	ok(utf8_sequence_length((const unsigned char *)"\xff", 1, NULL) == 0, "0xff rejected");

	char *r = utf8_repair("ok\xff" "end");
	is_str(r, "ok\xef\xbf\xbd" "end", "invalid byte becomes U+FFFD");
	free(r);
	r = utf8_repair("\xe2\x82");
	is_str(r, "\xef\xbf\xbd\xef\xbf\xbd", "each byte of a cut sequence becomes U+FFFD");
	free(r);
	r = utf8_repair("caf\xc3\xa9");
	is_str(r, "caf\xc3\xa9", "valid UTF-8 is kept");
	free(r);
}

static void test_sanitizer(void)
{
	char out[64];

	ok(sanitize_for_terminal("python3", out, sizeof(out)) == 7 && !strcmp(out, "python3"), "plain name kept");
	sanitize_for_terminal("evil\x1b[31mred", out, sizeof(out));
	is_str(out, "evil?[31mred", "ESC becomes ?");
	sanitize_for_terminal("two\nlines\r", out, sizeof(out));
	is_str(out, "two?lines?", "newline and CR become ?");
	sanitize_for_terminal("del\x7f", out, sizeof(out));
	is_str(out, "del?", "DEL becomes ?");
	sanitize_for_terminal("csi\xc2\x9b" "2J", out, sizeof(out));
	is_str(out, "csi??2J", "each byte of a C1 control (U+009B CSI) becomes ?");
	sanitize_for_terminal("bad\xff\xfe", out, sizeof(out));
	is_str(out, "bad??", "invalid UTF-8 bytes become ?");
	size_t w = sanitize_for_terminal("caf\xc3\xa9", out, sizeof(out));
	ok(w == 4 && !strcmp(out, "caf\xc3\xa9"), "valid UTF-8 kept, width in columns");
	sanitize_for_terminal("abcdef", out, 4);
	is_str(out, "abc", "output is bounded and terminated");
	ok(sanitize_for_terminal("\xe8\xae\xad\xe7\xbb\x83", out, sizeof(out)) == 4, "wide (CJK) characters are 2 columns each");
	ok(sanitize_for_terminal("e\xcc\x81" "e\xcc\x81", out, sizeof(out)) == 2, "combining marks are 0 columns");
	ok(sanitize_for_terminal("\xef\xbc\xa1\xf0\x9f\x98\x80", out, sizeof(out)) == 4, "fullwidth A and an emoji are 2 columns each");
	ok(codepoint_width(0x200b) == 0 && codepoint_width(0xfe0f) == 0 && codepoint_width(0xac00) == 2 &&
	   codepoint_width(0x3099) == 0 && codepoint_width(0x20000) == 2 && codepoint_width('a') == 1 &&
	   codepoint_width(0x00e9) == 1 && codepoint_width(0x2026) == 1,
	   "zero-width, Hangul, CJK extension B, ASCII, Latin-1 and '\xe2\x80\xa6' widths");
}

static char *render(struct table *t, bool no_header)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	table_print(t, f, no_header);
	fclose(f);
	return buf;
}

static void test_table(void)
{
	static const struct table_column cols[] = {
		{ "PID", ALIGN_RIGHT }, { "VRAM", ALIGN_RIGHT }, { "NAME", ALIGN_LEFT },
	};
	struct table *t = table_new(cols, 3);
	const char *cells[] = { "7", "512MiB", "a b", "12345", "8.2 GiB", "long\x1bname" };
	for (size_t i = 0; i < 6; i++)
		table_add_cell(t, cells[i]);
	char *s = render(t, false);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7   512MiB  a b\n"
		  "12345  8.2_GiB  long?name\n", "columns align, name last, no trailing spaces, a space only in the last");
	free(s);
	s = render(t, true);
	is_str(s, "    7   512MiB  a b\n12345  8.2_GiB  long?name\n", "--no-header drops the header");
	free(s);
	table_free(t);

	static const struct table_column cols2[] = { { "GPU", ALIGN_RIGHT }, { "USER", ALIGN_LEFT }, { "NAME", ALIGN_LEFT } };
	t = table_new(cols2, 3);
	const char *cells2[] = { "0", "j\xc3\xa9r\xc3\xb4me", "caf\xc3\xa9", "1", "John Smith", "NVIDIA H100" };
	for (size_t i = 0; i < 6; i++)
		table_add_cell(t, cells2[i]);
	s = render(t, false);
	is_str(s, "GPU  USER        NAME\n"
		  "  0  j\xc3\xa9r\xc3\xb4me      caf\xc3\xa9\n"
		  "  1  John_Smith  NVIDIA H100\n", "a padded column counts code points, not bytes; a space in it is '_'");
	free(s);
	table_free(t);
	t = table_new(cols2, 3);
	const char *cells3[] = { "0", "\xe8\xae\xad\xe7\xbb\x83", "x", "1", "ab", "y" };
	for (size_t i = 0; i < 6; i++)
		table_add_cell(t, cells3[i]);
	s = render(t, false);
	is_str(s, "GPU  USER  NAME\n"
		  "  0  \xe8\xae\xad\xe7\xbb\x83  x\n"
		  "  1  ab    y\n", "a padded column counts display columns: a wide character is 2");
	free(s);
	ok(table_free(NULL) == NULL, "table_free(NULL) is a no-op");
	table_free(t);
}

static char *render_cut(struct table *t, size_t columns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	table_print_cut(t, f, false, columns);
	fclose(f);
	return buf;
}

/* A terminal too narrow for a line: cut at its edge with "…", never wrapped. */
static void test_table_cut(void)
{
	static const struct table_column cols[] = {
		{ "PID", ALIGN_RIGHT }, { "VRAM", ALIGN_RIGHT }, { "NAME", ALIGN_LEFT },
	};
	struct table *t = table_new(cols, 3);
	const char *cells[] = { "7", "512MiB", "a b", "12345", "8.2 GiB", "long\x1bname",
				"8", "1MiB", "\xe8\xae\xad\xe7\xbb\x83\xe6\xa8\xa1\xe5\x9e\x8b" };
	for (size_t i = 0; i < 9; i++)
		table_add_cell(t, cells[i]);
	char *s = render_cut(t, 0);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7   512MiB  a b\n"
		  "12345  8.2_GiB  long?name\n"
		  "    8     1MiB  \xe8\xae\xad\xe7\xbb\x83\xe6\xa8\xa1\xe5\x9e\x8b\n", "table_print_cut 0: nothing cut");
	free(s);
	s = render_cut(t, 25);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7   512MiB  a b\n"
		  "12345  8.2_GiB  long?name\n"
		  "    8     1MiB  \xe8\xae\xad\xe7\xbb\x83\xe6\xa8\xa1\xe5\x9e\x8b\n", "a line as wide as the window is whole");
	free(s);
	s = render_cut(t, 21);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7   512MiB  a b\n"
		  "12345  8.2_GiB  long\u2026\n"
		  "    8     1MiB  \xe8\xae\xad\xe7\xbb\x83\u2026\n",
	       "NAME cut first, by display columns: two wide characters and the mark in 21");
	free(s);
	s = render_cut(t, 20);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7   512MiB  a b\n"
		  "12345  8.2_GiB  lon\u2026\n"
		  "    8     1MiB  \xe8\xae\xad\u2026\n",
	       "a wide character never straddles the edge nor takes the mark's column");
	free(s);
	s = render_cut(t, 16);
	is_str(s, "  PID     VRAM \u2026\n"
		  "    7   512MiB \u2026\n"
		  "12345  8.2_GiB \u2026\n"
		  "    8     1MiB \u2026\n", "no room for NAME at all: the line is still cut, not wrapped");
	free(s);
	s = render_cut(t, 10);
	is_str(s, "  PID    \u2026\n"
		  "    7   5\u2026\n"
		  "12345  8.\u2026\n"
		  "    8    \u2026\n", "the other columns wider than the window: cut too, the mark says so");
	free(s);
	table_free(t);
}

static void test_size_arguments(void)
{
	static const struct { const char *text; uint64_t bytes; } good[] = {
		{ "0", 0 }, { "1", 1 }, { "1b", 1 }, { "1B", 1 }, { "512M", 512ULL << 20 },
		{ "512mib", 512ULL << 20 }, { "1.5GiB", 3ULL << 29 }, { "1.5g", 3ULL << 29 },
		{ "40GiB", 40ULL << 30 }, { "1KB", 1000 }, { "2.5MB", 2500000 }, { "1tb", 1000000000000ULL },
		{ "16TiB", 16ULL << 40 }, { "18446744073709551614", UINT64_MAX - 1 }, { "0.5k", 512 },
		{ "16777215TiB", 16777215ULL << 40 }, { "40GIB", 40ULL << 30 }, { "0.000000000000000000001G", 0 },
		{ "1.0000000000000000000000000000000000001K", 1024 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct size_arg a = { 0 };
		ok(parse_size(good[i].text, &a) && !a.is_percent && a.bytes == good[i].bytes, "SIZE %s", good[i].text);
	}
	static const char *const bad[] = {
		"", " ", "-1", "+1", "abc", "10x", "1e9", "1e999", "99999999TiB", "16777216TiB",
		"18446744073709551615", "18446744073709551616", "1..5G", "1.5.G", ".", "G", "1 G", "1G ", "nan", "inf", "0x10",
		"%", "101%", "100.5%", "-5%", "1GiBB", "1Gi", "\xff", "1\n", "1%%", "-0%",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct size_arg a = { .bytes = 7 };
		ok(!parse_size(bad[i], &a) && a.bytes == 7, "SIZE '%s' refused, output untouched", bad[i]);
	}
	struct size_arg pct;
	ok(parse_size("25%", &pct) && pct.is_percent && pct.percent == 25, "SIZE 25%%");
	is_u64(size_for_total(&pct, 85520809984ULL), 21380202496ULL, "25% of an H100's total");
	ok(parse_size("33.3%", &pct), "SIZE 33.3%%");
	is_u64(size_for_total(&pct, 1000), 333, "33.3% of 1000, rounded up");
	ok(parse_size("100%", &pct) && size_for_total(&pct, UINT64_MAX) == UINT64_MAX, "100%% of 2^64-1 does not wrap");
	ok(parse_size("0%", &pct) && pct.is_percent && size_for_total(&pct, 1000) == 0, "0%% is allowed, as 0 is");
	ok(parse_size("0.0%", &pct) && pct.is_percent && pct.percent == 0, "0.0%% too");
	struct size_arg bytes = { .bytes = 5 };
	is_u64(size_for_total(&bytes, 1), 5, "a size in bytes ignores the total");

	static const struct { const char *text; uint64_t ms; } durations[] = {
		{ "1", 1000 }, { "1s", 1000 }, { "250ms", 250 }, { "1.5s", 1500 }, { "2m", 120000 },
		{ "1h", 3600000 }, { "0.1", 100 }, { "0.001s", 1 }, { "8784h", 8784ULL * 3600000 },
		{ "1S", 1000 }, { "250MS", 250 }, { "250Ms", 250 }, { "2M", 120000 }, { "1H", 3600000 },
		{ "1d", 86400000 }, { "1.5D", 129600000 }, { "366d", 366ULL * 86400000 }, { "1ms", 1 },
		{ "1.4ms", 1 }, { "1.5ms", 2 }, { "0.0015s", 2 }, { "0.000016667m", 1 },
	};
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t us = 0;
		ok(parse_duration(durations[i].text, &us) && us == durations[i].ms * 1000, "DURATION %s (in microseconds)",
		   durations[i].text);
	}
	static const char *const bad_durations[] = {
		"", "0", "0s", "0ms", "0.0001s", "-1s", "+1s", "abc", "10x", "1e3", "1 s", "1sec",
		"8785h", "99999999999999999999", "1.s.", "ms", "nan", "367d", "0.5ms", "0.9ms",
		"0.999ms", "0.0009s", "0.000016666m", "0.00000000000000000000000001s", "1dd", "1y",
	};
	for (size_t i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++) {
		uint64_t ms = 7;
		ok(!parse_duration(bad_durations[i], &ms) && ms == 7, "DURATION '%s' refused", bad_durations[i]);
	}
}

static void test_list_items(void)
{
	uint32_t v;
	unsigned index = 9, gi = 9, ci = 9;

	ok(parse_u32("4242", 4, &v) && v == 4242, "PID 4242");
	ok(parse_u32("4294967295", 10, &v) && v == UINT32_MAX, "PID 2^32-1");
	ok(!parse_u32("4294967296", 10, &v) && !parse_u32("", 0, &v) && !parse_u32("-1", 2, &v) &&
	   !parse_u32("12345678901", 11, &v) && !parse_u32("1 ", 2, &v), "PIDs past 2^32-1, empty, signed, spaced refused");
	ok(parse_u32("12,3", 2, &v) && v == 12, "an item is read to its length, not to the comma");
	ok(parse_gpu_index("0", 1, &index, &gi, &ci) == 1 && index == 0, "GPU 0: an index");
	ok(parse_gpu_index("0/2.0", 5, &index, &gi, &ci) == 2 && index == 0 && gi == 2 && ci == 0,
	   "0/2.0: GPU 0, GPU instance 2, compute instance 0");
	ok(parse_gpu_index("3/10.1", 6, &index, &gi, &ci) == 2 && index == 3 && gi == 10 && ci == 1, "3/10.1");
	static const char *const bad[] = {
		"", "/", "0/", "0/2", "0/2.", "0/.0", "/2.0", "0/2.0.1", "0/2/0", "0.2/0", "a/2.0", "0/2.0x",
		"0/-2.0", "0//2.0", "0/2..0", "0/4294967296.0", "GPU-aaaa", "MIG-0/2.0", " 0", "0 ",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		index = gi = ci = 9;
		ok(parse_gpu_index(bad[i], strlen(bad[i]), &index, &gi, &ci) == 0 && index == 9 && gi == 9 && ci == 9,
		   "GPU '%s' is neither an index nor an instance, output untouched", bad[i]);
	}
}

/* A run report's command: words quoted as a shell would need them to be typed again. */
static void test_shell_quote(void)
{
	static const struct {
		const char *word, *want;
	} cases[] = {
		{ "python3", "python3" },
		{ "train.py", "train.py" },
		{ "--lr=3e-4,x@y:z%/+_", "--lr=3e-4,x@y:z%/+_" },
		{ "", "''" },
		{ "exit 3", "'exit 3'" },
		{ "kill -TERM $$", "'kill -TERM $$'" },
		{ "it's", "'it'\\''s'" },
		{ "*", "'*'" },
		{ "a\tb", "'a?b'" },           /* a control character: made safe first */
		{ "x\033[2Jy", "'x?[2Jy'" },
		{ "caf\xc3\xa9", "'caf\xc3\xa9'" }, /* UTF-8: quoted, kept */
	};
	char out[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		shell_quote_word(cases[i].word, out, sizeof(out));
		is_str(out, cases[i].want, "shell_quote_word: a word as a shell needs it");
	}
	/* Cut to the buffer, always terminated and closed by its quote. */
	char small[8];
	shell_quote_word("a b c d e f g", small, sizeof(small));
	is_str(small, "'a b c'", "a word too long for the buffer is cut, quote closed");

	/* A whole command line, as hmn ps -l, CSV and hmn run's report show it. */
	static const char *const argv[] = { "python3", "train.py", "--name=it's mine", "", "a\nb\033[2J", NULL };
	char *line = command_text(argv, strv_count(argv));
	is_str(line, "python3 train.py '--name=it'\\''s mine' '' 'a?b?[2J'", "command_text: words quoted, one space apart");
	free(line);
	line = command_text(argv, 0);
	is_str(line, "", "command_text: no words, an empty line");
	free(line);
	/* Every byte a quote: the longest a word grows (4 bytes each), within the line's room. */
	char quotes[4097];
	memset(quotes, '\'', 4096);
	quotes[4096] = '\0';
	const char *const many[] = { quotes, quotes };
	line = command_text(many, 2);
	ok(line && strlen(line) == 2 * (2 + 4 * 4096) + 1, "4 KiB of quotes, twice: each quoted whole (%zu bytes)",
	   line ? strlen(line) : 0);
	free(line);
}

static char *cut(const char *text, size_t columns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	print_cut(f, text, strlen(text), columns);
	fclose(f);
	return buf;
}

static void test_cut(void)
{
	static const struct { const char *text; size_t columns; const char *want, *why; } cases[] = {
		{ "python3", 7, "python3", "what fits is whole" },
		{ "python3", 6, "pytho\u2026", "one column short: the last is \"\u2026\"" },
		{ "caf\xc3\xa9s", 4, "caf\u2026", "a cut never splits a UTF-8 sequence" },
		{ "\xe8\xae\xad\xe7\xbb\x83x", 4, "\xe8\xae\xad\u2026", "a wide character never straddles the cut" },
		{ "\xe8\xae\xad\xe7\xbb\x83x", 3, "\xe8\xae\xad\u2026", "nor fills the column the \"\u2026\" needs" },
		{ "abc", 0, "\u2026", "no room at all: the mark alone" },
		{ "", 3, "", "nothing" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = cut(cases[i].text, cases[i].columns);
		char why[96];
		snprintf(why, sizeof(why), "print_cut: %s", cases[i].why);
		is_str(s, cases[i].want, why);
		free(s);
	}
}

/* One table of names for both OSes: C's six everywhere, POSIX's where it has them. */
static void test_signal_names(void)
{
	char buf[SIGNAL_NAME_MAX];
	is_str(signal_name(SIGTERM, buf), "SIGTERM", "SIGTERM by name");
	is_str(signal_name(SIGSEGV, buf), "SIGSEGV", "SIGSEGV by name");
#ifdef SIGKILL
	is_str(signal_name(SIGKILL, buf), "SIGKILL", "SIGKILL by name (POSIX)");
	is_str(signal_name(SIGXCPU, buf), "SIGXCPU", "SIGXCPU by name (POSIX)");
#endif
	is_str(signal_name(99, buf), "signal 99", "an unnamed one by number");
}

int main(void)
{
	test_signal_names();
	test_cut();
	test_table_cut();
	test_shell_quote();
	test_size_arguments();
	test_list_items();
	test_sizes();
	test_durations();
	test_gpu_names();
	test_utf8();
	test_sanitizer();
	test_table();
	return tap_done();
}
