/*
 * libFuzzer harness: --pick's holds file (src/pick.c), which any user of the
 * machine may write. What parses is within bounds (a key of one printable
 * word, a pid, a hold that ends within the longest --hold); written back, it
 * reads back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pick.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW 1795714487196ULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pick_holds holds, again;
	static char text[PICK_FILE_MAX];

	pick_holds_parse((const char *)data, size, NOW, &holds);
	if (holds.n > PICK_HOLDS_MAX)
		abort();
	for (size_t i = 0; i < holds.n; i++) {
		const struct pick_hold *h = &holds.items[i];
		size_t len = strnlen(h->key, sizeof(h->key));
		if (len == 0 || len >= sizeof(h->key) || h->pid == 0 || h->expires_ms <= NOW ||
		    h->expires_ms - NOW > PICK_HOLD_MAX_US / 1000)
			abort();
		for (size_t k = 0; k < len; k++)
			if ((unsigned char)h->key[k] <= ' ' || (unsigned char)h->key[k] >= 0x7f)
				abort();
	}
	size_t len = pick_holds_format(&holds, text, sizeof(text));
	if (holds.n > 0 && len == 0)
		abort();
	pick_holds_parse(text, len, NOW, &again);
	if (again.n != holds.n)
		abort();
	for (size_t i = 0; i < holds.n; i++)
		if (strcmp(again.items[i].key, holds.items[i].key) != 0 || again.items[i].pid != holds.items[i].pid ||
		    again.items[i].expires_ms != holds.items[i].expires_ms)
			abort();
	return 0;
}
