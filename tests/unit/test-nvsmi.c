/*
 * nvidia-smi's CSV: the real recordings in tests/fixtures/nvidia-smi/ (H100,
 * H200, MIG, L40S, GeForce on driver 610, Windows WDDM, 2021 drivers) parsed
 * as recorded, and hostile input. $TESTS_DIR names tests/.
 */
#include <stdlib.h>

#include "gpu/nvidia-smi/nvidia-smi.h"
#include "gpu/pci.h"
#include "hmn.h"
#include "util/text.h"
#include "fixture.h"
#include "tap.h"

#define MIB (1024ULL * 1024)

static char *slurp(const char *name, size_t *len)
{
	return slurp_fixture("nvidia-smi", name, len);
}

/* The projection files: index, name, uuid, memory.total, .used, .free, .reserved (units included). */
static const enum smi_field projection[] = {
	SMI_INDEX, SMI_NAME, SMI_UUID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED, SMI_MEMORY_FREE,
	SMI_MEMORY_RESERVED,
};
/* The 2021 files: index, name, uuid, total, used, free, driver_version, driver_model. */
static const enum smi_field legacy[] = {
	SMI_INDEX, SMI_NAME, SMI_UUID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED, SMI_MEMORY_FREE,
	SMI_DRIVER_VERSION, SMI_OTHER,
};
/* The recorded compute-apps query: timestamp, gpu_name, gpu_bus_id, gpu_serial, gpu_uuid, pid, process_name, used_gpu_memory. */
static const enum smi_field apps[] = {
	SMI_OTHER, SMI_OTHER, SMI_OTHER, SMI_OTHER, SMI_GPU_UUID, SMI_PID, SMI_PROCESS_NAME,
	SMI_USED_MEMORY,
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void gpu_fixture(const char *file, const enum smi_field *fields, size_t n_fields,
			const char *name, uint64_t total, uint64_t used, uint64_t free_mib,
			uint64_t reserved)
{
	size_t len, count = 0, skipped = 0;
	char *text = slurp(file, &len);
	struct smi_gpu_row *rows = NULL;

	ok(smi_parse_gpus(text, len, fields, n_fields, &rows, &count, &skipped) == 0 && count == 1,
	   "%s: one GPU", file);
	ok(skipped == 1, "%s: the header line is skipped, and counted", file);
	if (count == 1) {
		is_str(rows[0].name, name, "name");
		is_u64(rows[0].total, total * MIB, "total in bytes");
		is_u64(rows[0].used, used * MIB, "used in bytes");
		is_u64(rows[0].free, free_mib * MIB, "free in bytes");
		is_u64(rows[0].reserved, reserved == HMN_UNKNOWN ? HMN_UNKNOWN : reserved * MIB, "reserved");
	}
	free(rows);
	free(text);
}

static void test_gpu_recordings(void)
{
	gpu_fixture("linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA H100 80GB HBM3", 81559, 19818, 61263, 479);
	gpu_fixture("linux-x86_64__nvidia-h200__590.48.01__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA H200", 143771, 32362, 110796, 614);
	gpu_fixture("linux-x86_64__nvidia-h100-mig__590.48.01__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA H100 80GB HBM3", 81559, 11125, 69956, 479);
	gpu_fixture("windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA GeForce RTX 2080 SUPER", 8192, 1366, 6622, 205);
	gpu_fixture("linux-x86_64__nvidia-l40s__595.80__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA L40S", 46068, 1235, 44225, 609);
	gpu_fixture("linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__load__query_gpu_memory_projection.csv",
		    projection, N(projection), "NVIDIA GeForce RTX 2080 SUPER", 8192, 815, 6978,
		    400);
	gpu_fixture("legacy__output_ubuntu_20.04_v465.27__query_gpu_memory_projection.csv",
		    legacy, N(legacy), "NVIDIA GeForce RTX 2080 SUPER", 7979, 344, 7635, HMN_UNKNOWN);

	size_t len, count;
	struct smi_gpu_row *rows = NULL;
	char *text = slurp("legacy__output_win10_v466.63__query_gpu_memory_projection.csv", &len);
	smi_parse_gpus(text, len, legacy, N(legacy), &rows, &count, NULL);
	ok(count == 1 && !strcmp(rows[0].driver_version, "466.63"), "2021 Windows: driver version read");
	free(rows);
	free(text);
}

static void test_process_recordings(void)
{
	size_t len, count = 0, skipped = 0;
	struct smi_process_row *rows = NULL;
	char *text = slurp("linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load__query_compute_apps.csv", &len);

	ok(smi_parse_processes(text, len, apps, N(apps), &rows, &count, &skipped) == 0 && count == 3,
	   "H100 under load: three processes");
	ok(count == 3 && rows[0].pid == 11327 && rows[0].used == 2566 * MIB &&
	   !strcmp(rows[0].name, "/root/tools/memhog") &&
	   !strcmp(rows[0].gpu_uuid, "GPU-00000000-0000-0000-0000-000000000000"), "first row exactly");
	ok(count == 3 && rows[2].pid == 11345 && rows[2].used == 15690 * MIB &&
	   !strcmp(rows[2].name, "./gpu_burn"), "last row exactly");
	free(rows);
	free(text);

	text = slurp("linux-x86_64__nvidia-l40s__595.80__load__query_compute_apps.csv", &len);
	ok(smi_parse_processes(text, len, apps, N(apps), &rows, &count, &skipped) == 0 && count == 2 &&
	   rows[0].pid == 20037 && rows[0].used == 538 * MIB && !strcmp(rows[0].name, "ffmpeg") &&
	   rows[1].pid == 20038 && rows[1].used == 681 * MIB, "L40S: two ffmpeg processes exactly");
	free(rows);
	free(text);

	text = slurp("linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04__load__query_compute_apps.csv", &len);
	ok(smi_parse_processes(text, len, apps, N(apps), &rows, &count, &skipped) == 0 && count == 2 &&
	   rows[0].pid == 28512 && rows[0].used == 370 * MIB && rows[1].used == 230 * MIB,
	   "driver 610 GeForce: rows read exactly");
	free(rows);
	free(text);

	text = slurp("windows-x86_64__nvidia-geforce-rtx-2080-super__610.62__load__query_compute_apps.csv", &len);
	ok(smi_parse_processes(text, len, apps, N(apps), &rows, &count, &skipped) == 0 && count >= 20,
	   "Windows WDDM: every process row read");
	bool all_unknown = true, spaces_kept = false;
	for (size_t i = 0; i < count; i++) {
		all_unknown = all_unknown && rows[i].used == HMN_UNKNOWN;
		if (rows[i].pid == 17648)
			spaces_kept = !strcmp(rows[i].name,
				"C:\\Program Files\\NVIDIA Corporation\\NVIDIA App\\CEF\\NVIDIA Overlay.exe");
	}
	ok(all_unknown, "Windows WDDM: [N/A] memory is unknown, never a number");
	ok(spaces_kept, "Windows: a name with spaces is kept whole");
	is_str(path_basename_any("C:\\Windows\\System32\\dwm.exe"), "dwm.exe", "Windows basename");
	is_str(path_basename_any("/usr/bin/what ever\\033x"), "what ever\\033x",
	       "a POSIX path: a backslash is part of the name, not a separator");
	is_str(path_basename_any("/opt/a\\b/c\\d"), "c\\d", "only / separates a POSIX path");
	free(rows);
	free(text);
}

static void test_hostile(void)
{
	static const enum smi_field ours[] = { SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME };
	struct smi_process_row *rows = NULL;
	size_t count, skipped;
	const char *text =
		"42, 100, GPU-a, C:\\Program Files\\My, App\\x.exe\n"   /* a comma in the name */
		"43, [N/A], GPU-a, [Insufficient Permissions]\n"
		"44, 99999999999999999999, GPU-a, huge\n"
		"45, 12 GiB, GPU-a, wrong unit\n"
		"-1, 1, GPU-a, negative pid\n"
		"abc, 1, GPU-a, not a pid\n"
		"46\n"
		"\n\n\r\n"
		"47, 5, GPU-b, no newline at the end";
	ok(smi_parse_processes(text, strlen(text), ours, N(ours), &rows, &count, &skipped) == 0,
	   "hostile process lines parse");
	ok(count == 5 && skipped == 3, "five good rows; bad pids and a short line skipped");
	is_str(rows[0].name, "C:\\Program Files\\My, App\\x.exe", "a comma in a name stays in it");
	ok(rows[1].used == HMN_UNKNOWN && rows[1].name[0] == '\0', "[N/A] and [Insufficient Permissions] are unknown");
	ok(rows[2].used == HMN_UNKNOWN, "a size that overflows is unknown");
	ok(rows[3].used == HMN_UNKNOWN, "a size in an unknown unit is unknown");
	ok(rows[4].pid == 47 && !strcmp(rows[4].name, "no newline at the end"), "last line without newline");
	free(rows);

	static const enum smi_field gpu[] = { SMI_INDEX, SMI_MEMORY_TOTAL, SMI_MEMORY_USED, SMI_MEMORY_FREE,
					      SMI_DRIVER_VERSION, SMI_PCI_BUS_ID };
	struct smi_gpu_row *g = NULL;
	const char *gtext =
		"0, 1000, 10, 990, 610.62 [Deprecated; will be removed], 00000000:3B:00.0\r\n"
		"1, [GPU requires reset], [N/A], [N/A], 610.62, 00000000:3C:00.0\n"
		"2, 1000, 10\n"
		"3, 1000, 10, 990, 610.62, 00000000:3D:00.0, extra\n";
	ok(smi_parse_gpus(gtext, strlen(gtext), gpu, N(gpu), &g, &count, &skipped) == 0 && count == 1 &&
	   skipped == 3, "one good GPU line; a lost GPU, a short and a long line skipped");
	is_str(g[0].driver_version, "610.62", "the deprecation note after the version is dropped");
	is_str(g[0].pci_bus_id, "0000:3b:00.0", "bus id normalised; CRLF handled");
	free(g);

	size_t big = 1 << 20;
	char *huge = malloc(big + 1);
	memset(huge, 'x', big);
	huge[big] = '\0';
	ok(smi_parse_gpus(huge, big, gpu, N(gpu), &g, &count, &skipped) == 0 && count == 0 && skipped == 1,
	   "a 1 MiB line is skipped");
	free(g);
	ok(smi_parse_processes(huge, big, ours, N(ours), &rows, &count, &skipped) == 0 && count == 0,
	   "a 1 MiB process line is skipped");
	free(rows);
	free(huge);
	ok(smi_parse_gpus("", 0, gpu, N(gpu), &g, &count, NULL) == 0 && count == 0, "empty output: no GPU");
	free(g);

	static const char with_nul[] = "48, 1, GPU-a, [N/A]\0junk\n";
	ok(smi_parse_processes(with_nul, sizeof(with_nul) - 1, ours, N(ours), &rows, &count, NULL) == 0 &&
	   count == 1 && rows[0].name[0] == '\0', "a NUL byte cannot smuggle [N/A] in as a name");
	free(rows);

	static const struct { const char *cell; uint32_t mw; } watts[] = {
		{ "71.23", 71230 }, { "71.23 W", 71230 }, { "700.00", 700000 }, { "0", 0 }, { "5.5", 5500 },
		{ "1.2345", 1234 }, { "[N/A]", HMN_VALUE_UNKNOWN }, { "[Not Supported]", HMN_VALUE_UNKNOWN },
		{ "", HMN_VALUE_UNKNOWN }, { "-1", HMN_VALUE_UNKNOWN }, { "71.2 kW", HMN_VALUE_UNKNOWN },
		{ "99999999999", HMN_VALUE_UNKNOWN }, { "W", HMN_VALUE_UNKNOWN }, { ".5", HMN_VALUE_UNKNOWN },
	};
	for (size_t i = 0; i < N(watts); i++)
		is_u64(smi_parse_watts(watts[i].cell, strlen(watts[i].cell)), watts[i].mw, watts[i].cell);
	static const struct { const char *cell; uint32_t v; } integers[] = {
		{ "37", 37 }, { " 37 % ", 37 }, { "41 C", 41 }, { "[N/A]", HMN_VALUE_UNKNOWN },
		{ "3.5", HMN_VALUE_UNKNOWN }, { "4294967295", HMN_VALUE_UNKNOWN }, { "x", HMN_VALUE_UNKNOWN },
		{ "12 34", HMN_VALUE_UNKNOWN },
	};
	for (size_t i = 0; i < N(integers); i++)
		is_u64(smi_parse_integer(integers[i].cell, strlen(integers[i].cell)), integers[i].v, integers[i].cell);

	is_u64(smi_parse_mib("81559", 5), 81559 * MIB, "MiB without unit");
	is_u64(smi_parse_mib(" 81559 MiB ", 11), 81559 * MIB, "MiB with unit");
	is_u64(smi_parse_mib("[Not Supported]", 15), HMN_UNKNOWN, "[Not Supported]");
	is_u64(smi_parse_mib("N/A", 3), HMN_UNKNOWN, "N/A");
	is_u64(smi_parse_mib("17592186044416", 14), HMN_UNKNOWN, "2^44 MiB overflows in bytes");
	is_u64(smi_parse_mib("17592186044415", 14), 17592186044415ULL * MIB, "2^44-1 MiB fits");
}

/* The H100 of driver 580 (tests/fixtures/h100-580): a name with ESC and a newline in it. */
static void test_name_with_newline(void)
{
	static const enum smi_field recorded[] = { SMI_PID, SMI_PROCESS_NAME, SMI_USED_MEMORY, SMI_GPU_UUID };
	static const enum smi_field ours[] = { SMI_PID, SMI_USED_MEMORY, SMI_GPU_UUID, SMI_PROCESS_NAME };
	struct smi_process_row *rows = NULL;
	size_t len, count = 0, skipped = 9;
	char *text = slurp_fixture("h100-580", "nvidia-smi__query_compute_apps.csv", &len);

	ok(smi_parse_processes(text, len, recorded, N(recorded), &rows, &count, &skipped) == 0,
	   "H100 580 recording parses");
	ok(count == 6 && skipped == 0, "six processes, none lost to the newline in a name");
	bool whole = false;
	for (size_t i = 0; i < count; i++)
		if (rows[i].pid == 483)
			whole = !strcmp(rows[i].name, "/tmp/b/evil\x1b[31mRED\nline") && rows[i].used == 1218 * MIB;
	ok(whole, "the name spanning two lines is whole, and its row's figures right");
	free(rows);
	free(text);

	/* What hmn asks for (the name last): the continuation line ends the name. */
	static const char ours_text[] =
		"482, 1518, GPU-2be5, /tmp/b/a-very-long-process-name-beyond-fifteen\n"
		"483, 1218, GPU-2be5, /tmp/b/evil\x1b[31mRED\n"
		"line\n"
		"and more\n"
		"490, 2518, GPU-2be5, /tmp/b/trainer\n";
	ok(smi_parse_processes(ours_text, strlen(ours_text), ours, N(ours), &rows, &count, &skipped) == 0 &&
	   count == 3 && skipped == 0, "name last: three rows, continuation lines joined");
	ok(count == 3 && !strcmp(rows[1].name, "/tmp/b/evil\x1b[31mRED\nline\nand more"),
	   "name last: every line of the name kept");
	free(rows);

	/* A line that is no row and no continuation: skipped, the rows around it kept. */
	static const char broken[] = "481, /tmp/b/trainer\nabc\n490, /tmp/b/t, 2518, GPU-2be5\n";
	ok(smi_parse_processes(broken, strlen(broken), recorded, N(recorded), &rows, &count, &skipped) == 0 &&
	   count == 1 && skipped == 2 && rows[0].pid == 490, "no joining makes a row of two bad lines");
	free(rows);
}

/* DGX Spark's GB10: memory [N/A], the GPU otherwise whole. */
static void test_unified_rows(void)
{
	static const enum smi_field fields[] = {
		SMI_INDEX, SMI_UUID, SMI_NAME, SMI_PCI_BUS_ID, SMI_MEMORY_TOTAL, SMI_MEMORY_USED,
		SMI_MEMORY_FREE, SMI_MEMORY_RESERVED, SMI_DRIVER_VERSION,
	};
	static const char text[] =
		"0, GPU-dddddddd, NVIDIA GB10, 0000000F:01:00.0, [N/A], [N/A], [N/A], [N/A], 580.95.05\n"
		"1, GPU-eeeeeeee, NVIDIA X, 00000000:02:00.0, [N/A], 5, [N/A], 0, 580.95.05\n"
		"2, GPU-ffffffff, NVIDIA Y, 00000000:03:00.0, [Unknown Error], [Unknown Error], [Unknown Error], 0, 580.95.05\n";
	struct smi_gpu_row *rows = NULL;
	size_t count = 0, skipped = 0;
	ok(smi_parse_gpus(text, strlen(text), fields, N(fields), &rows, &count, &skipped) == 0,
	   "GB10 lines parse");
	ok(count == 1 && skipped == 2, "the [N/A] GPU kept; half-[N/A] and [Unknown Error] rows skipped");
	ok(count == 1 && rows[0].memory_not_available && rows[0].total == HMN_UNKNOWN &&
	   !strcmp(rows[0].name, "NVIDIA GB10"), "memory not available: unified, name kept");
	free(rows);
}

int main(void)
{
	test_gpu_recordings();
	test_process_recordings();
	test_hostile();
	test_name_with_newline();
	test_unified_rows();
	return tap_done();
}
