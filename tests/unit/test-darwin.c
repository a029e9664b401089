/*
 * The macOS source's arithmetic, on Linux: the ledger template lookup on a
 * byte buffer laid out as XNU copies it out, balances, and the unified
 * memory figures. (Nothing here can run macOS code.)
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

int main(void)
{
	test_ledger();
	test_uma();
	test_child_count();
	return tap_done();
}
