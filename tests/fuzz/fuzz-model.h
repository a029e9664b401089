/* What the model harnesses share: every question hmn fit asks of a model that was read. */
#ifndef HMN_FUZZ_MODEL_H
#define HMN_FUZZ_MODEL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hmn-model.h"
#include "util/text.h"

/* What libhmn says of a model may be printed as it is: valid UTF-8, no control character. */
static inline void check_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_sequence_length(p + i, n - i, &cp);
		if (len == 0 || codepoint_is_control(cp))
			abort();
		i += len;
	}
}

/*
 * The estimate, the longest context and the GGUF layers, on whatever the
 * reader accepted: bounded work, no overflow that is not reported, and a
 * total that is the sum of its parts.
 */
static inline void ask_everything(const struct hmn_model *m)
{
	struct hmn_fit_request req;
	struct hmn_fit_parts p;
	check_printable(m->architecture);
	check_printable(m->warning);
	hmn_fit_request_init(&req);
	if (!m->context_length)
		req.context = 4096;
	for (int train = 0; train < 4; train++) {
		req.train = train & 1;
		req.eager_attention = train & 1;
		req.text_only = train & 2; /* the vision part left out: none, and no more than the whole */
		if (hmn_fit_estimate(m, &req, &p) == 0) {
			if (req.text_only && p.vision != HMN_UNKNOWN)
				abort();
			uint64_t sum = p.weights + p.kv_cache + p.activations + p.runtime + p.margin +
				       (req.train ? p.optimizer : 0) + (p.vision != HMN_UNKNOWN ? p.vision : 0);
			if (p.total != sum)
				abort();
		}
	}
	req.train = false;
	req.text_only = false;
	/*
	 * llama.cpp's file types price each tensor by its role: whatever the
	 * names and shapes, a mix of types of at most 8.5 bits a weight and
	 * f32 for the rest never passes four bytes a parameter (f16's 2 for
	 * odd rows included).
	 */
	static const enum hmn_dtype file_types[] = { HMN_DTYPE_FILE_Q4_K_M, HMN_DTYPE_FILE_IQ2_XXS, HMN_DTYPE_FILE_MXFP4_MOE };
	for (size_t i = 0; i < sizeof(file_types) / sizeof(file_types[0]); i++) {
		req.dtype = file_types[i];
		uint64_t w = hmn_fit_weights(m, &req);
		if (w != HMN_UNKNOWN && m->parameters < UINT64_MAX / 4 && w > 4 * m->parameters + 4096)
			abort();
	}
	req.dtype = HMN_DTYPE_NONE;
	uint64_t context;
	int r = hmn_fit_max_context(m, &req, 8ull << 30, &context);
	if (r == 0 && (context == 0 || (m->context_length && !req.context && context > m->context_length)))
		abort();
	uint32_t batch;
	r = hmn_fit_max_batch(m, &req, 8ull << 30, &batch);
	if (r == 0 && batch > 65536)
		abort();
	if (r < 0 && r != -EINVAL && r != -EOVERFLOW)
		abort();
	uint32_t layers;
	r = hmn_fit_gpu_layers(m, &req, 8ull << 30, &layers);
	if (r == 0 && layers > m->n_layer + 1)
		abort();
	if (r < 0 && r != -ENOTSUP && r != -EINVAL && r != -EOVERFLOW)
		abort();
}

#endif
