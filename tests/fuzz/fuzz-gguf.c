/*
 * libFuzzer harness: the GGUF header reader (lib/model/gguf.c), then every
 * question hmn fit asks of what it accepted; then the same bytes as a
 * vision projector (gguf_read_projector). The input is read twice: as
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

	/* The same bytes as a vision model's projector (mmproj-*.gguf), added to an empty model. */
	struct model_build b;
	if (model_build_start(&b, NULL) < 0)
		return;
	if (model_build_finish(&b, &e) < 0) {
		model_build_abort(&b);
		return;
	}
	m = b.m;
	uint64_t parameters = m->parameters;
	if (gguf_read_projector(&r, m, &e) == 0) {
		if (m->vision_parameters > m->parameters || m->parameters < parameters || !m->vision.weights_bytes)
			abort();
	} else {
		check_printable(why);
	}
	hmn_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_as(data, size, size);
	read_as(data, size, size + (1ull << 40));
	return 0;
}
