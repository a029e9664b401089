/*
 * What Windows hands hmn, parsed: UTF-16 names into UTF-8, the PDH GPU
 * counter instance names, path basenames with either separator. Runs on
 * Linux and, cross-built, under Wine.
 */
#include <stdlib.h>

#include "internal.h"
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

int main(void)
{
	test_utilization();
	test_utf16();
	test_pdh_instances();
	test_basenames();
	return tap_done();
}
