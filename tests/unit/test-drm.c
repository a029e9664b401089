/*
 * DRM fdinfo: the real samples in tests/fixtures/drm/samples/ (amdgpu dGPU,
 * an APU with its model in GTT, xe with mixed units, i915), hostile lines,
 * the client merge (dup, fork), and the pci.ids lookup. $TESTS_DIR names tests/.
 */
#include <errno.h>
#include <stdlib.h>

#include "gpu/drm/drm-parse.h"
#include "gpu/pci.h"
#include "hmn.h"
#include "fixture.h"
#include "tap.h"

#define KIB 1024ULL
#define MIB (1024ULL * 1024)

static char *slurp(const char *name, size_t *len)
{
	return slurp_fixture("drm", name, len);
}

static int parse(const char *text, struct drm_fdinfo *info)
{
	memset(info, 0xa5, sizeof(*info)); /* untouched on failure: poison shows it */
	return drm_parse_fdinfo(text, strlen(text), info);
}

static void test_sizes(void)
{
	uint64_t v = 0;
	ok(drm_parse_size("4096", 4, &v) && v == 4096, "a bare number is bytes");
	ok(drm_parse_size("\t2068 KiB", 9, &v) && v == 2068 * KIB, "KiB");
	ok(drm_parse_size("16 MiB", 6, &v) && v == 16 * MIB, "MiB");
	ok(drm_parse_size("0", 1, &v) && v == 0, "zero");
	ok(drm_parse_size("7 KiB  ", 7, &v) && v == 7 * KIB, "trailing blanks");
	ok(!drm_parse_size("", 0, &v), "empty: no value");
	ok(!drm_parse_size("   ", 3, &v), "blanks: no value");
	ok(!drm_parse_size("12 GiB", 6, &v), "GiB is not in the contract: refused, not guessed");
	ok(!drm_parse_size("12 kB", 5, &v), "kB is not KiB");
	ok(!drm_parse_size("12 KiB x", 8, &v), "trailing text");
	ok(!drm_parse_size("-12", 3, &v), "a sign");
	ok(!drm_parse_size("0x10", 4, &v), "hex");
	ok(drm_parse_size("18446744073709551615", 20, &v) && v == UINT64_MAX, "the largest number");
	ok(!drm_parse_size("18446744073709551616", 20, &v), "one more overflows");
	ok(!drm_parse_size("18014398509481984 MiB", 21, &v), "a unit that overflows");
	ok(!drm_parse_size("99999999999999999999999999 KiB", 30, &v), "a huge number");
}

static void test_samples(void)
{
	struct drm_fdinfo info;
	size_t len;
	char *text;

	text = slurp("samples/amdgpu-dgpu.fdinfo", &len);
	ok(drm_parse_fdinfo(text, len, &info) == 0, "amdgpu dGPU sample parses");
	is_str(info.driver, "amdgpu", "amdgpu: driver");
	is_str(info.pdev, "0000:08:00.0", "amdgpu: pdev");
	ok(info.has_client_id && info.client_id == 217, "amdgpu: client id 217");
	is_u64(info.local_bytes, 2068 * KIB, "amdgpu: VRAM from the deprecated drm-memory-vram");
	is_u64(info.shared_bytes, 8192 * KIB, "amdgpu: GTT is shared");
	ok(info.engines == HMN_PROCESS_GRAPHICS, "amdgpu: gfx engine used: graphics");
	free(text);

	/* The APU: the whole model in GTT. Counting only VRAM says 5 MiB. */
	text = slurp("samples/amdgpu-apu-gtt.excerpt", &len);
	ok(drm_parse_fdinfo(text, len, &info) == -EINVAL, "an excerpt without drm-driver is not a DRM file");
	char *full = malloc(len + 64);
	snprintf(full, len + 64, "drm-driver:\tamdgpu\n%s", text);
	ok(parse(full, &info) == 0, "the APU sample, with its driver line");
	is_u64(info.local_bytes, 5348 * KIB, "APU: 5 MiB of VRAM carve-out");
	is_u64(info.shared_bytes, 25258000 * KIB, "APU: 24 GiB in GTT");
	ok(!info.has_client_id && info.pdev[0] == '\0', "APU excerpt: no client id, no pdev");
	free(full);
	free(text);

	text = slurp("samples/xe-dgpu.fdinfo", &len);
	ok(drm_parse_fdinfo(text, len, &info) == 0, "xe sample parses");
	is_str(info.driver, "xe", "xe: driver");
	is_u64(info.local_bytes, 23992 * KIB, "xe: resident vram0 in KiB (shared 16 MiB is not resident)");
	is_u64(info.shared_bytes, 192 * KIB, "xe: gtt + system");
	ok(info.engines == HMN_PROCESS_GRAPHICS, "xe: rcs cycles: graphics; ccs 0: not compute");
	free(text);

	text = slurp("samples/i915-arc.fdinfo", &len);
	ok(drm_parse_fdinfo(text, len, &info) == 0, "i915 sample parses");
	is_u64(info.local_bytes, 2698140 * KIB, "i915: resident local0");
	is_u64(info.shared_bytes, HMN_UNKNOWN, "i915: no system region printed: unknown, not 0");
	ok(info.engines == HMN_PROCESS_GRAPHICS, "i915: render used, compute 0, capacity ignored");
	ok(info.has_client_id && info.client_id == 36, "i915: client id");
	free(text);
}

static void test_hostile(void)
{
	struct drm_fdinfo info;

	ok(parse("drm-driver:\tamdgpu\ndrm-resident-vram:\ndrm-resident-gtt: 5", &info) == 0 &&
		   info.local_bytes == HMN_UNKNOWN && info.shared_bytes == 5,
	   "no value: that line is skipped; the last line needs no newline");
	ok(parse("drm-driver: amdgpu\ndrm-resident-vram: 99999999999999999999 KiB\ndrm-resident-vram0: 1 MiB\n", &info) == 0 &&
		   info.local_bytes == MIB,
	   "a huge number is skipped, the other region kept");
	ok(parse("drm-driver: amdgpu\ndrm-resident-vram: 12 PiB\n", &info) == 0 &&
		   info.local_bytes == HMN_UNKNOWN,
	   "an unknown unit: unknown, never a guess");
	ok(parse("drm-driver: i915\ndrm-resident-local0: 18446744073709551615\n"
		 "drm-resident-local1: 18446744073709551615\n", &info) == 0 &&
		   info.local_bytes == UINT64_MAX,
	   "a sum that overflows saturates");
	ok(parse("drm-driver: xe\ndrm-memory-vram0: 4 MiB\ndrm-resident-vram0: 3 MiB\n", &info) == 0 &&
		   info.local_bytes == 3 * MIB,
	   "drm-resident wins over the deprecated drm-memory, whatever the order");
	ok(parse("drm-driver: xe\ndrm-total-vram0: 9 MiB\ndrm-shared-vram0: 9 MiB\n"
		 "drm-purgeable-vram0: 9 MiB\ndrm-active-vram0: 9 MiB\n", &info) == 0 &&
		   info.local_bytes == HMN_UNKNOWN,
	   "total, shared, purgeable and active are not resident");
	ok(parse("drm-driver: xe\ndrm-resident-stolen: 8 MiB\ndrm-resident-cpu: 8 MiB\n", &info) == 0 &&
		   info.local_bytes == HMN_UNKNOWN && info.shared_bytes == HMN_UNKNOWN,
	   "stolen and cpu regions are left out");
	ok(parse("drm-driver: i915\ndrm-engine-capacity-compute: 4\ndrm-total-cycles-ccs: 77\n", &info) == 0 &&
		   info.engines == 0,
	   "engine capacity and total cycles are not use");
	ok(parse("drm-driver: xe\ndrm-cycles-ccs: 12\n", &info) == 0 &&
		   info.engines == HMN_PROCESS_COMPUTE,
	   "xe ccs cycles: compute");
	ok(parse("drm-driver: amdgpu\ndrm-engine-compute: junk ns\n", &info) == 0 && info.engines == 0,
	   "an engine line with junk: not used");
	ok(parse("drm-client-id: 4\n", &info) == -EINVAL, "no drm-driver: not a DRM file");
	ok(parse("", &info) == -EINVAL && info.client_id == 0xa5a5a5a5a5a5a5a5ULL,
	   "empty text fails and leaves the result untouched");
	ok(parse("drm-driver: amdgpu\ndrm-client-id: 12x\n", &info) == 0 && !info.has_client_id,
	   "a client id with junk is no client id");
	ok(parse("drm-driver:\x1b[31mevil\x01\ndrm-pdev: 0000:08:00.0\x07\n", &info) == 0 &&
		   strcmp(info.driver, "?[31mevil?") == 0 && strcmp(info.pdev, "0000:08:00.0?") == 0,
	   "control bytes in a value become ?");
	ok(parse("drm-driver: a-very-long-driver-name-that-does-not-fit-in-thirty-two-bytes\n", &info) == 0 &&
		   strlen(info.driver) == sizeof(info.driver) - 1,
	   "a long value is cut to fit");

	/* A 1 MiB line, then a good one: the long line is no DRM key and costs nothing. */
	size_t big = 1 << 20;
	char *text = malloc(big + 64);
	memcpy(text, "drm-driver: amdgpu\ndrm-resident-vram: ", 38);
	memset(text + 38, '7', big);
	strcpy(text + 38 + big, "\ndrm-resident-gtt: 1 KiB");
	ok(drm_parse_fdinfo(text, strlen(text), &info) == 0 && info.local_bytes == HMN_UNKNOWN &&
		   info.shared_bytes == KIB,
	   "a 1 MiB line is skipped, the next line still read");
	/* A NUL inside: the text is a length, not a C string. */
	memcpy(text, "drm-driver: amdgpu\0drm-resident-vram: 5\n", 40);
	ok(drm_parse_fdinfo(text, 40, &info) == 0 && strcmp(info.driver, "amdgpu?drm-resident-vram: 5") == 0 &&
		   info.local_bytes == HMN_UNKNOWN,
	   "a NUL byte is a byte of its line: it neither ends the text nor starts a line");
	free(text);
}

static void test_merge(void)
{
	const uint64_t U = HMN_UNKNOWN;
	struct drm_usage c[] = {
		/* pid, gpu, client, has id, local, shared, type */
		{ 1501, 0, 400, true, 512 * MIB, 2 * MIB, HMN_PROCESS_COMPUTE, false }, /* the child */
		{ 1400, 0, 300, true, 1024 * MIB, 64 * MIB, HMN_PROCESS_COMPUTE, false },
		{ 1500, 0, 400, true, 512 * MIB, 2 * MIB, HMN_PROCESS_COMPUTE, false }, /* the parent */
		{ 1400, 0, 300, true, 1024 * MIB, 64 * MIB, HMN_PROCESS_GRAPHICS, false }, /* dup */
		{ 1400, 1, 300, true, 7 * MIB, U, 0, false },   /* same id, other GPU: another client */
		{ 1400, 0, 301, true, 1 * MIB, U, 0, false },   /* a second client on GPU 0 */
		{ 1700, 0, 0, false, U, U, 0, false },          /* no id: never merged */
		{ 1700, 0, 0, false, 3 * MIB, U, 0, false },
	};
	size_t n = drm_merge_clients(c, sizeof(c) / sizeof(c[0]));

	ok(n == 5, "one row per (pid, gpu): 1400/0, 1400/1, 1500/0, 1501/0, 1700/0 (got %zu)", n);
	ok(c[0].pid == 1400 && c[0].gpu == 0 && c[0].local_bytes == 1025 * MIB &&
		   c[0].shared_bytes == 64 * MIB,
	   "1400 on GPU 0: the dup'ed client once (1 GiB) plus its second client (1 MiB)");
	ok(c[0].type == (HMN_PROCESS_COMPUTE | HMN_PROCESS_GRAPHICS), "the types of both descriptors");
	ok(c[1].pid == 1400 && c[1].gpu == 1 && c[1].local_bytes == 7 * MIB, "1400 on GPU 1");
	ok(c[2].pid == 1500 && c[2].local_bytes == 512 * MIB && c[2].shared_bytes == 2 * MIB,
	   "the parent (lowest pid) holds the shared client's memory");
	ok(c[3].pid == 1501 && c[3].local_bytes == 0 && c[3].shared_bytes == 0 &&
		   c[3].type == HMN_PROCESS_COMPUTE,
	   "the child keeps its row and type, with 0 bytes from the shared client");
	ok(c[4].pid == 1700 && c[4].local_bytes == 3 * MIB, "clients without an id add up; unknown + known = known");
	ok(drm_merge_clients(c, 0) == 0 && drm_merge_clients(NULL, 0) == 0, "nothing to merge, even from NULL");
}

static void test_pci_ids(void)
{
	size_t len;
	char *text = slurp("pci.ids", &len), name[128];

	ok(pci_ids_name(text, len, 0x1002, 0x744c, name, sizeof(name)), "1002:744c found");
	is_str(name, "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]", "its name, not a subsystem's");
	ok(pci_ids_name(text, len, 0x8086, 0xe20b, name, sizeof(name)), "8086:e20b found");
	is_str(name, "Battlemage G21 [Arc B580]", "Arc B580");
	ok(!pci_ids_name(text, len, 0x1002, 0x150e, name, sizeof(name)), "an id the file lacks");
	ok(!pci_ids_name(text, len, 0x0f00, 0x0000, name, sizeof(name)), "a device of another vendor is not taken");
	ok(pci_ids_name(text, len, 0x0f00, 0x744c, name, sizeof(name)) && strcmp(name, "Not this one") == 0,
	   "the device under its own vendor");
	ok(pci_ids_name(text, len, 0x1002, 0x744c, name, 8) && strcmp(name, "Navi 31") == 0, "cut to the buffer");
	ok(!pci_ids_name("1002  AMD\n\t744c", 16, 0x1002, 0x744c, name, sizeof(name)), "a line cut short");
	ok(!pci_ids_name("", 0, 0x1002, 0x744c, name, sizeof(name)), "an empty file");
	free(text);
}

int main(void)
{
	test_sizes();
	test_samples();
	test_hostile();
	test_merge();
	test_pci_ids();
	return tap_done();
}
