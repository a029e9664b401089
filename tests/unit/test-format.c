/* Size formatting, the terminal sanitizer, UTF-8 repair and table layout. */
#include <stdlib.h>

#include "format.h"
#include "units.h"
#include "hmn.h"
#include "table.h"
#include "tap.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

static void test_sizes(void)
{
	char b[SIZE_TEXT_MAX];

	is_str(format_size(0, false, b), "0 MiB", "zero");
	is_str(format_size(512 * MIB, false, b), "512 MiB", "512 MiB");
	is_str(format_size(MIB / 2 - 1, false, b), "0 MiB", "just under half a MiB rounds down");
	is_str(format_size(MIB / 2, false, b), "1 MiB", "half a MiB rounds up");
	is_str(format_size(1023 * MIB, false, b), "1023 MiB", "1023 MiB stays MiB");
	is_str(format_size(1024 * MIB - 1, false, b), "1.0 GiB", "a byte under 1 GiB rounds to 1.0 GiB");
	is_str(format_size(GIB, false, b), "1.0 GiB", "1 GiB");
	is_str(format_size(8 * GIB + GIB / 5, false, b), "8.2 GiB", "8.2 GiB");
	is_str(format_size(81559 * MIB, false, b), "79.6 GiB", "an H100's 81559 MiB");
	is_str(format_size(GIB * 10 - 1, false, b), "10.0 GiB", "rounding carries into the integer part");
	is_str(format_size(UINT64_MAX - 1, false, b), "17179869184.0 GiB", "near 2^64 does not overflow");
	is_str(format_size(HMN_UNKNOWN, false, b), "-", "unknown is a dash");
	is_str(format_size(HMN_UNKNOWN, true, b), "-", "unknown is a dash with --bytes too");
	is_str(format_size(85899345920ULL, true, b), "85899345920", "--bytes prints the exact count");
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
	ok(w == 4 && !strcmp(out, "caf\xc3\xa9"), "valid UTF-8 kept, width in code points");
	sanitize_for_terminal("abcdef", out, 4);
	is_str(out, "abc", "output is bounded and terminated");
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
	const char *cells[] = { "7", "512 MiB", "a", "12345", "8.2 GiB", "long\x1bname" };
	for (size_t i = 0; i < 6; i++)
		table_add_cell(t, cells[i]);
	char *s = render(t, false);
	is_str(s, "  PID     VRAM  NAME\n"
		  "    7  512 MiB  a\n"
		  "12345  8.2 GiB  long?name\n", "columns align, name last, no trailing spaces");
	free(s);
	s = render(t, true);
	is_str(s, "    7  512 MiB  a\n12345  8.2 GiB  long?name\n", "--no-header drops the header");
	free(s);
	table_free(t);

	static const struct table_column cols2[] = { { "GPU", ALIGN_RIGHT }, { "NAME", ALIGN_LEFT }, { "SOURCE", ALIGN_LEFT } };
	t = table_new(cols2, 3);
	const char *cells2[] = { "0", "caf\xc3\xa9", "nvml", "1", "NVIDIA H100", "nvml" };
	for (size_t i = 0; i < 6; i++)
		table_add_cell(t, cells2[i]);
	s = render(t, false);
	is_str(s, "GPU  NAME         SOURCE\n"
		  "  0  caf\xc3\xa9         nvml\n"
		  "  1  NVIDIA H100  nvml\n", "a padded name column counts code points, not bytes");
	free(s);
	ok(table_free(NULL) == NULL, "table_free(NULL) is a no-op");
	table_free(t);
}

static void test_size_arguments(void)
{
	static const struct { const char *text; uint64_t bytes; } good[] = {
		{ "0", 0 }, { "1", 1 }, { "1b", 1 }, { "1B", 1 }, { "512M", 512ULL << 20 },
		{ "512mib", 512ULL << 20 }, { "1.5GiB", 3ULL << 29 }, { "1.5g", 3ULL << 29 },
		{ "40GiB", 40ULL << 30 }, { "1KB", 1000 }, { "2.5MB", 2500000 }, { "1tb", 1000000000000ULL },
		{ "16TiB", 16ULL << 40 }, { "18446744073709551615", UINT64_MAX }, { "0.5k", 512 },
		{ "16777215TiB", 16777215ULL << 40 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct size_arg a = { 0 };
		ok(parse_size(good[i].text, &a) && !a.is_percent && a.bytes == good[i].bytes, "SIZE %s", good[i].text);
	}
	static const char *const bad[] = {
		"", " ", "-1", "+1", "abc", "10x", "1e9", "1e999", "99999999TiB", "16777216TiB",
		"18446744073709551616", "1..5G", "1.5.G", ".", "G", "1 G", "1G ", "nan", "inf", "0x10",
		"%", "0%", "101%", "100.5%", "-5%", "1GiBB", "1Gi", "\xff", "1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct size_arg a = { .bytes = 7 };
		ok(!parse_size(bad[i], &a) && a.bytes == 7, "SIZE '%s' refused, output untouched", bad[i]);
	}
	struct size_arg pct;
	ok(parse_size("25%", &pct) && pct.is_percent && pct.percent == 25, "SIZE 25%%");
	is_u64(size_for_total(&pct, 85520809984ULL), 21380202496ULL, "25%% of an H100's total");
	ok(parse_size("33.3%", &pct), "SIZE 33.3%%");
	is_u64(size_for_total(&pct, 1000), 333, "33.3%% of 1000, rounded up");
	ok(parse_size("100%", &pct) && size_for_total(&pct, UINT64_MAX) == UINT64_MAX, "100%% of 2^64-1 does not wrap");
	struct size_arg bytes = { .bytes = 5 };
	is_u64(size_for_total(&bytes, 1), 5, "a size in bytes ignores the total");

	static const struct { const char *text; uint64_t ms; } durations[] = {
		{ "1", 1000 }, { "1s", 1000 }, { "250ms", 250 }, { "1.5s", 1500 }, { "2m", 120000 },
		{ "1h", 3600000 }, { "0.1", 100 }, { "0.001s", 1 }, { "8784h", 8784ULL * 3600000 },
	};
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t ms = 0;
		ok(parse_duration(durations[i].text, &ms) && ms == durations[i].ms, "DURATION %s", durations[i].text);
	}
	static const char *const bad_durations[] = {
		"", "0", "0s", "0ms", "0.0001s", "-1s", "+1s", "abc", "10x", "1e3", "1S", "1 s", "1sec",
		"8785h", "99999999999999999999", "1.s.", "ms", "nan", "1d",
	};
	for (size_t i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++) {
		uint64_t ms = 7;
		ok(!parse_duration(bad_durations[i], &ms) && ms == 7, "DURATION '%s' refused", bad_durations[i]);
	}
}

int main(void)
{
	test_size_arguments();
	test_sizes();
	test_utf8();
	test_sanitizer();
	test_table();
	return tap_done();
}
