/*
 * --pick's pure part (src/pick.c): the holds file's text as another user may
 * have written it (garbage, overlong lines, far-future holds, a full file),
 * written back and read again; and the choice among the rows: most free
 * first, held and MIG-divided GPUs passed over, N% of each GPU's own total.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"
#include "tap.h"

#define GIB (1ULL << 30)
#define NOW 1795714487196ULL

static struct hmn_gpu gpu(unsigned index, const char *uuid, uint64_t total, uint64_t free)
{
	return (struct hmn_gpu){ .place = { .index = index }, .uuid = uuid, .vendor = "nvidia", .source = "nvml",
				 .total_bytes = total, .free_bytes = free, .used_bytes = total - free };
}

static void test_parse(void)
{
	struct pick_holds h;
	char text[4096];

	pick_holds_parse("", 0, NOW, &h);
	ok(h.n == 0, "an empty file holds nothing");
	snprintf(text, sizeof(text),
		 "GPU-a 100 %llu\n"          /* kept */
		 "GPU-b 100 %llu\n"          /* expired */
		 "GPU-c 100 %llu\n"          /* two hours: more than any --hold */
		 "GPU-d 0 %llu\n"            /* pid 0 */
		 "GPU-e 4294967296 %llu\n"   /* past a pid's range */
		 "GPU-f 100 %llu extra\n"    /* a word too many */
		 "GPU-g 100\n"               /* a word too few */
		 "\x1b[2J 100 %llu\n"        /* not a key: an escape */
		 "GPU-h -1 %llu\n"           /* not a number */
		 "GPU-i 100 99999999999999999999999\n" /* past 64 bits */
		 "  MIG-j\t7   %llu  \n"     /* blanks around, kept */
		 "GPU-k 100 %llu",           /* no final newline, kept */
		 NOW + 1000, NOW - 1, NOW + 7200000, NOW + 1000, NOW + 1000, NOW + 1000, NOW + 1000, NOW + 1000,
		 NOW + 5, NOW + 30000);
	pick_holds_parse(text, strlen(text), NOW, &h);
	is_u64(h.n, 3, "three lines of twelve are holds");
	is_str(h.items[0].key, "GPU-a", "the first");
	is_str(h.items[1].key, "MIG-j", "blanks and tabs around the words");
	is_u64(h.items[1].pid, 7, "its pid");
	is_str(h.items[2].key, "GPU-k", "the last line, with no newline");
	ok(pick_holds_has(&h, "GPU-k") && !pick_holds_has(&h, "GPU-b"), "has");

	/* A key of 95 bytes is one, of 96 not; NUL bytes end nothing. */
	char key[200];
	memset(key, 'k', sizeof(key));
	int at = snprintf(text, sizeof(text), "%.95s 1 %llu\n%.96s 1 %llu\nGPU-z", key, NOW + 1, key, NOW + 1);
	at += 1 + snprintf(text + at + 1, sizeof(text) - (size_t)at - 1, " 1 %llu\n", NOW + 1); /* a NUL after GPU-z */
	pick_holds_parse(text, (size_t)at, NOW, &h);
	is_u64(h.n, 1, "a 95-byte key is one, a 96-byte key and a NUL inside are not");

	/* Written back and read again: the same; a full file stops at PICK_HOLDS_MAX. */
	struct pick_holds many = { 0 }, again;
	for (size_t i = 0; i < PICK_HOLDS_MAX + 5; i++) {
		char k[32];
		snprintf(k, sizeof(k), "GPU-%zu", i);
		if (!pick_holds_add(&many, k, (uint32_t)i + 1, NOW + 1000 + i))
			break;
	}
	is_u64(many.n, PICK_HOLDS_MAX, "adding stops at PICK_HOLDS_MAX");
	ok(!pick_holds_add(&h, "two words", 1, NOW + 1) && !pick_holds_add(&h, "", 1, NOW + 1),
	   "a key with a blank, or none, is refused");
	char *file = malloc(PICK_FILE_MAX);
	size_t len = pick_holds_format(&many, file, PICK_FILE_MAX);
	ok(len > 0, "the fullest file fits PICK_FILE_MAX");
	pick_holds_parse(file, len, NOW, &again);
	bool same = again.n == many.n;
	for (size_t i = 0; same && i < many.n; i++)
		same = strcmp(again.items[i].key, many.items[i].key) == 0 && again.items[i].pid == many.items[i].pid &&
		       again.items[i].expires_ms == many.items[i].expires_ms;
	ok(same, "read back the same");
	is_u64(pick_holds_format(&many, file, 64), 0, "a buffer too small: nothing, never half a file");
	free(file);

	is_u64(pick_holds_remove(&many, "GPU-3", 4), 1, "remove one hold of one run");
	is_u64(pick_holds_remove(&many, "GPU-3", 4), 0, "gone");
	is_u64(pick_holds_remove(&many, NULL, 9), 1, "remove every hold of a run");
	is_u64(many.n, PICK_HOLDS_MAX - 2, "the others stay");
}

static void test_pick(void)
{
	struct hmn_gpu g[4] = {
		gpu(0, "GPU-h100", 80 * GIB, 60 * GIB),
		gpu(1, "GPU-l40s", 45 * GIB, 45 * GIB),
		gpu(2, "GPU-a100", 40 * GIB, 45 * GIB / 2),
		gpu(3, "GPU-same", 45 * GIB, 45 * GIB),
	};
	const struct hmn_gpu *rows[4] = { &g[0], &g[1], &g[2], &g[3] }, *picked[4];
	struct pick_holds none = { 0 }, held = { 0 };
	struct pick_outcome o;
	struct size_arg need = { .bytes = 40 * GIB };

	pick_gpus(rows, 4, &need, &none, picked, 3, &o);
	ok(o.fitting == 3 && picked[0] == &g[0] && picked[1] == &g[1] && picked[2] == &g[3],
	   "most free first; ties by index");
	ok(o.most == &g[2], "the closest of the rest");
	pick_gpus(rows, 4, &need, &none, picked, 1, &o);
	ok(o.fitting == 3 && picked[0] == &g[0], "one asked: the most free, and how many had room");

	pick_holds_add(&held, "GPU-h100", 1, NOW + 1000);
	pick_gpus(rows, 4, &need, &held, picked, 2, &o);
	ok(o.fitting == 2 && o.held == 1 && picked[0] == &g[1] && picked[1] == &g[3], "a held GPU passed over");

	struct size_arg share = { .is_percent = true, .percent = 90 };
	pick_gpus(rows, 4, &share, &none, picked, 4, &o);
	ok(o.fitting == 2 && picked[0] == &g[1] && picked[1] == &g[3], "90%%: of each GPU's own total");

	/* A GPU divided into MIG instances: its instances, never itself. */
	struct hmn_gpu mig[3] = {
		gpu(0, "GPU-mig", 80 * GIB, 70 * GIB),
		gpu(0, "MIG-a", 40 * GIB, 30 * GIB),
		gpu(0, "MIG-b", 20 * GIB, 20 * GIB),
	};
	mig[1].place = (struct hmn_place){ .index = 0, .is_mig = true, .gpu_instance_id = 2 };
	mig[2].place = (struct hmn_place){ .index = 0, .is_mig = true, .gpu_instance_id = 3 };
	const struct hmn_gpu *mig_rows[3] = { &mig[0], &mig[1], &mig[2] };
	struct size_arg small = { .bytes = 10 * GIB };
	pick_gpus(mig_rows, 3, &small, &none, picked, 2, &o);
	ok(o.fitting == 2 && picked[0] == &mig[1] && picked[1] == &mig[2], "MIG instances, not the GPU");

	/* Unknown free, Intel's, unified memory: not picked. */
	struct hmn_gpu odd[3] = { gpu(0, "GPU-x", 80 * GIB, 80 * GIB), gpu(1, NULL, 16 * GIB, 16 * GIB),
				  gpu(2, "GPU-u", 128 * GIB, 100 * GIB) };
	odd[0].free_bytes = HMN_UNKNOWN;
	odd[1].vendor = "intel";
	odd[2].unified_memory = true;
	const struct hmn_gpu *odd_rows[3] = { &odd[0], &odd[1], &odd[2] };
	pick_gpus(odd_rows, 3, &small, &none, picked, 1, &o);
	ok(o.fitting == 0 && !o.most, "unknown free, Intel and unified memory are not picked");

	/* AMD without UUIDs: by its index among AMD's GPUs, keyed by its PCI address. */
	struct hmn_gpu all_gpus[3] = { gpu(0, "GPU-n", 80 * GIB, 80 * GIB), gpu(1, NULL, 24 * GIB, 20 * GIB),
				       gpu(2, NULL, 24 * GIB, 22 * GIB) };
	all_gpus[1].vendor = all_gpus[2].vendor = "amd";
	all_gpus[2].pci_bus_id = "0000:08:00.0";
	struct hmn_gpu_list all = { .count = 3, .gpus = all_gpus };
	char id[PICK_KEY_MAX], key[PICK_KEY_MAX];
	is_str(pick_id(&all_gpus[2], &all, id, sizeof(id)), "1", "AMD's second GPU is ROCm's 1");
	is_str(pick_variable(&all_gpus[2]), "ROCR_VISIBLE_DEVICES", "AMD's variable");
	is_str(pick_variable(&all_gpus[0]), "CUDA_VISIBLE_DEVICES", "NVIDIA's");
	ok(pick_key(&all_gpus[2], key) && strcmp(key, "0000:08:00.0") == 0, "keyed by its PCI address");
	ok(pick_key(&all_gpus[1], key) && strcmp(key, "amd-gpu1") == 0, "or, with none, its vendor and index");
}

int main(void)
{
	test_parse();
	test_pick();
	return tap_done();
}
