/* The /proc parsers and name helpers, with hostile input. */
#include <errno.h>
#include <stdlib.h>

#include "gpu/nvml/nvml-parse.h"
#include "gpu/pci.h"
#include "hmn.h"
#include "os/linux/proc-parse.h"
#include "util/number.h"
#include "util/text.h"
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
		{ "0::/../../pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d/0123456789abcdef0123456789abcdef\n",
		  "kubernetes:0123456789ab" }, /* from a pod's cgroup namespace: no "kubepods" left */
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

/*
 * Pod UIDs, from the cgroup paths the kubelet and the runtimes really make
 * (kubelet pkg/kubelet/cm: CgroupName.ToCgroupfs/ToSystemd and ExpandSlice;
 * containerd "cri-containerd-<id>.scope" or "<id>", CRI-O "crio-<id>.scope"
 * or "crio-<id>", Docker through cri-dockerd "docker-<id>.scope" or "<id>").
 */
#define UID "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"
#define UID_ "1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d" /* the systemd driver's spelling */
#define OTHER "99aa88bb-7766-4c55-9d44-33ee22ff1100"
#define OTHER_ "99aa88bb_7766_4c55_9d44_33ee22ff1100"
#define CID "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0"

/* Every hierarchy of a cgroup v1 node, as the kubelet's cgroupfs driver places a container. */
#define V1_LINES(path)                                                                             \
	"12:pids:" path "\n11:hugetlb:" path "\n10:net_cls,net_prio:" path "\n9:memory:" path      \
	"\n8:cpu,cpuacct:" path "\n7:devices:" path "\n6:freezer:" path "\n5:blkio:" path          \
	"\n4:cpuset:" path "\n3:perf_event:" path "\n2:rdma:/\n1:name=systemd:" path "\n0::/\n"

static void test_pod_uid(void)
{
	/* r: 1 (UID taken), 0 (no pod) or -EINVAL (refused); out is left alone unless 1. */
	static const struct {
		const char *cgroup;
		int r;
		const char *what;
	} cases[] = {
		{ "0::/kubepods/burstable/pod" UID "/" CID "\n", 1, "cgroupfs, v2, burstable, containerd" },
		{ "0::/kubepods/besteffort/pod" UID "/crio-" CID "\n", 1, "cgroupfs, v2, best effort, CRI-O" },
		{ "0::/kubepods/pod" UID "/" CID "\n", 1, "cgroupfs, guaranteed: no QoS level" },
		{ V1_LINES("/kubepods/burstable/pod" UID "/" CID), 1, "cgroupfs, v1: every hierarchy's line" },
		{ V1_LINES("/kubepods/pod" UID "/" CID), 1, "cgroupfs, v1, guaranteed (Docker)" },
		{ "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" CID ".scope\n",
		  1, "systemd, v2, burstable, containerd: underscores back to dashes" },
		{ "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/crio-" CID ".scope\n",
		  1, "systemd, v2, best effort, CRI-O" },
		{ "0::/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope\n", 1, "systemd, guaranteed" },
		{ V1_LINES("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/docker-" CID ".scope"),
		  1, "systemd, v1, Docker (cri-dockerd)" },
		{ "0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID_
		  ".slice/cri-containerd-" CID ".scope\n", 1, "systemd under --cgroup-root=/kubelet (kind's node)" },
		{ "0::/system.slice/docker-" CID ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
		  ".slice/cri-containerd-" CID ".scope\n", 1, "a kind node's pod seen from the host" },
		{ "0::/../../../kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" CID ".scope\n",
		  1, "from a pod's cgroup namespace (a DaemonSet), another QoS class" },
		{ "0::/../../kubepods-burstable-pod" UID_ ".slice/cri-containerd-" CID ".scope\n", 1,
		  "from a pod's cgroup namespace, the same QoS class: the pod slice first" },
		{ "0::/../../../kubepods-pod" UID_ ".slice/crio-" CID ".scope\n", 1,
		  "from a pod's cgroup namespace, a guaranteed pod" },
		{ "0::/../../pod" UID "/" CID "\n", 1, "cgroupfs from a cgroup namespace: no kubepods left in the path" },
		{ "0::/../../../burstable/pod" UID "/" CID "\n", 1, "cgroupfs from a cgroup namespace, another QoS class" },
		{ "0::/../../../../kubepods/pod" UID "/" CID "\n", 1, "from a namespace, up to the root and down" },
		{ "0::/kubepods/burstable/pod" UID "/\n", 1, "a trailing slash" },

		{ "0::/user.slice/user-1000.slice/session-3.scope\n", 0, "no pod: a login session" },
		{ "0::/system.slice/docker-" CID ".scope\n", 0, "no pod: a Docker container outside Kubernetes" },
		{ "0::/../../../../system.slice/containerd.service\n", 0, "no pod: outside Kubernetes, from a cgroup namespace" },
		{ "0::/\n", 0, "no pod: a namespace's root" },
		{ "0::/kubepods/burstable\n", 0, "no pod: a QoS class's own cgroup" },
		{ "0::/pod" UID "/x\n", 0, "no pod: a pod name at the top of a path with no namespace above it" },
		{ "0::/burstable/pod" UID "/x\n", 0, "no pod: a QoS name at the top of a path with no namespace above it" },
		{ "0::/user.slice/pod" UID "/x\n", 0, "no pod: a pod name outside the layout" },
		{ "0::/user.slice/kubepods-pod" UID_ ".slice/x\n", 0, "no pod: a pod slice without its parents" },
		{ "0::/kubepods/burstable/pod" UID, 0, "no pod: a line the reader's bound cut (no newline)" },
		{ "", 0, "no pod: empty" },
		{ "garbage\n::\n:\n", 0, "no pod: no paths" },

		/* A process can name cgroups below its own where that subtree is delegated to it. */
		{ "0::/kubepods/burstable/pod" UID "/" CID "/kubepods/besteffort/pod" OTHER "/x\n", 1,
		  "hostile, resolved: a fake kubepods below a real pod: the outermost layout decides" },
		{ "0::/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope/kubepods.slice/kubepods-pod" OTHER_
		  ".slice\n", 1, "hostile, resolved: the same with the systemd driver" },
		{ "0::/kubepods/burstable/pod" UID "/pod" OTHER "/x\n", 1, "hostile, resolved: two pod names: the kubelet's" },
		{ "0::/../../pod" UID "/" CID "/kubepods/pod" OTHER "\n", 1,
		  "hostile, resolved: from a namespace, with a fake below" },
		{ "0::/user.slice/user-1000.slice/user@1000.service/kubepods/pod" UID "/x\n", 0,
		  "hostile: a whole layout below a user's delegated subtree names no pod" },
		{ "0::/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods/besteffort/pod" UID "/x\n", 0,
		  "hostile: the same, deeper in the user's systemd" },
		{ "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" CID ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
		  ".slice/x\n", 0, "hostile: a node's layout below a user's systemd (rootless kind) is not taken" },
		{ "0::/app.slice/kubepods.slice/kubepods-pod" UID_ ".slice/x\n", 0, "no pod: a layout below a name no node has" },
		{ "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-kubepods.slice/app-kubepods-pod" UID_
		  ".slice/x\n", 0, "hostile: slices that extend each other below user@.service" },
		{ "0::/system.slice/foo.service/kubepods/pod" UID "/x\n", 0, "hostile: below a delegated service" },
		{ "0::/system.slice/docker-" CID ".scope/x/kubepods/pod" UID "/x\n", 0,
		  "hostile: inside a node's container, below a name of its own" },
		{ "0::/docker/" CID "x/kubepods/pod" UID "/x\n", 0, "hostile: a node's id that is not an id" },
		{ "0::/system.slice/docker-" CID ".service/kubepods/pod" UID "/x\n", 0, "hostile: a node that is not a scope" },
		{ "0::/a/kubepods/pod" UID "/x\n", 0, "hostile: kubepods one step below the root" },
		{ "0::/../../a/kubepods/pod" UID "/x\n", 0, "hostile: kubepods below a name after the .. steps" },
		{ "0::/system.slice/docker-" CID ".scope/kubepods/besteffort/pod" UID "/" CID "\n", 1,
		  "a k3d or minikube (docker driver) node's pod seen from the host, cgroupfs inside" },
		{ "0::/docker/" CID "/kubepods/burstable/pod" UID "/" CID "\n", 1,
		  "a node container under Docker's cgroupfs driver" },
		{ "0::/machine.slice/libpod-" CID ".scope/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
		  ".slice/cri-containerd-" CID ".scope\n", 1, "a kind node under rootful podman, seen from the host" },
		{ "0::/actions_job/" CID "/kubepods/pod" UID "/" CID "\n", 1, "a node in a CI job's container" },
		{ "0::/../../system.slice/docker-" CID ".scope/kubepods/pod" UID "/" CID "\n", 1,
		  "a node container seen from a cgroup namespace" },
		{ "0::/kubepods/burstable/pod1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5/x\n", -EINVAL,
		  "hostile, refused: a UID one digit short" },
		{ "0::/kubepods/burstable/pod" UID "0/x\n", -EINVAL, "hostile, refused: a UID one digit long" },
		{ "0::/kubepods/pod1B2C3D4E-5F60-4A7B-8C9D-0E1F2A3B4C5D/x\n", -EINVAL,
		  "hostile, refused: upper case (the API server writes lower)" },
		{ "0::/kubepods/pod1b2c3d4g-5f60-4a7b-8c9d-0e1f2a3b4c5d/x\n", -EINVAL, "hostile, refused: a letter beyond f" },
		{ "0::/kubepods/pod1b2c3d4e5-f60-4a7b-8c9d-0e1f2a3b4c5d/x\n", -EINVAL, "hostile, refused: a dash out of place" },
		{ "0::/kubepods/pod" UID_ "/x\n", -EINVAL, "hostile, refused: underscores under the cgroupfs driver" },
		{ "0::/kubepods.slice/kubepods-pod" UID ".slice/x\n", -EINVAL, "hostile, refused: dashes under the systemd driver" },
		{ "0::/kubepods/burstable/pod6b1c1e0ad4a23a4bd0e4d3a7c3a9c2f1/x\n", -EINVAL,
		  "hostile, refused: a static pod's config hash (its mirror pod has another UID)" },
		{ "0::/kubepods/burstable/x/pod" UID "\n", -EINVAL,
		  "hostile, refused: a layout broken before the pod is not searched deeper" },
		{ "0::/kubepods/../pod" UID "\n", -EINVAL, "hostile, refused: a '..' inside the layout" },
		{ "0::/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_ ".slice/x\n", -EINVAL,
		  "hostile, refused: a slice that is not its parent's next step" },
		{ "0::/kubepods.slice/other-pod" UID_ ".slice/x\n", -EINVAL, "hostile, refused: a pod slice under another stem" },
		{ "0::/kubepods.slice/kubepods-pod" UID_ ".scope/x\n", -EINVAL,
		  "hostile, refused: a scope where the pod's slice goes" },
		{ "12:memory:/kubepods/pod" UID "/x\n1:name=systemd:/kubepods/pod" OTHER "/x\n", -EINVAL,
		  "hostile, refused: v1 hierarchies naming two pods" },
		{ "12:memory:/kubepods/pod" UID "/x\n1:name=systemd:/kubepods/podx/x\n", -EINVAL,
		  "hostile, refused: v1, one good line and one broken" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[HMN_POD_UID_SIZE] = "kept";
		int r = parse_pod_uid(cases[i].cgroup, strlen(cases[i].cgroup), out, sizeof(out));
		ok(r == cases[i].r && !strcmp(out, r == 1 ? UID : "kept"), "pod: %s", cases[i].what);
		if (r != cases[i].r)
			printf("#   got %d '%s'\n", r, out);
	}

	char small[HMN_POD_UID_SIZE - 1] = "kept";
	static const char fine[] = "0::/kubepods/pod" UID "/x\n";
	ok(parse_pod_uid(fine, strlen(fine), small, sizeof(small)) == -ENOBUFS && !strcmp(small, "kept"),
	   "a buffer too small for a UID");
	char out[HMN_POD_UID_SIZE] = "";
	ok(parse_pod_uid(fine, strlen(fine) - 1, out, sizeof(out)) == 0, "reads no byte past its length");
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

static void test_smaps_pss(void)
{
	uint64_t pss = 1;
	/* A 6.1 kernel's smaps_rollup, as hmn run reads it for each process of the tree. */
	static const char real[] =
		"55d7a2e8c000-7ffc6a7f5000 ---p 00000000 00:00 0                          [rollup]\n"
		"Rss:             1053348 kB\nPss:              215012 kB\nPss_Dirty:        210300 kB\n"
		"Pss_Anon:         210012 kB\nPss_File:           5000 kB\nPss_Shmem:             0 kB\n"
		"Shared_Clean:       6188 kB\nShared_Dirty:    1047040 kB\nPrivate_Clean:        16 kB\n"
		"Private_Dirty:       104 kB\nReferenced:      1053348 kB\nAnonymous:       1047252 kB\n"
		"LazyFree:              0 kB\nAnonHugePages:         0 kB\nShmemPmdMapped:        0 kB\n"
		"FilePmdMapped:         0 kB\nShared_Hugetlb:        0 kB\nPrivate_Hugetlb:       0 kB\n"
		"Swap:                  0 kB\nSwapPss:               0 kB\nLocked:                0 kB\n";
	ok(parse_smaps_pss(real, strlen(real), &pss) == 0, "smaps_rollup parses");
	is_u64(pss, 215012ULL * 1024, "Pss in bytes (not Rss, not Pss_Dirty)");
	static const char anon_first[] = "Pss_Anon: 5 kB\nPss_File: 6 kB\nPss: 7 kB\n";
	ok(parse_smaps_pss(anon_first, strlen(anon_first), &pss) == 0 && pss == 7168, "Pss_Anon is not Pss");
	pss = 9;
	ok(parse_smaps_pss("", 0, &pss) == -ENODATA && pss == 9, "empty (a zombie): no data, output untouched");
	static const struct { const char *text; const char *why; } bad[] = {
		{ "Rss: 10 kB\n", "no Pss line" },
		{ "Pss: 10\n", "no unit" },
		{ "Pss: 10 MB\n", "another unit" },
		{ "Pss: -1 kB\n", "a sign" },
		{ "Pss: 18014398509481984 kB\n", "2^54 KiB overflows in bytes" },
		{ "Pss: 99999999999999999999999 kB\n", "beyond 2^64" },
		{ "Pss:\n", "no value" },
		{ "\n\n\n", "blank lines" },
		{ "Pss: 10 kB", "no newline, but fine" },
	};
	for (size_t i = 0; i + 1 < sizeof(bad) / sizeof(bad[0]); i++) {
		pss = 9;
		ok(parse_smaps_pss(bad[i].text, strlen(bad[i].text), &pss) == -EINVAL && pss == 9,
		   "smaps_rollup refused, output untouched: %s", bad[i].why);
	}
	ok(parse_smaps_pss(bad[8].text, strlen(bad[8].text), &pss) == 0 && pss == 10240, "%s", bad[8].why);
	static const char cut[] = "Pss: 1234 kB\n";
	ok(parse_smaps_pss(cut, 7, &pss) == -EINVAL, "reads no byte past its length ('Pss: 12')");
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

	uint64_t pages = 7;
	static const char statm[] = "123456 5120 1024 12 0 40000 0\n";
	ok(parse_statm_resident(statm, strlen(statm), &pages) == 0 && pages == 5120, "statm: resident pages");
	static const char *const bad_statm[] = { "", "123456", "123456 ", "x 5", "1 x", "1 99999999999999999999", "1 2x" };
	pages = 7;
	for (size_t i = 0; i < sizeof(bad_statm) / sizeof(bad_statm[0]); i++)
		ok(parse_statm_resident(bad_statm[i], strlen(bad_statm[i]), &pages) == -EINVAL && pages == 7,
		   "statm refused: '%s'", bad_statm[i]);

	/* A real stat line (kernel 6.x), negative priority and nice included. */
	static const char full[] = "4242 (py) thon) S 1000 4242 1000 0 -1 4194560 1234 0 0 0 10 3 0 0 -2 -5 "
				   "8 0 987654 123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n";
	struct proc_stat st;
	ok(parse_stat(full, strlen(full), &st) == 0 && st.ppid == 1000 && st.state == 'S' && st.start_time == 987654,
	   "stat: ppid, state and start time (field 22), a ')' in the name");
	is_u64(st.rss_pages, 2048, "stat: resident pages (field 24), as statm's second field");
	static const char zombie[] = "77 (x) Z 1 77 77 0 -1 4 0 0 0 0 0 0 0 0 20 0 1 0 55";
	ok(parse_stat(zombie, strlen(zombie), &st) == 0 && st.state == 'Z' && st.start_time == 55, "stat: a zombie");
	is_u64(st.rss_pages, HMN_UNKNOWN, "stat ending at field 22: resident pages unknown");
	ok(st.threads == 1 && !proc_stat_running(&st), "stat: a zombie, its one thread (field 20): not running");
	static const char leader[] = "78 (x) Z 1 78 78 0 -1 4 0 0 0 0 0 0 0 0 20 0 3 0 56 1234 512";
	ok(parse_stat(leader, strlen(leader), &st) == 0 && st.threads == 3 && proc_stat_running(&st),
	   "stat: Z with threads running on (the main thread ended alone, pthread_exit): running");
	ok(parse_stat(full, strlen(full), &st) == 0 && st.threads == 8 && proc_stat_running(&st), "stat: 8 threads, running");
	static const char short_line[] = "77 (x) S 1 77";
	ok(parse_stat(short_line, strlen(short_line), &st) == 0 && st.ppid == 1 && st.start_time == 0,
	   "stat cut before field 22: start time unknown (0)");
	ok(parse_stat(full, 60, &st) == 0 && st.start_time == 0, "stat: reads no byte past its length");

	uint64_t mask = 7;
	static const char status[] = "Name:\tx\nSigQ:\t0/1\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000004002\nSigBlk:\tffffffff\n";
	ok(parse_signal_mask(status, strlen(status), "ShdPnd", &mask) == 0 && mask == 0x4002,
	   "ShdPnd: SIGINT (bit 1) and SIGTERM (bit 14)");
	ok(parse_signal_mask(status, strlen(status), "SigPnd", &mask) == 0 && mask == 0, "SigPnd: none");
	ok(parse_signal_mask(status, strlen(status), "SigBlk", &mask) == 0 && mask == 0xffffffff, "SigBlk");
	mask = 7;
	ok(parse_signal_mask(status, strlen(status), "SigCgt", &mask) == -ENOENT && mask == 7, "absent: untouched");
	static const char *const bad_masks[] = { "ShdPnd:\t\n", "ShdPnd:\txyz\n", "ShdPnd:\t00000000000000000\n", "ShdPnd:" };
	for (size_t i = 0; i < sizeof(bad_masks) / sizeof(bad_masks[0]); i++)
		ok(parse_signal_mask(bad_masks[i], strlen(bad_masks[i]), "ShdPnd", &mask) < 0 && mask == 7,
		   "signal mask refused: '%s'", bad_masks[i]);
	uint32_t outer = 0, inner = 0;
	unsigned depth = 0;
	ok(parse_proc_nspids("NSpid:\t4242\t17\t7\n", 17, &outer, &inner, &depth) == 0 && outer == 4242 &&
	   inner == 7 && depth == 3, "NSpid: outermost and innermost");
	/* hmn run's signals in a container: a process's pid as a namespace some levels down numbers it. */
	const char *nspid = "Name:\tpython3\nNSpid:\t4242\t17\t7\nNSpgid:\t4242\t17\t7\n";
	uint32_t pid = 0;
	ok(parse_proc_nspid_at(nspid, strlen(nspid), 0, &pid) == 0 && pid == 4242, "NSpid level 0: the /proc's own");
	ok(parse_proc_nspid_at(nspid, strlen(nspid), 1, &pid) == 0 && pid == 17, "NSpid level 1");
	ok(parse_proc_nspid_at(nspid, strlen(nspid), 2, &pid) == 0 && pid == 7, "NSpid level 2: the innermost");
	pid = 5;
	ok(parse_proc_nspid_at(nspid, strlen(nspid), 3, &pid) == -ERANGE && pid == 5,
	   "NSpid: no pid that deep (a process above that namespace), untouched");
	ok(parse_proc_nspid_at("NSpid:\t8\t9 \n", 13, 2, &pid) == -ERANGE && pid == 5, "trailing blanks: still -ERANGE");
	ok(parse_proc_nspid_at("Name:\tx\n", 8, 0, &pid) == -ENOENT && pid == 5, "no NSpid line (before 4.1)");
	ok(parse_proc_nspid_at("NSpid:\t8\tx\n", 11, 1, &pid) == -EINVAL && pid == 5, "garbage at the level");
	ok(parse_proc_nspid_at("NSpid:\t8\tx\n", 11, 3, &pid) == -EINVAL && pid == 5, "garbage before the level");
	ok(parse_proc_nspid_at("NSpid:\t\n", 8, 0, &pid) == -EINVAL && pid == 5, "an empty NSpid line");
}

/* words(text, len, cut): argv_words' words joined by '|' into out ("" for none), as the caller gets them. */
static const char *words(const char *text, size_t len, bool cut, size_t *ret_n, char out[256])
{
	char buf[128];
	size_t used = 99;
	memcpy(buf, text, len);
	*ret_n = argv_words(buf, len, cut, &used);
	if (used > len)
		return "(past the text)";
	buf[used] = '\0'; /* the caller's NUL after the last word */
	size_t o = 0;
	for (size_t i = 0, at = 0; i < *ret_n && o + 2 < 256; i++) {
		o += (size_t)snprintf(out + o, 256 - o, "%s%s", i ? "|" : "", buf + at);
		at += strlen(buf + at) + 1;
	}
	out[o < 256 ? o : 255] = '\0';
	return out;
}

/* /proc/PID/cmdline, and the arguments of macOS's KERN_PROCARGS2: one splitter. */
static void test_cmdline(void)
{
	static const struct {
		const char *text;
		size_t len;
		bool cut;
		size_t n;
		const char *want;
		const char *label;
	} cases[] = {
		{ "python3\0train.py\0--lr=3e-4\0", 27, false, 3, "python3|train.py|--lr=3e-4", "NUL-separated words" },
		{ "", 0, false, 0, "", "empty (a kernel thread, a zombie): none" },
		{ "\0", 1, false, 0, "", "a lone NUL: none" },
		{ "\0\0\0\0", 4, false, 0, "", "NULs alone: none" },
		{ "a\0\0b\0", 5, false, 3, "a||b", "an empty word between two is kept" },
		{ "postgres: writer\0\0\0\0\0\0", 22, false, 1, "postgres: writer", "a rewritten argv, NUL-padded: one word" },
		{ "nginx: worker process", 21, false, 1, "nginx: worker process", "no NUL at all (setproctitle past argv): one word" },
		{ "x\0y", 3, false, 2, "x|y", "no NUL after the last word" },
		{ "\0leading", 9, false, 2, "|leading", "an empty first word (argv[0] \"\")" },
		{ "evil\x1b[2J\0a\nb\0\xff\xfe\0", 16, false, 3, "evil\x1b[2J|a\nb|\xff\xfe", "bytes kept as they are: shown safe later" },
		{ "python3\0caf\xc3\xa9", 13, true, 2, "python3|caf\xc3\xa9", "cut after a whole character: kept" },
		{ "python3\0caf\xc3", 12, true, 2, "python3|caf", "cut inside a 2-byte character: it is left out" },
		{ "x\0\xe2\x82", 4, true, 1, "x", "cut inside a 3-byte character: the word it began goes" },
		{ "x\0ab\xf0\x9f\x98", 7, true, 2, "x|ab", "cut inside a 4-byte character" },
		{ "x\0ab\xf0\x9f\x98", 7, false, 2, "x|ab\xf0\x9f\x98", "not cut: a broken character is the process's own" },
		{ "x\0ab\x80\x80\x80\x80", 8, true, 2, "x|ab\x80\x80\x80\x80", "continuation bytes alone: nothing to drop" },
		{ "x\0", 2, true, 1, "x", "cut at a NUL" },
	};
	char out[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 99;
		const char *got = words(cases[i].text, cases[i].len, cases[i].cut, &n, out);
		is_str(got, cases[i].want, cases[i].label);
		is_u64(n, cases[i].n, cases[i].label);
	}
	/* 4 KiB of one-byte words: 2048 of them, the bound's worth. */
	char many[4096];
	for (size_t i = 0; i < sizeof(many); i += 2)
		many[i] = 'a', many[i + 1] = '\0';
	size_t len = 0;
	is_u64(argv_words(many, sizeof(many), true, &len), 2048, "2048 one-letter words in 4 KiB");
	is_u64(len, sizeof(many) - 1, "all of them, the last NUL left to the caller");
}

int main(void)
{
	test_cmdline();
	test_process_tree_files();
	test_meminfo();
	test_smaps_pss();
	test_namespaces();
	test_pod_uid();
	test_driver_quirks();
	test_status();
	test_names();
	return tap_done();
}
