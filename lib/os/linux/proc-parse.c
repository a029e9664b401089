/*
 * What Linux prints in /proc, parsed: a process's status, stat, statm,
 * smaps_rollup, its NSpid line and its cgroup (container, Kubernetes pod),
 * the system's meminfo. Pure functions over a buffer, built on every OS, so
 * that unit tests and fuzzers reach them without a system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/linux/proc-parse.h"
#include "util/number.h"

/* The line starting at p (up to end), without its newline. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

static bool starts_with(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(end - p) >= n && memcmp(p, prefix, n) == 0;
}

/*
 * The kernel escapes the Name field of status: "\n" for newline and "\\" for
 * backslash (fs/proc/array.c, proc_task_name with ESCAPE_SPACE|ESCAPE_SPECIAL
 * on newer kernels, octal escapes on some older ones). Undo both.
 */
static void unescape_name(const char *p, const char *end, char *out, size_t size)
{
	size_t o = 0;

	while (p < end && o + 1 < size) {
		char c = *p++;
		if (c == '\\' && p < end) {
			char e = *p++;
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '\\': c = '\\'; break;
			default:
				if (e >= '0' && e <= '3' && end - p >= 2 &&
				    p[0] >= '0' && p[0] <= '7' && p[1] >= '0' && p[1] <= '7') {
					c = (char)(((e - '0') << 6) | ((p[0] - '0') << 3) | (p[1] - '0'));
					p += 2;
				} else {
					/* Not an escape we know: keep both bytes. */
					out[o++] = '\\';
					if (o + 1 >= size)
						goto done;
					c = e;
				}
			}
		}
		out[o++] = c;
	}
done:
	out[o] = '\0';
}

/* The decimal after any blanks at *pp (before end), as /proc's fields are written; false on none. */
static bool parse_u64(const char **pp, const char *end, uint64_t *ret)
{
	const char *p = *pp;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_decimal(&p, end, UINT64_MAX, ret))
		return false;
	*pp = p;
	return true;
}

int parse_proc_status(const char *text, size_t len, char *name, size_t name_size,
		      uint32_t *ret_uid, uint64_t *ret_rss_bytes)
{
	const char *p = text, *end = text + len;
	bool saw_name = false, saw_uid = false, saw_rss = false;
	uint32_t uid = HMN_UID_UNKNOWN;
	uint64_t rss = HMN_UNKNOWN;

	if (name && name_size)
		name[0] = '\0';
	while (p < end) {
		const char *e = line_end(p, end);

		if (!saw_name && starts_with(p, e, "Name:")) {
			const char *v = p + 5;
			while (v < e && (*v == '\t' || *v == ' '))
				v++;
			if (name && name_size)
				unescape_name(v, e, name, name_size);
			saw_name = true;
		} else if (!saw_uid && starts_with(p, e, "Uid:")) {
			/* Real, effective, saved, filesystem: ps shows the effective one. */
			const char *v = p + 4;
			uint64_t real, effective;
			if (parse_u64(&v, e, &real) && parse_u64(&v, e, &effective) &&
			    effective < HMN_UID_UNKNOWN)
				uid = (uint32_t)effective;
			saw_uid = true;
		} else if (!saw_rss && starts_with(p, e, "VmRSS:")) {
			const char *v = p + 6;
			uint64_t kib;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			if (parse_u64(&v, e, &kib) && kib <= UINT64_MAX / 1024 &&
			    e - v == 3 && memcmp(v, " kB", 3) == 0)
				rss = kib * 1024;
			saw_rss = true;
		}
		p = e < end ? e + 1 : end;
		/* Stop once everything asked for is found: Uid is line 9, VmRSS much later. */
		if ((saw_name || !name_size) && (saw_uid || !ret_uid) && (saw_rss || !ret_rss_bytes))
			break;
	}
	if (!saw_name && !saw_uid && !saw_rss)
		return -EINVAL;
	if (ret_uid)
		*ret_uid = uid;
	if (ret_rss_bytes)
		*ret_rss_bytes = rss;
	return 0;
}

const char *exe_basename(const char *path, char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(base);

	if (n > sizeof(deleted) - 1 && strcmp(base + n - (sizeof(deleted) - 1), deleted) == 0)
		n -= sizeof(deleted) - 1;
	if (size == 0)
		return buf;
	if (n >= size)
		n = size - 1;
	memcpy(buf, base, n);
	buf[n] = '\0';
	return buf;
}

/* memmem, which is a GNU extension: not in mingw's C library. */
static const char *find_bytes(const char *hay, size_t len, const char *needle, size_t n)
{
	for (const char *p = hay; n <= len && (size_t)(p - hay) <= len - n;) {
		const char *c = memchr(p, needle[0], len - n + 1 - (size_t)(p - hay));
		if (!c)
			return NULL;
		if (memcmp(c, needle, n) == 0)
			return c;
		p = c + 1;
	}
	return NULL;
}

size_t parse_pid_list(const char *text, size_t len, void (*add)(uint32_t pid, void *data), void *data)
{
	const char *p = text, *end = text + len;
	size_t n = 0;
	uint64_t pid;

	while (p < end && (*p == ' ' || *p == '\n'))
		p++;
	while (parse_u64(&p, end, &pid)) {
		if (pid == 0 || pid > UINT32_MAX)
			break;
		add((uint32_t)pid, data);
		n++;
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
	}
	return n;
}

int parse_stat(const char *text, size_t len, struct proc_stat *ret)
{
	/* "1234 (name with ) and spaces) S 1 ...": the name may hold anything; the last ')' ends it. */
	const char *close = NULL, *end = text + len;
	for (const char *p = text; p < end; p++)
		if (*p == ')')
			close = p;
	if (!close || end - close < 4 || close[1] != ' ' || close[3] != ' ')
		return -EINVAL;
	const char *p = close + 4;
	uint64_t ppid, threads = 0, start = 0, rss = HMN_UNKNOWN;
	if (!parse_u64(&p, end, &ppid) || ppid > UINT32_MAX)
		return -EINVAL;
	/* num_threads is field 20, starttime 22, rss 24: on from ppid (field 4), some fields negative. */
	for (int field = 4; field < 24 && p < end; field++) {
		if (*p != ' ')
			break;
		p++;
		uint64_t *want = field + 1 == 20 ? &threads : field + 1 == 22 ? &start : field + 1 == 24 ? &rss : NULL;
		if (!want)
			while (p < end && *p != ' ')
				p++;
		else if (!parse_u64(&p, end, want))
			*want = field + 1 == 24 ? HMN_UNKNOWN : 0;
	}
	*ret = (struct proc_stat){
		.ppid = (uint32_t)ppid, .state = close[2], .threads = threads, .start_time = start, .rss_pages = rss,
	};
	return 0;
}

bool proc_stat_running(const struct proc_stat *st)
{
	return st->state != 'X' && (st->state != 'Z' || st->threads > 1);
}

int parse_stat_ppid(const char *text, size_t len, uint32_t *ret_ppid)
{
	struct proc_stat st;
	int r = parse_stat(text, len, &st);
	if (r == 0)
		*ret_ppid = st.ppid;
	return r;
}

int parse_signal_mask(const char *text, size_t len, const char *key, uint64_t *ret_mask)
{
	/* "ShdPnd:\t0000000000004000": 64 signals in hex, the lowest bit signal 1. */
	size_t k = strlen(key);
	const char *end = text + len;
	for (const char *p = text; p < end; p = line_end(p, end) + 1) {
		const char *e = line_end(p, end);
		if ((size_t)(e - p) <= k + 1 || memcmp(p, key, k) != 0 || p[k] != ':')
			continue;
		const char *v = p + k + 1;
		while (v < e && (*v == '\t' || *v == ' '))
			v++;
		uint64_t mask = 0;
		size_t digits = 0;
		for (; v < e; v++, digits++) {
			int d = *v >= '0' && *v <= '9' ? *v - '0' : *v >= 'a' && *v <= 'f' ? *v - 'a' + 10 : -1;
			if (d < 0 || digits == 16)
				return -EINVAL;
			mask = mask << 4 | (uint64_t)d;
		}
		if (digits == 0)
			return -EINVAL;
		*ret_mask = mask;
		return 0;
	}
	return -ENOENT;
}

int parse_statm_resident(const char *text, size_t len, uint64_t *ret_pages)
{
	/* "size resident shared text lib data dt", in pages: the second is VmRSS's. */
	const char *p = text, *end = text + len;
	uint64_t size, resident;
	if (!parse_u64(&p, end, &size) || p >= end || *p != ' ' || !parse_u64(&p, end, &resident) ||
	    (p < end && *p != ' ' && *p != '\n'))
		return -EINVAL;
	*ret_pages = resident;
	return 0;
}

/* "Key:   12345 kB" anywhere in a meminfo text, in bytes; false when absent or bad. */
static bool meminfo_value(const char *text, size_t len, const char *key, uint64_t *ret)
{
	size_t k = strlen(key);
	const char *end = text + len;

	for (const char *p = text; p < end; p = line_end(p, end) + 1) {
		const char *e = line_end(p, end);
		if ((size_t)(e - p) <= k || memcmp(p, key, k) != 0 || p[k] != ':')
			continue;
		const char *v = p + k + 1;
		uint64_t kib;
		if (!parse_u64(&v, e, &kib) || kib > UINT64_MAX / 1024)
			return false;
		while (v < e && *v == ' ')
			v++;
		/* The kernel writes kB (KiB) on every line it has; a bare number is bytes elsewhere. */
		if (!(e - v == 2 && memcmp(v, "kB", 2) == 0))
			return false;
		*ret = kib * 1024;
		return true;
	}
	return false;
}

int parse_smaps_pss(const char *text, size_t len, uint64_t *ret_bytes)
{
	/* A zombie or a kernel thread has no memory map: the kernel prints nothing at all. */
	if (len == 0)
		return -ENODATA;
	return meminfo_value(text, len, "Pss", ret_bytes) ? 0 : -EINVAL;
}

int parse_meminfo(const char *text, size_t len, uint64_t *ret_total, uint64_t *ret_available)
{
	uint64_t total, available;

	if (!meminfo_value(text, len, "MemTotal", &total) || total == 0 ||
	    !meminfo_value(text, len, "MemAvailable", &available))
		return -EINVAL;
	*ret_total = total;
	*ret_available = available < total ? available : total;
	return 0;
}

/*
 * Where the values of a status text's "NSpid:\t4242\t7" line start (the pid
 * in each PID namespace, outermost first), or NULL: one memmem, not a walk
 * over the lines, for this runs for every process.
 */
static const char *nspid_values(const char *text, size_t len)
{
	if (len >= 6 && memcmp(text, "NSpid:", 6) == 0)
		return text + 6;
	const char *p = find_bytes(text, len, "\nNSpid:", 7);
	return p ? p + 7 : NULL;
}

int parse_proc_nspids(const char *text, size_t len, uint32_t *ret_outer, uint32_t *ret_inner,
		      unsigned *ret_depth)
{
	const char *end = text + len, *v;
	if (!(v = nspid_values(text, len)))
		return -ENOENT;
	const char *e = line_end(v, end);
	uint64_t pid, first = 0, last = 0;
	unsigned depth = 0;
	while (parse_u64(&v, e, &pid)) {
		if (depth == 0)
			first = pid;
		last = pid;
		depth++;
	}
	if (depth == 0 || first == 0 || last == 0 || first > UINT32_MAX || last > UINT32_MAX)
		return -EINVAL;
	if (ret_outer)
		*ret_outer = (uint32_t)first;
	*ret_inner = (uint32_t)last;
	*ret_depth = depth;
	return 0;
}

int parse_proc_nspid(const char *text, size_t len, uint32_t *ret_ns_pid, unsigned *ret_depth)
{
	return parse_proc_nspids(text, len, NULL, ret_ns_pid, ret_depth);
}

int parse_proc_nspid_at(const char *text, size_t len, unsigned level, uint32_t *ret_pid)
{
	const char *end = text + len, *v;
	if (!(v = nspid_values(text, len)))
		return -ENOENT;
	const char *e = line_end(v, end);
	uint64_t pid;
	unsigned fields = 0;
	for (; parse_u64(&v, e, &pid); fields++) {
		if (pid == 0 || pid > UINT32_MAX)
			return -EINVAL;
		if (fields == level) {
			*ret_pid = (uint32_t)pid;
			return 0;
		}
	}
	while (v < e && (*v == ' ' || *v == '\t'))
		v++;
	if (fields == 0 || v != e)
		return -EINVAL;
	/* Fewer fields: the process lives in a namespace above that level, where it has no pid. */
	return -ERANGE;
}

/* The path of a /proc/PID/cgroup line "hierarchy:controllers:path", or NULL. */
static const char *cgroup_line_path(const char *p, const char *e)
{
	const char *c1 = memchr(p, ':', (size_t)(e - p));
	const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
	return c2 ? c2 + 1 : NULL;
}

/*
 * ---- Kubernetes pods in cgroup paths ----
 *
 * The kubelet names a pod's cgroup "pod" + its UID, below its QoS class's
 * (pkg/kubelet/cm: {"kubepods", "burstable" or "besteffort", "pod" + UID};
 * a guaranteed pod has no QoS level). The cgroupfs driver writes that as a
 * path, /kubepods/burstable/pod<UID>; the systemd driver as slices, each
 * name its parent's and one more step after a '-', the UID's own '-' made
 * '_' (ExpandSlice): /kubepods.slice/kubepods-burstable.slice/
 * kubepods-burstable-pod<UID with _>.slice. A --cgroup-root puts either
 * below other names (kind: /kubelet.slice/kubelet-kubepods.slice/...). The
 * runtimes' cgroups (containerd, CRI-O, Docker) lie below the pod's.
 *
 * A process can create cgroups below its own, named as it likes, where that
 * subtree is delegated to it (a privileged container, a user's systemd). So:
 * the outermost kubelet layout in a path decides, and nothing below a pod
 * overrides it; from where the layout begins each step must be exactly the
 * kubelet's and the UID well formed (8-4-4-4-12 lowercase hex digits, as
 * the API server makes them), or the path is refused, not searched deeper;
 * and the lines of cgroup v1 (one per hierarchy) that name a pod must all
 * name the same one. Seen from a cgroup namespace (hmn in a pod on cgroup
 * v2) a path outside it starts with "/.." steps up, and the first name
 * after them may be in the middle of the layout ("/../../pod<UID>/<id>"):
 * only there is a pod taken without its "kubepods" ancestor, a place no
 * process below can name. The layout begins at the root, after those steps
 * up, or below a node's own cgroups (is_node_scope()): never deeper, so a
 * user's delegated subtree (/user.slice/.../user@1000.service/...) names no pod.
 */
enum pod_match { POD_NONE, POD_FOUND, POD_REFUSED };

/* One name in a cgroup path, not NUL-terminated. */
struct cgroup_name {
	const char *s;
	size_t n;
};

static bool name_is(struct cgroup_name c, const char *word)
{
	size_t n = strlen(word);
	return c.n == n && memcmp(c.s, word, n) == 0;
}

static bool name_ends_with(struct cgroup_name c, const char *suffix)
{
	size_t n = strlen(suffix);
	return c.n >= n && memcmp(c.s + c.n - n, suffix, n) == 0;
}

/* The UID as the kubelet wrote it, sep between the groups; out (when not NULL) gets it with '-'. */
static bool take_pod_uid(struct cgroup_name c, char sep, char *out)
{
	if (c.n != HMN_POD_UID_SIZE - 1)
		return false;
	for (size_t i = 0; i < c.n; i++) {
		char ch = c.s[i];
		if (i == 8 || i == 13 || i == 18 || i == 23 ? ch != sep :
		    !((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
			return false;
	}
	if (out) {
		memcpy(out, c.s, c.n);
		out[8] = out[13] = out[18] = out[23] = '-';
		out[c.n] = '\0';
	}
	return true;
}

static bool is_qos_name(struct cgroup_name c)
{
	return name_is(c, "burstable") || name_is(c, "besteffort");
}

/* cgroupfs: "pod<UID>". */
static bool is_pod_dir(struct cgroup_name c, char *out)
{
	return c.n > 3 && memcmp(c.s, "pod", 3) == 0 &&
	       take_pod_uid((struct cgroup_name){ c.s + 3, c.n - 3 }, '-', out);
}

/* systemd: a slice's name without ".slice" ("kubepods-burstable"), or n = 0. */
static struct cgroup_name slice_stem(struct cgroup_name c)
{
	static const char suffix[] = ".slice";
	if (c.n <= sizeof(suffix) - 1 || !name_ends_with(c, suffix))
		return (struct cgroup_name){ c.s, 0 };
	return (struct cgroup_name){ c.s, c.n - (sizeof(suffix) - 1) };
}

/* "kubepods", or "<cgroup root>-kubepods". */
static bool is_root_stem(struct cgroup_name stem)
{
	return name_ends_with(stem, "kubepods") &&
	       (stem.n == strlen("kubepods") || stem.s[stem.n - strlen("kubepods") - 1] == '-');
}

/* A root stem and "-burstable" or "-besteffort". */
static bool is_qos_stem(struct cgroup_name stem)
{
	static const char *const classes[] = { "-burstable", "-besteffort" };
	for (size_t i = 0; i < 2; i++)
		if (name_ends_with(stem, classes[i]) &&
		    is_root_stem((struct cgroup_name){ stem.s, stem.n - strlen(classes[i]) }))
			return true;
	return false;
}

/* Is child's stem parent's and one more step ("kubepods" -> "kubepods-burstable")? */
static bool extends(struct cgroup_name child, struct cgroup_name parent)
{
	return child.n > parent.n + 1 && memcmp(child.s, parent.s, parent.n) == 0 &&
	       child.s[parent.n] == '-';
}

/*
 * systemd: "<parent>-pod<UID with _>" (parent's n = 0: at the top of a
 * namespace, where parent is not seen: then any root or QoS stem).
 */
static bool is_pod_slice(struct cgroup_name stem, struct cgroup_name parent, char *out)
{
	const size_t tail = strlen("-pod") + HMN_POD_UID_SIZE - 1;
	if (stem.n <= tail)
		return false;
	struct cgroup_name head = { stem.s, stem.n - tail };
	if (memcmp(stem.s + head.n, "-pod", 4) != 0 ||
	    !take_pod_uid((struct cgroup_name){ stem.s + head.n + 4, HMN_POD_UID_SIZE - 1 }, '_', out))
		return false;
	if (parent.n)
		return head.n == parent.n && memcmp(head.s, parent.s, parent.n) == 0;
	return is_root_stem(head) || is_qos_stem(head);
}

static bool is_hex_id(struct cgroup_name c)
{
	if (c.n != 64)
		return false;
	for (size_t i = 0; i < c.n; i++)
		if (!((c.s[i] >= '0' && c.s[i] <= '9') || (c.s[i] >= 'a' && c.s[i] <= 'f')))
			return false;
	return true;
}

/* "<runtime>-<64 hex digits>.scope": a container's cgroup under the systemd driver. */
static bool is_runtime_scope(struct cgroup_name c)
{
	static const char *const runtimes[] = { "docker-", "libpod-", "crio-", "cri-containerd-" };
	if (!name_ends_with(c, ".scope"))
		return false;
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
		size_t n = strlen(runtimes[i]);
		if (c.n > n && memcmp(c.s, runtimes[i], n) == 0 &&
		    is_hex_id((struct cgroup_name){ c.s + n, c.n - n - strlen(".scope") }))
			return true;
	}
	return false;
}

/*
 * Where a kubelet's layout may begin: at the root, or below a node that is
 * itself a container (kind, k3d, minikube's docker driver: the node's
 * /system.slice/docker-<id>.scope, /machine.slice/libpod-<id>.scope, the
 * cgroupfs driver's /docker/<id>, a CI job's /actions_job/<id>) and a
 * --cgroup-root (kind's /kubelet.slice, /kubelet). Only root and the
 * container runtimes create those; never a user's systemd (user@*.service),
 * where any process can name cgroups as it likes.
 */
static bool is_node_scope(struct cgroup_name c)
{
	return name_is(c, "system.slice") || name_is(c, "machine.slice") || name_is(c, "docker") ||
	       name_is(c, "actions_job") || name_is(c, "kubelet.slice") || name_is(c, "kubelet") ||
	       is_hex_id(c) || is_runtime_scope(c);
}

/* The pod a cgroup path (up to end) places a process in, by the rules above. */
static enum pod_match path_pod_uid(const char *path, const char *end, char *out)
{
	enum { OUTSIDE, FS_ROOT, FS_QOS, SD_ROOT, SD_QOS } step = OUTSIDE;
	struct cgroup_name parent = { path, 0 }; /* systemd: the stem the next slice extends */
	bool leading = true, up = false;

	if (path >= end || *path != '/')
		return POD_NONE;
	for (const char *p = path; p < end;) {
		const char *s = p + 1;
		const char *slash = memchr(s, '/', (size_t)(end - s));
		p = slash ? slash : end;
		struct cgroup_name c = { s, (size_t)(p - s) };
		if (leading && name_is(c, "..")) {
			up = true;
			continue;
		}
		bool top = leading && up; /* the first name below a namespace's hidden ancestors */
		leading = false;
		struct cgroup_name stem = slice_stem(c);
		switch (step) {
		case OUTSIDE:
			if (name_is(c, "kubepods")) {
				step = FS_ROOT;
			} else if (is_root_stem(stem)) {
				step = SD_ROOT;
				parent = stem;
			} else if (top && is_qos_name(c)) {
				step = FS_QOS;
			} else if (top && is_qos_stem(stem)) {
				step = SD_QOS;
				parent = stem;
			} else if (top && (is_pod_dir(c, out) || is_pod_slice(stem, parent, out))) {
				return POD_FOUND; /* parent unseen (n = 0): any root or QoS stem */
			} else if (!is_node_scope(c)) {
				return POD_NONE; /* no layout begins below a name no node has */
			}
			break;
		case FS_ROOT:
		case FS_QOS:
			if (step == FS_ROOT && is_qos_name(c))
				step = FS_QOS;
			else
				return is_pod_dir(c, out) ? POD_FOUND : POD_REFUSED;
			break;
		case SD_ROOT:
		case SD_QOS:
			if (step == SD_ROOT && is_qos_stem(stem) && extends(stem, parent)) {
				step = SD_QOS;
				parent = stem;
			} else {
				return is_pod_slice(stem, parent, out) ? POD_FOUND : POD_REFUSED;
			}
			break;
		}
	}
	return POD_NONE;
}

int parse_pod_uid(const char *text, size_t len, char *out, size_t size)
{
	char uid[HMN_POD_UID_SIZE], first[HMN_POD_UID_SIZE];
	const char *last = NULL; /* the previous line's path, and what it gave */
	size_t last_len = 0;
	enum pod_match m = POD_NONE;
	bool found = false;

	if (size < HMN_POD_UID_SIZE)
		return -ENOBUFS;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			break; /* the kernel ends every line: this one was cut by the reader's bound */
		const char *path = cgroup_line_path(p, e);
		size_t path_len = path ? (size_t)(e - path) : 0;
		/* runc puts a container at the same path in every v1 hierarchy: read it once. */
		if (!path || !last || path_len != last_len || memcmp(path, last, path_len) != 0)
			m = path ? path_pod_uid(path, e, uid) : POD_NONE;
		last = path;
		last_len = path_len;
		if (m == POD_REFUSED || (m == POD_FOUND && found && strcmp(uid, first) != 0))
			return -EINVAL;
		if (m == POD_FOUND && !found) {
			memcpy(first, uid, sizeof(uid));
			found = true;
		}
		p = e + 1;
	}
	if (!found)
		return 0;
	memcpy(out, first, sizeof(first));
	return 1;
}

/* Copies the id of hex digits at p (at least 12), cut to 12, after a label. */
static bool take_id(const char *p, const char *end, const char *label, char *out, size_t size)
{
	size_t n = 0;
	while (p + n < end && ((p[n] >= '0' && p[n] <= '9') || (p[n] >= 'a' && p[n] <= 'f')))
		n++;
	if (n < 12)
		return false;
	snprintf(out, size, "%s:%.12s", label, p);
	return true;
}

/* Finds needle in [p, end); returns the position after it, or NULL. */
static const char *after(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (; p + n <= end; p++)
		if (memcmp(p, needle, n) == 0)
			return p + n;
	return NULL;
}

bool parse_container(const char *text, size_t len, char *out, size_t size)
{
	static const struct {
		const char *marker, *label;
	} runtimes[] = {
		{ "/docker-", "docker" }, { "/docker/", "docker" },
		{ "/libpod-", "podman" }, { "/libpod/", "podman" },
		{ "/cri-containerd-", "containerd" }, { "/crio-", "cri-o" },
		{ "/containerd/", "containerd" },
	};
	const char *p = text, *end = text + len;

	/* Each line is "hierarchy:controllers:path"; the path names the container. */
	while (p < end) {
		const char *e = line_end(p, end);
		const char *path = cgroup_line_path(p, e);
		if (path) {
			/* A pod's path seen from a cgroup namespace may have lost "kubepods". */
			bool kube = after(path, e, "kubepods") != NULL || path_pod_uid(path, e, NULL) == POD_FOUND;
			for (size_t i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++) {
				const char *id = after(path, e, runtimes[i].marker);
				if (id && take_id(id, e, kube ? "kubernetes" : runtimes[i].label, out, size))
					return true;
			}
			if (kube) {
				/* cgroup v1 under Kubernetes: /kubepods/<qos>/pod<uid>/<id> */
				const char *slash = NULL;
				for (const char *q = path; q < e; q++)
					if (*q == '/')
						slash = q;
				if (slash && take_id(slash + 1, e, "kubernetes", out, size))
					return true;
			}
			const char *lxc = after(path, e, "/lxc.payload.");
			if (!lxc)
				lxc = after(path, e, "/lxc/");
			if (lxc && lxc < e) {
				size_t n = 0; /* up to the next '/', within the line: the text has no NUL */
				while (lxc + n < e && lxc[n] != '/')
					n++;
				if (n > 0) {
					snprintf(out, size, "lxc:%.*s", (int)(n > 64 ? 64 : n), lxc);
					return true;
				}
			}
		}
		p = e < end ? e + 1 : end;
	}
	return false;
}
