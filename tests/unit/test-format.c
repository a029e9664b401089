/* Size formatting, the terminal sanitizer, UTF-8 repair and table layout. */
#include <stdlib.h>

#include "format.h"
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

int main(void)
{
	test_sizes();
	test_utf8();
	test_sanitizer();
	test_table();
	return tap_done();
}
