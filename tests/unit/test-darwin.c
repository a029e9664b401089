/*
 * The macOS source's arithmetic, on Linux: the ledger template lookup on a
 * byte buffer laid out as XNU copies it out, balances, the unified memory
 * figures, and a process's command line in a KERN_PROCARGS2 answer.
 * (Nothing here can run macOS code.)
 */
#include <stdlib.h>

#include "gpu/metal/metal-abi.h"
#include "gpu/metal/metal.h"
#include "hmn.h"
#include "os/darwin/darwin-parse.h"
#include "tap.h"

#define GIB (1024ULL * 1024 * 1024)

static void test_ledger(void)
{
	/* A template as the kernel copies it: 96-byte records, names NUL-padded. */
	static const char *const names[] = { "cpu_time", "tkm_private", "phys_footprint",
					      "graphics_footprint", "neural_footprint" };
	unsigned char buf[5 * 96];
	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 5; i++)
		memcpy(buf + i * 96, names[i], strlen(names[i]));
	memcpy(buf + 2 * 96 + 32, "physmem", 7); /* a group: never matched as a name */

	ok(ledger_entry_index(buf, 5, "graphics_footprint") == 3, "graphics_footprint found by name");
	ok(ledger_entry_index(buf, 5, "phys_footprint") == 2, "phys_footprint is another entry");
	ok(ledger_entry_index(buf, 3, "graphics_footprint") == -1, "not among the first three");
	ok(ledger_entry_index(buf, 5, "physmem") == -1, "a group name is not an entry name");
	ok(ledger_entry_index(buf, 5, "graphics") == -1, "a prefix is not the name");
	ok(ledger_entry_index(buf, 0, "graphics_footprint") == -1, "an empty template");

	/* A name that fills its 32 bytes, with no NUL. */
	memset(buf, 'x', 32);
	char full[33];
	memset(full, 'x', 32);
	full[32] = '\0';
	ok(ledger_entry_index(buf, 5, full) == 0, "a 32-byte name without a NUL");

	struct ledger_entry_info e[3] = {
		{ .lei_balance = 5 }, { .lei_balance = -1 }, { .lei_balance = (int64_t)(3 * GIB) },
	};
	is_u64(ledger_entry_balance(e, 3, 2), 3 * GIB, "a balance");
	is_u64(ledger_entry_balance(e, 3, 1), HMN_UNKNOWN, "a negative balance is unknown, not huge");
	is_u64(ledger_entry_balance(e, 3, 3), HMN_UNKNOWN, "past the entries the kernel gave");
	is_u64(ledger_entry_balance(e, 3, -1), HMN_UNKNOWN, "no such entry (-1)");
}

static void test_uma(void)
{
	uint64_t used, free_bytes;
	uma_figures(36 * GIB, 27 * GIB, &used, &free_bytes);
	ok(used == 9 * GIB && free_bytes == 27 * GIB, "M3 Pro 36 GiB, budget 27 GiB: 9 used, 27 free");
	uma_figures(16 * GIB, HMN_UNKNOWN, &used, &free_bytes);
	ok(used == 0 && free_bytes == 16 * GIB, "no Metal device: all free");
	uma_figures(8 * GIB, 9 * GIB, &used, &free_bytes);
	ok(used == 0 && free_bytes == 8 * GIB, "a budget above the total is capped");
	ok(used + free_bytes == 8 * GIB, "used + free = total");
}

static void test_child_count(void)
{
	ok(darwin_child_count(3, 4096) == 3, "3 children: 3 entries read");
	ok(darwin_child_count(12, 4096) == 12, "a count of bytes (3 pids): 12 entries of a zeroed buffer, 9 of them 0");
	ok(darwin_child_count(100000, 4096) == 4096, "never past the buffer");
	ok(darwin_child_count(0, 4096) == 0 && darwin_child_count(-1, 4096) == 0, "none, or a failure: nothing read");
}

/* A KERN_PROCARGS2 answer as XNU copies it out: argc, the executable's path, NULs, the words, the environment. */
static size_t procargs(char *buf, int argc, const char *rest, size_t rest_len)
{
	memcpy(buf, &argc, sizeof(argc));
	memcpy(buf + sizeof(argc), rest, rest_len);
	return sizeof(argc) + rest_len;
}

static void test_procargs2(void)
{
	char buf[256];
	size_t start = 99, len = 99;
	static const char answer[] = "/usr/bin/python3\0\0\0\0python3\0\0train.py\0HOME=/root\0PATH=/bin\0";
	size_t n = procargs(buf, 3, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 3, "three words, an empty one among them");
	ok(start == sizeof(int) + 20 && !memcmp(buf + start, "python3\0\0train.py", 17) && len == 17,
	   "after the path and its padding; the environment left out (%zu, %zu)", start, len);
	/* argc 2: the words stop before train.py; an empty last word is no word (argv_words). */
	n = procargs(buf, 2, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 1 && len == 7, "argc words and no more");
	/* The bound cuts the words: 10 bytes of them. */
	n = procargs(buf, 3, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 10, &start, &len) == 3 && len == 10 && buf[start + 9] == 't',
	   "cut at the bound, inside the third word");
	/* Hostile: argc past what is there, none, negative; no NUL after the path; too short for argc. */
	n = procargs(buf, 1000, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 5, "argc past the words: the words there are, environment too");
	n = procargs(buf, 0, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 0, "argc 0: none");
	n = procargs(buf, -5, answer, sizeof(answer) - 1);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 0, "argc negative: none");
	n = procargs(buf, 2, "/no/nul/after/the/path", 22);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 0, "no NUL after the path: none");
	n = procargs(buf, 2, "/path\0\0\0", 8);
	ok(parse_procargs2(buf, n, 4096, &start, &len) == 0, "a path and nothing after it: none");
	ok(parse_procargs2(buf, 3, 4096, &start, &len) == 0 && parse_procargs2(buf, 0, 4096, &start, &len) == 0,
	   "shorter than argc: none");
}

int main(void)
{
	test_procargs2();
	test_ledger();
	test_uma();
	test_child_count();
	return tap_done();
}
