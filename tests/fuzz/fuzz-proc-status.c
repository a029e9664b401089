/* libFuzzer harness: /proc/PID/status, cgroup, cmdline, /proc/meminfo and smaps_rollup parsing, and the name helpers. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/pci.h"
#include "os/linux/proc-parse.h"
#include "util/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_pid(uint32_t pid, void *data)
{
	if (pid == 0)
		abort();
	(void)data;
}

/* A pod UID taken is well formed and was in the text (dashed, or as systemd spells it); none leaves out alone. */
static void check_pod_uid(const char *text, size_t size)
{
	char uid[HMN_POD_UID_SIZE] = "kept", systemd[HMN_POD_UID_SIZE];
	int r = parse_pod_uid(text, size, uid, sizeof(uid));

	if (r != 1) {
		if ((r != 0 && r != -EINVAL) || strcmp(uid, "kept") != 0)
			abort();
		return;
	}
	if (strlen(uid) != HMN_POD_UID_SIZE - 1)
		abort();
	for (size_t i = 0; i < HMN_POD_UID_SIZE - 1; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? uid[i] != '-' : !strchr("0123456789abcdef", uid[i]))
			abort();
		systemd[i] = dash ? '_' : uid[i];
	}
	systemd[HMN_POD_UID_SIZE - 1] = '\0';
	if (!memmem(text, size, uid, HMN_POD_UID_SIZE - 1) && !memmem(text, size, systemd, HMN_POD_UID_SIZE - 1))
		abort();
}

/*
 * The bytes as /proc/PID/cmdline, whole and cut: the words lie within the
 * text, one more than the NULs between them, the last not empty; cut, it
 * loses the start of one character at its end at most (and the NULs
 * before it), nothing else.
 */
static void check_cmdline(const char *text, size_t size)
{
	size_t whole_len = 7, cut_len = 7, nuls = 0;
	size_t words = argv_words(text, size, false, &whole_len);
	size_t cut_words = argv_words(text, size, true, &cut_len);

	if (whole_len > size || (words == 0) != (whole_len == 0) || (whole_len > 0 && text[whole_len - 1] == '\0'))
		abort();
	for (size_t i = 0; i < whole_len; i++)
		nuls += text[i] == '\0';
	if (words > 0 && nuls + 1 != words)
		abort();
	if (cut_len > whole_len || cut_words > words)
		abort();
	if (cut_len == whole_len)
		return;
	/* What the cut dropped: a lead byte and at most two continuation bytes after it, NULs before. */
	const unsigned char *p = (const unsigned char *)text;
	size_t lead = whole_len - 1;
	while (lead > cut_len && whole_len - lead < 3 && (p[lead] & 0xc0) == 0x80)
		lead--;
	if (p[lead] < 0xc0 || whole_len != size)
		abort();
	for (size_t i = cut_len; i < lead; i++)
		if (p[i] != '\0')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[64], buf[64];
	uint32_t uid = 0;
	uint64_t rss = 0;

	/* Exactly size bytes, no terminator: the parser must not read past. */
	char *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (parse_proc_status(copy, size, name, sizeof(name), &uid, &rss) == 0) {
		if (strlen(name) >= sizeof(name))
			abort();
		if (rss != HMN_UNKNOWN && rss % 1024 != 0)
			abort();
	}
	uint32_t ns_pid;
	unsigned depth;
	if (parse_proc_nspid(copy, size, &ns_pid, &depth) == 0 && (ns_pid == 0 || depth == 0))
		abort();
	char container[96];
	if (parse_container(copy, size, container, sizeof(container)) && strlen(container) >= sizeof(container))
		abort();
	check_pod_uid(copy, size);
	uint32_t ppid, outer;
	(void)parse_stat_ppid(copy, size, &ppid);
	struct proc_stat st;
	if (parse_stat(copy, size, &st) == 0 && st.state == '\0' && size > 0 && memchr(copy, '\0', size) == NULL)
		abort();
	uint64_t mask;
	(void)parse_signal_mask(copy, size, "ShdPnd", &mask);
	if (parse_proc_nspids(copy, size, &outer, &ns_pid, &depth) == 0 && (outer == 0 || ns_pid == 0))
		abort();
	(void)parse_pid_list(copy, size, count_pid, &ppid);
	uint64_t total = 0, available = 0;
	if (parse_meminfo(copy, size, &total, &available) == 0 &&
	    (total == 0 || available > total || total % 1024 != 0))
		abort();
	uint64_t pss = 7;
	int r = parse_smaps_pss(copy, size, &pss);
	if ((r == 0 && pss % 1024 != 0) || (r < 0 && pss != 7) || (r == -ENODATA && size != 0))
		abort();
	check_cmdline(copy, size);
	free(copy);

	/* The same bytes as a path and as a bus id. */
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	exe_basename(s, buf, sizeof(buf));
	if (strlen(buf) >= sizeof(buf))
		abort();
	normalize_pci_bus_id(s, buf, sizeof(buf));
	free(s);
	return 0;
}
