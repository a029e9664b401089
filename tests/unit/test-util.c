/*
 * lib/util's shared pieces, each written once for the whole of hmn: the
 * number parser, pid sets, the hashed index of rows, word vectors in an
 * arena; and hmn_place's two matchers (lib/hmn.h), which every "which GPU,
 * which MIG instance" question goes through.
 */
#include <stdlib.h>
#include <string.h>

#include "hmn.h"
#include "tap.h"
#include "util/arena.h"
#include "util/hash-index.h"
#include "util/number.h"
#include "util/pid-set.h"

static void test_numbers(void)
{
	static const char text[] = "4096 rest";
	const char *p = text;
	uint64_t v = 7;
	ok(parse_decimal(&p, text + strlen(text), UINT64_MAX, &v) && v == 4096 && p == text + 4,
	   "decimal: the digits, and where they stop");
	p = text;
	ok(!parse_decimal(&p, text + strlen(text), 4095, &v) && v == 4096 && p == text, "past max: refused, nothing moved");
	ok(parse_decimal(&p, text + strlen(text), 4096, &v) && v == 4096, "max itself: taken");
	static const char big[] = "18446744073709551615", over[] = "18446744073709551616";
	p = big;
	ok(parse_decimal(&p, big + strlen(big), UINT64_MAX, &v) && v == UINT64_MAX, "2^64-1 is read whole");
	p = over;
	ok(!parse_decimal(&p, over + strlen(over), UINT64_MAX, &v) && p == over, "2^64: refused, not wrapped");
	static const char bounded[] = "12345";
	p = bounded;
	ok(parse_decimal(&p, bounded + 3, UINT64_MAX, &v) && v == 123 && p == bounded + 3, "no digit read past end");
	static const char none[] = " 1", sign[] = "-1";
	p = none;
	ok(!parse_decimal(&p, none + 2, UINT64_MAX, &v) && p == none, "a blank first: no number (callers skip blanks)");
	p = sign;
	ok(!parse_decimal(&p, sign + 2, UINT64_MAX, &v) && p == sign, "a sign: no number");
	p = none + 2;
	ok(!parse_decimal(&p, none + 2, UINT64_MAX, &v), "nothing left: no number");
	static const char hex[] = "300000000x", nine[] = "9";
	p = hex;
	ok(parse_hex(&p, hex + strlen(hex), UINT64_MAX, &v) && v == 0x300000000ULL && *p == 'x', "hex: 0x300000000");
	static const char mixed[] = "DeadBeef";
	p = mixed;
	ok(parse_hex(&p, mixed + strlen(mixed), UINT32_MAX, &v) && v == 0xdeadbeef, "hex: either case");
	p = mixed;
	ok(!parse_hex(&p, mixed + strlen(mixed), 0xdeadbeee, &v) && p == mixed, "hex past max: refused");
	p = nine;
	ok(!parse_decimal(&p, nine + 1, 8, &v) && p == nine, "a single digit past max: refused");
}

static void test_pid_sets(void)
{
	uint32_t pids[] = { 40, 7, 40, 3, 7, 100 };
	size_t n = pid_set_make(pids, 6);
	ok(n == 4 && pids[0] == 3 && pids[1] == 7 && pids[2] == 40 && pids[3] == 100, "made: sorted, each once (%zu)", n);
	ok(pid_set_has(pids, n, 40) && !pid_set_has(pids, n, 41) && !pid_set_has(pids, 0, 3), "found by halves");
	n = pid_set_remove(pids, n, 7);
	ok(n == 3 && pids[1] == 40 && !pid_set_has(pids, n, 7), "7 taken out, the order kept");
	ok(pid_set_remove(pids, n, 8) == 3, "a pid not there: nothing taken");
	ok(pid_set_make(pids, 0) == 0, "an empty set");
}

struct row {
	uint32_t key;
	int value;
};

static uint64_t hash_of(const void *rows, size_t i)
{
	return hash_mix(((const struct row *)rows)[i].key);
}

static bool is(const void *rows, size_t i, const void *key)
{
	return ((const struct row *)rows)[i].key == *(const uint32_t *)key;
}

static void test_hash_index(void)
{
	struct row *rows = calloc(5000, sizeof(*rows));
	struct hash_index ix = { 0 };
	size_t n = 0;
	bool right = rows != NULL;
	/* 5,000 keys, each added once, many grow the index past its first size. */
	for (uint32_t k = 0; right && k < 5000; k++) {
		uint32_t key = k * 2654435761u;
		right = hash_index_fit(&ix, n, false, rows, hash_of) == 0;
		size_t slot = hash_index_slot(&ix, hash_mix(key), rows, &key, is);
		right &= hash_index_row(&ix, slot) == SIZE_MAX;
		rows[n] = (struct row){ key, (int)k };
		hash_index_put(&ix, slot, n++);
	}
	ok(right && ix.capacity >= 2 * n, "5,000 rows placed, the index at half its room or less");
	for (uint32_t k = 0; right && k < 5000; k++) {
		uint32_t key = k * 2654435761u;
		size_t row = hash_index_row(&ix, hash_index_slot(&ix, hash_mix(key), rows, &key, is));
		right &= row != SIZE_MAX && rows[row].value == (int)k;
	}
	ok(right, "each found again, its own row");
	uint32_t absent = 12345;
	ok(hash_index_row(&ix, hash_index_slot(&ix, hash_mix(absent), rows, &absent, is)) == SIZE_MAX, "a key never added: none");
	/* Rows dropped (the first half): placed again, the rest still found. */
	memmove(rows, rows + 2500, 2500 * sizeof(*rows));
	n = 2500;
	right = hash_index_fit(&ix, n, true, rows, hash_of) == 0;
	for (size_t i = 0; right && i < n; i++) {
		size_t row = hash_index_row(&ix, hash_index_slot(&ix, hash_mix(rows[i].key), rows, &rows[i].key, is));
		right &= row == i;
	}
	uint32_t dropped = 0; /* key of k = 0 */
	ok(right && hash_index_row(&ix, hash_index_slot(&ix, hash_mix(dropped), rows, &dropped, is)) == SIZE_MAX,
	   "rebuilt after rows were dropped: the kept found at their new rows, the dropped not at all");
	hash_index_free(&ix);
	ok(ix.slots == NULL && ix.capacity == 0, "freed");
	free(rows);
}

static void test_places(void)
{
	struct hmn_place gpu0 = { .index = 0 }, gpu1 = { .index = 1 };
	struct hmn_place mig20 = { 0, true, 2, 0 }, mig21 = { 0, true, 2, 1 }, mig20b = mig20;
	/* Ids a whole GPU's row may carry: they say nothing there. */
	struct hmn_place gpu0_noise = { .index = 0, .gpu_instance_id = 9, .compute_instance_id = 9 };
	ok(hmn_place_equal(&mig20, &mig20b) && hmn_place_equal(&gpu0, &gpu0_noise), "equal: the same place");
	ok(!hmn_place_equal(&mig20, &mig21) && !hmn_place_equal(&gpu0, &mig20) && !hmn_place_equal(&mig20, &gpu0) &&
		   !hmn_place_equal(&gpu0, &gpu1),
	   "equal: never another instance, an instance and its GPU, another GPU");
	ok(hmn_place_within(&mig20, &gpu0) && hmn_place_within(&mig21, &gpu0) && hmn_place_within(&gpu0, &gpu0),
	   "within a GPU: itself and each of its instances");
	ok(!hmn_place_within(&gpu0, &mig20) && !hmn_place_within(&mig21, &mig20) && hmn_place_within(&mig20, &mig20b) &&
		   !hmn_place_within(&mig20, &gpu1),
	   "within an instance: that instance alone; nothing of another GPU");
}

/* A process's argument vector kept in an arena and copied out of it (a remembering context). */
static void test_word_vectors(void)
{
	struct hmn_arena *arena = arena_new();
	static const char block[] = "python3\0train.py\0\0--lr=3e-4";
	/* Strings of odd lengths first: the vector's pointers must still be aligned. */
	arena_strdup(arena, "x");
	arena_strdup(arena, "odd");
	const char *const *v = arena_words(arena, block, 4);
	ok(v && ((uintptr_t)v % sizeof(char *)) == 0, "a vector in the arena, aligned for its pointers");
	ok(v && !strcmp(v[0], "python3") && !strcmp(v[1], "train.py") && !strcmp(v[2], "") &&
	   !strcmp(v[3], "--lr=3e-4") && !v[4], "its four words, an empty one among them, then NULL");
	ok(v && v[0] != block, "the words copied, not pointed at");
	const char *const *copy = strv_dup(v);
	ok(copy && copy != v && !strcmp(copy[3], "--lr=3e-4") && !strcmp(copy[2], "") && !copy[4],
	   "strv_dup: a malloc'd copy, one piece");
	arena_strdup(arena, "odd");
	const char *const *back = arena_strv_dup(arena, copy);
	free((void *)copy);
	ok(back && ((uintptr_t)back % sizeof(char *)) == 0 && !strcmp(back[1], "train.py") && !back[4],
	   "arena_strv_dup: back into the arena, aligned");
	ok(!arena_strv_dup(arena, NULL) && !strv_dup(NULL), "NULL copies to NULL");
	/* Past a block's 16 KiB: a vector of its own size. */
	static char big[40000];
	memset(big, 'w', sizeof(big) - 1);
	const char *const *large = arena_words(arena, big, 1);
	ok(large && strlen(large[0]) == sizeof(big) - 1 && !large[1], "a vector larger than a block");
	const char *const *none = arena_words(arena, "", 0);
	ok(none && !none[0], "no words: an empty vector");
	arena_free(arena);
}

int main(void)
{
	test_word_vectors();
	test_numbers();
	test_pid_sets();
	test_hash_index();
	test_places();
	return tap_done();
}
