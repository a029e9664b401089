/* The /proc parsers and name helpers, with hostile input. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "tap.h"

static const char status_text[] =
	"Name:\tpython3\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t4242\n"
	"Pid:\t4242\n"
	"Uid:\t1000\t1001\t1000\t1000\n"
	"Gid:\t1000\t1000\t1000\t1000\n"
	"VmRSS:\t   20480 kB\n";

static int parse(const char *text, char *name, size_t size, uint32_t *uid, uint64_t *rss)
{
	return parse_proc_status(text, strlen(text), name, size, uid, rss);
}

static void test_status(void)
{
	char name[64];
	uint32_t uid = 0;
	uint64_t rss = 0;

	ok(parse(status_text, name, sizeof(name), &uid, &rss) == 0, "a real status parses");
	is_str(name, "python3", "name");
	is_u64(uid, 1001, "effective uid (the second field)");
	is_u64(rss, 20480 * 1024ULL, "VmRSS in bytes");

	parse("Name:\tmy\\nprog\\\\x\n", name, sizeof(name), &uid, NULL);
	is_str(name, "my\nprog\\x", "kernel escapes in Name are undone");
	parse("Name:\tsp\\040ace\n", name, sizeof(name), NULL, NULL);
	is_str(name, "sp ace", "octal escapes are undone");
	parse("Name:\tend\\\n", name, sizeof(name), NULL, NULL);
	is_str(name, "end\\", "a trailing backslash is kept");
	parse("Name:\tcut-at-no-newline", name, sizeof(name), NULL, NULL);
	is_str(name, "cut-at-no-newline", "no final newline");
	parse("Name:\tabcdefghijkl\n", name, 5, NULL, NULL);
	is_str(name, "abcd", "name truncated to the buffer");

	ok(parse("Uid:\t99999999999999999999 1 1 1\n", name, sizeof(name), &uid, NULL) == 0 &&
	   uid == HMN_UID_UNKNOWN, "an overflowing uid is unknown");
	ok(parse("Uid:\t1\n", name, sizeof(name), &uid, NULL) == 0 && uid == HMN_UID_UNKNOWN,
	   "a Uid line with one field is unknown");
	ok(parse("Uid:\t1 4294967295 1 1\n", name, sizeof(name), &uid, NULL) == 0 &&
	   uid == HMN_UID_UNKNOWN, "uid -1 is unknown");
	ok(parse("VmRSS:\t18446744073709551615 kB\n", NULL, 0, NULL, &rss) == 0 && rss == HMN_UNKNOWN,
	   "an RSS that overflows in bytes is unknown");
	ok(parse("VmRSS:\t12 MB\n", NULL, 0, NULL, &rss) == 0 && rss == HMN_UNKNOWN,
	   "an RSS in an unknown unit is unknown");
	ok(parse("VmRSS:\n", NULL, 0, NULL, &rss) == 0 && rss == HMN_UNKNOWN, "an RSS with no value");
	ok(parse("", name, sizeof(name), &uid, &rss) == -EINVAL, "empty text is not a status file");
	ok(parse("garbage\n\n\n", name, sizeof(name), &uid, &rss) == -EINVAL, "garbage is not a status file");
	ok(parse_proc_status("Name:\tx\0y\nUid:\t5 6 7 8\n", 22, name, sizeof(name), &uid, NULL) == 0 &&
	   uid == 6, "a NUL byte inside does not stop the parse");

	/* A 1 MiB line of noise before the fields. */
	size_t big = 1 << 20;
	char *text = malloc(big + 64);
	memset(text, 'x', big);
	strcpy(text + big, "\nName:\tafter\nUid:\t1 2 3 4\n");
	ok(parse(text, name, sizeof(name), &uid, NULL) == 0 && !strcmp(name, "after") && uid == 2,
	   "fields after a 1 MiB line");
	free(text);
}

static void test_names(void)
{
	char b[256];

	is_str(exe_basename("/usr/bin/python3.11", b, sizeof(b)), "python3.11", "basename");
	is_str(exe_basename("/opt/app/a very long program name beyond fifteen", b, sizeof(b)),
	       "a very long program name beyond fifteen", "no 15-byte truncation");
	is_str(exe_basename("/tmp/gone (deleted)", b, sizeof(b)), "gone", "' (deleted)' removed");
	is_str(exe_basename("/x/ (deleted)", b, sizeof(b)), " (deleted)", "a name that is only the suffix is kept");
	is_str(exe_basename("noslash", b, sizeof(b)), "noslash", "no slash");
	is_str(exe_basename("/trailing/", b, sizeof(b)), "", "trailing slash gives empty");
	is_str(exe_basename("/a/bcdef", b, 4), "bcd", "bounded");

	normalize_pci_bus_id("00000000:3B:00.0", b, sizeof(b));
	is_str(b, "0000:3b:00.0", "NVML's 8-digit domain becomes sysfs form, lower case");
	normalize_pci_bus_id("0001:01:00.1", b, sizeof(b));
	is_str(b, "0001:01:00.1", "sysfs form stays");
	normalize_pci_bus_id("00010000:01:00.0", b, sizeof(b));
	is_str(b, "10000:01:00.0", "a domain above 16 bits keeps its digits");
	normalize_pci_bus_id("junk", b, sizeof(b));
	is_str(b, "junk", "unparsable text is kept as is");
	normalize_pci_bus_id("0000:01:00.0x", b, sizeof(b));
	is_str(b, "0000:01:00.0x", "trailing junk is not normalised away");
}

static void test_driver_quirks(void)
{
	ok(nvml_v3_entries_are_32_bytes("535.43.02"), "535.43.02 writes 32-byte _v3 entries");
	ok(nvml_v3_entries_are_32_bytes("535.54.03"), "535.54.03 too");
	ok(nvml_v3_entries_are_32_bytes("535.98"), "535.98 too");
	ok(!nvml_v3_entries_are_32_bytes("535.104.05"), "535.104.05 went back to 24");
	ok(!nvml_v3_entries_are_32_bytes("535.42.01"), "before 535.43: 24");
	ok(!nvml_v3_entries_are_32_bytes("550.54.15"), "550: 24");
	ok(!nvml_v3_entries_are_32_bytes(""), "unknown version: 24");
	ok(!nvml_v3_entries_are_32_bytes(NULL), "no version: 24");
	ok(!nvml_v3_entries_are_32_bytes("garbage"), "garbage: 24");
}

static void test_namespaces(void)
{
	uint32_t ns_pid = 0;
	unsigned depth = 0;
	const char *st = "Name:\tx\nNSpid:\t4242\t17\t7\nNStgid:\t4242\n";

	ok(parse_proc_nspid(st, strlen(st), &ns_pid, &depth) == 0 && ns_pid == 7 && depth == 3,
	   "NSpid: the innermost pid, and the depth");
	ok(parse_proc_nspid("NSpid:\t99\n", 10, &ns_pid, &depth) == 0 && ns_pid == 99 && depth == 1,
	   "NSpid with one pid: depth 1");
	ok(parse_proc_nspid("Name:\tx\n", 8, &ns_pid, &depth) == -ENOENT, "no NSpid line (kernel before 4.1)");
	ok(parse_proc_nspid("NSpid:\tabc\n", 11, &ns_pid, &depth) == -EINVAL, "garbage NSpid");
	ok(parse_proc_nspid("NSpid:\t1\t99999999999\n", 22, &ns_pid, &depth) == -EINVAL, "NSpid beyond 32 bits");

	static const struct { const char *cgroup, *want; } cases[] = {
		{ "0::/system.slice/docker-4f1e0cbd2a7d93b1c4e2f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6.scope\n", "docker:4f1e0cbd2a7d" },
		{ "12:memory:/docker/4f1e0cbd2a7d93b1c4e2f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6\n1:name=systemd:/\n", "docker:4f1e0cbd2a7d" },
		{ "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/container\n", "podman:0123456789ab" },
		{ "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podx.slice/cri-containerd-aaaaaaaaaaaabbbbbbbbbbbbccccccccccccddddddddddddeeeeeeeeeeeeffff.scope\n", "kubernetes:aaaaaaaaaaaa" },
		{ "11:cpu:/kubepods/besteffort/pod12/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", "kubernetes:0123456789ab" },
		{ "0::/machine.slice/crio-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n", "cri-o:0123456789ab" },
		{ "0::/lxc.payload.web01/init.scope\n", "lxc:web01" },
		{ "0::/user.slice/user-0.slice/session-3.scope\n", NULL },
		{ "0::/system.slice/docker-xyz.scope\n", NULL },
		{ "garbage without colons\n::\n", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[96] = "";
		bool found = parse_container(cases[i].cgroup, strlen(cases[i].cgroup), out, sizeof(out));
		ok(cases[i].want ? found && !strcmp(out, cases[i].want) : !found,
		   "cgroup %zu: %s", i, cases[i].want ? cases[i].want : "no container");
	}
}

static void test_meminfo(void)
{
	uint64_t total = 1, available = 1;
	static const char real[] =
		"MemTotal:       127535708 kB\nMemFree:         1203816 kB\nMemAvailable:   118004180 kB\n"
		"Buffers:          364856 kB\nCached:         104532628 kB\n";
	ok(parse_meminfo(real, strlen(real), &total, &available) == 0, "meminfo parses");
	is_u64(total, 127535708ULL * 1024, "MemTotal in bytes");
	is_u64(available, 118004180ULL * 1024, "MemAvailable in bytes");

	static const struct { const char *text; const char *why; } bad[] = {
		{ "", "empty" },
		{ "MemTotal: 10 kB\n", "no MemAvailable (kernels before 3.14)" },
		{ "MemAvailable: 10 kB\n", "no MemTotal" },
		{ "MemTotal: 0 kB\nMemAvailable: 0 kB\n", "a zero total" },
		{ "MemTotal: abc kB\nMemAvailable: 1 kB\n", "not a number" },
		{ "MemTotal: 10 MB\nMemAvailable: 1 kB\n", "another unit" },
		{ "MemTotal: 10\nMemAvailable: 1 kB\n", "no unit" },
		{ "MemTotal: 18014398509481984 kB\nMemAvailable: 1 kB\n", "2^54 KiB overflows in bytes" },
		{ "MemTotal: 99999999999999999999999 kB\nMemAvailable: 1 kB\n", "beyond 2^64" },
		{ "MemTotalX: 10 kB\nMemAvailable: 1 kB\n", "a longer key is another key" },
		{ "MemTotal: 10 kB junk\nMemAvailable: 1 kB\n", "trailing junk" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		total = available = 7;
		ok(parse_meminfo(bad[i].text, strlen(bad[i].text), &total, &available) == -EINVAL &&
		   total == 7 && available == 7, "meminfo refused, outputs untouched: %s", bad[i].why);
	}
	static const char more_available[] = "MemAvailable: 20 kB\nMemTotal: 10 kB\n";
	ok(parse_meminfo(more_available, strlen(more_available), &total, &available) == 0 &&
	   total == 10240 && available == 10240, "MemAvailable above MemTotal is capped; any order");
	static const char no_newline[] = "MemTotal: 10 kB\nMemAvailable: 4 kB";
	ok(parse_meminfo(no_newline, strlen(no_newline), &total, &available) == 0 && available == 4096,
	   "no newline at the end");
}

static void add_pid(uint32_t pid, void *data)
{
	char *out = data;
	snprintf(out + strlen(out), 128 - strlen(out), "%u,", pid);
}

static void test_process_tree_files(void)
{
	char got[128] = "";
	static const char children[] = "4242 4243 17\n";
	ok(parse_pid_list(children, strlen(children), add_pid, got) == 3 && !strcmp(got, "4242,4243,17,"),
	   "children: three pids");
	got[0] = '\0';
	ok(parse_pid_list("", 0, add_pid, got) == 0 && !got[0], "children: empty");
	static const char hostile[] = "12 0 13";
	ok(parse_pid_list(hostile, strlen(hostile), add_pid, got) == 1 && !strcmp(got, "12,"), "a pid 0 ends it");
	got[0] = '\0';
	static const char huge[] = "5 99999999999 6";
	ok(parse_pid_list(huge, strlen(huge), add_pid, got) == 1, "beyond 2^32 ends it");
	got[0] = '\0';
	static const char cut[] = "123";
	ok(parse_pid_list(cut, 2, add_pid, got) == 1 && !strcmp(got, "12,"), "reads no byte past its length");

	uint32_t ppid = 0;
	static const char stat[] = "4242 (python3) S 1000 4242 1000 0 -1 4194304";
	ok(parse_stat_ppid(stat, strlen(stat), &ppid) == 0 && ppid == 1000, "stat: ppid");
	static const char evil[] = "4242 (a) S 7 (b) R 9) S 31337 1 1";
	ok(parse_stat_ppid(evil, strlen(evil), &ppid) == 0 && ppid == 31337,
	   "stat: a name holding ') S 7 (' cannot forge the ppid (the last ')' ends it)");
	ppid = 5;
	static const char *const bad[] = { "", "4242 (x)", "4242 (x) S", "4242 (x) S x", "4242 x S 1", "(x) S 99999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(parse_stat_ppid(bad[i], strlen(bad[i]), &ppid) == -EINVAL && ppid == 5, "stat refused: '%s'", bad[i]);
}

int main(void)
{
	test_process_tree_files();
	test_meminfo();
	test_namespaces();
	test_driver_quirks();
	test_status();
	test_names();
	return tap_done();
}
