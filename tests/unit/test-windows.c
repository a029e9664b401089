/*
 * What Windows hands hmn, parsed: UTF-16 names into UTF-8, the PDH GPU
 * counter instance names, path basenames with either separator. Runs on
 * Linux and, cross-built, under Wine.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dxgi-pdh/dxgi-pdh-parse.h"
#include "hmn.h"
#include "os/windows/command-line.h"
#include "util/text.h"
#include "tap.h"

static void test_utf16(void)
{
	char out[64];
	const uint16_t ascii[] = { 'n', 'v', 'i', 'd', 'i', 'a', '-', 's', 'm', 'i', 0 };
	ok(utf16_to_utf8(ascii, 64, out, sizeof(out)) == 10 && strcmp(out, "nvidia-smi") == 0, "ASCII");
	const uint16_t accents[] = { 'J', 0xe9, 'r', 0xf4, 'm', 'e', 0 }; /* Jérôme */
	ok(utf16_to_utf8(accents, 64, out, sizeof(out)) == 8 && strcmp(out, "J\xc3\xa9r\xc3\xb4me") == 0,
	   "two-byte characters");
	const uint16_t cjk[] = { 0x8a08, 0x7b97, 0 }; /* 計算 */
	ok(strcmp((utf16_to_utf8(cjk, 64, out, sizeof(out)), out), "\xe8\xa8\x88\xe7\xae\x97") == 0,
	   "three-byte characters");
	const uint16_t emoji[] = { 0xd83d, 0xde80, 0 }; /* U+1F680 */
	ok(utf16_to_utf8(emoji, 64, out, sizeof(out)) == 4 && strcmp(out, "\xf0\x9f\x9a\x80") == 0,
	   "a surrogate pair is one four-byte character");
	const uint16_t lone[] = { 'a', 0xd83d, 'b', 0xde80, 0 };
	ok(strcmp((utf16_to_utf8(lone, 64, out, sizeof(out)), out), "a\xef\xbf\xbd" "b\xef\xbf\xbd") == 0,
	   "lone surrogates become U+FFFD");
	ok(utf16_to_utf8(cjk, 64, out, 5) == 3 && strcmp(out, "\xe8\xa8\x88") == 0,
	   "cut to fit at a character's boundary, never inside one");
	ok(utf16_to_utf8(ascii, 3, out, sizeof(out)) == 3 && strcmp(out, "nvi") == 0, "n units, no NUL needed");
	ok(utf16_to_utf8(ascii, 64, out, 1) == 0 && out[0] == '\0', "room for the NUL alone");
}

static void test_pdh_instances(void)
{
	struct pdh_instance i;
	ok(pdh_parse_instance("pid_1234_luid_0x00000000_0x0000D1A3_phys_0", &i) && i.has_pid &&
		   i.pid == 1234 && i.luid_high == 0 && i.luid_low == 0xd1a3 && i.phys == 0 && !i.engine_type[0],
	   "GPU Process Memory instance");
	ok(pdh_parse_instance("luid_0x00000001_0xFFFFFFFF_phys_1", &i) && !i.has_pid &&
		   i.luid_high == 1 && i.luid_low == 0xffffffff && i.phys == 1,
	   "GPU Adapter Memory instance");
	ok(pdh_parse_instance("pid_4_luid_0x00000000_0x00011E6B_phys_0_eng_3_engtype_3D", &i) &&
		   i.pid == 4 && strcmp(i.engine_type, "3D") == 0,
	   "GPU Engine instance: its engine type");
	ok(pdh_parse_instance("pid_9_luid_0x00000000_0x00011E6B_phys_0_eng_5_engtype_Compute_0", &i) &&
		   strcmp(i.engine_type, "Compute_0") == 0,
	   "an engine type with an underscore");
	ok(!pdh_parse_instance("pid__luid_0x0_0x1_phys_0", &i), "no pid digits");
	ok(!pdh_parse_instance("pid_99999999999_luid_0x0_0x1_phys_0", &i), "a pid past 32 bits");
	ok(!pdh_parse_instance("pid_1_luid_0x123456789_0x1_phys_0", &i), "a LUID half past 32 bits");
	ok(!pdh_parse_instance("pid_1_luid_0x_0x1_phys_0", &i), "no hex digits");
	ok(!pdh_parse_instance("pid_1_luid_0x0_0x1_phys_", &i), "no phys digits");
	ok(!pdh_parse_instance("pid_1_luid_0x0_0x1_phys_0x", &i), "trailing junk");
	ok(!pdh_parse_instance("pid_1_luid_0x0_0x1_phys_0_eng_1_engtype_", &i), "an empty engine type");
	ok(!pdh_parse_instance("_Total", &i), "_Total is no instance of ours");
	ok(!pdh_parse_instance("", &i), "empty");
}

static void test_basenames(void)
{
	is_str(path_basename_any("C:\\Program Files\\Blender\\blender.exe"), "blender.exe", "backslashes");
	is_str(path_basename_any("\\\\?\\C:\\Windows\\System32\\dwm.exe"), "dwm.exe", "a \\\\?\\ path");
	is_str(path_basename_any("C:/tools/llama-server.exe"), "llama-server.exe", "forward slashes");
	is_str(path_basename_any("python.exe"), "python.exe", "no folder");
}

static struct pdh_engine_load load(const char *name, double percent)
{
	struct pdh_engine_load l = { .percent = percent };
	if (!pdh_parse_instance(name, &l.instance))
		printf("# cannot parse %s\n", name);
	return l;
}

static void test_utilization(void)
{
	const struct pdh_engine_load loads[] = {
		/* Adapter A: 3D engine 0 used by two processes (30 + 25), compute engine 5 by one (40). */
		load("pid_100_luid_0x00000000_0x0000D1A3_phys_0_eng_0_engtype_3D", 30),
		load("pid_200_luid_0x00000000_0x0000D1A3_phys_0_eng_0_engtype_3D", 25),
		load("pid_200_luid_0x00000000_0x0000D1A3_phys_0_eng_5_engtype_Compute_0", 40),
		load("pid_300_luid_0x00000000_0x0000D1A3_phys_0_eng_1_engtype_Copy", 0),
		/* Adapter B: saturated (its sum above 100 is PDH's rounding). */
		load("pid_100_luid_0x00000000_0x0000E000_phys_0_eng_0_engtype_3D", 70),
		load("pid_400_luid_0x00000000_0x0000E000_phys_0_eng_0_engtype_3D", 45),
	};
	size_t n = sizeof(loads) / sizeof(loads[0]);
	ok(loads[2].instance.has_engine && loads[2].instance.engine == 5, "engine number parsed");
	is_u64(pdh_adapter_utilization(loads, n, 0, 0xD1A3), 55, "the busiest engine: 3D, 30 + 25");
	is_u64(pdh_adapter_utilization(loads, n, 0, 0xE000), 100, "at most 100");
	is_u64(pdh_adapter_utilization(loads, n, 0, 0xBEEF), HMN_VALUE_UNKNOWN, "an adapter with no engine listed: unknown");
	is_u64(pdh_adapter_utilization(loads, 0, 0, 0xD1A3), HMN_VALUE_UNKNOWN, "no counters at all: unknown");
	const struct pdh_engine_load idle[] = { load("pid_100_luid_0x00000000_0x0000D1A3_phys_0_eng_0_engtype_3D", 0) };
	is_u64(pdh_adapter_utilization(idle, 1, 0, 0xD1A3), 0, "an idle adapter: 0, known");
}

/* ASCII text as UTF-16, for the command-line tests. */
static const uint16_t *u16(const char *s)
{
	static uint16_t bufs[4][256];
	static int next;
	uint16_t *b = bufs[next++ % 4];
	size_t i = 0;
	for (; s[i] && i < 255; i++)
		b[i] = (uint8_t)s[i];
	b[i] = 0;
	return b;
}

/* A UTF-16 line back as ASCII ('?' for anything else). */
static const char *ascii(const uint16_t *w)
{
	static char out[1024];
	size_t i = 0;
	for (; w[i] && i < sizeof(out) - 1; i++)
		out[i] = w[i] < 0x80 ? (char)w[i] : '?';
	out[i] = 0;
	return out;
}

static void test_exit_status(void)
{
	int status = -1;
	ok(windows_exit_status(0, &status) == NULL && status == 0, "0 is 0");
	ok(windows_exit_status(255, &status) == NULL && status == 255, "255 is 255");
	const char *why = windows_exit_status(256, &status);
	ok(why && status == 1, "exit(256) is a failure (1), not 0: %s", why ? why : "(null)");
	why = windows_exit_status(512, &status);
	ok(why && status == 1, "exit(512) is 1, not 0");
	why = windows_exit_status(0xC0000005, &status);
	ok(why && strstr(why, "access violation") && status == 139,
	   "an access violation is 139 (as SIGSEGV), not 5: %s", why ? why : "(null)");
	why = windows_exit_status(0xC00000FD, &status);
	ok(why && strstr(why, "stack overflow") && status == 139, "a stack overflow");
	why = windows_exit_status(0xC0000094, &status);
	ok(why && strstr(why, "division by zero") && status == 136, "an integer division by zero (as SIGFPE)");
	why = windows_exit_status(0xC000001D, &status);
	ok(why && strstr(why, "illegal instruction") && status == 132, "an illegal instruction (as SIGILL)");
	why = windows_exit_status(0xC0000409, &status);
	ok(why && strstr(why, "fail fast") && status == 134, "abort()'s fail fast (as SIGABRT)");
	why = windows_exit_status(0xC000013A, &status);
	ok(why && status == 130, "Ctrl-C's exit is 130");
	why = windows_exit_status(0xC0000135, &status);
	ok(why && strstr(why, "DLL") && status == 126, "a DLL not found: found, could not run (126)");
	why = windows_exit_status(0xC0DEC0DE, &status);
	ok(why && strstr(why, "NTSTATUS") && status == 134, "an unnamed NTSTATUS error is a crash");
	why = windows_exit_status(0xFFFFFFFF, &status);
	ok(why && !strstr(why, "NTSTATUS") && status == 255,
	   "exit(-1) is 255, as on POSIX, not a crash: %s, %d", why ? why : "(null)", status);
	why = windows_exit_status(0xFFFFFFFE, &status);
	ok(why && status == 254, "exit(-2) is 254");
	why = windows_exit_status(0xFFFFFF80, &status);
	ok(why && status == 128, "exit(-128) is 128");
	why = windows_exit_status(0xFFFFFF00, &status);
	ok(why && status == 1, "exit(-256), whose low 8 bits are 0, is 1, never 0 (success)");
	why = windows_exit_status(0xFFFFFEFF, &status);
	ok(why && !strstr(why, "NTSTATUS") && status == 1,
	   "exit(-257) is no crash either (bit 28 set: no NTSTATUS has it): 1");
	why = windows_exit_status(0xEFFFFFFF, &status);
	ok(why && strstr(why, "NTSTATUS") && status == 134,
	   "an unhandled RaiseException(0xFFFFFFFF) ends with 0xEFFFFFFF (bit 28 cleared): a crash");
	why = windows_exit_status(0xE06D7363, &status);
	ok(why && status == 134, "an uncaught C++ exception (0xE06D7363) is a crash");
	bool low_byte = true;
	for (uint32_t code = 0xFFFFFF00; low_byte; code++) {
		windows_exit_status(code, &status);
		low_byte = status == ((code & 0xff) ? (int)(code & 0xff) : 1);
		if (!low_byte)
			ok(0, "0x%08X maps to %d", (unsigned)code, status);
		if (code == 0xFFFFFFFF)
			break;
	}
	if (low_byte)
		ok(1, "exit(-1) to exit(-256): their low 8 bits, never 0");
	for (uint32_t code = 256; code < 0x20000; code += 256) {
		windows_exit_status(code, &status);
		if (status == 0) {
			ok(0, "%u maps to 0", (unsigned)code);
			return;
		}
	}
	ok(1, "no multiple of 256 maps to 0");
}

static void test_pathext(void)
{
	struct pathext_entry e[8];
	size_t n = pathext_split(NULL, e, 8);
	ok(n == 4 && strcmp(ascii(e[0].ext), ".COM") == 0 && strcmp(ascii(e[3].ext), ".CMD") == 0,
	   "unset: .COM;.EXE;.BAT;.CMD, in cmd.exe's order");
	n = pathext_split(u16(".exe;;.Cmd;cmd;.EXE;.ps1;"), e, 8);
	ok(n == 3 && strcmp(ascii(e[0].ext), ".exe") == 0 && strcmp(ascii(e[1].ext), ".Cmd") == 0 &&
		   strcmp(ascii(e[2].ext), ".ps1") == 0,
	   "empty entries, entries without a dot and repeats are skipped");
	ok(pathext_split(u16(";;;"), e, 8) == 0, "nothing valid: none");
	ok(pathext_split(u16(".A;.B;.C"), e, 2) == 2, "at most max");
	ok(pathext_split(u16(".THISISFARTOOLONGFORANEXTENSION;.EXE"), e, 8) == 1, "an overlong entry is skipped");
	n = pathext_split(NULL, e, 8);
	ok(pathext_has(u16("npm.CMD"), e, n) && pathext_has(u16("node.exe"), e, n), "known extensions, any case");
	ok(!pathext_has(u16("npm"), e, n) && !pathext_has(u16("x.ps1"), e, n) && !pathext_has(u16(".exe"), e, n),
	   "no extension, another one, an extension alone");
	ok(windows_is_batch(u16("C:\\x\\npm.cmd")) && windows_is_batch(u16("run.BAT")) &&
		   !windows_is_batch(u16("run.exe")) && !windows_is_batch(u16("bat")),
	   "batch files are .bat and .cmd");
}

/*
 * The names Windows runs as a batch file although they do not end with .bat
 * or .cmd (CVE-2024-43402): trailing dots and spaces, which Win32 path rules
 * drop, and the default stream's "::$DATA".
 */
static void test_batch_names(void)
{
	static const char *const batch[] = {
		"run.bat.", "run.bat  ", "run.bat::$DATA", "RUN.BAT. .", "C:\\x\\run.cmd::$data",
		"run.bat.::$DATA", "run.bat::$DATA. ", "foo.bat......... ", "foo.bat . . . . ", "x.Cmd ",
	};
	static const char *const not_batch[] = {
		"run.bat.exe", "run.batch", "run.exe.", "run.exe::$DATA", "bat.", "run.bat:x", ".", "",
	};
	for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++)
		ok(windows_is_batch(u16(batch[i])), "'%s' runs as a batch file", batch[i]);
	for (size_t i = 0; i < sizeof(not_batch) / sizeof(not_batch[0]); i++)
		ok(!windows_is_batch(u16(not_batch[i])), "'%s' is no batch file", not_batch[i]);
	ok(windows_name_length(u16("run.bat. .")) == 7 && windows_name_length(u16("x::$DATA")) == 1 &&
		   windows_name_length(u16("C:\\run.exe")) == 10 && windows_name_length(u16("")) == 0 &&
		   windows_name_length(u16(". .::$DATA.")) == 0,
	   "what Windows drops from a name: trailing dots and spaces, the default stream");
}

static void test_cmdline(void)
{
	uint16_t line[64];
	size_t len = 0;
	line[0] = 0;
	ok(cmdline_append(line, 64, &len, u16("C:\\a b\\x.exe")) == 0 &&
		   cmdline_append(line, 64, &len, u16("say \"hi\"")) == 0 &&
		   cmdline_append(line, 64, &len, u16("dir\\")) == 0 && cmdline_append(line, 64, &len, u16("")) == 0,
	   "arguments appended");
	is_str(ascii(line), "\"C:\\a b\\x.exe\" \"say \\\"hi\\\"\" \"dir\\\\\" \"\"", "quoted as the C runtime reads them");
	size_t before = len;
	ok(cmdline_append(line, 64, &len, u16("0123456789012345678901234567890123456789")) == -E2BIG &&
		   len == before && strlen(ascii(line)) == before,
	   "an argument that does not fit: -E2BIG, the line as it was (never cut)");
	static uint16_t big[32768];
	len = 0;
	big[0] = 0;
	static uint16_t word[16384];
	for (size_t i = 0; i < 16383; i++)
		word[i] = 'a';
	word[16383] = 0;
	ok(cmdline_append(big, 32768, &len, word) == 0 && len == 16385, "16,385 characters fit");
	ok(cmdline_append(big, 32768, &len, word) == -E2BIG && len == 16385, "32,771 do not: -E2BIG");
	word[16379] = 0;
	ok(cmdline_append(big, 32768, &len, word) == 0 && len == 32767, "32,767 fit exactly");

	len = 0;
	line[0] = 0;
	ok(cmdline_append_batch(line, 64, &len, u16("plain-arg_1.txt")) == 0, "a plain batch argument");
	is_str(ascii(line), "plain-arg_1.txt", "left unquoted");
	static uint16_t bl[256];
	len = 0;
	bl[0] = 0;
	ok(cmdline_append_batch(bl, 256, &len, u16("a&b|c")) == 0 && cmdline_append_batch(bl, 256, &len, u16("%PATH%")) == 0 &&
		   cmdline_append_batch(bl, 256, &len, u16("\"&calc.exe")) == 0 &&
		   cmdline_append_batch(bl, 256, &len, u16("dir\\")) == 0 && cmdline_append_batch(bl, 256, &len, u16("")) == 0,
	   "hostile batch arguments appended");
	is_str(ascii(bl), "\"a&b|c\" \"%%cd:~,%PATH%%cd:~,%\" \"\"\"&calc.exe\" \"dir\\\\\" \"\"",
	       "quoted, quotes doubled, each % made inert");
	len = 0;
	bl[0] = 0;
	ok(cmdline_append_batch(bl, 256, &len, u16("a\nb")) == -EINVAL && cmdline_append_batch(bl, 256, &len, u16("a\rb")) == -EINVAL &&
		   len == 0,
	   "a line break cannot be passed to a batch file safely: refused");
	ok(cmdline_append_batch(line, 20, &(size_t){ 0 }, u16("01234567890123456789")) == -E2BIG, "-E2BIG there too");
}

int main(void)
{
	test_exit_status();
	test_pathext();
	test_batch_names();
	test_cmdline();
	test_utilization();
	test_utf16();
	test_pdh_instances();
	test_basenames();
	return tap_done();
}
