/* libFuzzer harness: /proc/PID/status and /proc/meminfo parsing, and the name helpers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_pid(uint32_t pid, void *data)
{
	if (pid == 0)
		abort();
	(void)data;
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
	uint32_t ppid;
	(void)parse_stat_ppid(copy, size, &ppid);
	(void)parse_pid_list(copy, size, count_pid, &ppid);
	uint64_t total = 0, available = 0;
	if (parse_meminfo(copy, size, &total, &available) == 0 &&
	    (total == 0 || available > total || total % 1024 != 0))
		abort();
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
