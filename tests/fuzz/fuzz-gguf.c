/*
 * libFuzzer harness: the GGUF header reader (lib/model/gguf.c), then every
 * question hmn fit asks of what it accepted. The input is read twice: as
 * a whole file, and as the first bytes of one with a terabyte of hole after
 * them (as the sparse test models have), so that the tensor data is there.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-model.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a file of size bytes (zeros past the input: a hole). */
static void read_as(const uint8_t *data, size_t len, uint64_t size)
{
	char why[256] = "";
	struct model_error e = { why, sizeof(why) };
	struct memory_file file = { data, len };
	struct reader r;
	struct hmn_model *m = NULL;
	memory_reader(&r, &file, size, "fuzz.gguf");
	if (gguf_read(&r, 1, &m, &e) == 0) {
		if (!m || m->format != HMN_MODEL_GGUF || m->n_layer > MODEL_MAX_LAYERS)
			abort();
		ask_everything(m);
	} else if (m) {
		abort(); /* ret_ untouched on failure */
	} else {
		check_printable(why); /* names from the file, made printable */
	}
	hmn_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_as(data, size, size);
	read_as(data, size, size + (1ull << 40));
	return 0;
}
