/*
 * Text parsers for what the OS and drivers print. Pure functions over a
 * buffer, so unit tests and fuzzers reach them without a system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

/* Parses an unsigned decimal; returns false on no digits or overflow. */
static bool parse_u64(const char **pp, const char *end, uint64_t *ret)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*pp = p;
	*ret = v;
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

/* Reads 1 to max hex digits; returns the count read, 0 on none. */
static size_t hex_field(const char *p, size_t max, unsigned long long *ret)
{
	unsigned long long v = 0;
	size_t n = 0;

	for (; n < max; n++) {
		char c = p[n];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (unsigned)d;
	}
	*ret = v;
	return n;
}

void normalize_pci_bus_id(const char *in, char *out, size_t size)
{
	unsigned long long domain, bus, device, function;
	const char *p = in;
	size_t n;

	/*
	 * NVML writes DDDDDDDD:BB:DD.F with an 8-digit domain; sysfs, lspci and
	 * DRM write 4 digits. Anything else is kept as it is.
	 */
	if ((n = hex_field(p, 8, &domain)) && p[n] == ':' && (p += n + 1) &&
	    hex_field(p, 2, &bus) == 2 && p[2] == ':' && (p += 3) &&
	    hex_field(p, 2, &device) == 2 && p[2] == '.' && (p += 3) &&
	    hex_field(p, 1, &function) == 1 && p[1] == '\0' && device <= 0x1f && function <= 7) {
		snprintf(out, size, "%04llx:%02llx:%02llx.%llx", domain, bus, device, function);
		return;
	}
	snprintf(out, size, "%s", in);
}

bool nvml_v3_entries_are_32_bytes(const char *driver_version)
{
	unsigned major, minor;

	/*
	 * R535 from 535.43.02 to 535.98 added a field to the entries of the
	 * _v3 process calls without a new version (32 bytes, not 24);
	 * 535.104.05 went back to 24.
	 */
	if (!driver_version || sscanf(driver_version, "%u.%u", &major, &minor) != 2)
		return false;
	return major == 535 && minor >= 43 && minor <= 98;
}

const char *path_basename_any(const char *path)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	return base;
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

int parse_stat_ppid(const char *text, size_t len, uint32_t *ret_ppid)
{
	/* "1234 (name with ) and spaces) S 1 ...": the name may hold anything; the last ')' ends it. */
	const char *close = NULL, *end = text + len;
	for (const char *p = text; p < end; p++)
		if (*p == ')')
			close = p;
	if (!close || end - close < 4 || close[1] != ' ' || close[3] != ' ')
		return -EINVAL;
	const char *p = close + 4;
	uint64_t ppid;
	if (!parse_u64(&p, end, &ppid) || ppid > UINT32_MAX)
		return -EINVAL;
	*ret_ppid = (uint32_t)ppid;
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

int parse_proc_nspid(const char *text, size_t len, uint32_t *ret_ns_pid, unsigned *ret_depth)
{
	/* "NSpid:\t4242\t7": the pid in each PID namespace, outermost first. One
	 * memmem, not a walk over the lines: this runs for every process. */
	const char *end = text + len, *v;
	if (len >= 6 && memcmp(text, "NSpid:", 6) == 0) {
		v = text + 6;
	} else {
		const char *p = find_bytes(text, len, "\nNSpid:", 7);
		if (!p)
			return -ENOENT;
		v = p + 7;
	}
	const char *e = line_end(v, end);
	uint64_t pid, last = 0;
	unsigned depth = 0;
	while (parse_u64(&v, e, &pid)) {
		last = pid;
		depth++;
	}
	if (depth == 0 || last == 0 || last > UINT32_MAX)
		return -EINVAL;
	*ret_ns_pid = (uint32_t)last;
	*ret_depth = depth;
	return 0;
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
		const char *c1 = memchr(p, ':', (size_t)(e - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
		if (c2) {
			const char *path = c2 + 1;
			bool kube = after(path, e, "kubepods") != NULL;
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
